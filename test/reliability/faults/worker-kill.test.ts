import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import type { ReconciliationRecord } from '../../../src/store/reconciliation.js';
import type { CorrelatedResult, ToolCallResult } from '../../../workflows/index.js';
import { eventually } from '../../support/eventually.js';
import { chargeKey, TOOLS } from '../../../testkit/payment-tools.js';
import type { ChargeFault } from '../../../testkit/payments-service.js';
import { positiveIntFromEnv } from './support/env-number.js';
import { startFaultWorld, type FaultWorld } from './support/fault-world.js';
import { SeededRandom, seedFromEnv } from './support/seeded-random.js';
import { failureChain } from './support/failure-chain.js';
import { assertSettled, type TrackedCall } from './support/settled-calls.js';
import type { WorkerProcess } from './support/spawn-worker.js';

/**
 * Where a trial SIGKILLs the worker, for its target call: the charge request arrived but is not committed; it is
 * committed but not answered; the reconciliation child's status query is in flight; the child waits between
 * queries (the provider answered 503). Background calls of the same trial are caught wherever they happen to be.
 */
const KILL_POINTS = ['before_commit', 'after_commit', 'reconcile_query', 'reconcile_backoff'] as const;
type KillPoint = (typeof KILL_POINTS)[number];

/** The soak tier runs 100 (`npm run soak`); a trial takes 5–15 s depending on the machine's load, hence the timeout. */
const TRIALS = positiveIntFromEnv('TTC_FAULT_TRIALS', 25);
const SEED = seedFromEnv('TTC_FAULT_SEED');
const VERBOSE = process.env['TTC_FAULT_VERBOSE'] === '1';
const principal = { tenant: 'tenant-faults', subject: 'user-7' };
/** Writes time out after 2 s; reconciliation asks every 200 ms–1 s and would escalate only after 10 min. */
const callOptions = {
  principal,
  timeoutMs: 2000,
  reconcile: { initialIntervalMs: 200, maximumIntervalMs: 1000, deadlineMs: 600_000 },
};

interface StartedWorkflow {
  readonly handle: WorkflowHandle;
  readonly calls: readonly { readonly callId: string; readonly tool: string; readonly key: string }[];
}

let world: FaultWorld;
let worker: WorkerProcess;

before(
  async () => {
    world = await startFaultWorld('faults-kill', { safeRetryTools: [TOOLS.charge], standby: 2 });
    worker = await world.spawnWorker();
  },
  { timeout: 180_000 },
);

after(async () => world?.stop(), { timeout: 120_000 });

function charge(paymentId: string) {
  return { payment_id: paymentId, customer: 'cus_faults', amount_cents: 1200 };
}

async function startTarget(
  trial: number,
  point: KillPoint,
  rng: SeededRandom,
): Promise<StartedWorkflow & { key: string }> {
  // The safe-retry charge re-dispatches after "not committed"; the other one settles failed, not_started.
  const tool = rng.next() < 0.7 ? TOOLS.charge : TOOLS.chargeNoRetry;
  const paymentId = `pay_kill_${trial}`;
  const key = chargeKey(principal.tenant, paymentId, tool);
  const { payments } = world.harness;
  if (point === 'before_commit') payments.inject(key, 'hang_before_commit');
  else if (point === 'after_commit') payments.inject(key, 'commit_then_hang');
  else {
    // The first dispatch's outcome is left unknown (either way) so that a reconciliation child starts.
    payments.inject(key, rng.pick(['hang_before_commit', 'commit_then_hang'] as const));
    if (point === 'reconcile_query') payments.injectStatus(key, 'hang');
    else payments.injectStatus(key, 'unavailable', 'unavailable');
  }
  const handle = await world.harness.temporal.client.workflow.start('runToolCall', {
    taskQueue: world.harness.taskQueue,
    workflowId: `kill-${trial}-target`,
    workflowTaskTimeout: '3s',
    args: [tool, charge(paymentId), { ...callOptions, callId: 'c1' }],
  });
  return { handle, key, calls: [{ callId: 'c1', tool, key }] };
}

/** A model turn of one or two charges that the kill catches at whatever point they have reached. */
async function startBackground(trial: number, n: number, rng: SeededRandom): Promise<StartedWorkflow> {
  const calls = Array.from({ length: rng.int(1, 2) }, (_, i) => {
    const paymentId = `pay_bg_${trial}_${n}_${i}`;
    const key = chargeKey(principal.tenant, paymentId);
    world.harness.payments.inject(key, rng.pick<ChargeFault>(['ok', 'slow']));
    return { callId: `c${i + 1}`, tool: TOOLS.charge, key, paymentId };
  });
  const handle = await world.harness.temporal.client.workflow.start('runToolCalls', {
    taskQueue: world.harness.taskQueue,
    workflowId: `kill-${trial}-bg-${n}`,
    workflowTaskTimeout: '3s',
    args: [calls.map((c) => ({ name: c.tool, args: charge(c.paymentId), callId: c.callId })), callOptions],
  });
  return { handle, calls };
}

/** Waits until the target reached its kill point; returns whether it is still exactly there. */
async function reachKillPoint(point: KillPoint, key: string): Promise<() => boolean> {
  const { payments } = world.harness;
  switch (point) {
    case 'before_commit':
      await eventually(`${key} to arrive`, async () => (payments.dispatches(key) >= 1 ? true : undefined), 60_000, 20);
      return () => payments.dispatches(key) === 1 && payments.commits(key) === 0;
    case 'after_commit':
      await eventually(`${key} to commit`, async () => (payments.commits(key) === 1 ? true : undefined), 60_000, 20);
      // commit_then_hang never answers: the activity cannot have completed.
      return () => payments.commits(key) === 1 && payments.dispatches(key) === 1;
    case 'reconcile_query':
      await eventually(
        `${key} to be queried`,
        async () => (payments.statusQueries(key) >= 1 ? true : undefined),
        60_000,
        20,
      );
      // The first status query hangs: the query activity is in flight until the kill.
      return () => payments.statusQueries(key) === 1;
    case 'reconcile_backoff':
      await eventually(
        `${key} to be queried`,
        async () => (payments.statusQueries(key) >= 1 ? true : undefined),
        60_000,
        20,
      );
      // Two 503s then the truth: up to the second query the reconciliation cannot have settled.
      return () => payments.statusQueries(key) <= 2;
  }
}

/**
 * The reconciliation policy: after "not committed", the charge without safe retry settles failed; the safe-retry
 * charge is dispatched once more, and only when that re-dispatch's outcome became unknown too (a second round) and
 * turned out not committed does it settle failed — never a second re-dispatch.
 */
function mayEndNotCommitted(call: TrackedCall, record: ReconciliationRecord | null): boolean {
  if (call.result.modelResult.error?.code !== 'NOT_COMMITTED' || record?.outcome !== 'not_committed') return false;
  return call.tool === TOOLS.chargeNoRetry || record.round >= 2;
}

test(
  `SIGKILL of the worker at random points of writes (${TRIALS} trials): every call settles, one side effect per key, ledger and audit agree with the provider`,
  { timeout: 600_000 + TRIALS * 36_000 },
  async () => {
    const started = Date.now();
    console.log(`worker-kill: seed ${SEED} (repeat with TTC_FAULT_SEED=${SEED}), ${TRIALS} trials`);
    const rng = new SeededRandom(SEED);
    const plan = rng.shuffle(Array.from({ length: TRIALS }, (_, i) => KILL_POINTS[i % KILL_POINTS.length]!));
    const workflows: StartedWorkflow[] = [];
    const planned = Object.fromEntries(KILL_POINTS.map((p) => [p, 0])) as Record<KillPoint, number>;
    const hit = { ...planned };
    let workerStartMs = 0;
    for (const [trial, point] of plan.entries()) {
      planned[point]++;
      const target = await startTarget(trial, point, rng);
      workflows.push(target);
      for (let n = rng.int(1, 2); n > 0; n--) workflows.push(await startBackground(trial, n, rng));
      const stillThere = await reachKillPoint(point, target.key);
      await sleep(rng.int(0, 250));
      if (stillThere()) hit[point]++;
      await worker.kill();
      const spawnStart = Date.now();
      worker = await world.spawnWorker();
      workerStartMs += Date.now() - spawnStart;
      if (VERBOSE || (trial + 1) % 5 === 0)
        console.log(
          `worker-kill: ${trial + 1}/${TRIALS} kills done (${point}), ${Math.round((Date.now() - started) / 1000)} s`,
        );
    }
    const killsDone = Date.now();

    const calls: TrackedCall[] = [];
    await Promise.all(
      workflows.map(async ({ handle, calls: expected }) => {
        const raw = (await handle
          .result()
          .catch((error: unknown) => assert.fail(`${handle.workflowId} did not complete: ${failureChain(error)}`))) as
          ToolCallResult | CorrelatedResult[];
        const results = Array.isArray(raw) ? raw : [{ ...raw, callId: 'c1' }];
        assert.deepEqual(
          results.map((r) => r.callId),
          expected.map((c) => c.callId),
          `${handle.workflowId}: one result per call`,
        );
        for (const [i, call] of expected.entries())
          calls.push({ workflowId: handle.workflowId, tool: call.tool, key: call.key, result: results[i]! });
      }),
    );
    const settledMs = Date.now() - killsDone;
    const summary = await assertSettled(
      { store: world.harness.store, payments: world.harness.payments, db: world.db },
      calls,
      mayEndNotCommitted,
    );
    assert.deepEqual(hit, planned, 'every kill landed at its planned point');
    assert.ok(summary.reconciled >= TRIALS, 'every target went through reconciliation');
    const settle = (await world.harness.store.reconciliationMetrics()).timeToSettleMs;
    console.log(
      `worker-kill summary: seed ${SEED}; ${TRIALS} SIGKILLs (${KILL_POINTS.map((p) => `${p} ${hit[p]}`).join(', ')}); ` +
        `${workflows.length} workflows, ${summary.calls} write calls: ${summary.succeeded} succeeded, ${summary.failed} failed not_started, ${summary.reconciled} reconciled; ` +
        `${summary.dispatches} charge requests, ${summary.sideEffects} side effects; worker restarts avg ${Math.round(workerStartMs / TRIALS)} ms; ` +
        `reconciliation open to settle p50 ${ms(settle?.p50)} / p95 ${ms(settle?.p95)} / max ${ms(settle?.max)}; ` +
        `kills phase ${Math.round((killsDone - started) / 1000)} s, settling after the last kill ${Math.round(settledMs / 1000)} s, total ${Math.round((Date.now() - started) / 1000)} s`,
    );
  },
);

function ms(value: number | undefined): string {
  return value === undefined ? 'n/a' : `${(value / 1000).toFixed(1)} s`;
}
