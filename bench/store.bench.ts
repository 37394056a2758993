// State-patch writes per second through the store vs raw parameterised pg inserts of the same rows, in the same
// run against the same database. Run: node --import tsx bench/store.bench.ts  (DATABASE_URL or embedded Postgres).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { EMBEDDED_DATA_ROOT } from '../src/store/connection.js';
import { EmbeddedPostgresServer } from '../src/store/embedded-postgres-server.js';
import { migrate } from '../src/store/migrate.js';
import { PgToolStore } from '../src/store/pg-tool-store.js';
import { ordersGet, runCall } from '../test/store/fixtures/tools.js';

const PATCHES_PER_ROUND = Number(process.env['BENCH_PATCHES'] ?? 1000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const CONCURRENCY = [1, 8];

interface Row {
  readonly patchId: string;
  readonly workflowId: string;
  readonly key: string;
  readonly value: { readonly order: string; readonly status: string; readonly total: number };
  readonly evidenceIds: string[];
}

const projectRoot = fileURLToPath(new URL('../', import.meta.url));
const url = process.env['DATABASE_URL']?.trim();
const server = url ? null : new EmbeddedPostgresServer({ dataDir: join(projectRoot, EMBEDDED_DATA_ROOT, `bench-${process.pid}`), ephemeral: true });
await server?.start();
const connectionString = url || server!.connectionString;
const schema = `ttc_bench_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString });
await admin.connect();
await admin.query(`CREATE SCHEMA ${schema}`);
const pool = new pg.Pool({ connectionString, max: 16, options: `-c search_path=${schema}` });
pool.on('error', () => undefined);

try {
  await migrate(pool);
  const store = new PgToolStore(pool);
  const execution = await runCall(ordersGet, { orderId: 'o-bench' }, { workflowId: 'wf-bench', callId: 'c1' });
  await store.recordExecution({ execution, workflowId: 'wf-bench', runId: 'run-1' });
  const evidenceIds = [execution.modelResult.evidence[0]!.evidence_id];

  const rows = (label: string): Row[] =>
    Array.from({ length: PATCHES_PER_ROUND }, (_, i) => ({
      patchId: `${label}-${i}`,
      workflowId: 'wf-bench',
      key: `${label}-key-${i}`,
      value: { order: `o-${i}`, status: 'shipped', total: i * 1.5 },
      evidenceIds,
    }));

  const throughStore = (row: Row) =>
    store.applyStatePatch({ ...row, source: 'orders-db', observedAt: '2026-11-30T11:59:00Z', retrievedAt: '2026-11-30T12:00:00Z', expectedVersion: 0, callId: 'c1' });

  // The baseline writes the same two rows (history + current pointer) in one transaction, with no checks.
  const raw = async (row: Row) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO ttc_state_patches (patch_id, workflow_id, key, value_json, evidence_ids, source, observed_at, retrieved_at, expected_version, version, call_id, patch_sha256, applied_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, 1, $9, $10, now())`,
        [row.patchId, row.workflowId, row.key, JSON.stringify(row.value), row.evidenceIds, 'orders-db', '2026-11-30T11:59:00Z', '2026-11-30T12:00:00Z', 'c1', '0'.repeat(64)],
      );
      await client.query('INSERT INTO ttc_state (workflow_id, key, version, patch_id, updated_at) VALUES ($1, $2, 1, $3, now())', [row.workflowId, row.key, row.patchId]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  };

  const run = async (batch: Row[], write: (row: Row) => Promise<unknown>, concurrency: number): Promise<number> => {
    let next = 0;
    const start = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < batch.length) await write(batch[next++]!);
      }),
    );
    return batch.length / (Number(process.hrtime.bigint() - start) / 1e9);
  };

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

  // Warm both paths (connections, plans, caches) before measuring.
  await run(rows('warm-store'), throughStore, 4);
  await run(rows('warm-raw'), raw, 4);

  console.log(`state-patch writes/s: store vs raw pg inserts of the same rows (${PATCHES_PER_ROUND} patches × ${ROUNDS} rounds, median)`);
  console.log(`database: ${url ? 'DATABASE_URL' : 'embedded Postgres (fsync on)'}`);
  for (const concurrency of CONCURRENCY) {
    const storeRates: number[] = [];
    const rawRates: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which path goes first, so drift (autovacuum, cache growth) does not favour one.
      const order = round % 2 === 0 ? (['store', 'raw'] as const) : (['raw', 'store'] as const);
      for (const path of order) {
        const batch = rows(`${path}-c${concurrency}-r${round}`);
        if (path === 'store') storeRates.push(await run(batch, throughStore, concurrency));
        else rawRates.push(await run(batch, raw, concurrency));
      }
    }
    const s = median(storeRates);
    const r = median(rawRates);
    console.log(
      `  concurrency ${String(concurrency).padStart(2)}: store ${s.toFixed(0).padStart(6)}/s   raw ${r.toFixed(0).padStart(6)}/s   store/raw = ${(s / r).toFixed(2)} (overhead ×${(r / s).toFixed(2)})`,
    );
  }
} finally {
  await pool.end();
  await admin.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
  await admin.end();
  await server?.dispose();
}
