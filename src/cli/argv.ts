import { CliError, EXIT_CODES } from './cli-error.js';
import type { ParsedCommand } from './command.js';
import { findCommand } from './commands/registry.js';
import { splitProfileFlags } from './profile-flags.js';
import type { ProfileFlags } from './temporal-profile.js';
import { commandUsage, USAGE } from './usage.js';

/** A command line: the command bound to its arguments, and the Temporal connection profile it names (if any). */
export type CommandLine = ParsedCommand & { readonly profile: ProfileFlags };

/**
 * Parses `argv` (without node and the script) into the command to run, through the registry; no command at all is
 * `help`. The connection flags (`--profile`, `--config-file`) are taken by every command. Bad input throws a usage
 * {@link CliError} naming the command and showing its usage.
 */
export function parseCommand(argv: readonly string[]): CommandLine {
  const [word = 'help', ...args] = argv;
  const command = findCommand(word);
  if (command === undefined) throw new CliError(`unknown command '${word}'\n\n${USAGE}`, EXIT_CODES.usage);
  try {
    const { profile, rest } = splitProfileFlags(args);
    return { ...command.bind(rest), profile };
  } catch (error) {
    if (!(error instanceof CliError) || error.exitCode !== EXIT_CODES.usage) throw error;
    throw new CliError(`${command.name}: ${error.message}\n\n${commandUsage(command)}`, EXIT_CODES.usage, {
      cause: error,
    });
  }
}
