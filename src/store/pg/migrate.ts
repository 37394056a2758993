import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import type { Pool } from 'pg';
import { inTransaction } from './sql-runner.js';
import { StoreError } from '../store-error.js';

/** Where the numbered SQL files live (shipped next to this module). */
export const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/** Table recording applied migrations (in the connection's current schema). */
export const MIGRATIONS_TABLE = 'ttc_schema_migrations';

/** Advisory lock key serializing concurrent migrators of one database: an arbitrary fixed constant, never to change. */
export const MIGRATION_LOCK_KEY = '8391707391234197362';

/** One numbered migration file. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  readonly sha256: string;
}

/** What {@link migrate} did: versions applied now, and versions that were already there. */
export interface MigrationReport {
  readonly applied: readonly number[];
  readonly alreadyApplied: readonly number[];
}

/** Reads `NNN_name.sql` files in version order; a gap or duplicate number is a packaging error. */
export async function loadMigrations(dir: URL = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => /^\d{3}_[a-z0-9_]+\.sql$/.test(file)).sort();
  const migrations: Migration[] = [];
  for (const [index, file] of files.entries()) {
    const version = Number(file.slice(0, 3));
    if (version !== index + 1) throw new StoreError('migration_mismatch', { file, problem: 'versions must be 1..n without gaps' });
    const sql = await readFile(new URL(file, dir), 'utf8');
    migrations.push({ version, name: file, sql, sha256: createHash('sha256').update(sql).digest('hex') });
  }
  return migrations;
}

/**
 * Brings the schema up to date: applies every migration not yet recorded, in order, in one transaction under an
 * advisory lock, so concurrent migrators wait and then find nothing to do. Forward only: an applied migration
 * whose file changed is refused (`migration_mismatch`) rather than silently diverging.
 */
export async function migrate(pool: Pool, migrations?: readonly Migration[]): Promise<MigrationReport> {
  const all = migrations ?? (await loadMigrations());
  return inTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (version integer PRIMARY KEY, name text NOT NULL, sha256 text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      [],
    );
    const rows = await tx.query<{ version: number; sha256: string }>(`SELECT version, sha256 FROM ${MIGRATIONS_TABLE} ORDER BY version`, []);
    const recorded = new Map(rows.map((row) => [row.version, row.sha256]));
    const applied: number[] = [];
    const alreadyApplied: number[] = [];
    for (const migration of all) {
      const sha = recorded.get(migration.version);
      if (sha !== undefined) {
        if (sha !== migration.sha256) throw new StoreError('migration_mismatch', { version: migration.version, problem: 'applied migration was edited' });
        alreadyApplied.push(migration.version);
        continue;
      }
      // A migration file is trusted SQL shipped with the package, run as a multi-statement script.
      await tx.query(migration.sql, []);
      await tx.query(`INSERT INTO ${MIGRATIONS_TABLE} (version, name, sha256) VALUES ($1, $2, $3)`, [migration.version, migration.name, migration.sha256]);
      applied.push(migration.version);
    }
    const known = new Set(all.map((m) => m.version));
    const unknown = [...recorded.keys()].filter((version) => !known.has(version));
    if (unknown.length > 0) throw new StoreError('migration_mismatch', { versions: unknown, problem: 'database is newer than this package' });
    return { applied, alreadyApplied };
  });
}
