import { userInfo } from 'node:os';
import type { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import {
  DEMO_DECLARATIONS_PATH,
  DEMO_TASK_QUEUE,
  DEMO_WORKFLOWS_PATH,
  formatDemoSummary,
  runDemo,
  startDemoServices,
  type DemoSummary,
} from '../demo/index.js';
import type { DecisionKey } from '../decisions/keys.js';
import type { ToolStore } from '../store/index.js';
import type { DevPorts } from './cli-config.js';
import { CliError, EXIT_CODES, type ExitCode } from './cli-error.js';
import { configuredCodec } from './codec-config.js';
import { DEFAULT_CONSOLE_PORT } from './commands/console.js';
import { serveConsole, type ServedConsole } from './console-command.js';
import { storeBackend } from './console/store-backend.js';
import { migrationLines, openDatabase } from './database.js';
import { authenticatorFor, ensureDecisionKeys } from './decision-keys.js';
import { bringUpStack, describeStack, exportLines, readyEvent, untilStoppedOrDead } from './dev-command.js';
import type { StackContext } from './stack-context.js';
import { stopRequested, Teardown } from './teardown.js';
import { connectClient } from './temporal-connection.js';
import type { TemporalProfile } from './temporal-profile.js';
import { connectWorker } from './worker-connection.js';
import { describeDecisionKeys, runPlan, untilStoppedOrFailed } from './worker-command.js';

/** How the demo runs: who approves the refund, and whether to stop after the summary. */
export interface DemoFlags {
  readonly approval: 'auto' | 'manual';
  readonly exitAfterSummary: boolean;
}

/** Where the demo runs: a server (with its UI, if any), its connections and the store. */
interface DemoTarget {
  readonly target: TemporalProfile;
  readonly uiUrl: string | null;
  readonly client: Client;
  readonly connection: NativeConnection;
  readonly store: ToolStore;
  readonly taskQueue: string;
}

/**
 * `start`: everything in one process — the dev stack (as `dev`, installing the Temporal CLI if needed), a worker
 * with the demo tools, and the demo; then it keeps running for inspection until a stop signal (or stops after the
 * summary with `--exit`). Exit 0 when the demo succeeded, 1 when it failed.
 */
export async function runStart(ctx: StackContext, flags: DemoFlags, ports: DevPorts): Promise<ExitCode> {
  const teardown = new Teardown(ctx.out.progress);
  try {
    const stack = await bringUpStack(ctx, ports, teardown);
    if (ctx.stop.aborted) return EXIT_CODES.failure;
    ctx.out.report(
      readyEvent(stack),
      `${describeStack(stack)}\nFor approve / pending / inspect from another terminal in this folder:\n${exportLines(stack)}`,
    );
    const { address, namespace } = stack.temporal;
    const target: TemporalProfile = { address, namespace, connection: { address } };
    const { client, connection } = await connectBoth(target, ctx.config.codecKeys, teardown);
    const demo = {
      target,
      uiUrl: stack.temporal.uiUrl,
      client,
      connection,
      store: stack.database.store,
      taskQueue: DEMO_TASK_QUEUE,
    };
    const dead = untilStoppedOrDead(ctx.stop, stack.temporal.process);
    dead.catch(() => undefined);
    return await runDemoOn(ctx, demo, flags, teardown, dead);
  } finally {
    await teardown.run();
    ctx.out.report({ event: 'stopped' }, 'stopped');
  }
}

/**
 * `demo`: `start` without the stack — against TEMPORAL_ADDRESS and DATABASE_URL (or the embedded Postgres), e.g. a
 * running `dev` or the docker-compose stack. It runs its own worker: the demo's backend lives in this process.
 */
export async function runDemoCommand(ctx: StackContext, flags: DemoFlags): Promise<ExitCode> {
  const teardown = new Teardown(ctx.out.progress);
  try {
    const target = ctx.config.temporal;
    ctx.out.progress(`connecting to Temporal at ${target.address} (namespace ${target.namespace})`);
    const { client, connection } = await connectBoth(target, ctx.config.codecKeys, teardown);
    const database = await openDatabase(ctx.config, ctx.projectRoot);
    teardown.add('the database', () => database.close());
    for (const line of migrationLines(await database.migrate())) ctx.out.progress(line);
    // A private task queue: a `tool-contract worker` polling ttc-demo on the same server has its own backend,
    // which knows nothing of the case this process seeds.
    const demo = {
      target,
      uiUrl: null,
      client,
      connection,
      store: database.store,
      taskQueue: `${DEMO_TASK_QUEUE}-${process.pid}`,
    };
    return await runDemoOn(ctx, demo, flags, teardown, stopRequested(ctx.stop));
  } finally {
    await teardown.run();
    ctx.out.report({ event: 'stopped' }, 'stopped');
  }
}

/** The worker's connection and a client (decoding with the codec of `codecKeys`, the same the worker encrypts with). */
async function connectBoth(
  target: TemporalProfile,
  codecKeys: string | undefined,
  teardown: Teardown,
): Promise<{ client: Client; connection: NativeConnection }> {
  const connection = await connectWorker(target);
  teardown.add('the worker connection', () => connection.close());
  const clientConnection = await connectClient(target, configuredCodec(codecKeys)?.codec ?? null);
  teardown.add('the client connection', () => clientConnection.close());
  return { client: clientConnection.client, connection };
}

/**
 * Starts the demo services and a worker on them, runs the demo (progress as it goes), reports the summary, and —
 * unless `--exit` — waits for `stopped` (a stop signal, or the end of the stack) while the worker keeps serving
 * queries and the UI.
 */
async function runDemoOn(
  ctx: StackContext,
  demo: DemoTarget,
  flags: DemoFlags,
  teardown: Teardown,
  stopped: Promise<void>,
): Promise<ExitCode> {
  ctx.out.progress('starting the demo services (order system, knowledge base, payment provider) in this process');
  const services = await startDemoServices();
  teardown.add('the demo services', () => services.stop());
  // Signed decisions, always: the approval the demo makes (auto) or prints (manual) is signed with the project's key.
  const keys = await ensureDecisionKeys(ctx.env, ctx.projectRoot);
  ctx.out.progress(describeDecisionKeys(keys));
  const decisions = authenticatorFor(keys);
  const operatorConsole = await startDemoConsole(ctx, demo, keys.signing, teardown);
  const plan = {
    tools: services.tools,
    safeRetryTools: services.safeRetryTools,
    workflowsPath: DEMO_WORKFLOWS_PATH,
    declarationModules: [DEMO_DECLARATIONS_PATH],
    taskQueue: demo.taskQueue,
    ...(decisions === undefined ? {} : { decisions }),
  };
  const worker = await runPlan(
    ctx,
    { connection: demo.connection, namespace: demo.target.namespace },
    demo.store,
    plan,
    teardown,
  );
  if (ctx.stop.aborted) return EXIT_CODES.failure;
  ctx.out.progress(
    `running the demo support agent (approval: ${flags.approval === 'auto' ? 'automatic' : 'manual, in the operator console or from another terminal'})`,
  );
  const running = runDemo({
    client: demo.client,
    store: demo.store,
    services,
    taskQueue: demo.taskQueue,
    approval: flags.approval,
    cli: ctx.cli,
    signingKey: keys.signing,
    consoleUrl: operatorConsole.url,
    onProgress: ctx.out.progress,
  });
  running.catch(() => undefined);
  const interrupted = Promise.race([stopped, untilStoppedOrFailed(ctx.stop, worker)]).then(() => null);
  let summary: DemoSummary | null;
  try {
    summary = await Promise.race([running, interrupted]);
  } catch (error) {
    throw new CliError(`the demo failed: ${describe(error)}`, EXIT_CODES.failure, { cause: error });
  }
  if (summary === null) {
    ctx.out.progress('stopped before the demo finished');
    return EXIT_CODES.failure;
  }
  const succeeded = demoSucceeded(summary);
  ctx.out.report(
    { event: 'summary', succeeded, uiUrl: demo.uiUrl, consoleUrl: operatorConsole.url, summary },
    `\n${formatDemoSummary(summary, demo.uiUrl, ctx.cli)}\n`,
  );
  if (!flags.exitAfterSummary) {
    const where = `${demo.uiUrl === null ? `the server at ${demo.target.address}` : demo.uiUrl}, operator console ${operatorConsole.url}`;
    ctx.out.progress(
      `Still running for inspection (${where}; worker on '${demo.taskQueue}'). Ctrl-C stops everything.`,
    );
    await Promise.race([stopped, untilStoppedOrFailed(ctx.stop, worker)]);
  }
  return succeeded ? EXIT_CODES.ok : EXIT_CODES.failure;
}

/**
 * The operator console next to the demo's worker, on its usual port (any free one when that is taken), deciding as
 * TTC_OPERATOR or the local user, signed with the project's key like the CLI.
 */
async function startDemoConsole(
  ctx: StackContext,
  demo: DemoTarget,
  signingKey: DecisionKey | null,
  teardown: Teardown,
): Promise<ServedConsole> {
  const operator = ctx.config.operator ?? localUserName();
  const options = {
    operator: { kind: 'local', name: operator },
    allowedHosts: [],
    temporalUi: demo.uiUrl === null ? null : { url: demo.uiUrl, namespace: demo.target.namespace },
    log: ctx.out.progress,
  } as const;
  const backend = storeBackend({ client: demo.client, store: demo.store, signingKey });
  const served = await serveConsole(backend, options, DEFAULT_CONSOLE_PORT).catch(() =>
    serveConsole(backend, options, 0),
  );
  teardown.add('the operator console', () => served.close());
  ctx.out.progress(`Operator console     ${served.url}  (approve, reject and resolve as ${operator})`);
  return served;
}

/** The user this process runs as (a container's user may have no name: then `operator`). */
function localUserName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'operator';
  }
}

/** The demo did what it shows: the workflow completed, the agent gave a final answer and exactly one refund committed. */
export function demoSucceeded(summary: DemoSummary): boolean {
  return summary.status === 'COMPLETED' && summary.agentStatus === 'final' && summary.refundsCommitted === 1;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
