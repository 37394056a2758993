// A read of a tool the workflow already prepared once skips `prepare` (patch `ttc.known-reads-skip-prepare`): what
// the call does and records must not change, only the local activity before it goes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verifyAudit } from '../../src/index.js';
import { TOOL_ACTIVITY_INPUT_KIND } from '../../src/wire/message-kinds.js';
import { KNOWN_READS_SKIP_PREPARE_PATCH, PREPARE_CALL_ACTIVITY } from '../../src/wire/names.js';
import { WORKFLOW_PROVIDER, type ToolCallResult } from '../../workflows/index.js';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import { patchIdsOf } from '../support/patch-markers.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const h = useRuntimeHarness('it-known-reads');

async function sequence(workflowId: string, calls: { name: string; args: unknown }[], options: Record<string, unknown> = {}): Promise<ToolCallResult[]> {
  return (await h.temporal.client.workflow.execute('sequentialCalls', { taskQueue: h.taskQueue, workflowId, args: [calls, { principal, ...options }] })) as ToolCallResult[];
}

/** What the run's history shows of its calls: prepares (local activity markers), patch markers, activities and their summaries. */
async function historyOf(workflowId: string): Promise<{ prepares: number; patches: string[]; activities: string[]; summaries: string[] }> {
  const events = (await h.temporal.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const markers = events.flatMap((e) => (e.markerRecordedEventAttributes ? [e.markerRecordedEventAttributes] : []));
  const text = (payloads: { data?: Uint8Array | null }[] | null | undefined) => (payloads ?? []).map((p) => Buffer.from(p.data ?? []).toString('utf8')).join(' ');
  const scheduled = events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [e] : []));
  return {
    prepares: markers.filter((m) => m.markerName === 'core_local_activity' && text(m.details?.['data']?.payloads).includes(PREPARE_CALL_ACTIVITY)).length,
    patches: patchIdsOf(events),
    activities: scheduled.map((e) => e.activityTaskScheduledEventAttributes!.activityType?.name ?? ''),
    summaries: scheduled.map((e) => JSON.parse(text(e.userMetadata?.summary ? [e.userMetadata.summary] : [])) as string),
  };
}

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

test('runs with known reads replay deterministically (their histories are replay fixtures)', { timeout: 120_000 }, async () => {
  assert.deepEqual(await h.replay(['known-reads-three', 'known-reads-invalid', 'known-reads-limit']), []);
});
