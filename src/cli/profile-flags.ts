import { usageError } from './command-args.js';
import type { ProfileFlags } from './temporal-profile.js';

/** The connection flags every command takes, as `temporal` itself names them, and the field each one sets. */
const FLAGS = { '--profile': 'profile', '--config-file': 'configFile' } as const satisfies Record<
  string,
  keyof ProfileFlags
>;

/**
 * Takes `--profile <name>` and `--config-file <path>` (or `--flag=value`) out of a command's arguments, wherever they
 * stand before a `--`; the rest goes to the command's own parser. A flag without a value, with a blank one, or given
 * twice is a usage error.
 */
export function splitProfileFlags(args: readonly string[]): {
  readonly profile: ProfileFlags;
  readonly rest: readonly string[];
} {
  const profile: { profile?: string; configFile?: string } = {};
  const rest: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg === '--') {
      rest.push(...args.slice(index));
      break;
    }
    const [name = '', inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    if (!(name in FLAGS)) {
      rest.push(arg);
      continue;
    }
    const field = FLAGS[name as keyof typeof FLAGS];
    const value = inline ?? args[(index += 1)];
    if (value === undefined || value.trim() === '' || (inline === undefined && value.startsWith('-')))
      throw usageError(`${name} <value> needs a value`);
    if (profile[field] !== undefined) throw usageError(`${name} given twice`);
    profile[field] = value;
  }
  return { profile, rest };
}
