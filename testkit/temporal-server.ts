import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type MetricsExporterConfig } from '@temporalio/worker';
import { randomBytes } from 'node:crypto';
import { msToTs } from '@temporalio/common/lib/time.js';
import protos from '@temporalio/proto';
import { startDevServer, type DevServer } from '../src/testing/dev-server.js';
import { resolveTemporalCli } from '../src/testing/temporal-cli.js';
import { SEARCH_ATTRIBUTE_KEYS } from '../src/wire/search-attributes.js';
import { PROJECT_ROOT } from './project-root.js';
import { SHARED_TEMPORAL_ENV, sharedService } from './shared-test-services.js';

/** Where a test file's Temporal is: the server's address, the file's namespace and the UI, when started with one. */
export type TestTemporalServer = Pick<DevServer, 'address' | 'namespace' | 'uiUrl'>;

/** A real Temporal dev server for one test file, with a client and a worker connection to it. */
export interface TestTemporal {
  readonly server: TestTemporalServer;
  readonly client: Client;
  readonly connection: Connection;
  readonly nativeConnection: NativeConnection;
  /** Closes the connections and stops the server; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Gives a test file a Temporal of its own: a fresh namespace on the run's shared dev server when there is one (see
 * testkit/shared-test-services.ts), else a headless dev server of its own on free ports; either way with the package's
 * search attributes registered. A missing CLI or a server that does not start is an error — integration tests fail,
 * they never skip (and never in CI). Run `scripts/install-temporal-cli.sh` to provision the CLI into `.tools/`. A file
 * that persists the server (`dbFilename`) or shows its UI always starts its own.
 */
export async function startTestTemporal(options: { dbFilename?: string; ui?: boolean } = {}): Promise<TestTemporal> {
  installTestRuntime();
  const shared = sharedService(SHARED_TEMPORAL_ENV);
  if (shared !== undefined && options.dbFilename === undefined && options.ui !== true)
    return connectToNamespace(shared, await createNamespace(shared));
  const cli = resolveTemporalCli({ env: process.env, projectRoot: PROJECT_ROOT });
  if (cli === null) {
    throw new Error(
      'Temporal CLI not found (TEMPORAL_CLI_PATH, PATH, .tools/bin/temporal, SDK cache); run scripts/install-temporal-cli.sh',
    );
  }
  const server = await startDevServer({
    cliPath: cli.path,
    startTimeoutMs: 90_000,
    ...(options.dbFilename === undefined ? {} : { dbFilename: options.dbFilename }),
    ...(options.ui === undefined ? {} : { ui: options.ui }),
  });
  try {
    return await connectToNamespace(server.address, server.namespace, () => server.stop(), server.uiUrl);
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** Connects a client and a worker connection to one namespace; `stop` closes them, then stops what the file started. */
async function connectToNamespace(
  address: string,
  namespace: string,
  stopServer?: () => Promise<void>,
  uiUrl: string | null = null,
): Promise<TestTemporal> {
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address }).catch(async (error: unknown) => {
    await connection.close();
    throw error;
  });
  const client = new Client({ connection, namespace });
  let stopped = false;
  return {
    server: { address, namespace, uiUrl },
    client,
    connection,
    nativeConnection,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await Promise.allSettled([connection.close(), nativeConnection.close()]);
      await stopServer?.();
    },
  };
}

const { IndexedValueType } = protos.temporal.api.enums.v1;
/** The server's type for each `--search-attribute` type name the package uses. */
const INDEXED_VALUE_TYPES: Record<
  (typeof SEARCH_ATTRIBUTE_KEYS)[number]['cliType'],
  protos.temporal.api.enums.v1.IndexedValueType
> = {
  Bool: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
};

/**
 * Registers a namespace for one test file on a shared server, with the package's search attributes (the dev server
 * registers `--search-attribute`s for its default namespace only). Files never share a namespace, so workflow ids,
 * task queues and visibility listings of one file never meet another's.
 */
async function createNamespace(address: string): Promise<string> {
  const namespace = `ttc-test-${process.pid}-${randomBytes(3).toString('hex')}`;
  const connection = await Connection.connect({ address });
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        SEARCH_ATTRIBUTE_KEYS.map((key) => [key.name, INDEXED_VALUE_TYPES[key.cliType]]),
      ),
    });
    return namespace;
  } finally {
    await connection.close();
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
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    telemetryOptions: { logging: { filter: 'ERROR', forward: {} }, ...(metrics === undefined ? {} : { metrics }) },
  });
}
