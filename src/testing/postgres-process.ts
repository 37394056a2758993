import { spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { PostgresBinaries } from './postgres-binaries.js';
import type { OsUser } from './postgres-os-user.js';

/** One cluster's programs, folder and system user: what running its processes takes. */
export interface ClusterRuntime {
  readonly binaries: PostgresBinaries;
  /** The data folder the server reads (reachable by `user`). */
  readonly clusterDir: string;
  /** Whom the processes run as; `null`: this process's own user. */
  readonly user: OsUser | null;
  readonly onLog: (line: string) => void;
}

// The server's messages are matched (readiness) and shown to users: one language, whatever the machine's locale.
const MESSAGES_LOCALE = 'C';
const READY = 'database system is ready to accept connections';

/**
 * Creates the cluster: UTF-8 and the C locale whatever the machine's environment (a shell without LANG would
 * otherwise get SQL_ASCII), `superuser` with `password` and SCRAM authentication. The password reaches `initdb`
 * through a file in a private folder, removed afterwards.
 */
export async function initCluster(runtime: ClusterRuntime, superuser: string, password: string): Promise<void> {
  // Parents with the default mode (the server's user must enter them), the cluster itself private.
  await mkdir(dirname(runtime.clusterDir), { recursive: true });
  await mkdir(runtime.clusterDir, { recursive: true, mode: 0o700 });
  const secretFolder = await mkdtemp(join(tmpdir(), 'ttc-initdb-'));
  const passwordFile = join(secretFolder, 'password');
  try {
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    if (runtime.user !== null) {
      for (const path of [runtime.clusterDir, secretFolder, passwordFile])
        await chown(path, runtime.user.uid, runtime.user.gid);
    }
    const args = [
      `--pgdata=${runtime.clusterDir}`,
      '--auth=scram-sha-256',
      `--username=${superuser}`,
      `--pwfile=${passwordFile}`,
      '--encoding=UTF8',
      '--no-locale',
    ];
    const initdb = spawnAs(runtime, runtime.binaries.initdb, args);
    const { code, signal, stderr } = await exited(initdb, runtime.onLog);
    if (code !== 0) throw new Error(`initdb failed (code ${String(code)}, signal ${String(signal)}): ${stderr.trim()}`);
  } finally {
    await rm(secretFolder, { recursive: true, force: true });
  }
}

/**
 * Postmasters this process started that are still running. Should the process exit first (an uncaught error, a
 * forgotten stop), each gets a fast shutdown, so no server outlives the process that owns it.
 */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): void {
  if (!exitHookInstalled) {
    process.on('exit', () => {
      for (const postmaster of running) postmaster.kill('SIGINT');
    });
    exitHookInstalled = true;
  }
  running.add(child);
  child.once('exit', () => running.delete(child));
}

/**
 * Tells, chunk by chunk, whether a stream's text has shown `marker`. The marker may arrive split across chunks, and a
 * chunk may carry more text after it (a restarted server logs the clients it turns away in the same write), so each
 * chunk is searched joined to the tail of the one before, and only then cut to that tail.
 */
export function markerWatcher(marker: string): (chunk: string) => boolean {
  let tail = '';
  return (chunk) => {
    const seen = tail + chunk;
    tail = seen.slice(Math.max(0, seen.length - marker.length + 1));
    return seen.includes(marker);
  };
}

/** Starts the postmaster on `port` and resolves once it accepts connections; rejects with its last words if it exits. */
export function startPostmaster(
  runtime: ClusterRuntime,
  port: number,
  flags: readonly string[],
): Promise<ChildProcess> {
  const child = spawnAs(runtime, runtime.binaries.postgres, ['-D', runtime.clusterDir, '-p', String(port), ...flags]);
  track(child);
  return new Promise((resolve, reject) => {
    const ready = markerWatcher(READY);
    const output = captureOutput(child, runtime.onLog, (text) => {
      if (ready(text)) resolve(child);
    });
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      reject(
        new Error(
          `postgres exited before accepting connections (code ${String(code)}, signal ${String(signal)}): ${output.stderr().trim()}`,
        ),
      ),
    );
  });
}

/** Fast shutdown (SIGINT: open transactions roll back) and waits for the postmaster to exit. */
export async function stopPostmaster(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  await exit;
}

/**
 * Runs a Postgres program as the cluster's user with only what it needs from the environment: as root it runs as
 * another system user, which could read this process's secrets (keys, owner URLs) from /proc/<pid>/environ.
 */
function spawnAs(runtime: ClusterRuntime, program: string, args: readonly string[]): ChildProcess {
  const ids = runtime.user === null ? {} : { uid: runtime.user.uid, gid: runtime.user.gid };
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LC_MESSAGES: MESSAGES_LOCALE };
  if (process.env['TZ'] !== undefined) env['TZ'] = process.env['TZ'];
  return spawn(program, args, { ...ids, stdio: ['ignore', 'pipe', 'pipe'], env });
}

/** Forwards a child's output to `onLog` (and its stderr to `onStderr`), keeping the first 8 KB of stderr for errors. */
function captureOutput(
  child: ChildProcess,
  onLog: (line: string) => void,
  onStderr: (text: string) => void = () => undefined,
): { stderr(): string } {
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => onLog(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    onLog(text);
    if (stderr.length < 8_192) stderr += text;
    onStderr(text);
  });
  return { stderr: () => stderr };
}

async function exited(
  child: ChildProcess,
  onLog: (line: string) => void,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const output = captureOutput(child, onLog);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stderr: output.stderr() }));
  });
}
