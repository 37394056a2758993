// A worker in its own process, so a test can SIGKILL it for real: the plugin with the payment tools, on a Temporal
// address, a Postgres schema and the fake payments service the parent test runs. Started by the parent with
// `node --import testkit/typescript-hooks.mjs test/support/worker-process.ts '<config JSON>'`; prints one `ready` line once it polls. With
// `standby`, it loads and creates the worker (without polling) and then waits for a `start` line on stdin: that takes
// seconds on a busy machine, so a test can keep the next worker ready and replace a killed worker at once.
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import pg from 'pg';
import { z } from 'zod';
import { PgToolStore } from '../../src/store/pg/pg-tool-store.js';
import { unauthenticatedForDevelopment } from '../../src/decisions/index.js';
import { ToolContractPlugin } from '../../src/temporal/plugin.js';
import { paymentTools } from '../../testkit/payment-tools.js';
import { reportDispatchPoints } from './dispatch-probe.js';

/** What the parent passes (one JSON argument). */
export const workerProcessConfig = z.strictObject({
  temporalAddress: z.string().min(1),
  namespace: z.string().min(1),
  taskQueue: z.string().min(1),
  /** A Postgres connection string (DATABASE_URL style). */
  databaseUrl: z.string().startsWith('postgres'),
  /** The schema the parent's test database lives in (the store is given it, as test/support/postgres.ts does). */
  schema: z.string().regex(/^\w+$/),
  paymentsUrl: z.url(),
  /** A workflow bundle the parent built once (bundling in every worker would take seconds per restart). */
  workflowBundlePath: z.string().min(1),
  safeRetryTools: z.array(z.string()).default([]),
  /** The test's dispatch probe (test/support/dispatch-probe.ts): the charge tools report their dispatch points to it. */
  dispatchProbeUrl: z.url().optional(),
  /** Run activities only (no workflow tasks), and at most this many at a time: a frozen worker then holds no poll. */
  activitiesOnly: z.boolean().default(false),
  maxConcurrentActivities: z.number().int().positive().optional(),
  /** Wait for a `start` line on stdin before polling (see above). */
  standby: z.boolean().default(false),
});
export type WorkerProcessConfig = z.input<typeof workerProcessConfig>;

/** The line the worker prints once it polls its task queue. */
export const WORKER_READY_LINE = 'ready';
/** The line a standby worker waits for on stdin. */
export const WORKER_START_LINE = 'start';

async function main(rawConfig: string | undefined): Promise<void> {
  if (rawConfig === undefined) throw new Error('usage: worker-process.ts <config JSON>');
  const parsed = workerProcessConfig.safeParse(JSON.parse(rawConfig));
  if (!parsed.success) throw new Error(`invalid worker config: ${z.prettifyError(parsed.error)}`);
  const config = parsed.data;
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: 'ERROR', forward: {} } },
  });
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 10, connectionTimeoutMillis: 2000 });
  // A dropped connection (a Postgres restart) surfaces on the next query as a retryable store error, not here.
  pool.on('error', () => undefined);
  const connection = await NativeConnection.connect({ address: config.temporalAddress });
  const tools = paymentTools(
    config.paymentsUrl,
    config.dispatchProbeUrl === undefined
      ? {}
      : { atDispatchPoint: reportDispatchPoints(config.dispatchProbeUrl, config.paymentsUrl) },
  );
  const worker = await Worker.create({
    connection,
    namespace: config.namespace,
    taskQueue: config.taskQueue,
    ...(config.activitiesOnly ? {} : { workflowBundle: { codePath: config.workflowBundlePath } }),
    ...(config.maxConcurrentActivities === undefined
      ? {}
      : { maxConcurrentActivityTaskExecutions: config.maxConcurrentActivities }),
    // A killed worker's sticky queue has no poller: hand its workflow tasks back to the shared queue quickly.
    stickyQueueScheduleToStartTimeout: '1s',
    shutdownGraceTime: '1s',
    plugins: [
      new ToolContractPlugin({
        tools,
        store: new PgToolStore(pool, { schema: config.schema }),
        safeRetryTools: config.safeRetryTools,
        decisions: unauthenticatedForDevelopment(),
      }),
    ],
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => worker.shutdown());
  // Created but not yet running, the worker polls nothing: a standby process takes no task.
  if (config.standby) await startLine();
  const running = worker.run();
  process.stdout.write(`${WORKER_READY_LINE}\n`);
  try {
    await running;
  } finally {
    await Promise.allSettled([connection.close(), pool.end()]);
  }
}

async function startLine(): Promise<void> {
  // Leaving the loop closes the reader; a parent that goes away closes stdin, which ends the loop without the line.
  for await (const line of createInterface({ input: process.stdin })) if (line.trim() === WORKER_START_LINE) return;
  throw new Error('stdin closed before the start line');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv[2]).catch((error: unknown) => {
    process.stderr.write(
      `worker process failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
