import { parseCommandArgs, type CommandArgs } from '../command-args.js';
import type { StackCommandSpec } from '../command.js';
import type { DemoFlags } from '../demo-command.js';

/** `--auto-approve` / `--exit`: how the demo runs (`demo`, `start`). */
export const DEMO_OPTIONS = { 'auto-approve': { type: 'boolean' }, exit: { type: 'boolean' } } as const;

/** What `demo` runs with. */
export interface DemoInput {
  readonly json: boolean;
  readonly demo: DemoFlags;
}

/** `demo`: the demo support agent with its own worker, against a running server and database. */
export const demoCommand: StackCommandSpec<DemoInput> = {
  name: 'demo',
  usage: {
    synopsis: 'demo [--auto-approve] [--exit]',
    description: [
      '`start` without the stack: the demo with its own worker against TEMPORAL_ADDRESS',
      'and DATABASE_URL (e.g. a running `dev` or the docker-compose stack)',
    ],
  },
  parse: (args) => {
    const { values, json } = parseCommandArgs(args, DEMO_OPTIONS);
    return { json, demo: demoFlags(values) };
  },
  load: async () => {
    const { runDemoCommand } = await import('../demo-command.js');
    return (input, ctx) => runDemoCommand(ctx, input.demo);
  },
};

/** Who approves the refund, and whether to stop after the summary. */
export function demoFlags(values: CommandArgs['values']): DemoFlags {
  return { approval: values['auto-approve'] === true ? 'auto' : 'manual', exitAfterSummary: values['exit'] === true };
}
