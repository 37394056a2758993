import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT } from '../../../../testkit/project-root.js';
import { RUN_TYPESCRIPT } from '../../../../testkit/run-typescript.js';
import { WORKER_READY_LINE, WORKER_START_LINE, type WorkerProcessConfig } from '../../../support/worker-process.js';

const workerEntry = fileURLToPath(new URL('../../../support/worker-process.ts', import.meta.url));

/** A worker running in a child process (see test/support/worker-process.ts). */
export interface WorkerProcess {
  readonly pid: number;
  /** True once the process has exited, for whatever reason. */
  readonly exited: boolean;
  /** SIGKILL: no shutdown, no cleanup, in-flight activities simply stop. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (a graceful worker shutdown), SIGKILL after 10 s. */
  stop(): Promise<void>;
  /** The last lines the process wrote (for failure messages). */
  output(): string;
}

/** A worker process that has loaded its code and waits to be told to connect and poll. */
export interface StandbyWorker {
  /** Resolves once the worker polls; rejects with its output when it exits or stalls first. */
  start(startTimeoutMs?: number): Promise<WorkerProcess>;
  /** Ends a standby worker that is not needed any more. */
  kill(): Promise<void>;
}

/** Starts a worker process in standby (loading its code now); `start` it when it is needed. */
export function prepareWorker(config: WorkerProcessConfig): StandbyWorker {
  const child = spawn(
    process.execPath,
    [...RUN_TYPESCRIPT, workerEntry, JSON.stringify({ ...config, standby: true })],
    { cwd: PROJECT_ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  let ready!: () => void;
  const readyLine = new Promise<void>((resolve) => (ready = resolve));
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      if (line.trim() === WORKER_READY_LINE) ready();
      lines.push(line);
      if (lines.length > 100) lines.shift();
    }
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  // A worker that died before reading its start line must not crash the test with EPIPE.
  child.stdin.on('error', () => undefined);
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const kill = async () => {
    if (!exited()) child.kill('SIGKILL');
    await exit;
  };
  const handle: WorkerProcess = {
    pid: child.pid ?? -1,
    get exited() {
      return exited();
    },
    kill,
    stop: async () => {
      if (exited()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
    },
    output: () => lines.join('\n'),
  };
  return {
    kill,
    start: async (startTimeoutMs = 90_000) => {
      child.stdin.write(`${WORKER_START_LINE}\n`);
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<'stalled'>(
        (resolve) => (timer = setTimeout(() => resolve('stalled'), startTimeoutMs)),
      );
      const outcome = await Promise.race([
        readyLine.then(() => 'ready' as const),
        exit.then(() => 'exited' as const),
        stalled,
      ]);
      clearTimeout(timer);
      if (outcome !== 'ready') {
        await kill();
        throw new Error(`worker process ${outcome} before polling:\n${handle.output()}`);
      }
      return handle;
    },
  };
}
