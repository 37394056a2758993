import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { verifyAudit } from '../../src/contract/bindings.js';
import { ToolContractPlugin } from '../../src/temporal/plugin.js';
import { WORKFLOW_PROVIDER, type CorrelatedResult, type ToolCallResult } from '../../workflows/index.js';
import { testDecisions } from '../support/decisions.js';
import { historyText } from '../support/history-text.js';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const h = useRuntimeHarness('it-tool-calls');
const finished: string[] = [];

async function run(
  workflowId: string,
  name: string,
  args: unknown,
  options: Record<string, unknown> = {},
): Promise<ToolCallResult> {
  const result: unknown = await h.temporal.client.workflow.execute('runToolCall', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [name, args, { principal, ...options }],
  });
  finished.push(workflowId);
  return result as ToolCallResult;
}

test(
  'a read runs as an activity named after the tool and returns a validated model result plus an audit reference',
  { timeout: 120_000 },
  async () => {
    const { modelResult, auditRef } = await run('read-ok', TOOLS.customer, { customer_id: 'cus_1' });
    assert.equal(modelResult.status, 'succeeded');
    assert.deepEqual(modelResult.data, { id: 'cus_1', name: 'Customer cus_1', tier: 'gold' });
    assert.deepEqual(modelResult.execution, { outcome: 'none', delivery: 'fresh', receipt: null });
    assert.equal(modelResult.evidence.length, 1);
    assert.ok(auditRef !== null && /^aud_/.test(auditRef.audit_id));
    const history = await h.temporal.client.workflow.getHandle('read-ok').fetchHistory();
    const scheduled = (history.events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [],
    );
    assert.deepEqual(scheduled, [TOOLS.customer]);
    const { text: historyDecoded } = await historyText(h.temporal.client, 'read-ok');
    assert.match(historyDecoded, /tool-result\.model\.v1/, 'payloads are decoded (the model result is in history)');
    assert.doesNotMatch(historyDecoded, /tool-result\.audit\.v1/, 'the audit record never enters history');
    // The protected audit is in Postgres, bound to exactly the model result the workflow got.
    const stored = await h.store.getAudit(auditRef.audit_id);
    assert.ok(stored !== null);
    assert.deepEqual(stored.modelResult, modelResult);
    assert.equal(stored.audit.temporal?.workflow_id, 'read-ok');
    assert.equal(stored.audit.bindings.call_binding_sha256, auditRef.call_binding_sha256);
    const tool = h.tools.get(TOOLS.customer);
    const verification = verifyAudit({
      modelResult,
      audit: stored.audit,
      trusted: {
        principal,
        tool,
        arguments: { customer_id: 'cus_1' },
        provider: WORKFLOW_PROVIDER,
        callId: 'call-1',
        operationId: 'read-ok:call-1',
        idempotencyKey: 'read-ok:call-1',
      },
    });
    assert.deepEqual(verification, { ok: true, failed: [] });
    const evidence = await h.store.listEvidence({ workflowId: 'read-ok' });
    assert.deepEqual(
      evidence.map((e) => e.evidenceId),
      modelResult.evidence.map((e) => e.evidence_id),
    );
  },
);

test('a secret in the arguments never reaches the activity summary', { timeout: 120_000 }, async () => {
  await run('read-secret-arg', TOOLS.customer, { customer_id: 'cus_2', api_token: 'sk_live_0123456789abcdefXYZ' });
  const history = await h.temporal.client.workflow.getHandle('read-secret-arg').fetchHistory();
  // Summaries are payloads: decode their bytes (JSON.stringify of the events would not show the text).
  const summaries = (history.events ?? [])
    .flatMap((e) => (e.userMetadata?.summary?.data ? [Buffer.from(e.userMetadata.summary.data).toString('utf8')] : []))
    .join('\n');
  assert.match(summaries, new RegExp(TOOLS.customer.replace('.', '\\.')), 'the activity summary names the tool');
  assert.doesNotMatch(summaries, /sk_live_0123456789abcdefXYZ/);
});

test('hostile handlers end as catalogued errors and the workflow continues', { timeout: 120_000 }, async () => {
  const extra = await run('hostile-extra', TOOLS.hostile, { mode: 'extra_status' });
  assert.equal(extra.modelResult.status, 'failed');
  assert.equal(extra.modelResult.error?.code, 'OUTPUT_CONTRACT_VIOLATION');
  assert.equal(extra.modelResult.data, null);
  assert.doesNotMatch(JSON.stringify(extra.modelResult), /sk_live_/);
  const thrown = await run('hostile-throws', TOOLS.hostile, { mode: 'throws' });
  assert.equal(thrown.modelResult.error?.code, 'TOOL_ERROR');
  assert.doesNotMatch(JSON.stringify(thrown.modelResult), /hunter2/);
  assert.doesNotMatch(
    (await historyText(h.temporal.client, 'hostile-throws')).text,
    /hunter2/,
    'exception text never reaches history',
  );
  const notObject = await run('hostile-not-object', TOOLS.hostile, { mode: 'not_object' });
  assert.equal(notObject.modelResult.error?.code, 'OUTPUT_CONTRACT_VIOLATION');
});

test(
  'an unknown tool is refused before any tool activity is scheduled, invalid arguments before the handler runs',
  { timeout: 120_000 },
  async () => {
    const unknown = await run('unknown-tool', 'payments.teleport', { to: 'mars' });
    assert.equal(unknown.modelResult.error?.code, 'UNKNOWN_TOOL');
    assert.equal(unknown.modelResult.execution.outcome, 'not_started');
    const invalid = await run('invalid-args', TOOLS.charge, { payment_id: 'nope', customer: 'c', amount_cents: -1 });
    assert.equal(invalid.modelResult.error?.code, 'INVALID_ARGUMENTS');
    assert.equal(invalid.modelResult.error?.recovery, 'correct_input');
    // The unknown name reaches no tool activity: only the package's own, which records the refusal in the audit.
    const history = await h.temporal.client.workflow.getHandle('unknown-tool').fetchHistory();
    const scheduled = (history.events ?? []).flatMap(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
    );
    assert.deepEqual(scheduled, ['ttc.settleToolCall']);
    assert.ok(unknown.auditRef !== null, 'the refusal is audited');
    assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'nope')), 0);
  },
);

test('a business error from a read is not retried; NOT_FOUND comes back catalogued', { timeout: 120_000 }, async () => {
  const { modelResult } = await run('read-not-found', TOOLS.customer, { customer_id: 'cus_missing' });
  assert.equal(modelResult.error?.code, 'NOT_FOUND');
  const history = await h.temporal.client.workflow.getHandle('read-not-found').fetchHistory();
  const started = (history.events ?? []).find(
    (e) => e.activityTaskStartedEventAttributes,
  )?.activityTaskStartedEventAttributes;
  assert.equal(started?.attempt, 1);
});

test(
  'a retryable read failure is retried by Temporal per policy, and the last attempt returns the catalogued result',
  { timeout: 120_000 },
  async () => {
    const { modelResult } = await run(
      'read-throttled',
      TOOLS.customer,
      { customer_id: 'cus_throttled' },
      { readAttempts: 3 },
    );
    assert.equal(modelResult.error?.code, 'RATE_LIMITED');
    assert.equal(modelResult.error?.recovery, 'retry_after');
    assert.equal(modelResult.error?.retry_after_ms, 100);
    const history = await h.temporal.client.workflow.getHandle('read-throttled').fetchHistory();
    const started = (history.events ?? []).find(
      (e) => e.activityTaskStartedEventAttributes,
    )?.activityTaskStartedEventAttributes;
    assert.equal(started?.attempt, 3);
    const audits = await h.store.listAudits({ workflowId: 'read-throttled' });
    assert.deepEqual(
      audits.map((a) => a.attempt),
      [1, 2, 3],
      'every attempt is audited',
    );
  },
);

test(
  'parallel reads run concurrently, writes one at a time, and every result is correlated to its call id',
  { timeout: 120_000 },
  async () => {
    const calls = [
      { name: TOOLS.slowRead, args: { sku: 'a' }, callId: 'fc_read_a' },
      { name: TOOLS.slowRead, args: { sku: 'bb' }, callId: 'fc_read_b' },
      { name: TOOLS.slowRead, args: { sku: 'ccc' }, callId: 'fc_read_c' },
      {
        name: TOOLS.charge,
        args: { payment_id: 'pay_batch_1', customer: 'cus_1', amount_cents: 100 },
        callId: 'fc_write_1',
      },
      {
        name: TOOLS.charge,
        args: { payment_id: 'pay_batch_2', customer: 'cus_1', amount_cents: 200 },
        callId: 'fc_write_2',
      },
      { name: 'no.such.tool', args: {}, callId: 'fc_unknown' },
    ];
    const started = Date.now();
    const results = (await h.temporal.client.workflow.execute('runToolCalls', {
      taskQueue: h.taskQueue,
      workflowId: 'batch-1',
      args: [calls, { principal }],
    })) as CorrelatedResult[];
    const elapsed = Date.now() - started;
    finished.push('batch-1');
    assert.deepEqual(
      results.map((r) => r.callId),
      calls.map((c) => c.callId),
    );
    for (const [i, sku] of ['a', 'bb', 'ccc'].entries())
      assert.deepEqual(results[i]?.modelResult.data, { sku, stock: sku.length });
    assert.equal(results[3]?.modelResult.status, 'succeeded');
    assert.equal(results[5]?.modelResult.error?.code, 'UNKNOWN_TOOL');
    // Three 1.5 s reads in sequence would take 4.5 s on their own.
    assert.ok(elapsed < 4400, `reads ran in parallel (took ${elapsed} ms)`);
    const history = await h.temporal.client.workflow.getHandle('batch-1').fetchHistory();
    const events = history.events ?? [];
    const scheduledAt = (type: string, nth: number) =>
      events
        .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === type)
        .map((e) => Number(e.eventId))[nth];
    const completedFor = (scheduledId: number | undefined) =>
      Number(
        events.find((e) => Number(e.activityTaskCompletedEventAttributes?.scheduledEventId) === scheduledId)?.eventId,
      );
    const firstWrite = scheduledAt(TOOLS.charge, 0);
    const secondWrite = scheduledAt(TOOLS.charge, 1);
    assert.ok(firstWrite !== undefined && secondWrite !== undefined);
    assert.ok(completedFor(firstWrite) < secondWrite, 'the second write was scheduled only after the first completed');
  },
);

test(
  'the same business key twice is a local replay with exactly one side effect; other arguments are an idempotency conflict',
  { timeout: 120_000 },
  async () => {
    const args = { payment_id: 'pay_replay', customer: 'cus_9', amount_cents: 1200 };
    const first = await run('replay-first', TOOLS.charge, args);
    assert.equal(first.modelResult.execution.delivery, 'fresh');
    assert.equal(first.modelResult.execution.outcome, 'committed');
    const second = await run('replay-second', TOOLS.charge, args);
    assert.equal(second.modelResult.execution.delivery, 'local_replay');
    assert.deepEqual(second.modelResult.data, first.modelResult.data);
    assert.equal(h.payments.commits(chargeKey(principal.tenant, 'pay_replay')), 1);
    assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_replay')), 1);
    assert.equal((await h.store.getLedgerEntry(chargeKey(principal.tenant, 'pay_replay')))?.status, 'completed');
    const conflict = await run('replay-conflict', TOOLS.charge, { ...args, amount_cents: 9999 });
    assert.equal(conflict.modelResult.error?.code, 'IDEMPOTENCY_CONFLICT');
    assert.equal(conflict.modelResult.execution.outcome, 'not_started');
    assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_replay')), 1);
  },
);

test(
  'a write that fails before committing is failed, not started, and not reconciled',
  { timeout: 120_000 },
  async () => {
    h.payments.inject(chargeKey(principal.tenant, 'pay_fail_early'), 'fail_before_commit');
    const { modelResult } = await run('write-fail-early', TOOLS.charge, {
      payment_id: 'pay_fail_early',
      customer: 'c',
      amount_cents: 10,
    });
    assert.equal(modelResult.error?.code, 'UPSTREAM_UNAVAILABLE');
    assert.equal(modelResult.execution.outcome, 'not_started');
    assert.equal(h.payments.commits(chargeKey(principal.tenant, 'pay_fail_early')), 0);
    assert.equal(
      h.payments.dispatches(chargeKey(principal.tenant, 'pay_fail_early')),
      1,
      'a write is never retried by Temporal',
    );
  },
);

test('a state patch from workflow code cites the evidence ids the read returned', { timeout: 120_000 }, async () => {
  const result = (await h.temporal.client.workflow.execute('readThenPatch', {
    taskQueue: h.taskQueue,
    workflowId: 'read-then-patch',
    args: [
      TOOLS.customer,
      { customer_id: 'cus_7' },
      { principal, callId: 'call-tier', key: 'customer.tier', pointer: '/tier' },
    ],
  })) as {
    read: ToolCallResult;
    patch: { applied: boolean; version: number; patch: { evidenceIds: string[]; value: unknown } } | null;
  };
  finished.push('read-then-patch');
  assert.ok(result.patch !== null);
  assert.equal(result.patch.applied, true);
  assert.equal(result.patch.version, 1);
  assert.deepEqual(
    result.patch.patch.evidenceIds,
    result.read.modelResult.evidence.map((e) => e.evidence_id),
  );
  assert.equal(result.patch.patch.value, 'gold');
});

test(
  'two workflows writing state under the same patch id (the README refundOrder run twice for one order) each apply their own patch',
  { timeout: 120_000 },
  async () => {
    for (const workflowId of ['patch-rerun-1', 'patch-rerun-2']) {
      const result = (await h.temporal.client.workflow.execute('readThenPatch', {
        taskQueue: h.taskQueue,
        workflowId,
        args: [
          TOOLS.customer,
          { customer_id: 'cus_7' },
          { principal, callId: 'call-tier', key: 'customer.tier', pointer: '/tier', patchId: 'tier-cus_7' },
        ],
      })) as { patch: { applied: boolean; version: number; patch: { patchId: string; workflowId: string } } | null };
      finished.push(workflowId);
      assert.deepEqual(
        [result.patch?.applied, result.patch?.version, result.patch?.patch.patchId, result.patch?.patch.workflowId],
        [true, 1, 'tier-cus_7', workflowId],
      );
      assert.equal((await h.store.getState(workflowId, 'customer.tier'))?.patchId, 'tier-cus_7');
    }
  },
);

test(
  'a stale state patch fails with failure type STATUS_CONFLICT and never overwrites',
  { timeout: 120_000 },
  async () => {
    const error = await h.temporal.client.workflow
      .execute('readThenPatch', {
        taskQueue: h.taskQueue,
        workflowId: 'read-then-patch-stale',
        args: [
          TOOLS.customer,
          { customer_id: 'cus_7' },
          { principal, callId: 'call-tier', key: 'customer.tier', pointer: '/tier', expectedVersion: 3 },
        ],
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    assert.ok(error instanceof WorkflowFailedError);
    assert.ok(error.cause instanceof ActivityFailure);
    assert.ok(error.cause.cause instanceof ApplicationFailure);
    assert.equal(error.cause.cause.type, 'STATUS_CONFLICT');
    assert.equal(error.cause.cause.nonRetryable, true);
    const patches = await h.store.listStatePatches({ workflowId: 'read-then-patch-stale' });
    assert.equal(patches.length, 0);
  },
);

test(
  'the plugin registered twice still normalizes each result once and records one audit row',
  { timeout: 120_000 },
  async () => {
    const plugin = () => new ToolContractPlugin({ tools: h.tools, store: h.store, decisions: testDecisions });
    const taskQueue = `${h.taskQueue}-twice`;
    const twice = await h.startWorker({ taskQueue, plugins: [plugin(), plugin()] });
    try {
      const result = (await h.temporal.client.workflow.execute('runToolCall', {
        taskQueue,
        workflowId: 'plugin-twice',
        args: [TOOLS.customer, { customer_id: 'cus_3' }, { principal }],
      })) as ToolCallResult;
      finished.push('plugin-twice');
      assert.equal(result.modelResult.status, 'succeeded');
      assert.deepEqual(result.modelResult.data, { id: 'cus_3', name: 'Customer cus_3', tier: 'gold' });
      assert.deepEqual(Object.keys(result).sort(), ['auditRef', 'modelResult']);
      const audits = await h.store.listAudits({ workflowId: 'plugin-twice' });
      assert.equal(audits.length, 1);
    } finally {
      await twice.stop();
    }
  },
);

test('recorded histories of these workflows replay deterministically', { timeout: 120_000 }, async () => {
  const failures = await h.replay(finished);
  assert.deepEqual(failures, []);
  assert.ok(finished.length >= 10);
});
