import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { TOOLS } from '../../../../testkit/payment-tools.js';
import { PaymentsService } from '../../../../testkit/payments-service.js';
import { openTestDatabase, type TestDatabase, type TestDatabaseOptions } from '../../../support/postgres.js';
import { testWorkflowBundle } from '../../../support/test-workflow-bundle.js';
import type { WorkerProcessConfig } from '../../../support/worker-process.js';
import { writeBundleFile } from './bundle-file.js';
import { startRestartableTemporal, type RestartableTemporal } from './restartable-temporal.js';
import { prepareWorker, type WorkerProcess } from './spawn-worker.js';

/**
 * What the restart tests run on: a Temporal dev server that can be killed and restarted on its database file, a test
 * database, the payments service, and one worker process (more are pushed onto `workers` when one dies).
 */
export interface RestartableStack {
  readonly db: TestDatabase;
  readonly temporal: RestartableTemporal;
  readonly payments: PaymentsService;
  readonly client: Client;
  readonly config: WorkerProcessConfig;
  readonly workers: WorkerProcess[];
  close(): Promise<void>;
}

/** Options of {@link openRestartableStack}. */
export interface RestartableStackOptions {
  /** How long each charge takes at the payments service: long enough to be in flight when a server goes away. */
  readonly chargeDelayMs: number;
  readonly database?: TestDatabaseOptions;
}

export async function openRestartableStack(label: string, options: RestartableStackOptions): Promise<RestartableStack> {
  const scratch = await mkdtemp(join(tmpdir(), `ttc-faults-${label}-`));
  const [db, temporal, code] = await Promise.all([
    openTestDatabase(`faults-${label}`, options.database ?? {}),
    startRestartableTemporal(join(scratch, 'temporal.db')),
    testWorkflowBundle(),
  ]);
  const bundle = await writeBundleFile(code.code);
  const payments = await new PaymentsService(options.chargeDelayMs).start();
  const connection = await Connection.connect({ address: temporal.address });
  const config: WorkerProcessConfig = {
    temporalAddress: temporal.address,
    namespace: temporal.namespace,
    taskQueue: `ttc-faults-${label}-${process.pid}`,
    databaseUrl: db.connectionString,
    schema: db.schema,
    paymentsUrl: payments.baseUrl,
    workflowBundlePath: bundle.path,
    safeRetryTools: [TOOLS.charge],
  };
  const workers = [await prepareWorker(config).start()];
  return {
    db,
    temporal,
    payments,
    client: new Client({ connection, namespace: temporal.namespace }),
    config,
    workers,
    close: async () => {
      for (const worker of workers) await worker.kill();
      await connection.close();
      await temporal.stop();
      await payments.stop();
      await db.close();
      await bundle.remove();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}
