import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ERROR_CATALOG, modelResultSchema, ToolError, type Authorize, type Principal } from '../../src/index.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { codeOf } from '../support/assertions.js';
import { testContext } from '../../testkit/context.js';
import { receiptReconciled } from '../../src/contract/settled-results.js';
import { goodOrderOutput, orderTool, refundTool } from '../support/tools.js';
import { defineTool } from '../../testkit/define-tool.js';

const ctx = testContext();
const layer = (result: Awaited<ReturnType<typeof executeTool>>, name: string) =>
  result.audit.validation.find((l) => l.layer === name)!;

/** An order tool with `authorize`, counting handler runs. */
function guarded(authorize: Authorize<{ order_id: string }>) {
  const runs = { count: 0 };
  const tool = orderTool(
    async () => {
      runs.count += 1;
      return goodOrderOutput();
    },
    { authorize },
  );
  return { tool, runs };
}

describe('authorization layer: authorize(args, principal, ctx) before the handler', () => {
  it('true lets the call run; the layer passes under the policy revision', async () => {
    const seen: { args: unknown; principal: Principal; tool: string }[] = [];
    const { tool, runs } = guarded((args, principal, authCtx) => {
      seen.push({ args, principal, tool: authCtx.tool });
      return true;
    });
    const result = await executeTool(tool, { order_id: 'ord_1001' }, ctx);
    assert.equal(result.modelResult.status, 'succeeded');
    assert.equal(runs.count, 1);
    assert.deepEqual(seen, [{ args: { order_id: 'ord_1001' }, principal: ctx.principal, tool: 'orders.get' }]);
    assert.deepEqual(
      [layer(result, 'authorization').outcome, layer(result, 'authorization').rule_version],
      ['passed', `authorize@policy=${tool.revisions.policy}`],
    );
  });

  it('a reason refuses the call as PERMISSION_DENIED, not started: the handler never runs and only the audit keeps the reason', async () => {
    const reason = 'user-7f3a9c may not read orders of cost centre 12';
    const { tool, runs } = guarded(() => reason);
    const result = await executeTool(tool, { order_id: 'ord_1001' }, ctx);
    assert.equal(codeOf(result), 'PERMISSION_DENIED');
    assert.deepEqual(
      [result.modelResult.status, result.modelResult.execution.outcome, result.modelResult.data],
      ['failed', 'not_started', null],
    );
    assert.equal(result.modelResult.error?.message, ERROR_CATALOG.PERMISSION_DENIED.message);
    assert.ok(!JSON.stringify(result.modelResult).includes('cost centre'), 'the reason stays out of the model result');
    assert.equal(runs.count, 0);
    assert.deepEqual(
      [layer(result, 'authorization').outcome, layer(result, 'authorization').reason],
      ['failed', reason],
    );
    assert.equal(layer(result, 'protocol').reason, 'not reached');
  });

  it('only true allows: false, a truthy non-boolean and an async denial all refuse', async () => {
    for (const verdict of [false, 1, 'yes', Promise.resolve('denied later')] as unknown[]) {
      const { tool, runs } = guarded(() => verdict as boolean);
      const result = await executeTool(tool, { order_id: 'ord_1001' }, ctx);
      assert.equal(codeOf(result), 'PERMISSION_DENIED', String(verdict));
      assert.equal(runs.count, 0);
    }
  });

  it('fails closed: an authorize that throws denies; a ToolError with a catalog code keeps its code', async () => {
    const crashed = await executeTool(
      guarded(() => {
        throw new Error('policy engine crashed');
      }).tool,
      { order_id: 'ord_1001' },
      ctx,
    );
    assert.equal(codeOf(crashed), 'PERMISSION_DENIED');
    const throttled = await executeTool(
      guarded(() => Promise.reject(new ToolError('RATE_LIMITED', {}, { retryAfterMs: 500 }))).tool,
      { order_id: 'ord_1001' },
      ctx,
    );
    assert.equal(codeOf(throttled), 'RATE_LIMITED');
    assert.equal(throttled.modelResult.error?.retry_after_ms, 500);
    assert.equal(throttled.modelResult.execution.outcome, 'not_started');
  });

  it('is decided per principal: the same call by another tenant is refused', async () => {
    const { tool } = guarded(
      (_args, principal) => principal.tenant === 'tenant-acme' || `tenant ${principal.tenant} has no access`,
    );
    assert.equal(codeOf(await executeTool(tool, { order_id: 'ord_1001' }, ctx)), null);
    assert.equal(
      codeOf(
        await executeTool(
          tool,
          { order_id: 'ord_1001' },
          testContext({ principal: { tenant: 'tenant-evil', subject: 'mallory' } }),
        ),
      ),
      'PERMISSION_DENIED',
    );
  });

  it('a tool without authorize records the layer as skipped', async () => {
    const result = await executeTool(
      orderTool(async () => goodOrderOutput()),
      { order_id: 'ord_1001' },
      ctx,
    );
    assert.equal(layer(result, 'authorization').outcome, 'skipped');
  });

  it('defineTool refuses an authorize that is not a function', () => {
    assert.throws(
      () => orderTool(async () => goodOrderOutput(), { authorize: 'admin' as never }),
      /authorize must be a function/,
    );
  });
});

describe('destructive tools ask for approval unless they opt out explicitly', () => {
  const spec = {
    name: 'files.delete',
    description: 'Delete a file.',
    input: orderTool(async () => goodOrderOutput()).input,
    output: orderTool(async () => goodOrderOutput()).output,
    source: { label: 'fs', type: 'filesystem' },
    handler: async () => goodOrderOutput(),
  };
  it('destructive defaults to requiresApproval, and the effect revision says so', () => {
    const tool = defineTool({ ...spec, effect: 'destructive' });
    assert.equal(tool.requiresApproval, true);
    assert.equal(tool.revisions.effect, 'destructive+approval');
  });
  it('requiresApproval: false opts out; reads and writes keep their default of false', () => {
    assert.equal(defineTool({ ...spec, effect: 'destructive', requiresApproval: false }).requiresApproval, false);
    assert.equal(defineTool({ ...spec, effect: 'write' }).requiresApproval, false);
    assert.equal(defineTool({ ...spec, effect: 'read' }).requiresApproval, false);
  });
});

describe('authorization and reconciliation (seed 001: a reconciled delivery does not skip the current authorization)', () => {
  const output = {
    data: { refund_id: 're_1', amount_cents: 500, status: 'settled' as const },
    receipt: { externalId: 're_1', committedAt: '2026-11-30T11:59:00.000Z' },
  };
  const args = { order_id: 'ord_1001', amount_cents: 500 };

  it('a caller authorize now denies learns the write took effect and nothing else: committed, no data, no receipt id, never "not started"', async () => {
    let asked = 0;
    const revoked = {
      ...refundTool(() => Promise.reject(new Error('not run'))),
      authorize: () => {
        asked += 1;
        return 'grant revoked after dispatch';
      },
    };
    const { modelResult, audit } = await receiptReconciled(revoked, ctx, args, output);
    assert.equal(asked, 1, 'authorize is asked before the reconciled result is delivered');
    assert.deepEqual(
      [modelResult.status, modelResult.execution.outcome, modelResult.execution.delivery],
      ['partial', 'committed', 'receipt_reconciled'],
    );
    assert.equal(modelResult.data, null);
    assert.deepEqual(modelResult.execution.receipt, { external_id: null, committed_at: '2026-11-30T11:59:00.000Z' });
    assert.deepEqual(
      modelResult.warnings.map((warning) => warning.code),
      ['DELIVERY_WITHHELD'],
    );
    assert.doesNotMatch(JSON.stringify(modelResult), /re_1|revoked/);
    assert.equal(
      audit.downstream.receipt_external_id,
      're_1',
      'the audit keeps what the authoritative system confirmed',
    );
    assert.equal(audit.validation.find((entry) => entry.layer === 'authorization')?.outcome, 'failed');
    assert.equal(modelResultSchema.safeParse(modelResult).success, true);
  });

  it('a caller still authorized gets the validated result', async () => {
    const allowed = { ...refundTool(() => Promise.reject(new Error('not run'))), authorize: () => true as const };
    const { modelResult } = await receiptReconciled(allowed, ctx, args, output);
    assert.deepEqual(
      [modelResult.status, modelResult.execution.delivery, modelResult.execution.receipt?.external_id],
      ['succeeded', 'receipt_reconciled', 're_1'],
    );
  });
});
