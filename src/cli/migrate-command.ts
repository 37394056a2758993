import { loadMigrations } from '../store/index.js';
import { EXIT_CODES, type ExitCode } from './cli-error.js';
import { openDatabase, SINGLE_ROLE_WARNING, type OpenDatabase } from './database.js';
import type { StackContext } from './stack-context.js';

/**
 * What `migrate` prints: the database it migrated, the migration files applied now and before, the application
 * role it granted (`null` when there was no owner to grant it, with `warning` when DATABASE_URL's role owns the tables).
 */
export interface MigrateOutput {
  readonly database: OpenDatabase['source']['kind'];
  readonly applied: readonly { readonly version: number; readonly name: string }[];
  readonly alreadyApplied: readonly { readonly version: number; readonly name: string }[];
  readonly appRole: string | null;
  readonly warning?: string;
}

/**
 * `migrate`: opens DATABASE_URL (or the embedded Postgres), migrates it as DATABASE_OWNER_URL (or the embedded
 * superuser), prints the result and closes it.
 */
export async function runMigrate(ctx: StackContext): Promise<ExitCode> {
  const database = await openDatabase(ctx.config, ctx.projectRoot);
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
  const report = await database.migrate(migrations);
  const named = (versions: readonly number[]) =>
    versions.map((version) => ({ version, name: migrations.find((m) => m.version === version)?.name ?? '' }));
  return {
    database: database.source.kind,
    applied: named(report.applied),
    alreadyApplied: named(report.alreadyApplied),
    appRole: report.appRole,
    ...(report.singleRole ? { warning: SINGLE_ROLE_WARNING } : {}),
  };
}
