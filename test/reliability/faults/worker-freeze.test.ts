import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { SDK_LOCAL_TIMEOUT_BUFFER_MS } from '../../../activities/attempt-deadline.js';
import { LATE_RESULT_ESCALATION } from '../../../src/store/lease.js';
import { unauthenticatedForDevelopment } from '../../../src/decisions/index.js';
import { ToolContractPlugin } from '../../../src/temporal/plugin.js';
import { reconcileWorkflowId } from '../../../src/wire/ids.js';
import { RECONCILE_STATE_QUERY, RESOLVE_OUTCOME_SIGNAL } from '../../../src/wire/names.js';
import type { ReconcileStatus, ResolveOutcomeSignal, ToolCallResult } from '../../../workflows/index.js';
import { startDispatchProbe, type DispatchProbe, type FreezePlan, type Frozen } from '../../support/dispatch-probe.js';
import { eventually } from '../../support/eventually.js';
import { chargeKey, TOOLS } from '../../../testkit/payment-tools.js';
import { runInBackground, type RunningWorker } from '../../../testkit/running-worker.js';
import { failureChain } from './support/failure-chain.js';
import { startFaultWorld, type FaultWorld } from './support/fault-world.js';
import type { WorkerProcess } from './support/spawn-worker.js';

// A worker frozen (SIGSTOP, as a long GC pause or a suspended VM would) at its dispatch point, and woken up
// (SIGCONT) at the worst moments: right after its call was settled, past its own local timeout, while reconciliation
// still asks. The write runs on an activity-only worker process with one slot (so while frozen it holds no poll that
// could swallow other tasks); workflows run on a worker in this process, and once the victim is frozen a second
// in-process worker takes over the activities. The charge tool is the one without a safe retry: "not committed" is
// the model's final answer, so a commit behind it would be exactly the contradiction issue 18 reported. Past the
// fence, most cases send without the deadline signal (`sendRegardless`): the request is as good as on the wire when
// the worker freezes, so nothing on waking can stop it — the case the fence cannot prevent and detection must catch.

const principal = { tenant: 'tenant-faults', subject: 'user-18' };
const TIMEOUT_MS = 2000;
const callOptions = {
  principal,
  timeoutMs: TIMEOUT_MS,
  reconcile: { initialIntervalMs: 200, maximumIntervalMs: 1000, deadlineMs: 600_000 },
};

let world: FaultWorld;
let probe: DispatchProbe;
let victim: WorkerProcess;
const workers = new Set<RunningWorker>();

before(
  async () => {
    world = await startFaultWorld('faults-freeze');
    probe = await startDispatchProbe();
    // A connection the frozen worker opened before its freeze is still open when it wakes up (case c).
    world.harness.payments.keepConnectionsAlive(120_000);
    const { temporal, taskQueue, workflowBundle, tools, store } = world.harness;
    // Workflows and their local activity (prepare) only: this worker never takes a tool activity from the victim.
    const workflowsOnly = await Worker.create({
      connection: temporal.nativeConnection,
      namespace: temporal.server.namespace,
      taskQueue,
      workflowBundle,
      enableNonLocalActivities: false,
      plugins: [new ToolContractPlugin({ tools, store, decisions: unauthenticatedForDevelopment() })],
    });
    runInBackground(workflowsOnly, workers);
    victim = await world.spawnWorker({ dispatchProbeUrl: probe.url, activitiesOnly: true, maxConcurrentActivities: 1 });
  },
  { timeout: 180_000 },
);

after(
  async () => {
    for (const running of [...workers]) await running.stop();
    await victim?.kill();
    await probe?.stop();
    await world?.stop();
  },
  { timeout: 120_000 },
);

/** Runs the activities (the package's and the tools') while the victim is frozen. */
async function startStandIn(): Promise<RunningWorker> {
  const { temporal, taskQueue, tools, store } = world.harness;
  const worker = await Worker.create({
    connection: temporal.nativeConnection,
    namespace: temporal.server.namespace,
    taskQueue,
    plugins: [new ToolContractPlugin({ tools, store, decisions: unauthenticatedForDevelopment() })],
  });
  return runInBackground(worker, workers);
}

/** When the frozen worker is woken up. */
type ResumeWhen = 'parent_completed' | 'past_local_timeout' | 'reconciliation_waiting';

interface FreezeOutcome {
  readonly key: string;
  readonly result: ToolCallResult;
  readonly frozenMs: number;
  /** The audit of the frozen attempt, once it finished after waking up. */
  readonly attempt: { readonly status: string; readonly error_code: string | null; readonly audit_id: string };
}

/** Starts a charge, freezes its worker as planned, wakes it as planned, and waits until the frozen attempt finished. */
async function freezeAndResume(name: string, plan: FreezePlan, resumeWhen: ResumeWhen): Promise<FreezeOutcome> {
  const paymentId = `pay_freeze_${name}`;
  const key = chargeKey(principal.tenant, paymentId, TOOLS.chargeNoRetry);
  probe.plan(key, plan);
  const handle = await world.harness.temporal.client.workflow.start('runToolCall', {
    taskQueue: world.harness.taskQueue,
    workflowId: `freeze-${name}`,
    workflowTaskTimeout: '2s',
    args: [
      TOOLS.chargeNoRetry,
      { payment_id: paymentId, customer: 'cus_freeze', amount_cents: 1800 },
      { ...callOptions, callId: 'c1' },
    ],
  });
  // An unreferenced timer: once the race is decided it must not keep the file's process alive for its remaining minute.
  const frozen = await Promise.race([
    probe.frozen(key),
    sleep(60_000, undefined, { ref: false }).then(() => assert.fail(`${key} never reached its dispatch point`)),
  ]);
  const standIn = await startStandIn();
  try {
    await wake(frozen, resumeWhen, handle, key);
    const frozenMs = Date.now() - frozen.at;
    const result = (await handle
      .result()
      .catch((error: unknown) =>
        assert.fail(`${handle.workflowId} did not complete: ${failureChain(error)}`),
      )) as ToolCallResult;
    // The frozen attempt records its audit after its request (if any) was answered: once it is there, the provider
    // has seen everything that attempt will ever send.
    const attempt = await eventually(
      `the frozen attempt of ${key} to finish`,
      async () => {
        const { rows } = await world.db.pool.query<FreezeOutcome['attempt']>(
          'SELECT status, error_code, audit_id FROM ttc_audit WHERE idempotency_key = $1 AND attempt = 1',
          [key],
        );
        return rows[0];
      },
      60_000,
      100,
    );
    return { key, result, frozenMs, attempt };
  } finally {
    frozen.resume();
    await standIn.stop();
  }
}

async function wake(frozen: Frozen, when: ResumeWhen, parent: WorkflowHandle, key: string): Promise<void> {
  switch (when) {
    case 'parent_completed':
      await parent.result().catch(() => undefined);
      break;
    case 'past_local_timeout':
      // sdk-core's own local timeout fires at the deadline plus its buffer: wake up a second after that.
      await sleep(Math.max(0, frozen.at + TIMEOUT_MS + SDK_LOCAL_TIMEOUT_BUFFER_MS + 1000 - Date.now()));
      break;
    case 'reconciliation_waiting':
      await eventually(
        `the reconciliation of ${key} to fence the dispatched attempt`,
        async () =>
          (await world.harness.store.getReconciliation(key))?.dispatch?.dispatched === true ? true : undefined,
        60_000,
        50,
      );
      break;
  }
  frozen.resume();
}

/** What the model was told, the provider did, and ledger and reconciliation records say, for one key. */
async function facts(key: string) {
  const { payments, store } = world.harness;
  return {
    commits: payments.commits(key),
    requests: payments.dispatches(key),
    ledger: await store.getLedgerEntry(key),
    round: await store.getReconciliation(key),
  };
}

/** "Not started" was the answer and nothing happened: no request ever reached the provider, the records agree. */
async function assertNeverSent(outcome: FreezeOutcome): Promise<void> {
  const { key, result, attempt } = outcome;
  const { commits, requests, ledger, round } = await facts(key);
  assert.deepEqual(
    [
      result.modelResult.status,
      result.modelResult.execution.outcome,
      result.modelResult.execution.delivery,
      result.modelResult.error?.code,
    ],
    ['failed', 'not_started', 'confirmed_absent', 'NOT_COMMITTED'],
  );
  assert.deepEqual([requests, commits], [0, 0], 'the frozen attempt never sent its request');
  assert.deepEqual(
    [attempt.status, attempt.error_code],
    ['failed', 'TIMEOUT_BEFORE_EXECUTE'],
    'its fence refused it: the write did not start',
  );
  // Its handler had started (the package's own fence passed before it ran), so the attempt counted as possibly sent:
  // "not committed" waited for its record or the lease's end, and the record could not come from a frozen worker.
  assert.deepEqual(
    [round?.round, round?.state, round?.outcome, round?.dispatch?.dispatched],
    [1, 'settled', 'not_committed', true],
  );
  assert.ok(
    Date.parse(round?.settledAt ?? '') >= Date.parse(round?.dispatch?.quietAt ?? ''),
    'settled once the lease had ended',
  );
  assert.equal(ledger?.status, 'released', 'the ledger agrees with the verdict');
  assert.equal(ledger.lateCommitAuditId, null);
}

test(
  'frozen just before its fence, woken right after its call was settled: the request is never sent',
  { timeout: 180_000 },
  async () => {
    const outcome = await freezeAndResume(
      'a',
      { point: 'before_fence', warmConnection: true, sendRegardless: true },
      'parent_completed',
    );
    await assertNeverSent(outcome);
    console.log(
      `worker-freeze (a) before the fence, woken after the parent completed: frozen ${outcome.frozenMs} ms, 0 requests`,
    );
  },
);

test(
  'frozen just before its fence, woken past its local timeout: the request is never sent',
  { timeout: 180_000 },
  async () => {
    const outcome = await freezeAndResume(
      'b',
      { point: 'before_fence', warmConnection: true, sendRegardless: true },
      'past_local_timeout',
    );
    assert.ok(
      outcome.frozenMs >= TIMEOUT_MS + SDK_LOCAL_TIMEOUT_BUFFER_MS,
      'woken after sdk-core timed the activity out locally',
    );
    await assertNeverSent(outcome);
    console.log(
      `worker-freeze (b) before the fence, woken past the local timeout: frozen ${outcome.frozenMs} ms, 0 requests`,
    );
  },
);

test(
  'frozen past its fence, woken while reconciliation still waits: its commit is found, and the call is told committed',
  { timeout: 180_000 },
  async () => {
    const outcome = await freezeAndResume(
      'wait',
      { point: 'after_fence', warmConnection: true, sendRegardless: true },
      'reconciliation_waiting',
    );
    const { commits, ledger, round } = await facts(outcome.key);
    assert.equal(commits, 1, 'the woken attempt sent its request on its open connection');
    assert.deepEqual(
      [
        outcome.result.modelResult.status,
        outcome.result.modelResult.execution.outcome,
        outcome.result.modelResult.execution.delivery,
      ],
      ['succeeded', 'committed', 'receipt_reconciled'],
    );
    assert.equal(
      outcome.result.modelResult.execution.receipt?.external_id,
      world.harness.payments.charge(outcome.key)?.charge_id,
    );
    assert.deepEqual(
      [round?.state, round?.outcome, round?.dispatch?.dispatched],
      ['settled', 'committed', true],
      '"not committed" was held back while the fenced dispatch could still arrive',
    );
    assert.equal(ledger?.status, 'completed');
    assert.equal(ledger.lateCommitAuditId, null);
    console.log(
      `worker-freeze (wait) past the fence, woken during the wait: frozen ${outcome.frozenMs} ms, 1 commit, told committed`,
    );
  },
);

test(
  'frozen past its fence, woken after its call was settled, on a reused keep-alive connection: the late commit is audited as a dispute, escalated, and a human settles it',
  { timeout: 240_000 },
  async () => {
    const outcome = await freezeAndResume(
      'c',
      { point: 'after_fence', warmConnection: true, sendRegardless: true },
      'parent_completed',
    );
    const { key, result, attempt } = outcome;
    const charge = world.harness.payments.charge(key);
    const { commits, ledger, round } = await facts(key);
    // What the model was told stays what it was told; the provider committed anyway (the request had passed its
    // fence before the freeze, so nothing on the worker's side could stop it any more).
    assert.deepEqual([result.modelResult.status, result.modelResult.execution.outcome], ['failed', 'not_started']);
    assert.equal(commits, 1, 'the woken attempt sent its request at once on its open connection');
    assert.equal(attempt.status, 'succeeded', 'the late commit is audited');
    assert.equal(
      ledger?.status,
      'unknown',
      'the ledger keeps the verdict and marks the row disputed, never completed behind it',
    );
    assert.equal(ledger.lateCommitAuditId, attempt.audit_id);
    assert.notEqual(ledger.modelResult?.execution.outcome, 'committed');
    assert.deepEqual(
      [round?.round, round?.state, round?.escalationReason, round?.auditId],
      [2, 'escalated', LATE_RESULT_ESCALATION.committed, attempt.audit_id],
    );
    const verdict = (
      await world.db.pool.query<{ state: string; outcome: string }>(
        'SELECT state, outcome FROM ttc_reconciliations WHERE idempotency_key = $1 AND round = 1',
        [key],
      )
    ).rows[0];
    assert.deepEqual(
      verdict,
      { state: 'settled', outcome: 'not_committed' },
      'the first round keeps its verdict: both facts are kept',
    );

    // A human has a running workflow to settle it, listed as escalated.
    const escalation = world.harness.temporal.client.workflow.getHandle(reconcileWorkflowId(key));
    const state = await eventually(
      'the escalation workflow',
      async () => {
        const status = await escalation.query<ReconcileStatus>(RECONCILE_STATE_QUERY);
        return status.state === 'escalated' ? status : undefined;
      },
      60_000,
      200,
    );
    assert.equal(state.idempotencyKey, key);

    // A later call with the same key is not told "committed" behind the first caller's "not started".
    const standIn = await startStandIn();
    try {
      const later = (await world.harness.temporal.client.workflow.execute('runToolCall', {
        taskQueue: world.harness.taskQueue,
        workflowId: 'freeze-c-later',
        args: [
          TOOLS.chargeNoRetry,
          { payment_id: 'pay_freeze_c', customer: 'cus_freeze', amount_cents: 1800 },
          { ...callOptions, callId: 'c1' },
        ],
      })) as ToolCallResult;
      assert.deepEqual([later.modelResult.status, later.modelResult.error?.code], ['unknown', 'OUTCOME_UNKNOWN']);

      const resolution: ResolveOutcomeSignal = {
        outcome: 'committed',
        externalId: charge?.charge_id ?? 'missing',
        resolvedBy: 'ops@example',
        note: 'charged after the agent was told it did not happen',
      };
      await escalation.signal(RESOLVE_OUTCOME_SIGNAL, resolution);
      const resolved = (await escalation.result()) as ToolCallResult;
      assert.deepEqual(
        [resolved.modelResult.execution.outcome, resolved.modelResult.execution.delivery],
        ['committed', 'human_resolved'],
      );
    } finally {
      await standIn.stop();
    }
    const settled = await facts(key);
    assert.deepEqual(
      [settled.round?.state, settled.round?.outcome, settled.round?.via],
      ['settled', 'committed', 'human'],
    );
    assert.deepEqual(
      [settled.ledger?.status, settled.ledger?.lateCommitAuditId],
      ['completed', null],
      'ledger and reconciliation agree again',
    );
    assert.equal(settled.commits, 1);
    console.log(
      `worker-freeze (c) past the fence, woken after the parent completed, keep-alive: frozen ${outcome.frozenMs} ms, late commit audited, escalated, resolved by a human`,
    );
  },
);

test(
  'frozen past its fence, woken past its local timeout on a new connection: never a commit behind "not started" unless it is recorded and escalated',
  { timeout: 180_000 },
  async () => {
    // The handler passes its (long expired) deadline signal: on waking, the abort and the request race.
    const outcome = await freezeAndResume(
      'd',
      { point: 'after_fence', warmConnection: false, sendRegardless: false },
      'past_local_timeout',
    );
    const { commits, requests, ledger, round } = await facts(outcome.key);
    const told = outcome.result.modelResult.execution.outcome;
    if (told === 'committed') {
      // The request arrived while reconciliation still waited for the fenced dispatch.
      assert.deepEqual([commits, ledger?.status], [1, 'completed']);
    } else if (ledger?.lateCommitAuditId === null) {
      assert.equal(told, 'not_started');
      assert.deepEqual(
        [commits, ledger.status, round?.state, round?.outcome],
        [0, 'released', 'settled', 'not_committed'],
      );
    } else {
      // Whatever the provider has: the woken attempt could not tell whether its request left before it was aborted,
      // so its late result is a dispute for a human, and the ledger does not pretend either way.
      assert.equal(told, 'not_started');
      assert.deepEqual([ledger?.status, ledger?.lateCommitAuditId], ['unknown', outcome.attempt.audit_id]);
      assert.equal(round?.state, 'escalated');
      assert.ok(
        Object.values<string | null>(LATE_RESULT_ESCALATION).includes(round.escalationReason),
        `escalated as a late result (${String(round.escalationReason)})`,
      );
    }
    assert.ok(
      commits === 0 || told === 'committed' || ledger?.lateCommitAuditId === outcome.attempt.audit_id,
      'no commit behind "not started" goes unrecorded',
    );
    console.log(
      `worker-freeze (d) past the fence, woken past the local timeout, new connection: frozen ${outcome.frozenMs} ms, ${requests} requests, ${commits} commits, ` +
        `told ${told}, ledger ${ledger?.status}${ledger?.lateCommitAuditId === null ? '' : ` (disputed: ${round?.escalationReason ?? 'none'})`}`,
    );
  },
);
