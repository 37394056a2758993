import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CorrelatedResult, StatePatchResult, ToolCallResult } from '../../../workflows/index.js';
import { eventually } from '../../support/eventually.js';
import { chargeKey, TOOLS } from '../../../testkit/payment-tools.js';
import { failureChain } from './support/failure-chain.js';
import { startFaultWorld, type FaultWorld } from './support/fault-world.js';
import { assertSettled, type TrackedCall } from './support/settled-calls.js';

const principal = { tenant: 'tenant-faults', subject: 'user-8' };
const callOptions = {
  principal,
  timeoutMs: 3000,
  readAttempts: 10,
  reconcile: { initialIntervalMs: 200, maximumIntervalMs: 1000, deadlineMs: 600_000 },
};
const TURNS = 10;
const CHARGES_PER_TURN = 3;
const PATCHES = 4;
/** Postgres goes down once this many charges have committed: some calls are done, many are in flight. */
const RESTART_AFTER_COMMITS = 8;
const DOWN_MS = 1500;

let world: FaultWorld;

before(
  async () => {
    world = await startFaultWorld('faults-pg', {
      safeRetryTools: [TOOLS.charge],
      database: { privateServer: true, pool: { max: 10, connectionTimeoutMillis: 2000 } },
    });
    // In its own process like the other fault tests (its activity failures during the outage stay out of the log).
    await world.spawnWorker();
  },
  { timeout: 180_000 },
);

after(async () => world?.stop(), { timeout: 120_000 });

function charge(paymentId: string) {
  return { payment_id: paymentId, customer: 'cus_pg', amount_cents: 900 };
}

test(
  'Postgres stopped and restarted during a run: every workflow completes, no call is lost, nothing is duplicated',
  { timeout: 600_000 },
  async () => {
    const { harness, db } = world;
    const server = db.server;
    assert.ok(server, 'the restart test needs its own embedded Postgres');
    const started = Date.now();
    const client = harness.temporal.client;
    const turns = await Promise.all(
      Array.from({ length: TURNS }, async (_, t) => {
        const paymentIds = Array.from({ length: CHARGES_PER_TURN }, (_, i) => `pay_pg_${t}_${i}`);
        // Slow charges keep requests in flight while the database goes away.
        for (const id of paymentIds)
          harness.payments.inject(chargeKey(principal.tenant, id), t % 2 === 0 ? 'slow' : 'ok');
        const handle = await client.workflow.start('runToolCalls', {
          taskQueue: harness.taskQueue,
          workflowId: `pg-turn-${t}`,
          args: [
            paymentIds.map((id, i) => ({ name: TOOLS.charge, args: charge(id), callId: `c${i + 1}` })),
            callOptions,
          ],
        });
        return { handle, paymentIds };
      }),
    );
    const patches = await Promise.all(
      Array.from({ length: PATCHES }, (_, p) =>
        client.workflow.start('readThenPatch', {
          taskQueue: harness.taskQueue,
          workflowId: `pg-patch-${p}`,
          args: [
            TOOLS.customer,
            { customer_id: `cus_${p}` },
            { ...callOptions, callId: 'call-tier', key: 'customer.tier', pointer: '/tier' },
          ],
        }),
      ),
    );

    const sideEffects = () => harness.payments.keys().reduce((sum, key) => sum + harness.payments.commits(key), 0);
    await eventually(
      'charges to commit before the restart',
      async () => (sideEffects() >= RESTART_AFTER_COMMITS ? true : undefined),
      120_000,
      10,
    );
    const committedBefore = sideEffects();
    await server.stop();
    await sleep(DOWN_MS);
    await server.start();
    const restartedAt = Date.now();

    const firstResults: TrackedCall[] = [];
    for (const { handle, paymentIds } of turns) {
      const results = (await handle
        .result()
        .catch((error: unknown) =>
          assert.fail(`${handle.workflowId} did not complete: ${failureChain(error)}`),
        )) as CorrelatedResult[];
      assert.deepEqual(
        results.map((r) => r.callId),
        paymentIds.map((_, i) => `c${i + 1}`),
      );
      for (const [i, id] of paymentIds.entries())
        firstResults.push({
          workflowId: handle.workflowId,
          tool: TOOLS.charge,
          key: chargeKey(principal.tenant, id),
          result: results[i]!,
        });
    }
    // A call the database outage kept from starting is settled failed, not_started and retryable: the caller
    // repeats it (same payment id, so same key), as the catalogue tells a model to. That is the only way to "lose" one.
    const notStarted = firstResults.filter((c) => c.result.modelResult.execution.outcome === 'not_started');
    for (const call of notStarted)
      assert.equal(
        call.result.modelResult.error?.retryable,
        true,
        `${call.key}: a not-started call is retryable (${call.result.modelResult.error?.code})`,
      );
    const retried: TrackedCall[] = [];
    for (const [r, call] of notStarted.entries()) {
      const paymentId = call.key.slice(chargeKey(principal.tenant, '').length);
      const handle = await client.workflow.start('runToolCall', {
        taskQueue: harness.taskQueue,
        workflowId: `pg-retry-${r}`,
        args: [TOOLS.charge, charge(paymentId), callOptions],
      });
      retried.push({
        workflowId: handle.workflowId,
        tool: TOOLS.charge,
        key: call.key,
        result: (await handle.result()) as ToolCallResult,
      });
    }
    const finalCalls = [...firstResults.filter((c) => !notStarted.includes(c)), ...retried];
    const summary = await assertSettled(
      { store: harness.store, payments: harness.payments, db },
      finalCalls,
      () => false,
    );
    assert.equal(summary.succeeded, TURNS * CHARGES_PER_TURN, 'every charge happened, exactly once');

    for (const [p, handle] of patches.entries()) {
      const result = (await handle.result()) as { read: ToolCallResult; patch: StatePatchResult | null };
      assert.equal(
        result.read.modelResult.status,
        'succeeded',
        `pg-patch-${p}: the read succeeded (${result.read.modelResult.error?.code ?? ''})`,
      );
      assert.equal(result.patch?.applied, true, `pg-patch-${p}: the patch applied`);
      const state = await harness.store.getState(`pg-patch-${p}`, 'customer.tier');
      assert.deepEqual([state?.version, state?.value], [1, 'gold'], `pg-patch-${p}: state`);
      assert.equal(
        (await harness.store.listStatePatches({ workflowId: `pg-patch-${p}` })).length,
        1,
        `pg-patch-${p}: one patch`,
      );
      assert.ok(
        (await harness.store.listAudits({ workflowId: `pg-patch-${p}` })).length >= 1,
        `pg-patch-${p}: the read is audited`,
      );
    }
    const { rows } = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM ttc_ledger');
    assert.equal(Number(rows[0]?.n), harness.payments.keys().length + PATCHES, 'one ledger row per key');
    console.log(
      `postgres-restart summary: ${TURNS} turns x ${CHARGES_PER_TURN} charges + ${PATCHES} read+patch workflows; Postgres down ${DOWN_MS} ms after ${committedBefore} commits; ` +
        `${notStarted.length} calls settled not_started (${[...new Set(notStarted.map((c) => c.result.modelResult.error?.code))].join(', ') || 'none'}) and retried; ` +
        `${summary.reconciled} reconciled; ${summary.dispatches} charge requests, ${summary.sideEffects} side effects for ${summary.succeeded} charges; ` +
        `settled ${Math.round((Date.now() - restartedAt) / 1000)} s after the restart, total ${Math.round((Date.now() - started) / 1000)} s`,
    );
  },
);
