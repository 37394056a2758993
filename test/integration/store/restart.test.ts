import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { PgToolStore } from '../../../src/store/pg/pg-tool-store.js';
import { isStoreError } from '../../../src/store/store-error.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { ordersGet, runCall } from '../../../testkit/store-tools.js';

const WRITERS = 3;
const OPS_PER_WRITER = 80;
/** The server goes down once this many operations (over all writers) have completed. */
const RESTART_AFTER = 60;

let db: TestDatabase;
let store: PgToolStore;
before(async () => {
  db = await openTestDatabase('restart', { privateServer: true, pool: { max: 10, connectionTimeoutMillis: 2000 } });
  store = db.store();
});
after(async () => db?.close());

/** Retries an operation while the store says it is safe to (the server is away); gives up after a deadline. */
async function retrying<T>(work: () => Promise<T>, stats: { retries: number }): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!(isStoreError(error) && error.retryable) || Date.now() > deadline) throw error;
      stats.retries++;
      await sleep(100);
    }
  }
}

describe('restart in the middle of a batch (real Postgres, stopped and started)', () => {
  it('loses nothing and duplicates nothing while writers retry through a server restart', async () => {
    const server = db.server;
    assert.ok(server, 'the restart test needs its own embedded server');
    const stats = { retries: 0 };
    let completed = 0;
    let reachedRestartPoint!: () => void;
    const restartPoint = new Promise<void>((resolve) => (reachedRestartPoint = resolve));

    const writer = async (w: number) => {
      const workflowId = `wf-restart-${w}`;
      for (let i = 0; i < OPS_PER_WRITER; i++) {
        const execution = await runCall(ordersGet, { orderId: `o-${w}-${i}` }, { workflowId, callId: `c-${i}` });
        await retrying(() => store.recordExecution({ execution, workflowId, runId: 'run-1' }), stats);
        await retrying(
          () =>
            store.applyStatePatch({
              patchId: `p-${w}-${i}`,
              workflowId,
              key: 'progress',
              value: { op: i, order: `o-${w}-${i}` },
              evidenceIds: [execution.modelResult.evidence[0]!.evidence_id],
              source: 'orders-db',
              observedAt: '2026-11-30T11:59:00Z',
              retrievedAt: '2026-11-30T12:00:00Z',
              expectedVersion: i,
              callId: `c-${i}`,
            }),
          stats,
        );
        if (++completed === RESTART_AFTER) reachedRestartPoint();
      }
    };

    const restarter = async () => {
      await restartPoint;
      await server.stop();
      await sleep(750);
      await server.start();
    };

    await Promise.all([...Array.from({ length: WRITERS }, (_, w) => writer(w)), restarter()]);
    assert.ok(stats.retries > 0, 'the restart must have interrupted the batch (no writer ever retried)');

    for (let w = 0; w < WRITERS; w++) {
      const workflowId = `wf-restart-${w}`;
      const audits = await store.listAudits({ workflowId });
      assert.equal(audits.length, OPS_PER_WRITER, `audit rows of writer ${w}`);
      assert.equal(new Set(audits.map((a) => a.callId)).size, OPS_PER_WRITER);
      const evidence = await store.listEvidence({ workflowId });
      assert.equal(evidence.length, OPS_PER_WRITER * 2);
      const patches = await store.listStatePatches({ workflowId, key: 'progress' });
      assert.deepEqual(
        patches.map((p) => p.version),
        Array.from({ length: OPS_PER_WRITER }, (_, i) => i + 1),
      );
      assert.deepEqual(
        patches.map((p) => (p.value as { op: number }).op),
        Array.from({ length: OPS_PER_WRITER }, (_, i) => i),
      );
      const state = await store.getState(workflowId, 'progress');
      assert.equal(state?.version, OPS_PER_WRITER);
      assert.deepEqual(state?.value, { op: OPS_PER_WRITER - 1, order: `o-${w}-${OPS_PER_WRITER - 1}` });
      const { rows } = await db.pool.query<{ status: string; n: string }>(
        'SELECT status, count(*) AS n FROM ttc_ledger WHERE workflow_id = $1 GROUP BY status',
        [workflowId],
      );
      assert.deepEqual(
        rows.map((r) => [r.status, Number(r.n)]),
        [['completed', OPS_PER_WRITER]],
      );
    }
  });
});
