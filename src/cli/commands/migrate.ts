import { parseCommandArgs } from '../command-args.js';
import type { StackCommandSpec } from '../command.js';

/** `migrate`: brings the database schema up to date. */
export const migrateCommand: StackCommandSpec<{ readonly json: boolean }> = {
  name: 'migrate',
  usage: { synopsis: 'migrate', description: ['applies the database migrations (idempotent) and prints them as JSON'] },
  parse: (args) => ({ json: parseCommandArgs(args, {}).json }),
  load: async () => {
    const { runMigrate } = await import('../migrate-command.js');
    return (_input, ctx) => runMigrate(ctx);
  },
};
