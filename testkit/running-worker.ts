import type { Worker } from '@temporalio/worker';

/** A worker running in the background until `stop`. */
export interface RunningWorker {
  readonly worker: Worker;
  stop(): Promise<void>;
}

/**
 * Runs `worker` in the background and tracks it in `running` until stopped, so whoever owns the set can stop every
 * worker still running (e.g. after a failed test) before the server goes away.
 */
export function runInBackground(worker: Worker, running: Set<RunningWorker>): RunningWorker {
  const run = worker.run();
  const handle: RunningWorker = {
    worker,
    stop: async () => {
      running.delete(handle);
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await run;
    },
  };
  running.add(handle);
  return handle;
}
