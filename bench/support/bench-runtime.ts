import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker, type WorkerOptions } from '@temporalio/worker';
import type { ToolRegistry } from '../../src/index.js';
import type { ToolStore } from '../../src/store/tool-store.js';
import { unauthenticatedForDevelopment } from '../../src/decisions/index.js';
import { ToolContractPlugin } from '../../src/temporal/plugin.js';
import { paymentTools } from '../../testkit/payment-tools.js';
import { PaymentsService } from '../../testkit/payments-service.js';
import { CleanupStack } from '../../testkit/cleanup-stack.js';
import { runInBackground, type RunningWorker } from '../../testkit/running-worker.js';
import { startTestTemporal, type TestTemporal } from '../../testkit/temporal-server.js';
import { createBareActivities } from './bare-activities.js';
import { openBenchDatabase, type BenchDatabase } from './bench-postgres.js';

const benchWorkflows = fileURLToPath(new URL('./bench-workflows.ts', import.meta.url));
const benchDeclarations = fileURLToPath(new URL('../../testkit/payment-declarations.ts', import.meta.url));
const bareWorkflows = fileURLToPath(new URL('./bare-workflows.ts', import.meta.url));
const quietLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** The trusted caller of every benchmark call. */
export const BENCH_PRINCIPAL = { tenant: 'tenant-bench', subject: 'user-bench' } as const;

/**
 * One benchmark process's world, built from the integration tests' parts: a real dev server, a real Postgres, the
 * fake payments service with its tools, and the bench workflows bundle. Workers are started per task queue.
 */
export interface BenchRuntime {
  readonly temporal: TestTemporal;
  readonly db: BenchDatabase;
  readonly payments: PaymentsService;
  readonly tools: ToolRegistry;
  /** A worker with the plugin over `store`, plus every tool's bare activity, polling `taskQueue`. */
  startWorker(taskQueue: string, store: ToolStore, extra?: Partial<WorkerOptions>): Promise<RunningWorker>;
  /** A worker without the plugin: every tool's bare activity and a bundle of the bare workflows only, polling `taskQueue`. */
  startBareWorker(taskQueue: string, extra?: Partial<WorkerOptions>): Promise<RunningWorker>;
  stop(): Promise<void>;
}

export async function startBenchRuntime(options: { poolMax?: number } = {}): Promise<BenchRuntime> {
  const cleanups = new CleanupStack();
  const stop = () => cleanups.release();
  try {
    const [temporal, db, workflowBundle, bareBundle] = await cleanups.startTogether(
      [startTestTemporal(), (started) => started.stop()],
      [openBenchDatabase(options.poolMax ?? 40), (started) => started.close()],
      // The declarations typed calls import are evaluated once per worker, as `declarationModules` does for a user.
      [bundleWorkflowCode({ workflowsPath: benchWorkflows, logger: quietLogger, preloadModules: [benchDeclarations] })],
      [bundleWorkflowCode({ workflowsPath: bareWorkflows, logger: quietLogger })],
    );
    const payments = await new PaymentsService().start();
    cleanups.push(() => payments.stop());
    const tools = paymentTools(payments.baseUrl);
    const workers = new Set<RunningWorker>();
    // Both kinds of worker serve every tool's bare activity; only the plugin's bundle holds the package's workflows.
    const start = async (options: Pick<WorkerOptions, 'taskQueue' | 'workflowBundle'> & Partial<WorkerOptions>) =>
      runInBackground(
        await Worker.create({
          connection: temporal.nativeConnection,
          namespace: temporal.server.namespace,
          shutdownGraceTime: '1s',
          shutdownForceTime: '15s',
          activities: createBareActivities(tools.list(), BENCH_PRINCIPAL),
          ...options,
        }),
        workers,
      );
    return {
      temporal,
      db,
      payments,
      tools,
      startWorker: (taskQueue, store, extra = {}) =>
        start({
          taskQueue,
          workflowBundle,
          plugins: [new ToolContractPlugin({ tools, store, decisions: unauthenticatedForDevelopment() })],
          ...extra,
        }),
      startBareWorker: (taskQueue, extra = {}) => start({ taskQueue, workflowBundle: bareBundle, ...extra }),
      stop: async () => {
        for (const running of [...workers]) await running.stop().catch(() => undefined);
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
