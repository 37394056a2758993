import { after, before } from 'node:test';
import type { AnyToolImplementation } from '../../src/index.js';
import type { RunningWorker } from '../../testkit/running-worker.js';
import { integrationStore } from './integration-store.js';
import { startRuntimeHarness, type RuntimeHarness, type StoreFactory } from './runtime-harness.js';

/** A test file's runtime harness, with the worker started before the file's tests. */
export interface FileHarness extends RuntimeHarness {
  /** The worker started before the tests; `stop` stops it and every worker started since. */
  readonly worker: RunningWorker;
}

/** Options of {@link useRuntimeHarness}. */
export interface UseRuntimeHarnessOptions {
  readonly safeRetryTools?: readonly string[];
  /** Tools registered next to the payment tools before the worker starts. */
  readonly extraTools?: readonly AnyToolImplementation[];
  /** The plugin's cursor key (required by tools with a cursor continuation). */
  readonly cursorKey?: string;
  /** The store, for a test that needs its database itself (a CLI process on it); default: a fresh schema named after the label. */
  readonly storeFactory?: StoreFactory;
}

/** Starting a dev server, Postgres and a workflow bundle together takes minutes on a busy 2-core machine. */
const HOOK_TIMEOUT_MS = 300_000;

/**
 * Gives the calling test file a runtime harness (real dev server, a fresh Postgres schema named after `label`, the
 * fake payments service) with one worker running: a `before` hook starts it, an `after` hook stops it. Call it at
 * the top level of the file; the returned handle may be used from the tests and from hooks registered after it, and
 * throws if used before the harness has started.
 */
export function useRuntimeHarness(label: string, options: UseRuntimeHarnessOptions = {}): FileHarness {
  let started: FileHarness | undefined;
  before(
    async () => {
      const harness = await startRuntimeHarness(options.storeFactory ?? integrationStore(label), options);
      try {
        for (const tool of options.extraTools ?? []) harness.tools.register(tool);
        started = { ...harness, worker: await harness.startWorker() };
      } catch (error) {
        await harness.stop();
        throw error;
      }
    },
    { timeout: HOOK_TIMEOUT_MS },
  );
  after(() => started?.stop(), { timeout: HOOK_TIMEOUT_MS });
  // The file's tests are declared before the hook runs, so they get a handle that forwards to the harness once started.
  return new Proxy({} as FileHarness, {
    get: (_target, property) => {
      if (started === undefined) throw new Error(`runtime harness '${label}' used before its before() hook started it`);
      const value: unknown = Reflect.get(started, property);
      return value;
    },
  });
}
