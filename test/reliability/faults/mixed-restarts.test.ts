import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { CorrelatedResult, ToolCallResult } from '../../../workflows/index.js';
import { eventually } from '../../support/eventually.js';
import { chargeKey, TOOLS } from '../../../testkit/payment-tools.js';
import type { PaymentsService } from '../../../testkit/payments-service.js';
import type { TestDatabase } from '../../support/postgres.js';
import type { WorkerProcessConfig } from '../../support/worker-process.js';
import { openRestartableStack, type RestartableStack } from './support/restartable-stack.js';
import type { RestartableTemporal } from './support/restartable-temporal.js';
import { prepareWorker, type WorkerProcess } from './support/spawn-worker.js';
import { positiveIntFromEnv } from './support/env-number.js';
import { failureChain } from './support/failure-chain.js';
import { SeededRandom, seedFromEnv } from './support/seeded-random.js';
import { assertSettled, type TrackedCall } from './support/settled-calls.js';

/**
 * A mixed run (reads and charges, some of which commit and never answer, so they are reconciled) during which
 * Postgres and then the Temporal dev server are stopped and restarted. `TTC_SOAK_CALLS` sets its size: the soak tier
 * (`npm run soak`) runs 200 calls, `npm test` a short version.
 */
const CALLS = positiveIntFromEnv('TTC_SOAK_CALLS', 30);
const SEED = seedFromEnv('TTC_FAULT_SEED');
const principal = { tenant: 'tenant-faults', subject: 'user-10' };
const callOptions = {
  principal,
  timeoutMs: 3000,
  readAttempts: 10,
  reconcile: { initialIntervalMs: 200, maximumIntervalMs: 1000, deadlineMs: 600_000 },
};
const PG_DOWN_MS = 1500;
const TEMPORAL_DOWN_MS = 1000;

let stack: RestartableStack;
let db: TestDatabase;
let temporal: RestartableTemporal;
let payments: PaymentsService;
let client: Client;
let config: WorkerProcessConfig;
let workers: WorkerProcess[];

before(
  async () => {
    stack = await openRestartableStack('mixed', {
      chargeDelayMs: 800,
      database: { privateServer: true, pool: { max: 10, connectionTimeoutMillis: 2000 } },
    });
    ({ db, temporal, payments, client, config, workers } = stack);
  },
  { timeout: 240_000 },
);

after(() => stack?.close(), { timeout: 120_000 });

interface PlannedCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly callId: string;
  /** The charge's idempotency key; `null` for a read. */
  readonly key: string | null;
}

/** Model turns of 1–3 calls until `CALLS`: 30 % reads, the rest charges (slow, answered, or committed and never answered). */
function planTurns(rng: SeededRandom): PlannedCall[][] {
  const turns: PlannedCall[][] = [];
  let planned = 0;
  while (planned < CALLS) {
    const turn = Array.from({ length: Math.min(rng.int(1, 3), CALLS - planned) }, (_, i): PlannedCall => {
      const id = `${turns.length}_${i}`;
      if (rng.next() < 0.3)
        return { name: TOOLS.customer, args: { customer_id: `cus_mixed_${id}` }, callId: `c${i + 1}`, key: null };
      const key = chargeKey(principal.tenant, `pay_mixed_${id}`);
      payments.inject(key, rng.pick(['ok', 'slow', 'slow', 'commit_then_hang'] as const));
      return {
        name: TOOLS.charge,
        args: { payment_id: `pay_mixed_${id}`, customer: 'cus_mixed', amount_cents: 700 },
        callId: `c${i + 1}`,
        key,
      };
    });
    turns.push(turn);
    planned += turn.length;
  }
  return turns;
}

/** Replaces the worker if it exited during an outage (it normally keeps polling through one). */
async function keepAWorker(): Promise<void> {
  if (workers.every((worker) => worker.exited)) workers.push(await prepareWorker(config).start());
}

test(
  `Postgres and then Temporal restarted during a ${CALLS}-call mixed run: every call completes, one side effect per key, reads all succeed`,
  { timeout: 1_800_000 },
  async () => {
    const begun = Date.now();
    console.log(`mixed-restarts: seed ${SEED} (repeat with TTC_FAULT_SEED=${SEED}), ${CALLS} calls`);
    const rng = new SeededRandom(SEED);
    const turns = planTurns(rng);
    const charges = turns.flat().filter((c) => c.key !== null).length;
    const handles = await Promise.all(
      turns.map((turn, t) =>
        client.workflow.start('runToolCalls', {
          taskQueue: config.taskQueue,
          workflowId: `mixed-${t}`,
          args: [turn.map(({ name, args, callId }) => ({ name, args, callId })), callOptions],
        }),
      ),
    );
    const sideEffects = () => payments.keys().reduce((sum, key) => sum + payments.commits(key), 0);
    const server = db.server;
    assert.ok(server, 'the test needs its own embedded Postgres');

    await eventually(
      'a quarter of the charges to commit',
      async () => (sideEffects() >= Math.ceil(charges / 4) ? true : undefined),
      600_000,
      20,
    );
    const beforePg = sideEffects();
    await server.stop();
    await sleep(PG_DOWN_MS);
    await server.start();
    await sleep(1000);
    await keepAWorker();

    // Calls the outage kept from starting end failed (retried below), so their charges cannot commit before then: when
    // every workflow has ended first, Temporal restarts with none in flight, and the retries run on the restarted one.
    const running = async () =>
      (await Promise.all(handles.map((handle) => handle.describe()))).filter(
        (described) => described.status.name === 'RUNNING',
      ).length;
    await eventually(
      'more than half of the charges to commit, or every workflow to end',
      async () => (sideEffects() >= Math.ceil((charges * 3) / 5) || (await running()) === 0 ? true : undefined),
      600_000,
      100,
    );
    const beforeTemporal = sideEffects();
    const runningAtRestart = await running();
    await temporal.killAndRestart(TEMPORAL_DOWN_MS);
    await sleep(3000);
    await keepAWorker();

    const results = await Promise.all(
      handles.map(
        async (handle) =>
          (await handle
            .result()
            .catch((error: unknown) =>
              assert.fail(`${handle.workflowId} did not complete: ${failureChain(error)}`),
            )) as CorrelatedResult[],
      ),
    );
    // A call the database outage kept from starting is failed, not_started and retryable: the caller repeats it with
    // the same arguments (same key), as the catalogue tells a model to. That is the only way to "lose" one.
    const final: { call: PlannedCall; workflowId: string; result: ToolCallResult }[] = [];
    let retried = 0;
    for (const [t, turn] of turns.entries()) {
      for (const [i, call] of turn.entries()) {
        let result: ToolCallResult = results[t]![i]!;
        let workflowId = `mixed-${t}`;
        if (result.modelResult.execution.outcome === 'not_started' && result.modelResult.error?.retryable === true) {
          workflowId = `mixed-${t}-retry-${i}`;
          result = (await client.workflow.execute('runToolCall', {
            taskQueue: config.taskQueue,
            workflowId,
            args: [call.name, call.args, callOptions],
          })) as ToolCallResult;
          retried++;
        }
        final.push({ call, workflowId, result });
      }
    }
    const reads = final.filter((f) => f.call.key === null);
    for (const read of reads)
      assert.equal(
        read.result.modelResult.status,
        'succeeded',
        `${read.workflowId} ${read.call.callId}: read succeeded (${read.result.modelResult.error?.code ?? ''})`,
      );
    const writes: TrackedCall[] = final.flatMap((f) =>
      f.call.key === null ? [] : [{ workflowId: f.workflowId, tool: f.call.name, key: f.call.key, result: f.result }],
    );
    const summary = await assertSettled({ store: db.store(), payments, db }, writes, () => false);
    assert.equal(summary.succeeded, charges, 'every charge happened, exactly once');
    console.log(
      `mixed-restarts summary: seed ${SEED}; ${CALLS} calls in ${turns.length} workflows (${reads.length} reads, ${charges} charges); ` +
        `Postgres down ${PG_DOWN_MS} ms after ${beforePg} commits, Temporal SIGKILLed and restarted after ${beforeTemporal} (${runningAtRestart} of ${handles.length} workflows running); ${retried} calls not started by an outage, retried; ` +
        `${summary.reconciled} reconciled; ${summary.dispatches} charge requests, ${summary.sideEffects} side effects for ${summary.succeeded} charges; ` +
        `${workers.length} worker processes; total ${Math.round((Date.now() - begun) / 1000)} s`,
    );
  },
);
