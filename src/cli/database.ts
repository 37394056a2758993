import { join } from 'node:path';
import pg from 'pg';
import {
  checkSchemaName,
  DEFAULT_SCHEMA,
  isStoreError,
  migrate,
  PgToolStore,
  type MigrateOptions,
  type Migration,
  type MigrationReport,
  type ToolStore,
} from '../store/index.js';
import { PostgresBinariesMissingError } from '../testing/postgres-binaries.js';
import { EMBEDDED_DATA_ROOT, resolveDatabase, type ResolvedDatabase } from '../testing/resolve-database.js';
import { CliError, EXIT_CODES } from './cli-error.js';
import type { CliConfig } from './cli-config.js';
import { maskCredentials } from './mask-credentials.js';

/** A connected Postgres: the URLs, where they came from, a pool (as the application role) and a store over it. */
export interface OpenDatabase {
  /** What the store connects as: DATABASE_URL, or the embedded cluster's application role. */
  readonly connectionString: string;
  /** What migrations run as: DATABASE_OWNER_URL, or the embedded cluster's superuser; `null` when neither. */
  readonly ownerConnectionString: string | null;
  /** `DATABASE_URL`, or the embedded cluster of the project (with its data folder). */
  readonly source: { readonly kind: 'DATABASE_URL' } | { readonly kind: 'embedded'; readonly dataDir: string };
  readonly pool: pg.Pool;
  /** The schema of the store's tables (DATABASE_SCHEMA, default public). */
  readonly schema: string;
  readonly store: ToolStore;
  /**
   * Brings the schema up to date as the owner and grants the application role (the role the pool connects as)
   * exactly what the store needs. Without an owner URL, the application role migrates and owns the tables itself
   * (`singleRole` in the report; see {@link migrationLines}) — or, when the owner migrated them already, only
   * confirms that the schema is current. Failures are CliErrors that say what to fix.
   */
  migrate(migrations?: readonly Migration[]): Promise<MigrationReport>;
  /** Ends the pool and stops the embedded server if this process started it. */
  close(): Promise<void>;
}

/** The database settings of the CLI's configuration. */
export type DatabaseConfig = Pick<CliConfig, 'databaseUrl' | 'databaseOwnerUrl' | 'databaseSchema'>;

const URL_PROTOCOLS = new Set(['postgres:', 'postgresql:', 'socket:']);

/**
 * Opens `databaseUrl`, or the embedded Postgres under `<projectRoot>/.data/postgres/main` when it is undefined, and
 * checks that it answers. A malformed URL is a usage error (so is an owner URL without DATABASE_URL: the embedded
 * cluster has its own owner); a database that does not answer is `unavailable`. The credentials of a URL never
 * appear in a message.
 */
export async function openDatabase(config: DatabaseConfig, projectRoot: string): Promise<OpenDatabase> {
  const { databaseUrl, databaseOwnerUrl } = config;
  const schema = checkedSchema(config.databaseSchema);
  if (databaseUrl !== undefined) checkDatabaseUrl(databaseUrl, 'DATABASE_URL');
  if (databaseOwnerUrl !== undefined) {
    if (databaseUrl === undefined)
      throw new CliError(
        'DATABASE_OWNER_URL needs DATABASE_URL (the embedded Postgres has its own owner)',
        EXIT_CODES.usage,
      );
    checkDatabaseUrl(databaseOwnerUrl, 'DATABASE_OWNER_URL');
  }
  let resolved: ResolvedDatabase;
  try {
    resolved = await resolveDatabase({ databaseUrl, databaseOwnerUrl, projectRoot });
  } catch (error) {
    // A package to install is the setup's to fix (like a setting), not a server that does not answer.
    const code = error instanceof PostgresBinariesMissingError ? EXIT_CODES.usage : EXIT_CODES.unavailable;
    throw new CliError(`cannot start the embedded Postgres (or set DATABASE_URL): ${message(error)}`, code, {
      cause: error,
    });
  }
  const pool = new pg.Pool({ connectionString: resolved.connectionString, max: 8, connectionTimeoutMillis: 10_000 });
  // An idle client losing its connection (e.g. the server stopping first on Ctrl-C) must not crash the CLI.
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    await resolved.close().catch(() => undefined);
    const where =
      databaseUrl === undefined ? 'the embedded Postgres' : `DATABASE_URL (${maskCredentials(databaseUrl)})`;
    throw new CliError(`cannot connect to ${where}: ${message(error)}`, EXIT_CODES.unavailable, { cause: error });
  }
  return {
    connectionString: resolved.connectionString,
    ownerConnectionString: resolved.ownerConnectionString,
    source:
      databaseUrl === undefined
        ? { kind: 'embedded', dataDir: embeddedDataDir(projectRoot) }
        : { kind: 'DATABASE_URL' },
    pool,
    schema,
    store: new PgToolStore(pool, { schema }),
    migrate: (migrations) =>
      migrateAsOwner(pool, resolved.ownerConnectionString, {
        schema,
        ...(migrations === undefined ? {} : { migrations }),
      }),
    close: async () => {
      await pool.end().catch(() => undefined);
      await resolved.close().catch(() => undefined);
    },
  };
}

/**
 * Migrates on a short-lived owner pool, naming the application role by asking the application pool who it is (so a
 * URL without a user name, or one the server maps, still names the right role).
 */
async function migrateAsOwner(
  pool: pg.Pool,
  ownerUrl: string | null,
  options: Omit<MigrateOptions, 'appRole'>,
): Promise<MigrationReport> {
  if (ownerUrl === null) return explained(migrate(pool, options), 'DATABASE_URL');
  const owner = new pg.Pool({ connectionString: ownerUrl, max: 1, connectionTimeoutMillis: 10_000 });
  owner.on('error', () => undefined);
  try {
    const appRole = (await pool.query<{ current_user: string }>('SELECT current_user')).rows[0]?.current_user ?? '';
    return await explained(migrate(owner, { ...options, appRole }), 'DATABASE_OWNER_URL');
  } finally {
    await owner.end().catch(() => undefined);
  }
}

/** Turns the store's migration failures into messages that say which setting to fix. */
async function explained(
  migrating: Promise<MigrationReport>,
  migratedAs: 'DATABASE_URL' | 'DATABASE_OWNER_URL',
): Promise<MigrationReport> {
  try {
    return await migrating;
  } catch (error) {
    if (!isStoreError(error)) throw error;
    const problem = detailText(error.details['problem']) ?? detailText(error.details['sqlstate']) ?? error.reason;
    if (error.reason === 'role_setup') {
      const fix =
        problem === 'tables_owned_by_another_role'
          ? `the tables belong to another role (${JSON.stringify(error.details['tables'])}): make the owner own them (REASSIGN OWNED BY <that role> TO <owner>)`
          : `DATABASE_URL's role must be a separate role that is not a superuser nor a member of the owner (${problem})`;
      throw new CliError(`cannot separate the application role from the owner: ${fix}`, EXIT_CODES.usage, {
        cause: error,
      });
    }
    if (error.retryable)
      throw new CliError(`cannot reach ${migratedAs} to migrate (${problem})`, EXIT_CODES.unavailable, {
        cause: error,
      });
    // Most often DATABASE_URL is an application role, which may not create or alter anything.
    const hint =
      migratedAs === 'DATABASE_URL' ? '; to migrate as the role that owns the tables, set DATABASE_OWNER_URL' : '';
    throw new CliError(`migrating as ${migratedAs} failed: ${error.reason} (${problem})${hint}`, EXIT_CODES.failure, {
      cause: error,
    });
  }
}

function detailText(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * What to tell a user after migrating: the counts, and — when the application role migrated itself — that it owns
 * the tables, so nothing stops it from disabling the append-only triggers.
 */
export function migrationLines(report: MigrationReport): string[] {
  const lines = [`database migrated (${report.applied.length} applied, ${report.alreadyApplied.length} already there)`];
  if (report.singleRole) lines.push(`warning: ${SINGLE_ROLE_WARNING}`);
  return lines;
}

/** The warning of a single-role setup (also in `migrate`'s JSON). */
export const SINGLE_ROLE_WARNING =
  'DATABASE_OWNER_URL is not set, so the DATABASE_URL role ran the migrations and owns the tables: append-only is not enforced against the application. Set DATABASE_OWNER_URL to a separate owner role (README, Configuration).';

function embeddedDataDir(projectRoot: string): string {
  return join(projectRoot, EMBEDDED_DATA_ROOT, 'main');
}

function checkedSchema(schema: string | undefined): string {
  if (schema === undefined) return DEFAULT_SCHEMA;
  try {
    return checkSchemaName(schema);
  } catch (error) {
    throw new CliError(
      `DATABASE_SCHEMA must be a lower-case identifier (a-z, 0-9, _), got '${schema}'`,
      EXIT_CODES.usage,
      { cause: error },
    );
  }
}

function checkDatabaseUrl(value: string, name: 'DATABASE_URL' | 'DATABASE_OWNER_URL'): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${name} is not a URL: expected postgres://user:password@host:5432/database`, EXIT_CODES.usage);
  }
  if (!URL_PROTOCOLS.has(url.protocol)) {
    throw new CliError(
      `${name} must be a postgres:// or postgresql:// URL, got '${url.protocol}//…'`,
      EXIT_CODES.usage,
    );
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
