import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_KEYS } from '../wire/search-attributes.js';
import { freePort } from './free-port.js';

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  /** Path of the `temporal` binary (see `resolveTemporalCli`). */
  readonly cliPath: string;
  /** gRPC port; a free port when omitted. */
  readonly port?: number;
  /** Keep the Web UI (on `uiPort`, a free port when omitted); tests run headless. */
  readonly ui?: boolean;
  readonly uiPort?: number;
  /** SQLite file for persistence across restarts; an in-memory store when omitted. */
  readonly dbFilename?: string;
  /** How long to wait for the server to answer. */
  readonly startTimeoutMs?: number;
  /** Receives the server's stderr/stdout lines (for diagnostics). */
  readonly onOutput?: (line: string) => void;
}

/** A running dev server: its address, namespace, and a stop that always releases the process. */
export interface DevServer {
  readonly address: string;
  readonly namespace: string;
  readonly uiUrl: string | null;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts `temporal server start-dev` on free ports with every search attribute the package uses registered, and
 * resolves once the frontend answers. The process is started directly rather than through the SDK's ephemeral
 * server helper, whose fixed 5 s start timeout flakes on small machines.
 *
 * Ports are picked free a moment before the server binds them, and the server picks its internal services' ports
 * the same way, so two picks can meet (the server then reports "address already in use"): such a start is stopped
 * and tried again with new picks, up to {@link START_ATTEMPTS} times.
 */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDevServerOnce(options);
    } catch (error) {
      if (!(error instanceof PortCollision) || attempt >= START_ATTEMPTS) throw error;
    }
  }
}

const START_ATTEMPTS = 3;
const SETTLE_MS = 500;
const PORT_IN_USE = /address already in use/i;

/** A start that failed because one of its ports (ours or the server's own) was taken meanwhile. */
class PortCollision extends Error {}

async function startDevServerOnce(options: DevServerOptions): Promise<DevServer> {
  const port = options.port ?? (await freePort());
  const httpPort = await freePort();
  const metricsPort = await freePort();
  const uiPort = options.ui === true ? (options.uiPort ?? (await freePort())) : null;
  const scratch = mkdtempSync(join(tmpdir(), 'ttc-temporal-'));
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--http-port',
    String(httpPort),
    '--metrics-port',
    String(metricsPort),
    '--log-level',
    'warn',
    ...(uiPort === null ? ['--headless'] : ['--ui-port', String(uiPort)]),
    ...(options.dbFilename === undefined ? [] : ['--db-filename', options.dbFilename]),
    ...SEARCH_ATTRIBUTE_KEYS.flatMap((key) => ['--search-attribute', `${key.name}=${key.cliType}`]),
  ];
  const child = spawn(options.cliPath, args, { cwd: scratch, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  let portInUse = false;
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      if (PORT_IN_USE.test(line)) portInUse = true;
      output.push(line);
      if (output.length > 200) output.shift();
      options.onOutput?.(line);
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // A process that exits without stopping the server (a failed test setup, a forced exit) must not leave it running.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(scratch, { recursive: true, force: true });
  };

  const address = `127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  let lastError: unknown = null;
  let answeredAt: number | null = null;
  try {
    for (;;) {
      // A server that lost a port may keep running without ever answering: its output says so before it exits.
      if (portInUse) throw new PortCollision(`temporal dev server found a port taken:\n${output.join('\n')}`);
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `temporal dev server exited (${child.exitCode ?? child.signalCode}) before answering:\n${output.join('\n')}`,
        );
      }
      if (Date.now() > deadline)
        throw new Error(`temporal dev server did not answer on ${address}: ${String(lastError)}\n${output.join('\n')}`);
      lastError = await whyNotAnswering(address);
      if (lastError === null) {
        // The frontend answers before every internal service has bound its port, and a server that loses one dies
        // just after answering: it counts as started once it still answers, alive and without a collision, a
        // moment later (the checks at the top of the loop).
        answeredAt ??= Date.now();
        if (Date.now() - answeredAt >= SETTLE_MS) {
          return {
            address,
            namespace: 'default',
            uiUrl: uiPort === null ? null : `http://127.0.0.1:${uiPort}`,
            process: child,
            stop,
          };
        }
      }
      await new Promise((resolve) => setTimeout(resolve, lastError === null ? SETTLE_MS : 250));
    }
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Null once the server at `address` serves the default namespace, else what stopped it. */
async function whyNotAnswering(address: string): Promise<unknown> {
  // A lazy connection, closed in every case: a failed `Connection.connect` leaves its channel reconnecting in the
  // background, which can keep the process from exiting.
  const connection = Connection.lazy({ address, connectTimeout: 1000 });
  try {
    await connection.ensureConnected();
    await connection.workflowService.describeNamespace({ namespace: 'default' });
    return null;
  } catch (error) {
    return error;
  } finally {
    await connection.close();
  }
}
