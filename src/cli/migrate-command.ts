import { loadMigrations, migrate } from '../store/index.js';
import type { OpenDatabase } from './database.js';

/** What `migrate` prints: the database it migrated and the migration files applied now and before. */
export interface MigrateOutput {
  readonly database: OpenDatabase['source']['kind'];
  readonly applied: readonly { readonly version: number; readonly name: string }[];
  readonly alreadyApplied: readonly { readonly version: number; readonly name: string }[];
}

/** Brings the schema up to date (idempotent: a second run applies nothing). */
export async function migrateDatabase(database: OpenDatabase): Promise<MigrateOutput> {
  const migrations = await loadMigrations();
  const report = await migrate(database.pool, migrations);
  const named = (versions: readonly number[]) => versions.map((version) => ({ version, name: migrations.find((m) => m.version === version)?.name ?? '' }));
  return { database: database.source.kind, applied: named(report.applied), alreadyApplied: named(report.alreadyApplied) };
}
