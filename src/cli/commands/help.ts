import { parseCommandArgs } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';

/** `help`: the usage text of every command. */
export const helpCommand: OperatorCommandSpec<Record<string, never>, string> = {
  name: 'help',
  aliases: ['--help', '-h'],
  usage: { synopsis: 'help', description: ['this text (also -h, --help, or no command at all)'] },
  parse: (args) => {
    parseCommandArgs(args, {});
    return {};
  },
  // The text is assembled from every command's usage, this one's included: imported when it runs, so the modules
  // do not import each other in a circle.
  run: async () => (await import('../usage.js')).USAGE,
};
