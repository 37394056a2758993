import { devPortsFromEnv, parsePort, type DevPorts } from '../cli-config.js';
import { parseCommandArgs, optionalString, type CommandArgs } from '../command-args.js';
import type { StackCommandSpec } from '../command.js';

/** `--port` / `--ui-port`: where the dev stack listens (`dev`, `start`). */
export const PORT_OPTIONS = { port: { type: 'string' }, 'ui-port': { type: 'string' } } as const;

/** What `dev` runs with: the ports given as flags (the rest come from the environment when it runs). */
export interface DevInput {
  readonly json: boolean;
  readonly ports: Partial<DevPorts>;
  /** Where to write the environment a worker of your own needs (`--write-env`); absent: nowhere. */
  readonly envFile?: string;
}

/** `dev`: the local stack (Temporal dev server with UI, Postgres), until stopped. */
export const devCommand: StackCommandSpec<DevInput> = {
  name: 'dev',
  usage: {
    synopsis: 'dev [--port <n>] [--ui-port <n>] [--write-env <path>]',
    description: [
      'only the stack: Temporal dev server (default 127.0.0.1:7233, UI 8233, state in',
      '.data/temporal/) and Postgres (DATABASE_URL, else embedded), migrated; prints the',
      'environment to export and runs until Ctrl-C. --write-env: also writes (mode 0600) what',
      'a worker of your own needs: TEMPORAL_*, DATABASE_URL and DATABASE_OWNER_URL with their',
      'passwords, DATABASE_SCHEMA, TTC_DECISION_VERIFY_KEYS and TTC_DECISION_KEY',
    ],
  },
  parse: (args) => {
    const { values, json } = parseCommandArgs(args, { ...PORT_OPTIONS, 'write-env': { type: 'string' } });
    const envFile = optionalString(values, 'write-env');
    return { json, ports: parsePorts(values), ...(envFile === undefined ? {} : { envFile }) };
  },
  load: async () => {
    const { runDev } = await import('../dev-command.js');
    return (input, ctx) => runDev(ctx, devPorts(ctx.env, input.ports), input.envFile);
  },
};

/** The port flags; a value that is not a TCP port is a usage error. */
export function parsePorts(values: CommandArgs['values']): Partial<DevPorts> {
  const port = optionalString(values, 'port');
  const uiPort = optionalString(values, 'ui-port');
  return {
    ...(port === undefined ? {} : { port: parsePort(port, '--port') }),
    ...(uiPort === undefined ? {} : { uiPort: parsePort(uiPort, '--ui-port') }),
  };
}

/**
 * The ports to listen on: flags over TTC_DEV_PORT / TTC_DEV_UI_PORT over the defaults. Read only when a command
 * that starts a server runs, so a bad TTC_DEV_PORT never stops `worker` or `migrate`.
 */
export function devPorts(env: Readonly<Record<string, string | undefined>>, flags: Partial<DevPorts>): DevPorts {
  return { ...devPortsFromEnv(env), ...flags };
}
