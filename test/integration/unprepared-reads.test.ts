// Reads dispatched without `prepare`: a read of a tool the workflow already prepared once (patch
// `ttc.known-reads-skip-prepare`), and a read its caller expects to be plain (`expectPlainRead`). What a call does and records must not change, only the local activity before it
// goes; a tool that is not a plain read must never run unprepared.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { defineTool, verifyAudit } from '../../src/index.js';
import { PREPARATION_NEEDED_KIND, TOOL_ACTIVITY_INPUT_KIND } from '../../src/wire/message-kinds.js';
import { KNOWN_READS_SKIP_PREPARE_PATCH } from '../../src/wire/names.js';
import { WORKFLOW_PROVIDER, type CorrelatedResult, type ToolCallResult } from '../../workflows/index.js';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import { callHistoryOf } from '../support/call-history.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };

/** A plain read with call defaults of its own: the workflow must learn them from a preparation before it runs. */
const tunedLookup = defineTool({
  name: 'catalog.tuned_lookup',
  description: 'Looks up a catalogue entry by its key.',
  input: z.strictObject({ key: z.string() }),
  output: z.strictObject({ key: z.string() }),
  effect: 'read',
  source: { label: 'catalogue', type: 'database' },
  callDefaults: { timeoutMs: 20_000 },
  handler: async ({ key }) => ({ data: { key } }),
});

const h = useRuntimeHarness('it-known-reads', { extraTools: [tunedLookup] });

async function sequence(workflowId: string, calls: { name: string; args: unknown }[], options: Record<string, unknown> = {}): Promise<ToolCallResult[]> {
  return (await h.temporal.client.workflow.execute('sequentialCalls', { taskQueue: h.taskQueue, workflowId, args: [calls, { principal, ...options }] })) as ToolCallResult[];
}

const historyOf = (workflowId: string) => callHistoryOf(h.temporal.client, workflowId);

test('a tool read again in one run is prepared once: later reads go straight to the tool activity, each audited as before', { timeout: 120_000 }, async () => {
  const ids = ['cus_1', 'cus_2', 'cus_3'];
  const results = await sequence('known-reads-three', ids.map((id) => ({ name: TOOLS.customer, args: { customer_id: id } })));
  assert.deepEqual(results.map((r) => r.modelResult.status), ['succeeded', 'succeeded', 'succeeded']);
  assert.deepEqual(results.map((r) => (r.modelResult.data as { id: string }).id), ids);
  const history = await historyOf('known-reads-three');
  assert.equal(history.prepares, 1, 'only the first read was prepared');
  assert.deepEqual(history.patches, [KNOWN_READS_SKIP_PREPARE_PATCH]);
  assert.deepEqual(history.activities, [TOOLS.customer, TOOLS.customer, TOOLS.customer]);
  assert.match(history.summaries[0]!, /cus_1/, 'a prepared call shows its (redacted) arguments');
  assert.deepEqual(history.summaries.slice(1), [`${TOOLS.customer} [read] call-2`, `${TOOLS.customer} [read] call-3`], 'a known read names its call, no arguments: the redacted preview is the worker\'s');
  // Each read has its own audit, bound to its own call, under the identity `prepare` would have given it.
  const tool = h.tools.get(TOOLS.customer);
  for (const [i, result] of results.entries()) {
    const stored = await h.store.getAudit(result.auditRef!.audit_id);
    assert.ok(stored !== null);
    assert.deepEqual(stored.modelResult, result.modelResult);
    const callId = `call-${i + 1}`;
    const operationId = `known-reads-three:${callId}`;
    const trusted = { principal, tool, arguments: { customer_id: ids[i] }, provider: WORKFLOW_PROVIDER, callId, operationId, idempotencyKey: operationId };
    assert.deepEqual(verifyAudit({ modelResult: result.modelResult, audit: stored.audit, trusted }), { ok: true, failed: [] }, `read ${i + 1}`);
  }
});

test('a known read with invalid arguments is refused by the tool activity exactly as a prepared one is', { timeout: 120_000 }, async () => {
  const [first, known] = await sequence('known-reads-invalid', [
    { name: TOOLS.customer, args: { customer_id: 'cus_1' } },
    { name: TOOLS.customer, args: { customer_id: 42, extra: true } },
  ]);
  const [prepared] = await sequence('known-reads-invalid-prepared', [{ name: TOOLS.customer, args: { customer_id: 42, extra: true } }]);
  assert.equal(first!.modelResult.status, 'succeeded');
  assert.equal((await historyOf('known-reads-invalid')).prepares, 1, 'the invalid call was not prepared');
  assert.equal(known!.modelResult.error?.code, 'INVALID_ARGUMENTS');
  assert.deepEqual(
    { status: known!.modelResult.status, code: known!.modelResult.error?.code, layer: known!.modelResult.error?.layer, outcome: known!.modelResult.execution.outcome },
    { status: prepared!.modelResult.status, code: prepared!.modelResult.error?.code, layer: prepared!.modelResult.error?.layer, outcome: prepared!.modelResult.execution.outcome },
  );
  assert.ok(known!.auditRef !== null, 'the refusal is audited');
});

test('call limits hold for known reads, and writes are prepared every time', { timeout: 120_000 }, async () => {
  const limited = await sequence('known-reads-limit', [1, 2, 3].map((n) => ({ name: TOOLS.customer, args: { customer_id: `cus_${n}` } })), { callLimits: { [TOOLS.customer]: 2 } });
  assert.deepEqual(limited.map((r) => r.modelResult.error?.code ?? r.modelResult.status), ['succeeded', 'succeeded', 'CALL_LIMIT_EXCEEDED']);
  assert.deepEqual((await historyOf('known-reads-limit')).activities, [TOOLS.customer, TOOLS.customer, 'ttc.settleToolCall'], 'the call past the limit did not run: it was settled');

  const writes = await sequence('known-reads-writes', [1, 2].map((n) => ({ name: TOOLS.charge, args: { payment_id: `pay_known_${n}`, customer: 'cus_1', amount_cents: 100 } })));
  assert.deepEqual(writes.map((r) => r.modelResult.status), ['succeeded', 'succeeded']);
  const history = await historyOf('known-reads-writes');
  assert.equal(history.prepares, 2, 'every write is prepared');
  assert.deepEqual(history.patches, []);
});

test('a call dispatched as a known read of a tool that is no longer a plain read is refused by the worker and never runs', { timeout: 120_000 }, async () => {
  const args = { payment_id: 'pay_known_changed', customer: 'cus_1', amount_cents: 100 };
  const input = { kind: TOOL_ACTIVITY_INPUT_KIND, args, callId: 'call-1', operationId: 'known-reads-changed:call-1', idempotencyKey: 'known-reads-changed:call-1', principal, provider: WORKFLOW_PROVIDER, dispatch: 'dispatch', knownRead: true };
  const result = (await h.temporal.client.workflow.execute('scheduleToolActivity', { taskQueue: h.taskQueue, workflowId: 'known-reads-changed', args: [TOOLS.charge, input] })) as ToolCallResult;
  assert.equal(result.modelResult.error?.code, 'TOOL_ERROR');
  assert.equal(result.modelResult.execution.outcome, 'not_started');
  assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_known_changed')), 0, 'the write never reached the provider');
});

test('reads the caller expects to be plain are never prepared: each runs straight away, audited under the identity preparation would give', { timeout: 120_000 }, async () => {
  const ids = ['cus_1', 'cus_2'];
  const results = await sequence('expected-reads-plain', ids.map((id) => ({ name: TOOLS.customer, args: { customer_id: id } })), { expectPlainRead: true });
  assert.deepEqual(results.map((r) => r.modelResult.status), ['succeeded', 'succeeded']);
  const history = await historyOf('expected-reads-plain');
  assert.equal(history.prepares, 0, 'no call was prepared');
  assert.deepEqual(history.patches, [], 'the first read ran as expected (the option chose it), the second as a known read of a tool learned so (no run before known reads has one): no marker');
  assert.deepEqual(history.summaries, [`${TOOLS.customer} [read] call-1`, `${TOOLS.customer} [read] call-2`]);
  const tool = h.tools.get(TOOLS.customer);
  for (const [i, result] of results.entries()) {
    const stored = await h.store.getAudit(result.auditRef!.audit_id);
    assert.ok(stored !== null);
    const callId = `call-${i + 1}`;
    const operationId = `expected-reads-plain:${callId}`;
    const trusted = { principal, tool, arguments: { customer_id: ids[i] }, provider: WORKFLOW_PROVIDER, callId, operationId, idempotencyKey: operationId };
    assert.deepEqual(verifyAudit({ modelResult: result.modelResult, audit: stored.audit, trusted }), { ok: true, failed: [] }, `read ${i + 1}`);
  }
});

test('a write the caller expected to be a plain read never runs unprepared: the worker sends it back, it is prepared, run once under its business key', { timeout: 120_000 }, async () => {
  const calls = [1, 2].map((n) => ({ name: TOOLS.charge, args: { payment_id: `pay_expected_${n}`, customer: 'cus_1', amount_cents: 100 } }));
  const results = await sequence('expected-reads-write', calls, { expectPlainRead: true });
  assert.deepEqual(results.map((r) => r.modelResult.status), ['succeeded', 'succeeded']);
  for (const n of [1, 2]) assert.equal(h.payments.dispatches(chargeKey(principal.tenant, `pay_expected_${n}`)), 1, `charge ${n} reached the provider once, under its business key`);
  const history = await historyOf('expected-reads-write');
  assert.equal(history.prepares, 2, 'both charges were prepared');
  assert.deepEqual(history.activities, [TOOLS.charge, TOOLS.charge, TOOLS.charge], 'only the first call was dispatched unprepared; the run then knew the tool is not a plain read');
  assert.deepEqual(history.patches, []);
});

test('an expected read of a tool with call defaults of its own, or of an unknown tool, is prepared before it runs', { timeout: 120_000 }, async () => {
  const [tuned, unknown] = await sequence('expected-reads-fallback', [
    { name: tunedLookup.name, args: { key: 'k1' } },
    { name: 'customers.nonexistent', args: { customer_id: 'cus_1' } },
  ], { expectPlainRead: true });
  assert.equal(tuned!.modelResult.status, 'succeeded');
  assert.equal(unknown!.modelResult.error?.code, 'UNKNOWN_TOOL');
  assert.ok(unknown!.auditRef !== null, 'the unknown tool is refused by preparation, with its audit');
  const history = await historyOf('expected-reads-fallback');
  assert.equal(history.prepares, 2);
  assert.deepEqual(history.activities, [tunedLookup.name, tunedLookup.name, 'customers.nonexistent'], 'each was dispatched unprepared once (the unknown one only reached no worker function), then the tuned read ran prepared');
});

test('a worker asked to run an expected read of a write or approval-gated tool runs nothing and asks for a preparation', { timeout: 120_000 }, async () => {
  for (const [tool, paymentId] of [[TOOLS.charge, 'pay_expected_direct'], [TOOLS.refund, 'pay_expected_refund']] as const) {
    const args = { payment_id: paymentId, customer: 'cus_1', amount_cents: 100 };
    const workflowId = `expected-reads-direct-${tool}`;
    const input = { kind: TOOL_ACTIVITY_INPUT_KIND, args, callId: 'call-1', operationId: `${workflowId}:call-1`, idempotencyKey: `${workflowId}:call-1`, principal, provider: WORKFLOW_PROVIDER, dispatch: 'dispatch', expectedRead: true };
    const result: unknown = await h.temporal.client.workflow.execute('scheduleToolActivity', { taskQueue: h.taskQueue, workflowId, args: [tool, input] });
    assert.deepEqual(result, { kind: PREPARATION_NEEDED_KIND }, tool);
    assert.equal(await h.store.getLedgerEntry(`${workflowId}:call-1`), null, `${tool}: nothing was claimed or recorded`);
    assert.equal(h.payments.dispatches(chargeKey(principal.tenant, paymentId, tool)), 0, `${tool}: the write never reached the provider`);
  }
});

test('in a batch, writes the caller expected to be reads still run one at a time, after the batch\'s own writes', { timeout: 120_000 }, async () => {
  const charge = (n: number) => ({ name: TOOLS.charge, args: { payment_id: `pay_expected_batch_${n}`, customer: 'cus_1', amount_cents: 100 }, callId: `charge-${n}` });
  const calls = [charge(1), { name: TOOLS.customer, args: { customer_id: 'cus_1' }, callId: 'read-1' }, charge(2)];
  const results = (await h.temporal.client.workflow.execute('runToolCalls', { taskQueue: h.taskQueue, workflowId: 'expected-reads-batch', args: [calls, { principal, expectPlainRead: true }] })) as CorrelatedResult[];
  assert.deepEqual(results.map((r) => [r.callId, r.modelResult.status]), [['charge-1', 'succeeded'], ['read-1', 'succeeded'], ['charge-2', 'succeeded']]);
  for (const n of [1, 2]) assert.equal(h.payments.dispatches(chargeKey(principal.tenant, `pay_expected_batch_${n}`)), 1);
  // The prepared charges' activities (those not dispatched as expected reads) never overlap.
  const events = (await h.temporal.client.workflow.getHandle('expected-reads-batch').fetchHistory()).events ?? [];
  const inputText = (event: (typeof events)[number]) => (event.activityTaskScheduledEventAttributes?.input?.payloads ?? []).map((p) => Buffer.from(p.data ?? []).toString('utf8')).join('');
  const charges = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === TOOLS.charge);
  assert.equal(charges.length, 4, 'each charge was dispatched unprepared once, then prepared and run');
  const prepared = charges.filter((e) => !inputText(e).includes('"expectedRead":true'));
  assert.equal(prepared.length, 2);
  const closedAt = (scheduled: (typeof events)[number]) =>
    events.findIndex((e) => String((e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes)?.scheduledEventId ?? '') === String(scheduled.eventId));
  assert.ok(closedAt(prepared[0]!) < events.indexOf(prepared[1]!), 'the second prepared charge was scheduled after the first completed');
});

test('runs with known and expected reads replay deterministically (their histories are replay fixtures)', { timeout: 120_000 }, async () => {
  assert.deepEqual(await h.replay(['known-reads-three', 'known-reads-invalid', 'known-reads-limit', 'expected-reads-plain', 'expected-reads-write', 'expected-reads-fallback', 'expected-reads-batch']), []);
});
