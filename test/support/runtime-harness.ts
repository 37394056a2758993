import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import type { ToolCallTelemetry } from '../../activities/call-telemetry.js';
import type { DecisionAuthenticator, UnauthenticatedDecisions } from '../../src/decisions/index.js';
import type { ToolRegistry } from '../../src/index.js';
import type { ToolStore } from '../../src/store/tool-store.js';
import { ToolContractPlugin } from '../../src/temporal/plugin.js';
import { CleanupStack } from '../../testkit/cleanup-stack.js';
import { paymentTools } from '../../testkit/payment-tools.js';
import { PaymentsService } from '../../testkit/payments-service.js';
import { runInBackground, type RunningWorker } from '../../testkit/running-worker.js';
import { startTestTemporal, type TestTemporal } from '../../testkit/temporal-server.js';
import { testDecisions } from './decisions.js';
import { encodeHistoryFixture } from './history-fixture.js';
import { testWorkflowBundle } from './test-workflow-bundle.js';

const historiesDir = fileURLToPath(new URL('../replay/histories/', import.meta.url));

/** One test file's world: a real dev server, a store, the fake payments service and a worker factory. */
export interface RuntimeHarness {
  readonly temporal: TestTemporal;
  readonly payments: PaymentsService;
  readonly store: ToolStore;
  readonly tools: ToolRegistry;
  readonly taskQueue: string;
  readonly workflowBundle: { code: string };
  /** DATABASE_URL and DATABASE_SCHEMA of the store, for a CLI process on it (empty when the store factory gives none). */
  readonly databaseEnv: Readonly<Record<string, string>>;
  /**
   * Starts a worker with the harness's plugin, then `extraPlugins`; given `plugins`, those replace them all (a test
   * that wires its own contract plugin). Other options override the defaults. Stop it before the harness.
   */
  startWorker(
    extra?: Partial<WorkerOptions> & { readonly extraPlugins?: WorkerOptions['plugins'] },
  ): Promise<RunningWorker>;
  /** Replays the recorded histories of these workflows against the current workflow code; returns failures. */
  replay(workflowIds: readonly string[]): Promise<string[]>;
  stop(): Promise<void>;
}

/** What the harness needs to make and release the store (real Postgres; see test/support/postgres.ts). */
export interface StoreFactory {
  create(): Promise<{ store: ToolStore; close(): Promise<void>; databaseEnv?: Readonly<Record<string, string>> }>;
}

/** Options of the harness's worker plugin. */
export interface HarnessOptions {
  readonly safeRetryTools?: readonly string[];
  readonly principalKey?: string;
  /** The plugin's cursor key (required by tools with a cursor continuation). */
  readonly cursorKey?: string;
  /** How the worker authenticates decisions (default: signed with `TEST_DECISION_KEY`). */
  readonly decisions?: DecisionAuthenticator | UnauthenticatedDecisions;
  readonly forbidSelfApproval?: boolean;
  /** Where the plugin reports tool call spans. */
  readonly telemetry?: ToolCallTelemetry;
}

export async function startRuntimeHarness(
  storeFactory: StoreFactory,
  options: HarnessOptions = {},
): Promise<RuntimeHarness> {
  const cleanups = new CleanupStack();
  const cleanup = () => cleanups.release();
  try {
    // The slow parts (server, Postgres, bundle) start together; whatever started is released if anything fails.
    const [temporal, { store, databaseEnv = {} }, workflowBundle] = await cleanups.startTogether(
      [startTestTemporal(), (started) => started.stop()],
      [storeFactory.create(), (started) => started.close()],
      [testWorkflowBundle()],
    );
    const payments = await new PaymentsService().start();
    cleanups.push(() => payments.stop());
    const tools = paymentTools(payments.baseUrl);
    const taskQueue = `ttc-it-${process.pid}`;
    const decisions = options.decisions ?? testDecisions;
    const workers = new Set<RunningWorker>();
    const harness: RuntimeHarness = {
      temporal,
      payments,
      store,
      tools,
      taskQueue,
      workflowBundle,
      databaseEnv,
      startWorker: async ({ plugins, extraPlugins = [], ...extra } = {}) => {
        const worker = await Worker.create({
          connection: temporal.nativeConnection,
          namespace: temporal.server.namespace,
          taskQueue,
          workflowBundle,
          shutdownGraceTime: '1s',
          // A worker whose activities never confirm cancellation must not hang the test run.
          shutdownForceTime: '15s',
          plugins: plugins ?? [
            new ToolContractPlugin({
              tools,
              store,
              ...(options.safeRetryTools === undefined ? {} : { safeRetryTools: options.safeRetryTools }),
              ...(options.principalKey === undefined ? {} : { principalKey: options.principalKey }),
              ...(options.cursorKey === undefined ? {} : { cursorKey: options.cursorKey }),
              decisions,
              ...(options.forbidSelfApproval === undefined ? {} : { forbidSelfApproval: options.forbidSelfApproval }),
              ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
            }),
            ...extraPlugins,
          ],
          ...extra,
        });
        return runInBackground(worker, workers);
      },
      replay: async (workflowIds) => {
        const histories = await Promise.all(
          workflowIds.map(async (workflowId) => ({
            workflowId,
            history: await temporal.client.workflow.getHandle(workflowId).fetchHistory(),
          })),
        );
        if (process.env['TTC_RECORD_HISTORIES'] === '1') {
          mkdirSync(historiesDir, { recursive: true });
          for (const { workflowId, history } of histories)
            writeFileSync(`${historiesDir}${workflowId.replace(/[^\w.-]/g, '_')}.binpb`, encodeHistoryFixture(history));
        }
        const failures: string[] = [];
        for await (const result of Worker.runReplayHistories({ workflowBundle }, histories)) {
          if (result.error !== undefined) failures.push(`${result.workflowId}: ${String(result.error)}`);
        }
        return failures;
      },
      stop: async () => {
        for (const running of [...workers]) await running.stop().catch(() => undefined);
        await cleanup();
      },
    };
    return harness;
  } catch (error) {
    await cleanup();
    throw error;
  }
}
