#!/usr/bin/env node
// The CLI's composition root: the only module that reads argv, the environment and signals, and builds connections.
// The command modules import their work when they run: `help` and bad input answer at once, and the operator
// commands never load the worker (native core, webpack) that the stack commands need. Everything it prints has its
// URL credentials masked, except what the operator asked to see as stored (`inspect --protected`).
import { parseCommand, type CommandLine } from './argv.js';
import { configFromEnv, type CliConfig } from './cli-config.js';
import { CliError, EXIT_CODES, type ExitCode } from './cli-error.js';
import { cliInvocation } from './invocation.js';
import type { CliDeps } from './command.js';
import type { OpenDatabase } from './database.js';
import { maskCredentials, maskedJson } from './mask-credentials.js';
import type { TemporalClientConnection } from './temporal-connection.js';

type StackRun = Extract<CommandLine, { kind: 'stack' }>;
type OperatorRun = Extract<CommandLine, { kind: 'operator' }>;

/** Lazily made connections for the operator commands, and how to close whichever were made. */
function connect(config: CliConfig, cli: string, env: NodeJS.ProcessEnv): CliDeps & { close(): Promise<void> } {
  let temporal: TemporalClientConnection | null = null;
  let database: OpenDatabase | null = null;
  const openedDatabase = async () => {
    const { openDatabase } = await import('./database.js');
    database ??= await openDatabase(config, process.cwd());
    return database;
  };
  return {
    cli,
    config,
    client: async () => {
      const [{ connectClient }, { configuredCodec }] = await Promise.all([
        import('./temporal-connection.js'),
        import('./codec-config.js'),
      ]);
      temporal ??= await connectClient(config.temporal, configuredCodec(config.codecKeys)?.codec ?? null);
      return temporal.client;
    },
    store: async () => (await openedDatabase()).store,
    database: openedDatabase,
    signingKey: async () => {
      const { readDecisionKeys } = await import('./decision-keys.js');
      return (await readDecisionKeys(env, process.cwd())).signing;
    },
    close: async () => {
      await temporal?.close().catch(() => undefined);
      await database?.close();
    },
  };
}

/**
 * Aborts on SIGINT/SIGTERM; a second signal exits at once. The long-running commands shut down in order themselves
 * (the worker drains, then the dev server and Postgres stop), so a handler some loaded module registered — one that
 * would exit at once and orphan the servers — goes.
 */
function stopOnSignals(): AbortSignal {
  const controller = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => {
      if (!controller.signal.aborted) return controller.abort();
      process.stderr.write(`tool-contract: second ${signal}, exiting without cleaning up\n`);
      process.exit(EXIT_CODES.failure);
    });
  }
  return controller.signal;
}

async function runStack(command: StackRun, env: NodeJS.ProcessEnv): Promise<ExitCode> {
  const [run, { DefaultLogger, Runtime }, { cliOutput }, { maskedSdkLog }] = await Promise.all([
    command.load(),
    import('@temporalio/worker'),
    import('./output.js'),
    import('./sdk-log.js'),
  ]);
  // Signal handlers after the imports, the command's work (and a user's tool module) included.
  const stop = stopOnSignals();
  // The SDK's INFO lines would bury the progress output. A standalone worker keeps its warnings; the demo's are
  // expected (its refund times out on purpose, and the late answer is logged as a failed activity), so only errors.
  // Signals are ours (see above).
  const level = command.name === 'worker' ? 'WARN' : 'ERROR';
  const config = configFromEnv(env, command.profile);
  // The runtime serves its metrics (the SDK's and the package's ttc_* ones) only when asked to: it binds a port.
  const metrics =
    config.metricsBind === undefined ? {} : { metrics: { prometheus: { bindAddress: config.metricsBind } } };
  Runtime.install({
    logger: new DefaultLogger(level, maskedSdkLog(process.stderr)),
    shutdownSignals: [],
    telemetryOptions: { logging: { filter: level, forward: {} }, ...metrics },
  });
  return run({
    config,
    cli: cliInvocation(process.argv[1]),
    projectRoot: process.cwd(),
    env,
    out: cliOutput(command.json, process.stdout, process.stderr),
    stop,
  });
}

async function runOperator(command: OperatorRun, env: NodeJS.ProcessEnv): Promise<ExitCode> {
  const config = configFromEnv(env, command.profile);
  const deps = connect(config, cliInvocation(process.argv[1]), env);
  try {
    const output = await command.run(deps);
    const shown = command.present(output);
    const text =
      typeof shown === 'string'
        ? command.masked
          ? maskCredentials(shown)
          : shown
        : command.masked
          ? maskedJson(shown, 2)
          : JSON.stringify(shown, null, 2);
    process.stdout.write(`${text}\n`);
    return command.exitCode(output);
  } catch (error) {
    // A call after the connect can still meet a server that went away or refuses this call's credentials: mapped
    // like a failed connect, with the address (the command's own mapping knows only the workflow).
    if (error instanceof CliError) throw error;
    throw (await import('./connection-failure.js')).callFailureError(config.temporal, error) ?? error;
  } finally {
    await deps.close();
  }
}

async function main(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  try {
    const command = parseCommand(argv);
    return await (command.kind === 'stack' ? runStack(command, env) : runOperator(command, env));
  } catch (error) {
    if (error instanceof CliError) {
      process.stderr.write(`tool-contract: ${maskCredentials(error.message)}\n`);
      return error.exitCode;
    }
    const code = typeof error === 'object' && error !== null && 'code' in error ? ` [${String(error.code)}]` : '';
    process.stderr.write(
      `tool-contract: unexpected failure${code}: ${maskCredentials(error instanceof Error ? error.message : String(error))}\n`,
    );
    return EXIT_CODES.failure;
  }
}

const exitCode = await main(process.argv.slice(2), process.env);
// Exit explicitly with the command's code once stdout and stderr are flushed: a handle some library leaves open must
// not keep a finished command alive.
process.stdout.write('', () => process.stderr.write('', () => process.exit(exitCode)));
