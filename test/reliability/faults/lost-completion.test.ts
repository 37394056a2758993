import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ToolCallResult } from '../../../workflows/index.js';
import { eventually } from '../../support/eventually.js';
import { chargeKey, TOOLS } from '../../../testkit/payment-tools.js';
import { failureChain } from './support/failure-chain.js';
import { startFaultWorld, type FaultWorld } from './support/fault-world.js';
import { assertSettled } from './support/settled-calls.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';

const principal = { tenant: 'tenant-faults', subject: 'user-10' };
const callOptions = {
  principal,
  timeoutMs: 2000,
  reconcile: { initialIntervalMs: 200, maximumIntervalMs: 1000, deadlineMs: 600_000 },
};

/** Advisory lock id the settle test holds the settled result's audit insert on. */
const SETTLE_LOCK = 7300;
/** Advisory lock id the late-record test holds a timed-out dispatch's audit insert on. */
const LATE_LOCK = 7001;
let world: FaultWorld;
const relays: FaultProxy[] = [];

before(
  async () => {
    world = await startFaultWorld('faults-lost', { safeRetryTools: [TOOLS.charge] });
  },
  { timeout: 180_000 },
);

after(
  async () => {
    await world?.stop();
    for (const relay of relays) await relay.stop();
  },
  { timeout: 120_000 },
);

/** A worker that talks to the server through a relay the test can cut (a black hole that never ends). */
async function workerBehindRelay() {
  const relay = await startFaultProxy(world.harness.temporal.server.address);
  relays.push(relay);
  return { relay, worker: await world.spawnWorker({ temporalAddress: relay.address }) };
}

// The one kill point the random trials reach only by chance: the reconcile query found the write committed and
// recorded that (reconciliation settled, audit appended), but Temporal never heard the activity complete. It
// times out and runs again with the same query number — and must settle the call, not fail it. (A run with
// `ttc.reconcile-first-query-local` asks as a local activity: then its workflow task times out, and runs it again.)
test(
  'a reconcile query that recorded its finding but whose completion was lost (worker killed) is retried and settles the call',
  { timeout: 300_000 },
  async () => {
    const { harness, db } = world;
    const { relay, worker } = await workerBehindRelay();
    const key = chargeKey(principal.tenant, 'pay_lost_1');
    harness.payments.inject(key, 'commit_then_hang');
    // The status answer takes 300 ms: time to cut the worker off from the server before it can report anything.
    harness.payments.injectStatus(key, 'slow');
    const handle = await harness.temporal.client.workflow.start('runToolCall', {
      taskQueue: harness.taskQueue,
      workflowId: 'lost-completion-1',
      args: [TOOLS.charge, { payment_id: 'pay_lost_1', customer: 'cus_lost', amount_cents: 300 }, callOptions],
    });
    await eventually(
      'the status query',
      async () => (harness.payments.statusQueries(key) >= 1 ? true : undefined),
      60_000,
      5,
    );
    relay.startBlackHole();
    await eventually(
      'the finding to be recorded',
      async () => {
        const { rows } = await db.pool.query(
          'SELECT 1 FROM ttc_audit WHERE idempotency_key = $1 AND attempt > 200 AND attempt < 300',
          [key],
        );
        return rows.length > 0 ? true : undefined;
      },
      60_000,
      20,
    );
    await worker.kill();
    // Its connections are reset, so the server learns at once that its polls are gone.
    relay.endBlackHole('drop');
    // Each test ends its workers: the next test's activities must run behind its own relay.
    const replacement = await world.spawnWorker();

    const result = (await handle
      .result()
      .catch((error: unknown) => assert.fail(`the call did not settle: ${failureChain(error)}`))
      .finally(() => replacement.kill())) as ToolCallResult;
    assert.equal(result.modelResult.execution.delivery, 'receipt_reconciled');
    assert.ok(harness.payments.statusQueries(key) >= 2, 'the query really ran again');
    const summary = await assertSettled(
      { store: harness.store, payments: harness.payments, db },
      [{ workflowId: handle.workflowId, tool: TOOLS.charge, key, result }],
      () => false,
    );
    assert.deepEqual([summary.succeeded, summary.sideEffects, summary.dispatches], [1, 1, 1]);
  },
);

// The same for the activity that records a result settled without running the tool (here: "not committed", no
// safe retry). A trigger holds exactly that audit insert (attempt 300) on a lock the test owns until the worker is
// cut off, so the kill lands after the record.
test(
  'a settle activity that recorded its result but whose completion was lost (worker killed) is retried and settles the call',
  { timeout: 300_000 },
  async () => {
    const { harness, db } = world;
    await db.ownerPool.query(`CREATE FUNCTION hold_settled_audit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.attempt = 300 THEN PERFORM pg_advisory_xact_lock(${SETTLE_LOCK}); END IF; RETURN NEW; END $$`);
    await db.ownerPool.query(
      'CREATE TRIGGER hold_settled_audit BEFORE INSERT ON ttc_audit FOR EACH ROW EXECUTE FUNCTION hold_settled_audit()',
    );
    const lock = await db.pool.connect();
    try {
      await lock.query('SELECT pg_advisory_lock($1)', [SETTLE_LOCK]);
      const { relay, worker } = await workerBehindRelay();
      const key = chargeKey(principal.tenant, 'pay_lost_2', TOOLS.chargeNoRetry);
      harness.payments.inject(key, 'hang_before_commit');
      const handle = await harness.temporal.client.workflow.start('runToolCall', {
        taskQueue: harness.taskQueue,
        workflowId: 'lost-completion-2',
        args: [TOOLS.chargeNoRetry, { payment_id: 'pay_lost_2', customer: 'cus_lost', amount_cents: 300 }, callOptions],
      });
      await eventually(
        'the settle to wait for its audit insert',
        async () => {
          const { rows } = await db.ownerPool.query(
            "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'",
          );
          return rows.length > 0 ? true : undefined;
        },
        60_000,
        20,
      );
      relay.startBlackHole();
      await lock.query('SELECT pg_advisory_unlock($1)', [SETTLE_LOCK]);
      await eventually(
        'the settled result to be recorded',
        async () => {
          const { rows } = await db.pool.query('SELECT 1 FROM ttc_audit WHERE idempotency_key = $1 AND attempt = 300', [
            key,
          ]);
          return rows.length > 0 ? true : undefined;
        },
        60_000,
        20,
      );
      await worker.kill();
      // Its connections are reset, so the server learns at once that its polls are gone.
      relay.endBlackHole('drop');
      // Each test ends its workers: the next test's activities must run behind its own relay.
      const replacement = await world.spawnWorker();

      const result = (await handle
        .result()
        .catch((error: unknown) => assert.fail(`the call did not settle: ${failureChain(error)}`))
        .finally(() => replacement.kill())) as ToolCallResult;
      assert.equal(result.modelResult.status, 'failed');
      assert.equal(result.modelResult.execution.outcome, 'not_started');
      const history = await harness.temporal.client.workflow.getHandle(`ttc-reconcile:${key}`).fetchHistory();
      assert.ok(
        (history.events ?? []).some((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 0) >= 2),
        'the settle activity really timed out and ran again',
      );
      const summary = await assertSettled(
        { store: harness.store, payments: harness.payments, db },
        [{ workflowId: handle.workflowId, tool: TOOLS.chargeNoRetry, key, result }],
        () => true,
      );
      // Per key: the provider is shared with the other tests of this file, whose side effects it also counts.
      assert.deepEqual([summary.failed, harness.payments.commits(key), harness.payments.dispatches(key)], [1, 0, 1]);
    } finally {
      lock.release();
      await db.ownerPool.query('DROP TRIGGER hold_settled_audit ON ttc_audit');
      await db.ownerPool.query('DROP FUNCTION hold_settled_audit()');
    }
  },
);

// A write whose activity timed out is cancelled on the worker, which then records its attempt as unknown — late. If
// that record lands after the reconciliation found "not committed" and released the key, the ledger must stay
// released (the reconciliation's answer), not turn back to unknown. A trigger holds the late insert until then.
test(
  "a timed-out write's late 'unknown' record does not relabel a key its reconciliation already released",
  { timeout: 300_000 },
  async () => {
    const { harness, db } = world;
    await db.ownerPool.query(`CREATE FUNCTION hold_dispatch_audit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.attempt = 1 AND NEW.idempotency_key LIKE '%pay_late_1' THEN PERFORM pg_advisory_xact_lock(${LATE_LOCK}); END IF; RETURN NEW; END $$`);
    await db.ownerPool.query(
      'CREATE TRIGGER hold_dispatch_audit BEFORE INSERT ON ttc_audit FOR EACH ROW EXECUTE FUNCTION hold_dispatch_audit()',
    );
    const lock = await db.pool.connect();
    const worker = await world.spawnWorker();
    try {
      await lock.query('SELECT pg_advisory_lock($1)', [LATE_LOCK]);
      const key = chargeKey(principal.tenant, 'pay_late_1', TOOLS.chargeNoRetry);
      harness.payments.inject(key, 'hang_before_commit');
      const handle = await harness.temporal.client.workflow.start('runToolCall', {
        taskQueue: harness.taskQueue,
        workflowId: 'late-record-1',
        args: [TOOLS.chargeNoRetry, { payment_id: 'pay_late_1', customer: 'cus_lost', amount_cents: 300 }, callOptions],
      });
      const result = (await handle.result()) as ToolCallResult;
      assert.equal((await harness.store.getReconciliation(key))?.outcome, 'not_committed');
      await lock.query('SELECT pg_advisory_unlock($1)', [LATE_LOCK]);
      await eventually(
        'the late record to land',
        async () => {
          const { rows } = await db.pool.query('SELECT 1 FROM ttc_audit WHERE idempotency_key = $1 AND attempt = 1', [
            key,
          ]);
          return rows.length > 0 ? true : undefined;
        },
        60_000,
        20,
      );
      await assertSettled(
        { store: harness.store, payments: harness.payments, db },
        [{ workflowId: handle.workflowId, tool: TOOLS.chargeNoRetry, key, result }],
        () => true,
      );
    } finally {
      await worker.kill();
      lock.release();
      await db.ownerPool.query('DROP TRIGGER hold_dispatch_audit ON ttc_audit');
      await db.ownerPool.query('DROP FUNCTION hold_dispatch_audit()');
    }
  },
);
