import { parseArgs } from 'node:util';
import { CliError, EXIT_CODES } from './cli-error.js';

/** The options a command accepts, as `node:util` parseArgs declares them. */
export type OptionSpec = Readonly<Record<string, { readonly type: 'string' } | { readonly type: 'boolean' }>>;

/** A command's arguments after the strict parse. */
export interface CommandArgs {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
  /** `--json`, which every command accepts (the operator commands print JSON anyway). */
  readonly json: boolean;
}

/** Bad input to a command; the command line parser adds the command's name and usage to the message. */
export function usageError(message: string): CliError {
  return new CliError(message, EXIT_CODES.usage);
}

/**
 * `parseArgs` in strict mode (unknown options are errors) with a check of the positional count; empty positionals
 * are refused. Every error is a usage error.
 */
export function parseCommandArgs(
  args: readonly string[],
  options: OptionSpec,
  positionals: { readonly min: number; readonly max: number } = { min: 0, max: 0 },
): CommandArgs {
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...args],
      options: { ...options, json: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw usageError(error instanceof Error ? error.message : String(error));
  }
  const count = parsed.positionals.length;
  if (count < positionals.min || count > positionals.max) {
    const expected = positionals.min === positionals.max ? positionals.min : `${positionals.min} to ${positionals.max}`;
    throw usageError(`expected ${expected} argument(s), got ${count}`);
  }
  if (parsed.positionals.some((value) => value.trim() === '')) throw usageError('arguments may not be empty');
  return { values: parsed.values, positionals: parsed.positionals, json: parsed.values['json'] === true };
}

/** The value of a string option that must be given (and not blank). */
export function requiredString(values: CommandArgs['values'], option: string): string {
  const value = values[option];
  if (typeof value !== 'string' || value.trim() === '') throw usageError(`--${option} <value> is required`);
  return value;
}

/** The value of a string option, if given. */
export function optionalString(values: CommandArgs['values'], option: string): string | undefined {
  const value = values[option];
  return typeof value === 'string' ? value : undefined;
}

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** The value of an option that must be an ISO-8601 time with an offset (`2026-11-30T12:00:00Z`), if given. */
export function optionalIsoTime(values: CommandArgs['values'], option: string): string | undefined {
  const value = optionalString(values, option);
  if (value !== undefined && (!ISO_WITH_OFFSET.test(value) || Number.isNaN(Date.parse(value)))) {
    throw usageError(`--${option} must be an ISO-8601 time with an offset, e.g. 2026-11-30T12:00:00Z, got '${value}'`);
  }
  return value;
}
