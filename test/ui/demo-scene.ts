import { Worker } from '@temporalio/worker';
import {
  DEMO_TASK_QUEUE,
  DEMO_WORKFLOWS_PATH,
  runDemo,
  startDemoServices,
  SUPPORT_DEMO_WORKFLOW_TYPE,
} from '../../src/demo/index.js';
import { ToolContractPlugin } from '../../src/temporal/plugin.js';
import { CleanupStack } from '../../testkit/cleanup-stack.js';
import { TEST_DECISION_KEY, testDecisions } from '../support/decisions.js';
import { integrationStore } from '../support/integration-store.js';
import { runInBackground } from '../../testkit/running-worker.js';
import { startTestTemporal, type TestTemporal } from '../../testkit/temporal-server.js';

/** What the UI should show of one finished run. */
export interface UiRun {
  readonly workflowId: string;
  readonly workflowType: string;
  /** Tools that ran as activities (activity type = tool name), each once in this list. */
  readonly tools: readonly string[];
  /** The write whose unknown outcome a child workflow reconciled, and that child's workflow id. */
  readonly reconciledTool: string;
  readonly reconcileWorkflowId: string;
}

/** A dev server with its Web UI, on which the demo ran once; `stop` releases everything. */
export interface UiScene {
  readonly temporal: TestTemporal;
  /** `<ui>/namespaces/<namespace>`. */
  readonly namespaceUrl: string;
  readonly run: UiRun;
  stop(): Promise<void>;
}

/**
 * Runs the demo support agent (`runDemo`, approval `auto`) on a fresh dev server with its UI, a worker as the CLI
 * starts it, and real Postgres: reads, an approved refund that commits and then times out, and the child workflow
 * that reconciles it by idempotency key.
 */
export async function startDemoScene(): Promise<UiScene> {
  const cleanups = new CleanupStack();
  const stop = () => cleanups.release();
  try {
    const [temporal, { store }, services] = await cleanups.startTogether(
      [startTestTemporal({ ui: true }), (started) => started.stop()],
      [integrationStore('ui-demo').create(), (started) => started.close()],
      [startDemoServices(), (started) => started.stop()],
    );
    const { server } = temporal;
    if (server.uiUrl === null) throw new Error('the dev server was started without its UI');

    const taskQueue = `${DEMO_TASK_QUEUE}-ui-${process.pid}`;
    const worker = await Worker.create({
      connection: temporal.nativeConnection,
      namespace: server.namespace,
      taskQueue,
      workflowsPath: DEMO_WORKFLOWS_PATH,
      shutdownGraceTime: '1s',
      plugins: [
        new ToolContractPlugin({
          tools: services.tools,
          store,
          safeRetryTools: services.safeRetryTools,
          decisions: testDecisions,
        }),
      ],
    });
    const running = runInBackground(worker, new Set());
    cleanups.push(() => running.stop());

    const summary = await runDemo({
      client: temporal.client,
      store,
      services,
      taskQueue,
      approval: 'auto',
      cli: 'tool-contract',
      signingKey: TEST_DECISION_KEY,
      onProgress: () => undefined,
    });
    const reconciliation = summary.reconciliation;
    if (summary.status !== 'COMPLETED' || reconciliation === null) {
      throw new Error(
        `the demo did not run to a reconciled write: ${summary.status}, reconciliation ${JSON.stringify(reconciliation)}`,
      );
    }
    const reconciledTool = summary.toolCalls.find((call) => call.delivery === 'receipt_reconciled')?.tool;
    if (reconciledTool === undefined) throw new Error('the demo has no tool call settled by reconciliation');
    return {
      temporal,
      namespaceUrl: `${server.uiUrl}/namespaces/${server.namespace}`,
      run: {
        workflowId: summary.workflowId,
        workflowType: SUPPORT_DEMO_WORKFLOW_TYPE,
        tools: [...new Set(summary.toolCalls.map((call) => call.tool))],
        reconciledTool,
        reconcileWorkflowId: reconciliation.workflowId,
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
