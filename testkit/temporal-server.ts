import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type MetricsExporterConfig } from '@temporalio/worker';
import { startDevServer, type DevServer } from '../src/testing/dev-server.js';
import { resolveTemporalCli } from '../src/testing/temporal-cli.js';
import { PROJECT_ROOT } from './project-root.js';

/** A real Temporal dev server for one test file, with a client and a worker connection to it. */
export interface TestTemporal {
  readonly server: DevServer;
  readonly client: Client;
  readonly connection: Connection;
  readonly nativeConnection: NativeConnection;
  /** Closes the connections and stops the server; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts a headless dev server on free ports (search attributes registered) and connects to it. A missing CLI or a
 * server that does not start is an error — integration tests fail, they never skip (and never in CI). Run
 * `scripts/install-temporal-cli.sh` to provision the CLI into `.tools/`.
 */
export async function startTestTemporal(options: { dbFilename?: string; ui?: boolean } = {}): Promise<TestTemporal> {
  installTestRuntime();
  const cli = resolveTemporalCli({ env: process.env, projectRoot: PROJECT_ROOT });
  if (cli === null) {
    throw new Error('Temporal CLI not found (TEMPORAL_CLI_PATH, PATH, .tools/bin/temporal, SDK cache); run scripts/install-temporal-cli.sh');
  }
  const server = await startDevServer({
    cliPath: cli.path,
    startTimeoutMs: 90_000,
    ...(options.dbFilename === undefined ? {} : { dbFilename: options.dbFilename }),
    ...(options.ui === undefined ? {} : { ui: options.ui }),
  });
  try {
    const connection = await Connection.connect({ address: server.address });
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    const client = new Client({ connection, namespace: server.namespace });
    let stopped = false;
    return {
      server,
      client,
      connection,
      nativeConnection,
      stop: async () => {
        if (stopped) return;
        stopped = true;
        await Promise.allSettled([connection.close(), nativeConnection.close()]);
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

let runtimeInstalled = false;

/**
 * Worker logs at WARN and above only (the INFO state changes drown test output); once per process, so a test that
 * scrapes the runtime's `metrics` exporter installs it before its harness starts (a later call changes nothing).
 */
export function installTestRuntime(metrics?: MetricsExporterConfig): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { filter: 'ERROR', forward: {} }, ...(metrics === undefined ? {} : { metrics }) } });
}
