// Store writes per second through PgToolStore vs raw parameterised pg statements writing the same rows, in the
// same run against the same database: state patches, ledger writes (claim + record execution) and read records. Run from the
// repo root:  npm run bench:store
// Knobs: BENCH_STORE_WRITES (writes per round, default 500), BENCH_ROUNDS (default 3), BENCH_PG_FSYNC, DATABASE_URL.
import { PgToolStore } from '../src/store/pg/pg-tool-store.js';
import { ordersGet, runCall } from '../testkit/store-tools.js';
import { openBenchDatabase } from './support/bench-postgres.js';
import { ledgerWorkload, readRecordWorkload, statePatchWorkload, type Workload } from './support/store-workloads.js';
import { envInt, machineLine, median, perSecond, printTable, ratio, reportSummary } from './support/stats.js';

const WRITES_PER_ROUND = envInt('BENCH_STORE_WRITES', 500);
const ROUNDS = envInt('BENCH_ROUNDS', 3);
const CONCURRENCY = [1, 8, 32] as const;

console.log('temporal-tool-contract store benchmark: PgToolStore vs raw pg writes of the same rows');
console.log(machineLine());
const db = await openBenchDatabase(Math.max(...CONCURRENCY) + 4);

try {
  const store = new PgToolStore(db.pool, { schema: db.schema });
  const execution = await runCall(ordersGet, { orderId: 'o-bench' }, { workflowId: 'wf-bench', callId: 'c1' });
  await store.recordExecution({ execution, workflowId: 'wf-bench', runId: 'run-1' });
  const evidenceIds = [execution.modelResult.evidence[0]!.evidence_id];
  const workloads: Workload<unknown>[] = [
    statePatchWorkload(store, db.pool, evidenceIds),
    ledgerWorkload(store, db.pool),
    readRecordWorkload(store, db.pool),
  ];

  /** Writes `batch` with `concurrency` writers; returns writes per second. */
  const run = async <Row>(
    batch: readonly Row[],
    write: (row: Row) => Promise<unknown>,
    concurrency: number,
  ): Promise<number> => {
    let next = 0;
    const start = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < batch.length) await write(batch[next++]!);
      }),
    );
    return batch.length / (Number(process.hrtime.bigint() - start) / 1e9);
  };

  const rows: string[][] = [];
  const summary: { part: string; measure: string; value: string }[] = [];
  for (const workload of workloads) {
    // Warm both paths (connections, plans, caches) before measuring.
    await run(await workload.rows('warm-store', WRITES_PER_ROUND / 4), workload.store, 4);
    await run(await workload.rows('warm-raw', WRITES_PER_ROUND / 4), workload.raw, 4);
    for (const concurrency of CONCURRENCY) {
      const storeRates: number[] = [];
      const rawRates: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which path goes first, so drift (autovacuum, cache growth) does not favour one.
        const order = round % 2 === 0 ? (['store', 'raw'] as const) : (['raw', 'store'] as const);
        for (const path of order) {
          const batch = await workload.rows(`${path}-c${concurrency}-r${round}`, WRITES_PER_ROUND);
          if (path === 'store') storeRates.push(await run(batch, workload.store, concurrency));
          else rawRates.push(await run(batch, workload.raw, concurrency));
        }
      }
      const s = median(storeRates);
      const r = median(rawRates);
      rows.push([workload.name, String(concurrency), perSecond(s), perSecond(r), ratio(s / r)]);
      summary.push({
        part: '4 store',
        measure: `${workload.name}/s, concurrency ${concurrency}: store (raw pg)`,
        value: `${perSecond(s)} (${perSecond(r)}), store/raw ${ratio(s / r)}`,
      });
    }
  }
  printTable(
    `4. Store writes per second (${WRITES_PER_ROUND} writes × ${ROUNDS} rounds, median; ${db.description})`,
    ['write', 'concurrency', 'store writes/s', 'raw pg writes/s', 'store/raw'],
    rows,
  );
  for (const workload of workloads) console.log(`  ${workload.name}: ${workload.description}`);
  reportSummary(summary);
} finally {
  await db.close();
}
