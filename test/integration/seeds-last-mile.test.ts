// Issue 27 on a real Temporal dev server and a real Postgres: an invariant failure halts the run's writes (seed 004),
// a reconciled delivery and a local replay ask authorize again (seed 001), and the worker runs no call bound to a
// provider binding it does not accept (seed 001).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { type HandlerContext } from '../../src/index.js';
import { defineTool } from '../../testkit/define-tool.js';
import { TOOL_ACTIVITY_INPUT_KIND } from '../../src/wire/message-kinds.js';
import { WORKFLOW_PROVIDER, type ToolCallResult } from '../../workflows/index.js';
import { eventually } from '../support/eventually.js';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
/** Writes time out after 1.5 s; reconciliation asks every 200–800 ms. */
const fast = { timeoutMs: 1500, reconcile: { initialIntervalMs: 200, maximumIntervalMs: 800, deadlineMs: 10_000 } };
const GUARDED = 'payments.charge_guarded';
/** Subjects whose grant to charge was revoked (read by the guarded charge's `authorize` on every ask). */
const revoked = new Set<string>();

/** A stock read whose answer breaks its own invariant: more reserved than in stock. */
const stockAudit = defineTool({
  name: 'stock.count',
  description: 'Count the stock of one product, with what is reserved.',
  input: z.strictObject({ sku: z.string() }),
  output: z.strictObject({ sku: z.string(), stock: z.number().int(), reserved: z.number().int() }),
  effect: 'read',
  source: { label: 'warehouse', type: 'database' },
  invariants: [
    {
      id: 'reserved-within-stock',
      version: 1,
      check: (data) => data.reserved <= data.stock || 'more reserved than in stock',
    },
  ],
  handler: (args) => Promise.resolve({ data: { sku: args.sku, stock: 3, reserved: 5 } }),
});

const h = useRuntimeHarness('it-seeds-last-mile', {
  extraTools: [
    stockAudit,
    // The harness's charge, asking authorize on every check: the grant can be revoked while a call is under way.
    defineTool({
      name: GUARDED,
      description: 'Charge a customer once per payment id, for callers still allowed to charge.',
      input: z.strictObject({
        payment_id: z.string().regex(/^pay_\w+$/),
        customer: z.string(),
        amount_cents: z.number().int().positive(),
      }),
      output: z.strictObject({ charge_id: z.string(), amount_cents: z.number().int(), status: z.literal('succeeded') }),
      effect: 'write',
      source: { label: 'payments-api', type: 'http_api' },
      businessKey: ['payment_id'],
      authorize: (_args, caller) => !revoked.has(caller.subject) || 'grant to charge revoked',
      handler: (args, ctx: HandlerContext) => h.tools.get(TOOLS.charge).handler(args, ctx),
      reconcile: (key, ctx) => h.tools.get(TOOLS.charge).reconcile!(key, ctx),
    }),
  ],
});

async function execute<T>(workflowType: string, workflowId: string, args: unknown[]): Promise<T> {
  return (await h.temporal.client.workflow.execute(workflowType, { taskQueue: h.taskQueue, workflowId, args })) as T;
}
const charge = (paymentId: string) => ({ payment_id: paymentId, customer: 'cus_1', amount_cents: 500 });

test(
  'an invariant failure halts the later writes of the same run (WRITES_HALTED, nothing sent); opting out runs them',
  { timeout: 120_000 },
  async () => {
    const calls = [
      { name: 'stock.count', args: { sku: 'sku_1' } },
      { name: TOOLS.charge, args: charge('pay_slm_halted') },
    ];
    const [read, write] = await execute<ToolCallResult[]>('sequentialCalls', 'slm-halted', [calls, { principal }]);
    assert.equal(read?.modelResult.error?.code, 'INVARIANT_VIOLATION');
    assert.deepEqual(
      [write?.modelResult.error?.code, write?.modelResult.execution.outcome, write?.modelResult.error?.recovery],
      ['WRITES_HALTED', 'not_started', 'human_review'],
    );
    assert.equal(
      h.payments.dispatches(chargeKey(principal.tenant, 'pay_slm_halted')),
      0,
      'the write never reached the provider',
    );
    const history = await h.temporal.client.workflow.getHandle('slm-halted').fetchHistory();
    const scheduled = (history.events ?? []).flatMap(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
    );
    assert.ok(!scheduled.includes(TOOLS.charge), `no charge activity was scheduled: ${scheduled.join(', ')}`);

    const [, ran] = await execute<ToolCallResult[]>('sequentialCalls', 'slm-not-halted', [
      [calls[0], { name: TOOLS.charge, args: charge('pay_slm_continue') }],
      { principal, onInvariantFailure: 'continue' },
    ]);
    assert.equal(ran?.modelResult.status, 'succeeded');
  },
);

test(
  'a write reconciliation finds committed is not shown to a caller no longer authorized: committed, withheld, never "not started"',
  { timeout: 120_000 },
  async () => {
    const key = chargeKey(principal.tenant, 'pay_slm_revoked', GUARDED);
    const caller = { tenant: principal.tenant, subject: 'user-revoked-later' };
    h.payments.inject(key, 'commit_then_hang');
    const handle = await h.temporal.client.workflow.start('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId: 'slm-reconciled-revoked',
      args: [GUARDED, charge('pay_slm_revoked'), { principal: caller, ...fast }],
    });
    // The charge was authorized and sent; it committed and its answer hangs. Now the grant is revoked.
    await eventually(
      'the charge to commit',
      () => Promise.resolve(h.payments.commits(key) === 1 ? true : undefined),
      30_000,
    );
    revoked.add(caller.subject);
    const { modelResult, auditRef } = (await handle.result()) as ToolCallResult;
    assert.deepEqual(
      [modelResult.status, modelResult.execution.outcome, modelResult.execution.delivery],
      ['partial', 'committed', 'receipt_reconciled'],
    );
    assert.deepEqual(
      [modelResult.data, modelResult.execution.receipt?.external_id, modelResult.warnings.map((w) => w.code)],
      [null, null, ['DELIVERY_WITHHELD']],
    );
    assert.equal(h.payments.commits(key), 1);
    assert.equal(h.payments.dispatches(key), 1, 'never sent again');
    const recorded = await h.store.getAudit(auditRef!.audit_id);
    assert.equal(
      recorded?.audit.downstream.receipt_external_id,
      h.payments.charge(key)?.charge_id,
      'the audit keeps the receipt',
    );
    assert.equal(recorded?.audit.validation.find((layer) => layer.layer === 'authorization')?.outcome, 'failed');
  },
);

test(
  'a local replay asks authorize again: a caller it refuses learns only that the write took effect',
  { timeout: 120_000 },
  async () => {
    const caller = { tenant: principal.tenant, subject: 'user-replayed' };
    const first = await execute<ToolCallResult>('runToolCall', 'slm-replay-first', [
      GUARDED,
      charge('pay_slm_replay'),
      { principal: caller },
    ]);
    assert.equal(first.modelResult.status, 'succeeded');
    const key = chargeKey(principal.tenant, 'pay_slm_replay', GUARDED);
    const dispatch = (workflowId: string) => {
      const input = {
        kind: TOOL_ACTIVITY_INPUT_KIND,
        args: charge('pay_slm_replay'),
        callId: 'call-1',
        operationId: `${workflowId}:call-1`,
        idempotencyKey: key,
        principal: caller,
        provider: WORKFLOW_PROVIDER,
        dispatch: 'dispatch',
        revision: h.tools.get(GUARDED).facts.revision,
      };
      return execute<ToolCallResult>('scheduleToolActivity', workflowId, [GUARDED, input]);
    };
    const replayed = await dispatch('slm-replay-allowed');
    assert.deepEqual(
      [replayed.modelResult.status, replayed.modelResult.execution.delivery],
      ['succeeded', 'local_replay'],
    );
    revoked.add(caller.subject);
    const withheld = await dispatch('slm-replay-revoked');
    assert.deepEqual(
      [
        withheld.modelResult.status,
        withheld.modelResult.execution.outcome,
        withheld.modelResult.execution.delivery,
        withheld.modelResult.data,
      ],
      ['partial', 'committed', 'local_replay', null],
    );
    assert.deepEqual(
      withheld.modelResult.warnings.map((w) => w.code),
      ['DELIVERY_WITHHELD'],
    );
    assert.equal(h.payments.dispatches(key), 1, 'replays send nothing');
  },
);

test(
  'the worker runs no call bound to a provider binding it does not accept (seed 001: unregistered adapter revisions)',
  { timeout: 120_000 },
  async () => {
    const provider = {
      provider: 'openai',
      apiFamily: 'openai.responses',
      responseId: 'resp_1',
      providerCallId: 'call_1',
      adapterRevision: 'my-adapter@0',
    };
    const result = await execute<ToolCallResult>('runToolCall', 'slm-provider-refused', [
      TOOLS.charge,
      charge('pay_slm_provider'),
      { principal, provider },
    ]);
    assert.deepEqual(
      [result.modelResult.error?.code, result.modelResult.execution.outcome],
      ['TOOL_ERROR', 'not_started'],
    );
    assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_slm_provider')), 0);
    const accepted = await execute<ToolCallResult>('runToolCall', 'slm-provider-default', [
      TOOLS.customer,
      { customer_id: 'cus_1' },
      { principal },
    ]);
    assert.equal(accepted.modelResult.status, 'succeeded', "the package's own bindings are accepted");
  },
);
