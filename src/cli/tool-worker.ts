import type { PayloadCodec } from '@temporalio/common';
import { Worker, type NativeConnection } from '@temporalio/worker';
import type { ToolRegistry } from '../contract/tool-registry.js';
import type { DecisionAuthenticator } from '../decisions/authenticator.js';
import type { ToolStore } from '../store/index.js';
import { ToolContractPlugin } from '../temporal/plugin.js';

/** What a worker serves: tools (with the plugin), a workflows module and the task queue it polls. */
export interface WorkerPlan {
  readonly tools: ToolRegistry;
  readonly safeRetryTools?: readonly string[];
  readonly workflowsPath: string;
  /** Modules of tool declarations the workflows import, loaded once per workflow thread (see `declarationModules`). */
  readonly declarationModules?: readonly string[];
  readonly taskQueue: string;
  /** Verifies approvals and resolutions; without one, none counts (and a tool that requires approval cannot run). */
  readonly decisions?: DecisionAuthenticator;
}

/** A worker polling in the background. */
export interface RunningToolWorker {
  /** Settles when the worker stops: resolves after {@link stop}, rejects if it failed on its own. */
  readonly done: Promise<void>;
  /** Shuts down (in-flight tasks get the grace time) and waits until the worker has stopped. */
  stop(): Promise<void>;
}

/** The worker's secrets, checked by the caller: kept out of the plan, which is printed and passed around. */
export interface WorkerKeys {
  /** Keys the audit's principal references. */
  readonly principalKey?: Uint8Array;
  /** Seals the continuation cursors of tools with a cursor continuation. */
  readonly cursorKey?: Uint8Array;
  /** Encrypts every payload the worker sends to the server (and decrypts what it reads). */
  readonly payloadCodec?: PayloadCodec;
}

/** Creates (bundling the workflows) and runs a worker with the ToolContractPlugin, keyed by `keys`. */
export async function startToolWorker(
  connection: NativeConnection,
  namespace: string,
  store: ToolStore,
  plan: WorkerPlan,
  keys: WorkerKeys = {},
): Promise<RunningToolWorker> {
  const { payloadCodec, ...pluginKeys } = keys;
  const worker = await Worker.create({
    connection,
    namespace,
    ...(payloadCodec === undefined ? {} : { dataConverter: { payloadCodecs: [payloadCodec] } }),
    taskQueue: plan.taskQueue,
    workflowsPath: plan.workflowsPath,
    shutdownGraceTime: '5s',
    // An activity that ignores cancellation must not keep Ctrl-C waiting for long.
    shutdownForceTime: '20s',
    plugins: [
      new ToolContractPlugin({
        tools: plan.tools,
        store,
        ...(plan.safeRetryTools === undefined ? {} : { safeRetryTools: plan.safeRetryTools }),
        ...(plan.declarationModules === undefined ? {} : { declarationModules: plan.declarationModules }),
        ...pluginKeys,
        ...(plan.decisions === undefined ? {} : { decisions: plan.decisions }),
      }),
    ],
  });
  const done = worker.run();
  // `done` is awaited by whoever stops the worker; until then a failure must not be an unhandled rejection.
  done.catch(() => undefined);
  return {
    done,
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
