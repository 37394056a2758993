import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditRecordSchema } from '../../src/contract/audit-record.js';
import { canonicalJson } from '../../src/contract/canonical-json.js';
import { type ExecutionContext } from '../../src/contract/execution-context.js';
import { type ToolExecution } from '../../src/contract/execute-tool.js';
import { catalogFailure } from '../../src/contract/call-failure.js';
import { failedExecution } from '../../src/contract/execute-tool.js';
import { executeTool, ToolError } from './execute-tool.imports.js';
import { codeOf } from '../support/assertions.js';
import { testContext } from '../../testkit/context.js';
import { goodOrderOutput, orderTool, refundTool, returning } from '../support/tools.js';

const LONE = '\ud800';
const base = testContext();

/** The record a host stores: both projections must have a canonical form and the audit must satisfy its schema. */
function assertRecordable(result: ToolExecution): void {
  assert.doesNotThrow(() => canonicalJson(result.modelResult));
  assert.doesNotThrow(() => canonicalJson(result.audit));
  assert.ok(auditRecordSchema.safeParse(result.audit).success, 'audit violates tool-result.audit.v1');
}

const unrecordable: [string, ExecutionContext][] = [
  ['idempotencyKey', testContext({ idempotencyKey: `idem-${LONE}-0001` })],
  ['operationId', testContext({ operationId: `op-${LONE}` })],
  ['principal.tenant', testContext({ principal: { tenant: `acme${LONE}`, subject: 'user-7f3a9c' } })],
  ['provider.providerCallId', testContext({ provider: { ...base.provider, providerCallId: `call_${LONE}` } })],
  [
    'temporal.workflowId',
    testContext({ temporal: { workflowId: `wf-${LONE}`, runId: 'run-1', activityId: '3', attempt: 1 } }),
  ],
];

describe('trusted values without a canonical form: a catalogued refusal with an audit, never a throw', () => {
  for (const [field, ctx] of unrecordable) {
    it(`a lone surrogate in ${field} is TOOL_ERROR at the input layer; the handler never runs`, async () => {
      let called = false;
      const tool = orderTool(() => {
        called = true;
        return Promise.resolve(goodOrderOutput());
      });
      const result = await executeTool(tool, { order_id: 'ord_1001' }, ctx);
      assert.equal(codeOf(result), 'TOOL_ERROR');
      assert.equal(result.modelResult.status, 'failed');
      assert.equal(result.modelResult.execution.outcome, 'not_started');
      assert.equal(called, false);
      assert.equal(result.audit.validation.find((l) => l.layer === 'input')!.outcome, 'failed');
      assert.deepEqual((result.audit.error_detail as { unrecordable_context: string[] }).unrecordable_context, [field]);
      assertRecordable(result);
    });
  }

  it('failedExecution keeps the failure it was given (an unknown write stays unknown) and records what it can', () => {
    const ctx = testContext({ operationId: `op-${LONE}`, idempotencyKey: `idem-${LONE}-0001` });
    const result = failedExecution(
      refundTool(returning({})),
      ctx,
      catalogFailure('OUTCOME_UNKNOWN', 'side_effect', null),
      { order_id: 'ord_1' },
    );
    assert.equal(codeOf(result), 'OUTCOME_UNKNOWN');
    assert.equal(result.audit.idempotency_key, 'idem-\ufffd-0001');
    assert.deepEqual((result.audit.error_detail as { unrecordable_context: string[] }).unrecordable_context, [
      'operationId',
      'idempotencyKey',
    ]);
    assertRecordable(result);
  });
});

describe('handler-supplied text that reaches the audit is always recordable', () => {
  it('a receipt id with a lone surrogate still proves the commit', async () => {
    const tool = refundTool(
      returning({
        data: { refund_id: 'rf_1', amount_cents: 500, status: 'settled' },
        receipt: { externalId: `psp_${LONE}`, committedAt: '2026-11-30T11:59:59Z' },
      }),
    );
    const result = await executeTool(tool, { order_id: 'ord_1', amount_cents: 500 }, base);
    assert.equal(result.modelResult.status, 'succeeded');
    assert.equal(result.modelResult.execution.outcome, 'committed');
    assert.equal(result.audit.downstream.receipt_external_id, 'psp_\ufffd');
    assertRecordable(result);
  });

  it('a thrown error whose details hold lone surrogates (in values and keys) keeps its code', async () => {
    const tool = orderTool(() => Promise.reject(new ToolError('NOT_FOUND', { [`key${LONE}`]: `value${LONE}` })));
    const result = await executeTool(tool, { order_id: 'ord_1001' }, base);
    assert.equal(codeOf(result), 'NOT_FOUND');
    assertRecordable(result);
  });

  it('a failure reason cut through a surrogate pair does not leave half of it in the audit', async () => {
    const reason = `${'x'.repeat(999)}😀 and more`;
    const tool = orderTool(returning(goodOrderOutput()), {
      invariants: [{ id: 'long-reason', version: 1, check: () => reason }],
    });
    const result = await executeTool(tool, { order_id: 'ord_1001' }, base);
    assert.equal(codeOf(result), 'INVARIANT_VIOLATION');
    assertRecordable(result);
  });

  it('downstream references with lone surrogates are recorded with U+FFFD', async () => {
    const output = { ...goodOrderOutput(), downstream: { requestRef: `req_${LONE}`, statusRef: `st_${LONE}` } };
    const result = await executeTool(orderTool(returning(output)), { order_id: 'ord_1001' }, base);
    assert.equal(result.modelResult.status, 'succeeded');
    assert.equal(result.audit.downstream.request_ref, 'req_\ufffd');
    assertRecordable(result);
  });
});
