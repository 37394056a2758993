import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RUN_TYPESCRIPT } from '../../testkit/run-typescript.js';

/** The CLI entry point by absolute path (and the TypeScript hooks too), so the CLI can run with any working directory. */
export const CLI_MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** A `tool-contract` child process whose output is collected as it comes. */
export interface CliProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** The `--json` events printed so far (stdout lines that parse as JSON objects with an `event`). */
  events(): { readonly event: string; readonly [key: string]: unknown }[];
  /** Resolves with the first event of this name; rejects if the process exits first or `timeoutMs` passes. */
  waitForEvent(event: string, timeoutMs: number): Promise<{ readonly event: string; readonly [key: string]: unknown }>;
  /** Resolves with the exit code (or `null` when killed by a signal) once the process has exited. */
  exited(timeoutMs: number): Promise<number | null>;
}

/** Where and with what environment a CLI process runs: `env` is added to this process's (`undefined` removes a variable). */
export interface CliRunOptions {
  readonly cwd?: string;
  readonly env?: Record<string, string | undefined>;
}

/** Starts `node src/cli/main.ts <args>` with the tests' TypeScript hooks. */
export function startCli(args: readonly string[], options: CliRunOptions = {}): CliProcess {
  return watchCli(process.execPath, [...RUN_TYPESCRIPT, CLI_MAIN, ...args], options);
}

/**
 * Runs a command line as a user types it (`sh -c`), e.g. a line the CLI printed, in a process group of its own:
 * signal the group (`process.kill(-child.pid, …)`) as a terminal's Ctrl-C would, to reach the program under `npx`.
 */
export function startCommandLine(line: string, options: CliRunOptions = {}): CliProcess {
  return watchCli('sh', ['-c', line], options, true);
}

function watchCli(program: string, args: readonly string[], options: CliRunOptions, detached = false): CliProcess {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...process.env, ...options.env }))
    if (value !== undefined) env[name] = value;
  const child = spawn(program, args, {
    cwd: options.cwd ?? process.cwd(),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached,
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const events = () =>
    out.split('\n').flatMap((line) => {
      try {
        const value = JSON.parse(line) as { event?: unknown };
        return typeof value === 'object' && value !== null && typeof value.event === 'string'
          ? [value as { event: string }]
          : [];
      } catch {
        return [];
      }
    });
  const describe = () => `stdout:\n${out}\nstderr:\n${err}`;
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    events,
    waitForEvent: async (event, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events().find((value) => value.event === event);
        if (found !== undefined) return found;
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(`the CLI exited (${child.exitCode ?? child.signalCode}) before '${event}'\n${describe()}`);
        if (Date.now() > deadline) throw new Error(`no '${event}' event within ${timeoutMs} ms\n${describe()}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    exited: async (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the CLI did not exit within ${timeoutMs} ms\n${describe()}`)),
          timeoutMs,
        );
      });
      try {
        return await Promise.race([exit, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Resolves once `text` appears on the process's stdout; fails if it exits first or `timeoutMs` passes. */
export async function waitForText(cli: CliProcess, text: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cli.stdout().includes(text)) {
    if (cli.child.exitCode !== null || Date.now() >= deadline)
      throw new Error(`no '${text}' on stdout\n${cli.stdout()}\n${cli.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Runs the CLI to its end and returns its exit code and output. */
export async function runCli(args: readonly string[], options: CliRunOptions & { readonly timeoutMs?: number } = {}) {
  const cli = startCli(args, options);
  try {
    const code = await cli.exited(options.timeoutMs ?? 120_000);
    return { code, stdout: cli.stdout(), stderr: cli.stderr(), events: cli.events() };
  } finally {
    if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
  }
}

/** Pids of live processes whose command line contains every one of `parts` (Linux /proc). */
export function processesWith(...parts: string[]): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    if (parts.every((part) => cmdline.includes(part))) pids.push(Number(entry));
  }
  return pids;
}

/** Runs one command line through `bash -c`, as a user pastes it into a terminal in `cwd`; never rejects. */
export function runShellLine(
  line: string,
  options: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...process.env, ...options.env }))
    if (value !== undefined) env[name] = value;
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', line],
      { cwd: options.cwd, env, timeout: options.timeoutMs ?? 120_000 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
      },
    );
  });
}
