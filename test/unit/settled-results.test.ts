import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ModelResult } from '../../src/index.js';
import { verifyAudit } from '../../src/contract/bindings.js';
import { type ExecutionContext } from '../../src/contract/execution-context.js';
import { type ToolExecution } from '../../src/contract/execute-tool.js';
import {
  asLocalReplay,
  humanCommitted,
  notCommitted,
  receiptReconciled,
  reshapeExecution,
  withOutcomeUnknown,
} from '../../src/contract/settled-results.js';
import { testContext } from '../../testkit/context.js';
import { refundTool } from '../support/tools.js';

const tool = refundTool(() => Promise.reject(new Error('settled results never run the handler')));
const args = { order_id: 'ord_1001', amount_cents: 500 };
const receipt = {
  data: { refund_id: 're_1', amount_cents: 500, status: 'settled' as const },
  receipt: { externalId: 're_1', committedAt: '2026-11-30T11:59:00.000Z' },
};

function assertVerifies(execution: ToolExecution, ctx: ExecutionContext): void {
  const trusted = {
    principal: ctx.principal,
    tool,
    arguments: args,
    provider: ctx.provider,
    callId: ctx.callId,
    operationId: ctx.operationId,
    idempotencyKey: ctx.idempotencyKey,
  };
  assert.deepEqual(verifyAudit({ modelResult: execution.modelResult, audit: execution.audit, trusted }), {
    ok: true,
    failed: [],
  });
  assert.equal(execution.audit.status, execution.modelResult.status);
  assert.equal(execution.audit.error_code, execution.modelResult.error?.code ?? null);
}

describe('settled results', () => {
  it('an unknown outcome says so and asks to query, not retry; its audit verifies', () => {
    const ctx = testContext();
    const execution = withOutcomeUnknown(tool, ctx, args, { reason: 'claimed, never settled' });
    assert.equal(execution.modelResult.status, 'unknown');
    assert.equal(execution.modelResult.execution.outcome, 'unknown');
    assert.equal(execution.modelResult.error?.code, 'OUTCOME_UNKNOWN');
    assert.equal(execution.modelResult.error?.recovery, 'query_status');
    assertVerifies(execution, ctx);
  });

  it('a write the authoritative system found absent is NOT_COMMITTED, delivered confirmed_absent (no receipt exists); its audit verifies', () => {
    const ctx = testContext();
    for (const unsettledBecause of ['timeout', 'error', 'lost', 'unknown'] as const) {
      const execution = notCommitted(tool, ctx, args, { by: 'reconciliation', unsettledBecause });
      assert.equal(execution.modelResult.status, 'failed');
      assert.equal(execution.modelResult.execution.outcome, 'not_started');
      assert.equal(execution.modelResult.execution.delivery, 'confirmed_absent');
      assert.equal(execution.modelResult.execution.receipt, null);
      assert.equal(execution.modelResult.error?.code, 'NOT_COMMITTED');
      assert.equal(execution.modelResult.error?.layer, 'side_effect');
      assert.equal(
        (execution.audit.error_detail as { detail: { unsettled_because: string } }).detail.unsettled_because,
        unsettledBecause,
      );
      assertVerifies(execution, ctx);
    }
  });

  it('a person confirming the write did not happen gives NOT_COMMITTED, human_resolved; its audit verifies', () => {
    const ctx = testContext();
    const execution = notCommitted(tool, ctx, args, { by: 'human', resolvedBy: 'ops@acme', note: null });
    assert.equal(execution.modelResult.error?.code, 'NOT_COMMITTED');
    assert.equal(execution.modelResult.execution.delivery, 'human_resolved');
    assertVerifies(execution, ctx);
  });

  it('a receipt runs through the funnel and is delivered as receipt_reconciled; its audit verifies', async () => {
    const ctx = testContext();
    const execution = await receiptReconciled(tool, ctx, args, receipt);
    assert.equal(execution.modelResult.status, 'succeeded');
    assert.equal(execution.modelResult.execution.outcome, 'committed');
    assert.equal(execution.modelResult.execution.delivery, 'receipt_reconciled');
    assert.equal(execution.modelResult.execution.receipt?.external_id, 're_1');
    assertVerifies(execution, ctx);
    const invalid = await receiptReconciled(tool, ctx, args, {
      ...receipt,
      data: { ...receipt.data, amount_cents: -1 },
    });
    assert.equal(
      invalid.modelResult.error?.code,
      'OUTPUT_CONTRACT_VIOLATION',
      'a reconciled output is validated like a fresh one',
    );
  });

  it('a person confirming the write gives partial, committed, human_resolved, without data; its audit verifies', () => {
    const ctx = testContext();
    const execution = humanCommitted(tool, ctx, args, {
      outcome: 'committed',
      externalId: 're_9',
      resolvedBy: 'ops@acme',
      note: null,
    });
    assert.equal(execution.modelResult.status, 'partial');
    assert.equal(execution.modelResult.error, null);
    assert.equal(execution.modelResult.data, null);
    assert.deepEqual(execution.modelResult.execution, {
      outcome: 'committed',
      delivery: 'human_resolved',
      receipt: { external_id: 're_9', committed_at: null },
    });
    assert.deepEqual(
      execution.modelResult.warnings.map((warning) => warning.code),
      ['HUMAN_RESOLVED'],
    );
    assertVerifies(execution, ctx);
  });

  it('a ledger replay keeps every fact and changes only the delivery', async () => {
    const { modelResult } = await receiptReconciled(tool, testContext(), args, receipt);
    const replay = asLocalReplay(modelResult);
    assert.deepEqual(replay, { ...modelResult, execution: { ...modelResult.execution, delivery: 'local_replay' } });
  });

  it('a person’s receipt id reaches the model bounded, well-formed and redacted, and the redaction is audited (regression)', () => {
    const ctx = testContext();
    const split = `${'r'.repeat(255)}😀`;
    const cut = humanCommitted(tool, ctx, args, {
      outcome: 'committed',
      externalId: split,
      resolvedBy: 'ops@acme',
      note: null,
    });
    assert.equal(
      cut.modelResult.execution.receipt?.external_id,
      `${'r'.repeat(255)}\uFFFD`,
      'no half of a surrogate pair left by the cut',
    );
    assertVerifies(cut, ctx);
    const secret = 'ghp_FAKE0123456789abcdefghijklmnopqrstuv';
    const pasted = humanCommitted(tool, ctx, args, {
      outcome: 'committed',
      externalId: `re_9 (${secret})`,
      resolvedBy: 'ops@acme',
      note: null,
    });
    assert.equal(pasted.modelResult.execution.receipt?.external_id, 're_9 ([REDACTED])');
    assert.deepEqual(pasted.audit.redactions, [
      { path: '/execution/receipt/external_id', reason: 'secret_pattern:github_token' },
    ]);
    assertVerifies(pasted, ctx);
  });

  it('a settled result that cannot be shaped ends catalogued as an unknown outcome, never thrown (regression)', () => {
    const ctx = testContext();
    const settled = notCommitted(tool, ctx, args, { by: 'human', resolvedBy: 'ops@acme', note: null });
    const defects = [
      {
        reason: 'settled_result_invalid',
        change: (result: ModelResult) => ({
          ...result,
          execution: { ...result.execution, delivery: 'carrier_pigeon' as never },
        }),
      },
      {
        reason: 'settled_result_threw',
        change: (): ModelResult => {
          throw new Error('a rewrite with a defect');
        },
      },
    ];
    for (const { reason, change } of defects) {
      const defect = reshapeExecution(settled, change, { tool, ctx, rawArgs: args });
      assert.equal(defect.modelResult.status, 'unknown', reason);
      assert.equal(defect.modelResult.execution.outcome, 'unknown');
      assert.equal(defect.modelResult.error?.code, 'OUTCOME_UNKNOWN');
      assert.equal((defect.audit.error_detail as { detail: { reason: string } }).detail.reason, reason);
      assertVerifies(defect, ctx);
    }
    // A key the audit must record cut: the bindings are over the recorded values, as the funnel's are.
    const longKey = testContext({ idempotencyKey: `k${'e'.repeat(5_000)}\ud800` });
    const unknown = withOutcomeUnknown(tool, longKey, args, { reason: 'claimed, never settled' });
    assert.equal(unknown.modelResult.error?.code, 'OUTCOME_UNKNOWN');
    assert.ok(unknown.audit.idempotency_key.length < 2_100);
  });
});
