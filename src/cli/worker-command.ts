import { Client } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { DEMO_DECLARATIONS_PATH, DEMO_TASK_QUEUE, DEMO_WORKFLOWS_PATH, startDemoServices } from '../demo/index.js';
import { startContractGauges } from '../temporal/contract-gauges.js';
import { MIN_KEY_BYTES, parseSecretKey } from '../contract/keyed-digest.js';
import { configuredPrincipalKey } from './principal-key-config.js';
import type { ToolStore } from '../store/index.js';
import { CLI_ENV } from './cli-config.js';
import { CliError, EXIT_CODES, type ExitCode } from './cli-error.js';
import { configuredCodec } from './codec-config.js';
import { migrationLines, openDatabase } from './database.js';
import type { ToolRegistry } from '../contract/tool-registry.js';
import type { DecisionAuthenticator } from '../decisions/authenticator.js';
import {
  authenticatorFor,
  DECISION_ENV,
  readDecisionKeys,
  VERIFY_KEYS_FILE,
  type DecisionKeys,
} from './decision-keys.js';
import type { StackContext } from './stack-context.js';
import { stopRequested, Teardown } from './teardown.js';
import { connectWorker } from './worker-connection.js';
import { loadToolModule, packageWorkflowsPath, workflowsModulePath } from './tool-module.js';
import { startToolWorker, type RunningToolWorker, type WorkerKeys, type WorkerPlan } from './tool-worker.js';

/** What `worker` serves: the demo, or the user's tools module (and workflows module, else the package's). */
export type WorkerSource =
  | { readonly kind: 'demo' }
  | {
      readonly kind: 'user';
      readonly toolsModule: string;
      readonly workflowsModule?: string;
      readonly taskQueue: string;
    };

/**
 * `worker`: connects to TEMPORAL_ADDRESS (first, so a missing server fails fast) and to the database, migrates,
 * and runs a worker with the plugin — the demo's tools and workflows by default, else the user's modules —
 * until a stop signal or a worker failure.
 */
export async function runWorkerCommand(ctx: StackContext, source: WorkerSource): Promise<ExitCode> {
  const teardown = new Teardown(ctx.out.progress);
  const { address, namespace } = ctx.config.temporal;
  try {
    ctx.out.progress(`connecting to Temporal at ${address} (namespace ${namespace})`);
    const connection = await connectWorker(ctx.config.temporal);
    teardown.add('the Temporal connection', () => connection.close());
    const plan = await workerPlan(ctx, source, teardown);
    ctx.out.progress(
      ctx.config.databaseUrl === undefined
        ? 'starting the embedded Postgres (.data/postgres/main)'
        : 'connecting to DATABASE_URL',
    );
    const database = await openDatabase(ctx.config, ctx.projectRoot);
    teardown.add('the database', () => database.close());
    for (const line of migrationLines(await database.migrate())) ctx.out.progress(line);
    if (ctx.config.principalKey === undefined)
      ctx.out.progress(
        `warning: ${CLI_ENV.principalKey} is not set: audit principal references are plain SHA-256 digests, which short subject ids do not protect`,
      );
    if (ctx.stop.aborted) return EXIT_CODES.ok;
    const worker = await runPlan(ctx, { connection, namespace }, database.store, plan, teardown);
    // Sampled from visibility and the store, so they reach the runtime's metrics exporter when one is installed.
    const gauges = startContractGauges({ client: new Client({ connection, namespace }), store: database.store });
    teardown.add('the contract gauges', () => gauges.stop());
    const tools = plan.tools.list().map((tool) => tool.name);
    ctx.out.report(
      {
        event: 'ready',
        temporalAddress: address,
        namespace,
        taskQueue: plan.taskQueue,
        workflowsPath: plan.workflowsPath,
        tools,
        database: database.source.kind,
      },
      `worker running on task queue '${plan.taskQueue}' at ${address} (namespace ${namespace})\n  tools: ${tools.join(', ')}\n  workflows: ${plan.workflowsPath}\nCtrl-C (or SIGTERM) stops it.`,
    );
    await untilStoppedOrFailed(ctx.stop, worker);
    ctx.out.progress('stopping the worker (in-flight tasks get a grace period)');
    return EXIT_CODES.ok;
  } finally {
    await teardown.run();
    ctx.out.report({ event: 'stopped' }, 'stopped');
  }
}

/**
 * Bundles the workflows, starts the worker (keyed by TTC_PRINCIPAL_KEY and TTC_CURSOR_KEY when set) and registers its
 * shutdown.
 */
export async function runPlan(
  ctx: StackContext,
  server: { readonly connection: NativeConnection; readonly namespace: string },
  store: ToolStore,
  plan: WorkerPlan,
  teardown: Teardown,
): Promise<RunningToolWorker> {
  const principalKey = configuredPrincipalKey(ctx.config.principalKey);
  const cursorKey = configuredCursorKey(ctx.config.cursorKey);
  const codec = configuredCodec(ctx.config.codecKeys);
  const keys: WorkerKeys = {
    ...(principalKey === undefined ? {} : { principalKey }),
    ...(cursorKey === undefined ? {} : { cursorKey }),
    ...(codec === null ? {} : { payloadCodec: codec.codec }),
  };
  if (codec !== null)
    ctx.out.progress(`payloads encrypted with codec key '${codec.keyIds[0] ?? ''}' (${CLI_ENV.codecKeys})`);
  ctx.out.progress(`bundling the workflows and starting a worker on task queue '${plan.taskQueue}'`);
  const worker = await startToolWorker(server.connection, server.namespace, store, plan, keys);
  teardown.add('the worker', () => worker.stop());
  return worker;
}

/** The configured cursor key as bytes; one that is too short is a usage error (which never shows the key). */
function configuredCursorKey(value: string | undefined): Uint8Array | undefined {
  if (value === undefined) return undefined;
  try {
    return parseSecretKey(value, CLI_ENV.cursorKey);
  } catch {
    throw new CliError(
      `${CLI_ENV.cursorKey} must be at least ${MIN_KEY_BYTES} bytes (e.g. openssl rand -base64 32)`,
      EXIT_CODES.usage,
    );
  }
}

/** Waits for the stop signal; a worker that stops on its own (a fatal error) is a failure. */
export async function untilStoppedOrFailed(stop: AbortSignal, worker: RunningToolWorker): Promise<void> {
  const ended = worker.done.then(
    () => Promise.reject(new CliError('the worker stopped on its own', EXIT_CODES.failure)),
    (error: unknown) =>
      Promise.reject(
        new CliError(
          `the worker failed: ${error instanceof Error ? error.message : String(error)}`,
          EXIT_CODES.failure,
          { cause: error },
        ),
      ),
  );
  ended.catch(() => undefined);
  await Promise.race([stopRequested(stop), ended]);
}

async function workerPlan(ctx: StackContext, source: WorkerSource, teardown: Teardown): Promise<WorkerPlan> {
  const keys = await readDecisionKeys(ctx.env, ctx.projectRoot);
  ctx.out.progress(describeDecisionKeys(keys));
  const decisions = authenticatorFor(keys);
  const verified = decisions === undefined ? {} : { decisions };
  if (source.kind === 'user') {
    const module = await loadToolModule(source.toolsModule, ctx.projectRoot);
    assertVerifiable(module.tools, decisions);
    const workflowsPath =
      source.workflowsModule === undefined
        ? packageWorkflowsPath()
        : workflowsModulePath(source.workflowsModule, ctx.projectRoot);
    return { ...module, workflowsPath, taskQueue: source.taskQueue, ...verified };
  }
  ctx.out.progress('starting the demo services (order system, knowledge base, payment provider) in this process');
  const services = await startDemoServices();
  teardown.add('the demo services', () => services.stop());
  assertVerifiable(services.tools, decisions);
  return {
    tools: services.tools,
    safeRetryTools: services.safeRetryTools,
    workflowsPath: DEMO_WORKFLOWS_PATH,
    declarationModules: [DEMO_DECLARATIONS_PATH],
    taskQueue: DEMO_TASK_QUEUE,
    ...verified,
  };
}

/** A worker serving a tool that requires approval must be able to verify decisions: else nothing could approve it. */
function assertVerifiable(tools: ToolRegistry, decisions: DecisionAuthenticator | undefined): void {
  const needApproval = tools
    .list()
    .filter((tool) => tool.requiresApproval)
    .map((tool) => tool.name);
  if (decisions !== undefined || needApproval.length === 0) return;
  throw new CliError(
    `${needApproval.join(', ')} require${needApproval.length === 1 ? 's' : ''} approval, and this worker has no key to verify decisions with: set ${DECISION_ENV.verifyKeys} (the approval service's public keys), or run it in a project folder where \`tool-contract dev\` created ${VERIFY_KEYS_FILE}`,
    EXIT_CODES.usage,
  );
}

/** How the worker authenticates decisions, for the progress output (where the keys came from, never the keys). */
export function describeDecisionKeys(keys: DecisionKeys): string {
  switch (keys.source) {
    case 'environment':
      return `decisions: signed; ${keys.verifying.length} verifying key(s) from the environment`;
    case 'project':
      return keys.verifying.length === 0
        ? 'decisions: none can be verified (no verifying key in .data/decisions/worker.keys): every approval and resolution is refused'
        : `decisions: signed; verified with the project key (.data/decisions/worker.keys), unsigned ones refused`;
    case 'none':
      return 'decisions: none can be verified (no TTC_DECISION_VERIFY_KEYS, no .data/decisions/worker.keys): every approval and resolution is refused';
  }
}
