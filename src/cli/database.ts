import { join } from 'node:path';
import pg from 'pg';
import { PgToolStore, type ToolStore } from '../store/index.js';
import { EMBEDDED_DATA_ROOT, resolveDatabase, type ResolvedDatabase } from '../testing/resolve-database.js';
import { CliError, EXIT_CODES } from './cli-error.js';
import { maskCredentials } from './mask-credentials.js';

/** A connected Postgres: the URL, where it came from, a pool and a store over it. */
export interface OpenDatabase {
  readonly connectionString: string;
  /** `DATABASE_URL`, or the embedded cluster of the project (with its data folder). */
  readonly source: { readonly kind: 'DATABASE_URL' } | { readonly kind: 'embedded'; readonly dataDir: string };
  readonly pool: pg.Pool;
  readonly store: ToolStore;
  /** Ends the pool and stops the embedded server if this process started it. */
  close(): Promise<void>;
}

const URL_PROTOCOLS = new Set(['postgres:', 'postgresql:', 'socket:']);

/**
 * Opens `databaseUrl`, or the embedded Postgres under `<projectRoot>/.data/postgres/main` when it is undefined, and
 * checks that it answers. A malformed URL is a usage error; a database that does not answer is `unavailable`.
 * The credentials of a URL never appear in a message.
 */
export async function openDatabase(databaseUrl: string | undefined, projectRoot: string): Promise<OpenDatabase> {
  if (databaseUrl !== undefined) checkDatabaseUrl(databaseUrl);
  let resolved: ResolvedDatabase;
  try {
    resolved = await resolveDatabase({ databaseUrl, projectRoot });
  } catch (error) {
    throw new CliError(`cannot start the embedded Postgres (or set DATABASE_URL): ${message(error)}`, EXIT_CODES.unavailable, { cause: error });
  }
  const pool = new pg.Pool({ connectionString: resolved.connectionString, max: 8, connectionTimeoutMillis: 10_000 });
  // An idle client losing its connection (e.g. the server stopping first on Ctrl-C) must not crash the CLI.
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    await resolved.close().catch(() => undefined);
    const where = databaseUrl === undefined ? 'the embedded Postgres' : `DATABASE_URL (${maskCredentials(databaseUrl)})`;
    throw new CliError(`cannot connect to ${where}: ${message(error)}`, EXIT_CODES.unavailable, { cause: error });
  }
  return {
    connectionString: resolved.connectionString,
    source: databaseUrl === undefined ? { kind: 'embedded', dataDir: embeddedDataDir(projectRoot) } : { kind: 'DATABASE_URL' },
    pool,
    store: new PgToolStore(pool),
    close: async () => {
      await pool.end().catch(() => undefined);
      await resolved.close().catch(() => undefined);
    },
  };
}

function embeddedDataDir(projectRoot: string): string {
  return join(projectRoot, EMBEDDED_DATA_ROOT, 'main');
}

function checkDatabaseUrl(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError('DATABASE_URL is not a URL: expected postgres://user:password@host:5432/database', EXIT_CODES.usage);
  }
  if (!URL_PROTOCOLS.has(url.protocol)) {
    throw new CliError(`DATABASE_URL must be a postgres:// or postgresql:// URL, got '${url.protocol}//…'`, EXIT_CODES.usage);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
