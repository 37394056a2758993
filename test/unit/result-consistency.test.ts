import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { AdapterError, toResponsesOutput } from '../../src/adapters/openai.js';
import {
  ERROR_CATALOG,
  modelResultSchema,
  type CatalogCode,
  ToolDefinitionError,
  ToolError,
  type ModelResult,
} from '../../src/index.js';
import { defineTool } from '../../testkit/define-tool.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { resultDigest } from '../../src/audit/index.js';
import { preparedRecord } from '../../src/store/pg/pg-record-execution.js';
import { isStoreError } from '../../src/store/store-error.js';
import { humanCommitted } from '../../src/contract/settled-results.js';
import { testContext } from '../../testkit/context.js';
import { refundTool } from '../support/tools.js';

/** A committed refund as the funnel builds it: the baseline every edit below starts from. */
async function committedRefund(): Promise<ModelResult> {
  const tool = refundTool(() =>
    Promise.resolve({
      data: { refund_id: 'rf_1', amount_cents: 5, status: 'settled' as const },
      receipt: { externalId: 'rf_1' },
    }),
  );
  return (await executeTool(tool, { order_id: 'ord_1', amount_cents: 5 }, testContext())).modelResult;
}

/** A refused write (invalid arguments) as the funnel builds it. */
async function refusedRefund(): Promise<ModelResult> {
  return (
    await executeTool(
      refundTool(() => Promise.reject(new Error('unreachable'))),
      { order_id: 'ord_1', amount_cents: -1 },
      testContext(),
    )
  ).modelResult;
}

const catalogFields = (code: CatalogCode) => {
  const { category, message, retryable, recovery } = ERROR_CATALOG[code];
  return { category, message, retryable, recovery };
};

const refusedByAdapter = (result: ModelResult) =>
  assert.throws(
    () => toResponsesOutput('call_1', result),
    (error: unknown) => error instanceof AdapterError && error.code === 'INVALID_MODEL_RESULT',
  );

describe('a result never contradicts itself about its side effect (seeds 000, 001)', () => {
  it('the baselines are valid', async () => {
    assert.equal(modelResultSchema.safeParse(await committedRefund()).success, true);
    assert.equal(modelResultSchema.safeParse(await refusedRefund()).success, true);
  });

  it('OUTCOME_UNKNOWN with outcome not_started is refused by the schema and by an adapter', async () => {
    const refused = await refusedRefund();
    const contradiction: ModelResult = {
      ...refused,
      error: {
        code: 'OUTCOME_UNKNOWN',
        category: 'side_effect',
        message: 'It is not known whether this operation took effect. Do not repeat it; its status is being checked.',
        retryable: false,
        recovery: 'query_status',
        layer: 'side_effect',
      },
      execution: { ...refused.execution, outcome: 'not_started' },
    };
    assert.equal(modelResultSchema.safeParse(contradiction).success, false);
    refusedByAdapter(contradiction);
  });

  it('retry_after_ms on an error whose recovery is not to wait (INVALID_ARGUMENTS) is refused, and never produced', async () => {
    const refused = await refusedRefund();
    assert.equal(refused.error?.code, 'INVALID_ARGUMENTS');
    const contradiction: ModelResult = { ...refused, error: { ...refused.error, retry_after_ms: 5000 } };
    assert.equal(modelResultSchema.safeParse(contradiction).success, false);
    refusedByAdapter(contradiction);
    // A handler that attaches a wait to a code that is not waited out: the wait is dropped, not shown.
    const thrower = refundTool(() => Promise.reject(new ToolError('INVALID_ARGUMENTS', {}, { retryAfterMs: 5000 })));
    const { modelResult } = await executeTool(thrower, { order_id: 'ord_1', amount_cents: 5 }, testContext());
    assert.equal(modelResult.error?.code, 'INVALID_ARGUMENTS');
    assert.equal(modelResult.error?.retry_after_ms, undefined);
    const limited = refundTool(() => Promise.reject(new ToolError('RATE_LIMITED', {}, { retryAfterMs: 5000 })));
    assert.equal(
      (await executeTool(limited, { order_id: 'ord_1', amount_cents: 5 }, testContext())).modelResult.error
        ?.retry_after_ms,
      5000,
    );
  });

  it('a committed write without a receipt, an unknown outcome reported failed, a committed one reported failed: refused', async () => {
    const committed = await committedRefund();
    const variants: ModelResult[] = [
      { ...committed, execution: { ...committed.execution, receipt: null } },
      {
        ...committed,
        status: 'failed',
        data: null,
        error: (await refusedRefund()).error,
        execution: { ...committed.execution, outcome: 'unknown', receipt: null },
      },
      { ...committed, status: 'failed', data: null, error: { code: 'TOOL_ERROR', ...catalogFields('TOOL_ERROR') } },
    ];
    for (const variant of variants) {
      assert.equal(modelResultSchema.safeParse(variant).success, false, JSON.stringify(variant.execution));
      refusedByAdapter(variant);
    }
  });

  it('the Postgres store refuses to record a result that contradicts itself, even with its digests recomputed', async () => {
    const tool = refundTool(() =>
      Promise.resolve({
        data: { refund_id: 'rf_1', amount_cents: 5, status: 'settled' as const },
        receipt: { externalId: 'rf_1' },
      }),
    );
    const execution = await executeTool(tool, { order_id: 'ord_1', amount_cents: 5 }, testContext());
    const modelResult: ModelResult = {
      ...execution.modelResult,
      execution: { ...execution.modelResult.execution, receipt: null },
    };
    const audit = {
      ...execution.audit,
      bindings: { ...execution.audit.bindings, result_sha256: resultDigest(modelResult) },
    };
    assert.throws(
      () =>
        preparedRecord(
          { execution: { ...execution, modelResult, audit }, workflowId: 'wf-1', runId: 'run-1' },
          new Date(),
        ),
      (error: unknown) =>
        isStoreError(error) && error.reason === 'invalid_input' && error.details['field'] === 'execution.modelResult',
    );
  });
});

describe('receipts: the model sees the id, or only the audit keeps it (seed 000 vs seed 001)', () => {
  const payout = (receiptVisibility?: 'model' | 'audit_only') =>
    defineTool({
      name: 'payouts.send',
      description: 'Send a payout to a supplier.',
      input: z.strictObject({ supplier: z.string() }),
      output: z.strictObject({ amount_cents: z.number().int() }),
      effect: 'write',
      source: { label: 'bank', type: 'http_api' },
      ...(receiptVisibility === undefined ? {} : { receiptVisibility }),
      handler: () =>
        Promise.resolve({
          data: { amount_cents: 900 },
          receipt: { externalId: 'bank-txn-7781', committedAt: '2026-11-30T11:59:00Z' },
        }),
      reconcile: () => Promise.resolve({ state: 'unknown' as const }),
    });

  it('by default the model sees the receipt id (seed 000: the id a user asks for)', async () => {
    const { modelResult, audit } = await executeTool(payout(), { supplier: 's-1' }, testContext());
    assert.equal(modelResult.execution.receipt?.external_id, 'bank-txn-7781');
    assert.equal(audit.downstream.receipt_external_id, 'bank-txn-7781');
  });

  it('audit_only: the model result keeps a receipt without its id, the audit keeps the id, adapters render no id', async () => {
    const { modelResult, audit } = await executeTool(payout('audit_only'), { supplier: 's-1' }, testContext());
    assert.equal(modelResult.status, 'succeeded');
    assert.equal(modelResult.execution.outcome, 'committed');
    assert.deepEqual(modelResult.execution.receipt, { external_id: null, committed_at: '2026-11-30T11:59:00.000Z' });
    assert.equal(audit.downstream.receipt_external_id, 'bank-txn-7781');
    assert.doesNotMatch(toResponsesOutput('call_1', modelResult).output, /bank-txn-7781/);
  });

  it("audit_only holds for a person's resolution too, and a read cannot choose it", () => {
    const settled = humanCommitted(
      payout('audit_only'),
      testContext(),
      { supplier: 's-1' },
      { outcome: 'committed', externalId: 'bank-txn-9', resolvedBy: 'ops', note: null },
    );
    assert.deepEqual(settled.modelResult.execution.receipt, { external_id: null, committed_at: null });
    assert.throws(
      () =>
        defineTool({
          name: 'payouts.list',
          description: 'List payouts.',
          input: z.strictObject({}),
          output: z.strictObject({}),
          effect: 'read',
          source: { label: 'bank', type: 'http_api' },
          receiptVisibility: 'audit_only',
          handler: () => Promise.resolve({ data: {} }),
        }),
      ToolDefinitionError,
    );
  });
});
