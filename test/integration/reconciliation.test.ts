import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPEN_AND_QUERY_ACTIVITY, RECONCILE_STATE_QUERY, RESOLVE_OUTCOME_SIGNAL } from '../../src/wire/names.js';
import { RECONCILE_STATE_SA } from '../../src/wire/search-attributes.js';
import {
  reconcileWorkflowId,
  type ReconcileStatus,
  type ResolveOutcomeSignal,
  type ToolCallResult,
} from '../../workflows/index.js';
import { signedResolution } from '../support/decisions.js';
import { eventually } from '../support/eventually.js';
import { historyText } from '../support/history-text.js';
import { patchIdsOf } from '../support/patch-markers.js';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';
import { integrationStore } from '../support/integration-store.js';
import type { ToolStore } from '../../src/store/tool-store.js';
import { StoreError } from '../../src/store/store-error.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
/**
 * Writes time out after 1.5 s; reconciliation asks every 200–800 ms and escalates after 10 s without an answer: longer
 * than "not committed" waits for an attempt that may have sent its request (5 s after its record or its deadline).
 */
const fast = { timeoutMs: 1500, reconcile: { initialIntervalMs: 200, maximumIntervalMs: 800, deadlineMs: 10_000 } };
/**
 * Keys whose next settlement with a result is stored and then reported failed (retryable), as when the connection
 * drops after the commit but before its answer, or the worker dies right after the step: the query activity runs again.
 */
const dieAfterSettling = new Set<string>();
const h = useRuntimeHarness('it-reconciliation', {
  safeRetryTools: [TOOLS.charge],
  storeFactory: {
    create: async () => {
      const made = await integrationStore('it-reconciliation').create();
      const store = Object.create(made.store, {
        settleWithResult: {
          value: async (...args: Parameters<ToolStore['settleWithResult']>) => {
            const ref = await made.store.settleWithResult(...args);
            if (dieAfterSettling.delete(args[0].idempotencyKey))
              throw new StoreError('unavailable', { reason: 'the connection dropped after the commit' });
            return ref;
          },
        },
      }) as ToolStore;
      return { ...made, store };
    },
  },
});
const finished: string[] = [];

function start(
  workflowId: string,
  tool: string,
  paymentId: string,
  options: { reconcile?: Record<string, number> } = {},
) {
  finished.push(workflowId);
  return h.temporal.client.workflow.start('runToolCall', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [
      tool,
      { payment_id: paymentId, customer: 'cus_1', amount_cents: 500 },
      { principal, ...fast, reconcile: { ...fast.reconcile, ...options.reconcile } },
    ],
  });
}

/** What the audit of a not-committed settlement records about how the outcome had become unknown. */
async function unsettledBecause(auditRef: ToolCallResult['auditRef']): Promise<unknown> {
  assert.ok(auditRef !== null);
  const recorded = await h.store.getAudit(auditRef.audit_id);
  return (recorded?.audit.error_detail as { detail?: { unsettled_because?: unknown } } | null)?.detail
    ?.unsettled_because;
}

function child(tool: string, paymentId: string) {
  const id = reconcileWorkflowId(chargeKey(principal.tenant, paymentId, tool));
  if (!finished.includes(id)) finished.push(id);
  return h.temporal.client.workflow.getHandle(id);
}

test(
  'a write that commits and then times out is reconciled by key: receipt_reconciled, exactly one side effect, never re-dispatched',
  { timeout: 120_000 },
  async () => {
    const key = chargeKey(principal.tenant, 'pay_rec_1');
    h.payments.inject(key, 'commit_then_hang');
    const handle = await start('rec-commit-1', TOOLS.charge, 'pay_rec_1');
    const { modelResult, auditRef } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.status, 'succeeded');
    assert.equal(modelResult.execution.outcome, 'committed');
    assert.equal(modelResult.execution.delivery, 'receipt_reconciled');
    assert.equal(modelResult.execution.receipt?.external_id, h.payments.charge(key)?.charge_id);
    assert.ok(auditRef !== null);
    assert.equal(h.payments.commits(key), 1);
    assert.equal(h.payments.dispatches(key), 1);
    const reconciler = child(TOOLS.charge, 'pay_rec_1');
    const described = await reconciler.describe();
    assert.equal(described.type, 'reconcileToolCall');
    assert.equal(described.typedSearchAttributes.get(RECONCILE_STATE_SA), 'committed');
    const record = await h.store.getReconciliation(key);
    assert.equal(record?.state, 'settled');
    assert.equal(record?.outcome, 'committed');
    assert.equal(record?.via, 'receipt');
    assert.equal(record?.receiptExternalId, modelResult.execution.receipt?.external_id);
    assert.equal(record?.workflowId, 'rec-commit-1');
    const history = await handle.fetchHistory();
    const timedOut = (history.events ?? []).some((e) => e.activityTaskTimedOutEventAttributes);
    assert.ok(timedOut, 'the write activity really timed out');
    // Found at the first query: the round opened inside it, and that one step ran as a local activity, so the child
    // settled in its first workflow task, without an activity task.
    const childEvents = (await reconciler.fetchHistory()).events ?? [];
    const localActivities = childEvents.flatMap((e) =>
      e.markerRecordedEventAttributes?.markerName === 'core_local_activity' ? [e.markerRecordedEventAttributes] : [],
    );
    const stepOf = (marker: (typeof localActivities)[number]) =>
      (marker.details?.['data']?.payloads ?? []).map((p) => Buffer.from(p.data ?? []).toString('utf8')).join(' ');
    assert.deepEqual(
      childEvents.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []),
      [],
    );
    assert.equal(localActivities.length, 1);
    assert.ok(stepOf(localActivities[0]!).includes(OPEN_AND_QUERY_ACTIVITY));
    assert.equal(childEvents.filter((e) => e.workflowTaskCompletedEventAttributes).length, 1);
    assert.deepEqual(
      patchIdsOf(childEvents),
      [],
      'no patch marker: nothing is released, so no branch keeps old histories',
    );
  },
);

test(
  'a write that was not committed is dispatched once more with the same key when the tool allows it: exactly one side effect',
  { timeout: 120_000 },
  async () => {
    const key = chargeKey(principal.tenant, 'pay_rec_2');
    h.payments.inject(key, 'hang_before_commit');
    const handle = await start('rec-retry-1', TOOLS.charge, 'pay_rec_2');
    const { modelResult } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.status, 'succeeded');
    assert.equal(modelResult.execution.outcome, 'committed');
    assert.equal(h.payments.dispatches(key), 2, 'one dispatch, one safe re-dispatch');
    assert.equal(h.payments.commits(key), 1);
    assert.equal(h.payments.charge(key)?.idempotency_key, key, 'the re-dispatch used the same key');
    const status = await child(TOOLS.charge, 'pay_rec_2').query<ReconcileStatus>(RECONCILE_STATE_QUERY);
    assert.equal(status.redispatched, true);
  },
);

test(
  'a write that was not committed ends failed, not_started, when the tool does not allow a retry',
  { timeout: 120_000 },
  async () => {
    const key = chargeKey(principal.tenant, 'pay_rec_3', TOOLS.chargeNoRetry);
    h.payments.inject(key, 'hang_before_commit');
    const handle = await start('rec-noretry-1', TOOLS.chargeNoRetry, 'pay_rec_3');
    const { modelResult, auditRef } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.status, 'failed');
    assert.equal(modelResult.execution.outcome, 'not_started');
    assert.equal(modelResult.error?.code, 'NOT_COMMITTED');
    assert.equal(
      modelResult.execution.delivery,
      'confirmed_absent',
      'the authoritative system found nothing: no receipt was reconciled',
    );
    assert.equal(await unsettledBecause(auditRef), 'timeout');
    assert.equal(h.payments.dispatches(key), 1);
    assert.equal(h.payments.commits(key), 0);
    assert.equal((await h.store.getLedgerEntry(key))?.status, 'released', 'the key may be used again');
  },
);

test(
  'a write answered by a plain 500 before any commit, then found absent, is NOT_COMMITTED after an error: nothing says it timed out',
  { timeout: 120_000 },
  async () => {
    const key = chargeKey(principal.tenant, 'pay_rec_8', TOOLS.chargeNoRetry);
    h.payments.inject(key, 'error_before_commit');
    const handle = await start('rec-error-1', TOOLS.chargeNoRetry, 'pay_rec_8');
    const { modelResult, auditRef } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.status, 'failed');
    assert.equal(modelResult.execution.outcome, 'not_started');
    assert.equal(modelResult.error?.code, 'NOT_COMMITTED');
    assert.notEqual(modelResult.error?.code, 'TIMEOUT_BEFORE_EXECUTE');
    assert.equal(modelResult.execution.delivery, 'confirmed_absent');
    assert.equal(await unsettledBecause(auditRef), 'error');
    const history = await handle.fetchHistory();
    assert.ok(!(history.events ?? []).some((e) => e.activityTaskTimedOutEventAttributes), 'nothing timed out');
    assert.equal(h.payments.dispatches(key), 1);
    assert.equal(h.payments.commits(key), 0);
  },
);

test(
  'an outcome that never settles escalates (search attribute, listable) and a human signal resolves it: human_resolved',
  { timeout: 120_000 },
  async () => {
    const key = chargeKey(principal.tenant, 'pay_rec_4');
    h.payments.inject(key, 'commit_then_hang');
    h.payments.setStatusFault(key, 'unavailable');
    const handle = await start('rec-escalate-1', TOOLS.charge, 'pay_rec_4');
    const reconciler = child(TOOLS.charge, 'pay_rec_4');
    await eventually(
      'escalation',
      async () =>
        (await reconciler.describe()).typedSearchAttributes.get(RECONCILE_STATE_SA) === 'escalated' ? true : undefined,
      30_000,
    );
    const listed = await eventually('the escalated reconciliation to be listable', async () => {
      for await (const wf of h.temporal.client.workflow.list({ query: `${RECONCILE_STATE_SA.name} = "escalated"` }))
        if (wf.workflowId === reconciler.workflowId) return wf;
      return undefined;
    });
    assert.equal(listed.type, 'reconcileToolCall');
    const status = await reconciler.query<ReconcileStatus>(RECONCILE_STATE_QUERY);
    assert.equal(status.state, 'escalated');
    assert.ok(status.queries >= 2, 'it asked more than once with backoff before escalating');
    // A malformed resolution (committed without an external id) is refused; the workflow keeps waiting.
    await reconciler.signal(RESOLVE_OUTCOME_SIGNAL, {
      outcome: 'committed',
      resolvedBy: 'ops@example.com',
    } satisfies Omit<ResolveOutcomeSignal, 'externalId'>);
    await eventually('the malformed signal to be refused', async () =>
      (await reconciler.query<ReconcileStatus>(RECONCILE_STATE_QUERY)).refusedSignals === 1 ? true : undefined,
    );
    const externalId = h.payments.charge(key)?.charge_id ?? 'missing';
    await reconciler.signal(
      RESOLVE_OUTCOME_SIGNAL,
      signedResolution(status, {
        outcome: 'committed',
        externalId,
        resolvedBy: 'ops@example.com',
        note: 'seen in the provider dashboard',
      }),
    );
    const { modelResult } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.status, 'partial');
    assert.equal(modelResult.execution.outcome, 'committed');
    assert.equal(modelResult.execution.delivery, 'human_resolved');
    assert.equal(modelResult.execution.receipt?.external_id, externalId);
    assert.equal(h.payments.dispatches(key), 1, 'never re-dispatched');
    assert.equal(h.payments.commits(key), 1);
    const record = await h.store.getReconciliation(key);
    assert.equal(record?.state, 'settled');
    assert.equal(record?.via, 'human');
    assert.equal(record?.resolvedBy, 'ops@example.com');
    assert.ok(record !== null && record.escalatedAt !== null, 'the escalation was recorded');
    const resolved = (await h.store.listAudits({ workflowId: reconciler.workflowId }))
      .map((row) => row.audit)
      .find((audit) => audit.decision !== undefined);
    assert.equal(resolved?.decision?.kind, 'resolution');
    assert.equal(resolved?.decision?.decided_by, 'ops@example.com', 'the audit names the resolver');
    assert.equal(resolved?.decision?.note, 'seen in the provider dashboard');
    assert.equal(resolved?.decision?.external_id, externalId);
  },
);

test(
  'the reconciliation child survives its parent: a tool without reconcile escalates at once and a human settles it after the parent is gone',
  { timeout: 120_000 },
  async () => {
    const key = chargeKey(principal.tenant, 'pay_rec_5', TOOLS.chargeNoReconcile);
    h.payments.inject(key, 'hang_before_commit');
    const handle = await start('rec-orphan-1', TOOLS.chargeNoReconcile, 'pay_rec_5');
    const reconciler = child(TOOLS.chargeNoReconcile, 'pay_rec_5');
    await eventually(
      'escalation',
      async () =>
        (await reconciler.describe()).typedSearchAttributes.get(RECONCILE_STATE_SA) === 'escalated' ? true : undefined,
      30_000,
    );
    assert.equal(
      (await reconciler.query<ReconcileStatus>(RECONCILE_STATE_QUERY)).queries,
      0,
      'nothing to ask: escalated at once',
    );
    await handle.terminate('the agent was stopped');
    const escalated = await reconciler.query<ReconcileStatus>(RECONCILE_STATE_QUERY);
    await reconciler.signal(
      RESOLVE_OUTCOME_SIGNAL,
      signedResolution(escalated, { outcome: 'not_committed', resolvedBy: 'ops@example.com' }),
    );
    const { modelResult } = (await reconciler.result()) as ToolCallResult;
    assert.equal(modelResult.status, 'failed');
    assert.equal(modelResult.execution.outcome, 'not_started');
    assert.equal(modelResult.execution.delivery, 'human_resolved');
    assert.equal(h.payments.dispatches(key), 1);
    finished.splice(finished.indexOf('rec-orphan-1'), 1);
  },
);

test(
  'a second workflow using a key whose outcome is being reconciled gets OUTCOME_UNKNOWN, never a second dispatch',
  { timeout: 120_000 },
  async () => {
    const key = chargeKey(principal.tenant, 'pay_rec_7');
    h.payments.inject(key, 'commit_then_hang');
    h.payments.setStatusFault(key, 'unavailable');
    const first = await start('rec-owner-1', TOOLS.charge, 'pay_rec_7', { reconcile: { deadlineMs: 120_000 } });
    const reconciler = child(TOOLS.charge, 'pay_rec_7');
    await eventually(
      'the first workflow to be reconciling',
      async () => ((await reconciler.query<ReconcileStatus>(RECONCILE_STATE_QUERY)).queries >= 1 ? true : undefined),
      30_000,
    );
    const second = await start('rec-contender-1', TOOLS.charge, 'pay_rec_7');
    const contender = (await second.result()) as ToolCallResult;
    assert.equal(contender.modelResult.status, 'unknown');
    assert.equal(contender.modelResult.error?.code, 'OUTCOME_UNKNOWN');
    assert.equal(contender.modelResult.error?.recovery, 'query_status');
    assert.equal(h.payments.dispatches(key), 1, 'the contender never dispatched');
    h.payments.setStatusFault(key, 'truthful');
    const owner = (await first.result()) as ToolCallResult;
    assert.equal(owner.modelResult.execution.delivery, 'receipt_reconciled');
    assert.equal(h.payments.commits(key), 1);
  },
);

test('a worker stopped and restarted during reconciliation completes it', { timeout: 120_000 }, async () => {
  const key = chargeKey(principal.tenant, 'pay_rec_6');
  h.payments.inject(key, 'commit_then_hang');
  h.payments.setStatusFault(key, 'unavailable');
  // The deadline runs on workflow time, which goes on while no worker is up: give it room, or it escalates.
  const handle = await start('rec-restart-1', TOOLS.charge, 'pay_rec_6', { reconcile: { deadlineMs: 120_000 } });
  const reconciler = child(TOOLS.charge, 'pay_rec_6');
  await eventually(
    'reconciliation to be asking',
    async () => {
      const status = await reconciler.query<ReconcileStatus>(RECONCILE_STATE_QUERY);
      return status.state === 'reconciling' && status.queries >= 1 ? true : undefined;
    },
    30_000,
  );
  await h.worker.stop();
  h.payments.setStatusFault(key, 'truthful');
  await h.startWorker();
  const { modelResult } = (await handle.result()) as ToolCallResult;
  assert.equal(modelResult.execution.delivery, 'receipt_reconciled');
  assert.equal(modelResult.execution.outcome, 'committed');
  assert.equal(h.payments.dispatches(key), 1);
  assert.equal(h.payments.commits(key), 1);
});

test(
  'a query whose earlier run recorded "unknown" before its worker died keeps that answer when the retry hears "committed", and the next query settles the call',
  { timeout: 120_000 },
  async () => {
    const key = chargeKey(principal.tenant, 'pay_rec_9');
    h.payments.inject(key, 'commit_then_hang');
    // What a worker killed just after recording query 1 leaves behind: that query's answer, before its retry asks.
    h.payments.beforeNextStatusQuery(key, async () => {
      await h.store.recordReconciliationAttempt({
        idempotencyKey: key,
        attempt: 1,
        finding: 'unknown',
        detail: 'lost',
      });
    });
    const handle = await start('rec-retried-query', TOOLS.charge, 'pay_rec_9');
    const { modelResult } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.status, 'succeeded');
    assert.equal(modelResult.execution.delivery, 'receipt_reconciled');
    assert.equal(h.payments.commits(key), 1);
    assert.equal(h.payments.dispatches(key), 1);
    const record = await h.store.getReconciliation(key);
    assert.deepEqual(
      record?.attempts.map(({ attempt, finding, detail }) => [attempt, finding, detail]),
      [
        [1, 'unknown', 'lost'],
        [2, 'committed', modelResult.execution.receipt?.external_id],
      ],
    );
    assert.deepEqual([record?.state, record?.outcome, record?.via], ['settled', 'committed', 'receipt']);
    const reconciler = child(TOOLS.charge, 'pay_rec_9');
    assert.equal((await reconciler.query<ReconcileStatus>(RECONCILE_STATE_QUERY)).queries, 2);
  },
);

test(
  'a query whose earlier run settled the call "committed" but failed after the commit returns that settlement when the retry hears nothing: no conflict, one audit',
  { timeout: 120_000 },
  async () => {
    const key = chargeKey(principal.tenant, 'pay_rec_10');
    h.payments.inject(key, 'commit_then_hang');
    // The first status query answers the truth (committed) and its settlement is stored, but the activity hears a
    // failure; the retry of that query finds the status service unavailable.
    h.payments.injectStatus(key, 'slow', 'unavailable');
    dieAfterSettling.add(key);
    const handle = await start('rec-settled-then-died', TOOLS.charge, 'pay_rec_10');
    const { modelResult, auditRef } = (await handle.result()) as ToolCallResult;
    assert.equal(dieAfterSettling.has(key), false, 'the settlement was stored before the failure');
    assert.equal(h.payments.statusQueries(key), 2, 'the query ran twice');
    assert.equal(modelResult.status, 'succeeded');
    assert.equal(modelResult.execution.delivery, 'receipt_reconciled');
    assert.equal(h.payments.commits(key), 1);
    const record = await h.store.getReconciliation(key);
    assert.deepEqual(
      record?.attempts.map(({ attempt, finding }) => [attempt, finding]),
      [[1, 'committed']],
    );
    assert.ok(auditRef !== null);
    assert.deepEqual(
      (await h.store.getAudit(auditRef.audit_id))?.modelResult,
      modelResult,
      'the result is the audited one',
    );
  },
);

test(
  'an accepted payout job is polled by its handle until it is paid: accepted first, then succeeded via receipt_reconciled after two polls',
  { timeout: 120_000 },
  async () => {
    const key = chargeKey(principal.tenant, 'pay_job_1', TOOLS.payout);
    h.payments.payoutRunsFor(key, 1);
    finished.push('job-1');
    const handle = await h.temporal.client.workflow.start('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId: 'job-1',
      args: [TOOLS.payout, { payout_request: 'pay_job_1', amount_cents: 900 }, { principal, ...fast }],
    });
    const { modelResult } = (await handle.result()) as ToolCallResult;
    const job = h.payments.payout(key);
    assert.equal(modelResult.status, 'succeeded');
    assert.equal(modelResult.execution.outcome, 'committed');
    assert.equal(modelResult.execution.delivery, 'receipt_reconciled');
    assert.equal(modelResult.execution.receipt?.external_id, job?.payout_id);
    assert.deepEqual(modelResult.data, { payout_id: job?.payout_id, amount_cents: 900, status: 'paid' });
    assert.equal(job?.polls, 2, 'running once, then paid');
    const { text } = await historyText(h.temporal.client, 'job-1');
    assert.match(text, /"status":"accepted"/, 'the tool activity answered accepted, with the job');
    assert.match(text, new RegExp(`"handle":"${job?.job_id ?? 'missing'}"`));
    const reconciler = child(TOOLS.payout, 'pay_job_1');
    assert.equal((await reconciler.query<ReconcileStatus>(RECONCILE_STATE_QUERY)).queries, 2);
    const record = await h.store.getReconciliation(key);
    assert.deepEqual([record?.state, record?.outcome, record?.via], ['settled', 'committed', 'receipt']);
  },
);

test(
  'recorded histories of the parent and reconciliation workflows replay deterministically',
  { timeout: 120_000 },
  async () => {
    assert.ok(finished.some((id) => id.startsWith('ttc-reconcile:')));
    assert.deepEqual(await h.replay(finished), []);
  },
);
