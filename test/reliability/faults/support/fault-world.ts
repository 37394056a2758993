import { unauthenticatedForDevelopment } from '../../../../src/decisions/index.js';
import { openTestDatabase, type TestDatabase, type TestDatabaseOptions } from '../../../support/postgres.js';
import { startRuntimeHarness, type RuntimeHarness } from '../../../support/runtime-harness.js';
import type { WorkerProcessConfig } from '../../../support/worker-process.js';
import { writeBundleFile } from './bundle-file.js';
import { prepareWorker, type StandbyWorker, type WorkerProcess } from './spawn-worker.js';

/** A runtime harness whose database is reachable by worker processes too, with a workflow bundle on disk for them. */
export interface FaultWorld {
  readonly harness: RuntimeHarness;
  readonly db: TestDatabase;
  /**
   * Starts a worker process on the harness's server, task queue, schema and payments service (or `overrides`);
   * with `standby`, one that is already loaded, so replacing a killed worker takes about as long as starting to poll.
   */
  spawnWorker(overrides?: Partial<WorkerProcessConfig>): Promise<WorkerProcess>;
  stop(): Promise<void>;
}

/** Options of {@link startFaultWorld}. */
export interface FaultWorldOptions {
  readonly safeRetryTools?: readonly string[];
  readonly database?: TestDatabaseOptions;
  /**
   * How many worker processes to keep loaded in standby (default 0), for tests that replace killed workers often.
   * Loading takes several seconds on a busy machine; two keep one ready even when a trial is short.
   */
  readonly standby?: number;
}

export async function startFaultWorld(label: string, options: FaultWorldOptions = {}): Promise<FaultWorld> {
  let db: TestDatabase | null = null;
  const harness = await startRuntimeHarness(
    {
      create: async () => {
        const opened = await openTestDatabase(label, options.database ?? {});
        db = opened;
        return { store: opened.store(), close: () => opened.close() };
      },
    },
    // Unauthenticated decisions, like the worker processes and the plugin workers the fault tests start beside the
    // harness's: every worker of a task queue must judge a decision alike, and signatures are not what these test.
    {
      decisions: unauthenticatedForDevelopment(),
      ...(options.safeRetryTools === undefined ? {} : { safeRetryTools: options.safeRetryTools }),
    },
  );
  const bundle = await writeBundleFile(harness.workflowBundle.code);
  const database = db as TestDatabase | null;
  if (database === null) throw new Error('unreachable: the harness created its store');
  const config: WorkerProcessConfig = {
    temporalAddress: harness.temporal.server.address,
    namespace: harness.temporal.server.namespace,
    taskQueue: harness.taskQueue,
    databaseUrl: database.connectionString,
    schema: database.schema,
    paymentsUrl: harness.payments.baseUrl,
    workflowBundlePath: bundle.path,
    safeRetryTools: [...(options.safeRetryTools ?? [])],
  };
  const workers = new Set<WorkerProcess>();
  const standbys: StandbyWorker[] = [];
  return {
    harness,
    db: database,
    spawnWorker: async (overrides) => {
      // A standby process was loaded with the shared configuration; one with overrides is started fresh.
      const next =
        overrides === undefined
          ? (standbys.shift() ?? prepareWorker(config))
          : prepareWorker({ ...config, ...overrides });
      while (standbys.length < (options.standby ?? 0)) standbys.push(prepareWorker(config));
      const worker = await next.start();
      workers.add(worker);
      return worker;
    },
    stop: async () => {
      for (const standby of standbys) await standby.kill();
      for (const worker of workers) await worker.kill();
      await harness.stop();
      await bundle.remove();
    },
  };
}
