import { maskCredentials, maskedJson } from './mask-credentials.js';

/** Something lines can be written to (process.stdout / process.stderr, or a test buffer). */
export interface LineSink {
  write(text: string): unknown;
}

/** A milestone of a long-running command, as scripts read it with `--json`: `{"event":"ready",...}`. */
export type CliEvent = { readonly event: string } & Readonly<Record<string, unknown>>;

/**
 * How the long-running commands (`dev`, `worker`, `demo`, `start`, `migrate`) talk. In text mode everything is for
 * a human on stdout. With `--json`, stdout carries only JSON lines, one per milestone (so a script can read the
 * addresses while the command keeps running), and the progress lines go to stderr. Whatever is written has its URL
 * credentials masked: a progress line or an event may quote a connection string (or an error that echoes one).
 */
export interface CliOutput {
  readonly json: boolean;
  /** A line saying what is happening now. */
  readonly progress: (line: string) => void;
  /** A milestone: the event as one JSON line with `--json`, else `text` for a human. */
  readonly report: (event: CliEvent, text: string) => void;
  /** The one result of a command that prints and exits (`migrate`): pretty JSON on stdout, like the operator commands. */
  readonly result: (value: unknown) => void;
}

export function cliOutput(json: boolean, stdout: LineSink, stderr: LineSink): CliOutput {
  const line = (sink: LineSink, text: string) => void sink.write(`${maskCredentials(text)}\n`);
  return {
    json,
    progress: (text) => line(json ? stderr : stdout, text),
    report: (event, text) =>
      json ? void stdout.write(`${maskedJson(event)}\n`) : line(stdout, text.endsWith('\n') ? text.slice(0, -1) : text),
    result: (value) => void stdout.write(`${maskedJson(value, 2)}\n`),
  };
}
