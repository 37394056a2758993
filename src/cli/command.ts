import type { Client } from '@temporalio/client';
import type { DecisionKey } from '../decisions/keys.js';
import type { ToolStore } from '../store/index.js';
import type { CliConfig } from './cli-config.js';
import { EXIT_CODES, type ExitCode } from './cli-error.js';
import type { OpenDatabase } from './database.js';
import type { StackContext } from './stack-context.js';

/** A command's entry in the usage text: how it is written, and what it does (pre-wrapped lines, may be empty). */
export interface CommandUsage {
  readonly synopsis: string;
  readonly description: readonly string[];
}

/** The connections an operator command may need, made on first use (so `unsettled` never touches Temporal, nor `resolve` Postgres). */
export interface CliDeps {
  /** How to run this CLI again (see `cliInvocation`): the prefix of every command line it prints. */
  readonly cli: string;
  client(): Promise<Client>;
  store(): Promise<ToolStore>;
  /** The database the store is on (its pool, schema and owner URL): for the audit trail's commands. */
  database(): Promise<OpenDatabase>;
  /** The environment and profile settings the command runs with. */
  readonly config: CliConfig;
  /** The key `approve`, `reject` and `resolve` sign with; `null` sends decisions unsigned. */
  signingKey(): Promise<DecisionKey | null>;
}

/**
 * What every command module defines (usage, parser, run), as plain data and functions; the registry registers it.
 * Every command module is loaded for `help` and for parsing any command line, so it imports nothing heavy: the work
 * (Temporal client, pg, the worker) is imported when the command runs.
 */
interface CommandSpec<Input> {
  /** The word that selects it (`tool-contract <name> ...`). */
  readonly name: string;
  /** Other words for it (`--help`, `-h`). */
  readonly aliases?: readonly string[];
  readonly usage: CommandUsage;
  /** The arguments after the command word, validated; bad input throws a usage error (see `usageError`). */
  parse(args: readonly string[]): Input;
}

/** Runs a stack command to its end. */
export type StackRunner<Input> = (input: Input, ctx: StackContext) => Promise<ExitCode>;

/** A command that brings up or uses the stack: it owns its output (progress, JSON lines) and may run until stopped. */
export interface StackCommandSpec<Input extends { readonly json: boolean }> extends CommandSpec<Input> {
  /**
   * Imports the work (the worker, pg, a user's tool module) and returns the runner. A phase of its own because a
   * module may register signal handlers when loaded, which `main` must replace before the command runs.
   */
  load(): Promise<StackRunner<Input>>;
}

/** A command that reads or decides something and returns what the CLI prints as JSON (a string as is). */
export interface OperatorCommandSpec<Input, Output> extends CommandSpec<Input> {
  run(input: Input, deps: CliDeps): Promise<Output>;
  /** True when the operator asked to see protected values: the output is then printed as stored, not masked. */
  showsProtected?(input: Input): boolean;
  /** What is printed of the output (default: all of it): a string as is, anything else as JSON. */
  present?(output: Output, input: Input): unknown;
  /** The exit code of a run that completed (default 0), for commands whose finding is a failure (`regress`). */
  exitCode?(output: Output): ExitCode;
}

/** A command line bound to its command: what `main` runs. */
export type ParsedCommand = { readonly name: string; readonly input: unknown } & (
  | { readonly kind: 'stack'; readonly json: boolean; load(): Promise<(ctx: StackContext) => Promise<ExitCode>> }
  | {
      readonly kind: 'operator';
      readonly masked: boolean;
      run(deps: CliDeps): Promise<unknown>;
      /** What to print of what `run` returned, and the exit code it implies. */
      present(output: unknown): unknown;
      exitCode(output: unknown): ExitCode;
    }
);

/** A command as the registry holds it, whatever its input: `bind` parses the arguments and pairs them with `run`. */
export interface RegisteredCommand {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly usage: CommandUsage;
  bind(args: readonly string[]): ParsedCommand;
}

/** Registers a stack command: binding parses its arguments, and loading imports its work. */
export function registerStackCommand<Input extends { readonly json: boolean }>(
  spec: StackCommandSpec<Input>,
): RegisteredCommand {
  return {
    name: spec.name,
    aliases: spec.aliases ?? [],
    usage: spec.usage,
    bind: (args) => {
      const input = spec.parse(args);
      const load = async () => {
        const runner = await spec.load();
        return (ctx: StackContext) => runner(input, ctx);
      };
      return { name: spec.name, input, kind: 'stack', json: input.json, load };
    },
  };
}

/** Registers an operator command: binding parses its arguments and decides whether its output is masked. */
export function registerOperatorCommand<Input, Output>(spec: OperatorCommandSpec<Input, Output>): RegisteredCommand {
  return {
    name: spec.name,
    aliases: spec.aliases ?? [],
    usage: spec.usage,
    bind: (args) => {
      const input = spec.parse(args);
      return {
        name: spec.name,
        input,
        kind: 'operator',
        masked: spec.showsProtected?.(input) !== true,
        run: (deps) => spec.run(input, deps),
        // `output` is what `run` returned for this very input: the registry pairs them, nothing else calls these.
        present: (output) => (spec.present === undefined ? output : spec.present(output as Output, input)),
        exitCode: (output) => spec.exitCode?.(output as Output) ?? EXIT_CODES.ok,
      };
    },
  };
}
