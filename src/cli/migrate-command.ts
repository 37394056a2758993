import { loadMigrations, migrate } from '../store/index.js';
import { EXIT_CODES, type ExitCode } from './cli-error.js';
import { openDatabase, type OpenDatabase } from './database.js';
import type { StackContext } from './stack-context.js';

/** What `migrate` prints: the database it migrated and the migration files applied now and before. */
export interface MigrateOutput {
  readonly database: OpenDatabase['source']['kind'];
  readonly applied: readonly { readonly version: number; readonly name: string }[];
  readonly alreadyApplied: readonly { readonly version: number; readonly name: string }[];
}

/** `migrate`: opens DATABASE_URL (or the embedded Postgres), migrates it, prints the result and closes it. */
export async function runMigrate(ctx: StackContext): Promise<ExitCode> {
  const database = await openDatabase(ctx.config.databaseUrl, ctx.projectRoot);
  try {
    ctx.out.result(await migrateDatabase(database));
  } finally {
    await database.close();
  }
  return EXIT_CODES.ok;
}

/** Brings the schema up to date (idempotent: a second run applies nothing). */
async function migrateDatabase(database: OpenDatabase): Promise<MigrateOutput> {
  const migrations = await loadMigrations();
  const report = await migrate(database.pool, migrations);
  const named = (versions: readonly number[]) => versions.map((version) => ({ version, name: migrations.find((m) => m.version === version)?.name ?? '' }));
  return { database: database.source.kind, applied: named(report.applied), alreadyApplied: named(report.alreadyApplied) };
}
