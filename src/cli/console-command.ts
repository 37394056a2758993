import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CLI_ENV } from './cli-config.js';
import { CliError, EXIT_CODES, type ExitCode } from './cli-error.js';
import { configuredCodec } from './codec-config.js';
import type { ConsoleInput } from './commands/console.js';
import type { ConsoleBackend } from './console/console-backend.js';
import { createConsoleServer, type ConsoleServerOptions } from './console/console-server.js';
import { storeBackend } from './console/store-backend.js';
import { openDatabase } from './database.js';
import { readDecisionKeys } from './decision-keys.js';
import type { StackContext } from './stack-context.js';
import { stopRequested, Teardown } from './teardown.js';
import { connectClient } from './temporal-connection.js';

/** The console's listening address: loopback only; other machines reach it through a proxy (docs/console.md). */
const CONSOLE_HOST = '127.0.0.1';

/** A console that listens, and how to stop it. */
export interface ServedConsole {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves a console on 127.0.0.1:`port` (0: any free port) — the demo's `start` runs one next to its worker. */
export async function serveConsole(
  backend: ConsoleBackend,
  options: Omit<ConsoleServerOptions, 'listenHost'>,
  port: number,
): Promise<ServedConsole> {
  const server = createConsoleServer(backend, { ...options, listenHost: CONSOLE_HOST });
  await listen(server, port);
  return {
    url: `http://${CONSOLE_HOST}:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * `console`: the operator console on 127.0.0.1 until a stop signal. It connects like the operator commands (Temporal
 * with the codec, the store, the CLI's signing key): it can do what `approve`, `reject` and `resolve` can, as the
 * operator, and nothing else.
 */
export async function runConsole(ctx: StackContext, input: ConsoleInput): Promise<ExitCode> {
  const operator = input.operator ?? ctx.config.operator;
  if (input.trustProxyHeader === undefined && operator === undefined)
    throw new CliError(
      `who decides? give --operator <name> or set ${CLI_ENV.operator} (or run behind a proxy with --trust-proxy-header)`,
      EXIT_CODES.usage,
    );
  const teardown = new Teardown(ctx.out.progress);
  try {
    const temporal = await connectClient(ctx.config.temporal, configuredCodec(ctx.config.codecKeys)?.codec ?? null);
    teardown.add('the Temporal connection', () => temporal.close());
    const database = await openDatabase(ctx.config, ctx.projectRoot);
    teardown.add('the database', () => database.close());
    const { signing } = await readDecisionKeys(ctx.env, ctx.projectRoot);
    const served = await serveConsole(
      storeBackend({ client: temporal.client, store: database.store, signingKey: signing }),
      {
        operator:
          input.trustProxyHeader === undefined
            ? { kind: 'local', name: operator ?? '' }
            : { kind: 'proxy-header', header: input.trustProxyHeader },
        allowedHosts: input.allowedHosts,
        temporalUi:
          input.temporalUi === undefined ? null : { url: input.temporalUi, namespace: ctx.config.temporal.namespace },
        log: (line) => ctx.out.progress(line),
        secureCookie: input.trustProxyHeader !== undefined,
      },
      input.port,
    );
    teardown.add('the console', () => served.close());
    const who =
      input.trustProxyHeader === undefined
        ? `as ${operator ?? ''}`
        : `as the user in the ${input.trustProxyHeader} header`;
    ctx.out.report(
      { event: 'ready', url: served.url, signed: signing !== null },
      `operator console on ${served.url} (decisions ${who}${signing === null ? ', unsigned: no decision key' : ''}). Ctrl-C stops it.`,
    );
    await stopRequested(ctx.stop);
    return EXIT_CODES.ok;
  } finally {
    await teardown.run();
    ctx.out.report({ event: 'stopped' }, 'stopped');
  }
}

async function listen(server: Server, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new CliError(
          `cannot listen on ${CONSOLE_HOST}:${port} (${error.code ?? error.message}); choose another --port`,
          EXIT_CODES.unavailable,
          { cause: error },
        ),
      );
    });
    server.listen(port, CONSOLE_HOST, resolve);
  });
}
