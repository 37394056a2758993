import pg from 'pg';
import { PgAuditTrail } from '../store/index.js';
import { CliError, EXIT_CODES } from './cli-error.js';
import type { CliDeps } from './command.js';

/** The audit trail as DATABASE_URL's role sees it: sealing, verify and export need no more. */
export async function applicationTrail(deps: CliDeps): Promise<PgAuditTrail> {
  const database = await deps.database();
  return new PgAuditTrail(database.pool, { schema: database.schema });
}

/**
 * Runs `work` on the trail as the role that owns the tables (DATABASE_OWNER_URL, or the embedded Postgres's
 * superuser): retention and erasure run its SECURITY DEFINER functions, which nobody else may execute unless granted.
 */
export async function withOwnerTrail<T>(
  deps: CliDeps,
  command: string,
  work: (trail: PgAuditTrail) => Promise<T>,
): Promise<T> {
  const database = await deps.database();
  if (database.ownerConnectionString === null) {
    throw new CliError(
      `${command} runs as the role that owns the tables: set DATABASE_OWNER_URL (DATABASE_URL is the application role, which may not remove audit data)`,
      EXIT_CODES.usage,
    );
  }
  const pool = new pg.Pool({
    connectionString: database.ownerConnectionString,
    max: 2,
    connectionTimeoutMillis: 10_000,
  });
  pool.on('error', () => undefined);
  try {
    return await work(new PgAuditTrail(pool, { schema: database.schema }));
  } finally {
    await pool.end().catch(() => undefined);
  }
}
