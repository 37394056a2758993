import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { loadMigrations, migrate, MIGRATIONS_TABLE } from '../../../src/store/pg/migrate.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { rejectsWith } from './assert-store-error.js';

let db: TestDatabase;
before(async () => {
  db = await openTestDatabase('migrations', { migrate: false });
});
after(async () => db?.close());

async function tables(): Promise<string[]> {
  const { rows } = await db.pool.query<{ tablename: string }>('SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename');
  return rows.map((r) => r.tablename);
}

describe('migrations (real Postgres)', () => {
  it('migrates an empty schema from nothing to the current version', async () => {
    assert.deepEqual(await tables(), []);
    const all = await loadMigrations();
    assert.ok(all.length >= 1);
    const report = await migrate(db.pool);
    assert.deepEqual(report.applied, all.map((m) => m.version));
    assert.deepEqual(report.alreadyApplied, []);
    assert.deepEqual(await tables(), [
      'ttc_artifacts',
      'ttc_audit',
      'ttc_evidence',
      'ttc_ledger',
      'ttc_memory',
      'ttc_reconciliation_attempts',
      'ttc_reconciliations',
      MIGRATIONS_TABLE,
      'ttc_state',
      'ttc_state_patches',
    ]);
  });

  it('does nothing on a re-run', async () => {
    const before = await db.pool.query<{ version: number; applied_at: Date }>(`SELECT version, applied_at FROM ${MIGRATIONS_TABLE} ORDER BY version`);
    const report = await migrate(db.pool);
    assert.deepEqual(report.applied, []);
    assert.deepEqual(report.alreadyApplied, before.rows.map((r) => r.version));
    const afterRows = await db.pool.query<{ version: number; applied_at: Date }>(`SELECT version, applied_at FROM ${MIGRATIONS_TABLE} ORDER BY version`);
    assert.deepEqual(afterRows.rows, before.rows);
  });

  it('lets concurrent migrators of a fresh schema apply each migration exactly once', async () => {
    const schema = `${db.schema}_concurrent`;
    await db.pool.query(`CREATE SCHEMA ${schema}`);
    const pools = Array.from({ length: 5 }, () => new pg.Pool({ connectionString: db.connectionString, max: 2, options: `-c search_path=${schema}` }));
    try {
      const reports = await Promise.all(pools.map((pool) => migrate(pool)));
      assert.equal(reports.filter((r) => r.applied.length > 0).length, 1);
      const { rows } = await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.${MIGRATIONS_TABLE}`);
      assert.equal(Number(rows[0]!.n), (await loadMigrations()).length);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
      await db.pool.query(`DROP SCHEMA ${schema} CASCADE`);
    }
  });

  it('refuses to run when an applied migration file was edited (forward only)', async () => {
    const edited = (await loadMigrations()).map((m) => (m.version === 1 ? { ...m, sql: `${m.sql}\n-- edited`, sha256: 'f'.repeat(64) } : m));
    await rejectsWith(migrate(db.pool, edited), 'TOOL_ERROR', 'migration_mismatch');
  });

  it('refuses a database that has migrations this package does not know', async () => {
    await rejectsWith(migrate(db.pool, []), 'TOOL_ERROR', 'migration_mismatch');
  });
});
