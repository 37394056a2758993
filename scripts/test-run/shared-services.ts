// The services a test run starts once and its files share (testkit/shared-test-services.ts): one Temporal dev server
// (each file registers a namespace of its own on it), one Postgres cluster (each file creates a database of its own)
// and the integration tests' workflow bundle. Starting these per file was most of a file's setup time. A file that
// needs a server of its own (one it restarts, persists or shows the UI of) still starts one.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startDevServer } from '../../src/testing/dev-server.js';
import { resolveTemporalCli } from '../../src/testing/temporal-cli.js';
import { CleanupStack } from '../../testkit/cleanup-stack.js';
import { PROJECT_ROOT } from '../../testkit/project-root.js';
import { SHARED_BUNDLE_ENV, SHARED_POSTGRES_ENV, SHARED_TEMPORAL_ENV } from '../../testkit/shared-test-services.js';
import { startEmbeddedPostgres } from '../../test/support/postgres.js';
import { testWorkflowBundle } from '../../test/support/test-workflow-bundle.js';

/** The running services, the environment that points test files at them, and how to stop them. */
export interface SharedServices {
  readonly env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Starts the shared services, writing the bundle under `scratch`. Every file of a run may be running at once, each
 * with its pools and worker processes, hence more connections than a file's own server allows. A service that does
 * not start fails the run: tests never fall back to skipping.
 */
export async function startSharedServices(scratch: string): Promise<SharedServices> {
  const cleanups = new CleanupStack();
  try {
    const cli = resolveTemporalCli({ env: process.env, projectRoot: PROJECT_ROOT });
    if (cli === null)
      throw new Error(
        'Temporal CLI not found (TEMPORAL_CLI_PATH, PATH, .tools/bin/temporal, SDK cache); run scripts/install-temporal-cli.sh',
      );
    // A user's DATABASE_URL is what the files use (test/support/postgres.ts); no cluster is started beside it.
    const ownPostgres = (process.env['DATABASE_URL']?.trim() ?? '') === '';
    const bundlePath = join(scratch, 'test-workflows.bundle.js');
    const [temporal, postgres] = await cleanups.startTogether(
      [startDevServer({ cliPath: cli.path, startTimeoutMs: 90_000 }), (server) => server.stop()],
      [
        ownPostgres ? startEmbeddedPostgres('shared', ['-c', 'max_connections=500']) : Promise.resolve(null),
        (server) => server?.dispose() ?? Promise.resolve(),
      ],
      [testWorkflowBundle().then(({ code }) => writeFile(bundlePath, code))],
    );
    return {
      env: {
        [SHARED_TEMPORAL_ENV]: temporal.address,
        [SHARED_BUNDLE_ENV]: bundlePath,
        ...(postgres === null ? {} : { [SHARED_POSTGRES_ENV]: postgres.connectionString }),
      },
      stop: () => cleanups.release(),
    };
  } catch (error) {
    await cleanups.release();
    throw error;
  }
}
