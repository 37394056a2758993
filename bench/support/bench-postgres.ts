import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { EMBEDDED_DATA_ROOT } from '../../src/testing/resolve-database.js';
import { EmbeddedPostgresServer } from '../../src/testing/embedded-postgres-server.js';
import { migrate } from '../../src/store/pg/migrate.js';
import { PROJECT_ROOT } from '../../testkit/project-root.js';

/** A migrated, throwaway schema for one benchmark run. */
export interface BenchDatabase {
  /** On the benchmark's schema (search_path), for the raw baselines' unqualified SQL. */
  readonly pool: pg.Pool;
  /** The schema the store is given. */
  readonly schema: string;
  /** How the figures' database was set up, for the printed header. */
  readonly description: string;
  close(): Promise<void>;
}

/**
 * DATABASE_URL when set, else an embedded Postgres of this process. Unlike the test clusters, fsync stays ON by
 * default: the plugin's ledger and audit writes are durable in production, so their cost must be counted.
 * BENCH_PG_FSYNC=off measures with it off (as the test suite runs).
 */
export async function openBenchDatabase(poolMax: number): Promise<BenchDatabase> {
  const url = process.env['DATABASE_URL']?.trim();
  const fsync = (process.env['BENCH_PG_FSYNC'] ?? 'on').trim().toLowerCase();
  if (fsync !== 'on' && fsync !== 'off') throw new Error(`BENCH_PG_FSYNC must be 'on' or 'off', got '${fsync}'`);
  const server = url
    ? null
    : new EmbeddedPostgresServer({
        dataDir: join(PROJECT_ROOT, EMBEDDED_DATA_ROOT, `bench-${process.pid}-${randomBytes(3).toString('hex')}`),
        ephemeral: true,
        postgresFlags: ['-c', `fsync=${fsync}`, '-c', 'max_connections=200'],
      });
  await server?.start();
  const connectionString = url || server!.connectionString;
  const schema = `ttc_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = new pg.Pool({ connectionString, max: poolMax, options: `-c search_path=${schema}` });
  // An idle client losing its connection must not crash the benchmark.
  pool.on('error', () => undefined);
  await migrate(pool, { schema });
  return {
    pool,
    schema,
    description: url ? 'DATABASE_URL' : `embedded Postgres (fsync ${fsync})`,
    async close() {
      await pool.end().catch(() => undefined);
      await admin.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
      await admin.end().catch(() => undefined);
      await server?.dispose();
    },
  };
}
