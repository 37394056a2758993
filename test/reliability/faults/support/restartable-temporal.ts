import { startDevServer, type DevServer } from '../../../../src/testing/dev-server.js';
import { resolveTemporalCli } from '../../../../src/testing/temporal-cli.js';
import { PROJECT_ROOT } from '../../../../testkit/project-root.js';

/** A dev server persisted to a SQLite file, started again on the same port and file after it was killed. */
export interface RestartableTemporal {
  readonly address: string;
  readonly namespace: string;
  /** SIGKILL (no shutdown at all), then the same port and database file again; resolves once it answers. */
  killAndRestart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startRestartableTemporal(dbFilename: string): Promise<RestartableTemporal> {
  const cli = resolveTemporalCli({ env: process.env, projectRoot: PROJECT_ROOT });
  if (cli === null)
    throw new Error(
      'Temporal CLI not found (TEMPORAL_CLI_PATH, PATH, .tools/bin/temporal, SDK cache); run scripts/install-temporal-cli.sh',
    );
  const start = (port?: number) =>
    startDevServer({ cliPath: cli.path, dbFilename, startTimeoutMs: 90_000, ...(port === undefined ? {} : { port }) });
  let server: DevServer = await start();
  const port = Number(server.address.split(':').at(-1));
  return {
    address: server.address,
    namespace: server.namespace,
    killAndRestart: async (downMs) => {
      server.process.kill('SIGKILL');
      await server.stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      server = await start(port);
    },
    stop: () => server.stop(),
  };
}
