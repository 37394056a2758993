import type { ChildProcess } from 'node:child_process';
import { relative, resolve } from 'node:path';
import type { DevPorts } from './cli-config.js';
import { CLI_ENV } from './cli-config.js';
import { CliError, EXIT_CODES, type ExitCode } from './cli-error.js';
import { ensureDecisionKeys, SIGNING_KEY_FILE, VERIFY_KEYS_FILE } from './decision-keys.js';
import { devEnvironment, writeDevEnvFile } from './dev-env-file.js';
import { startDevStack, TEMPORAL_DATA_FILE, type DevStack } from './dev-stack.js';
import { maskCredentials } from './mask-credentials.js';
import type { StackContext } from './stack-context.js';
import { stopRequested, Teardown } from './teardown.js';

/**
 * `dev`: the stack only, until a stop signal; prints its addresses and the environment to export, and with
 * `envFile` (`--write-env`; not `--env-file`, which Node takes for itself wherever it stands) writes the environment
 * a worker of your own needs (see `devEnvironment`).
 */
export async function runDev(ctx: StackContext, ports: DevPorts, envFile?: string): Promise<ExitCode> {
  const teardown = new Teardown(ctx.out.progress);
  try {
    const stack = await bringUpStack(ctx, ports, teardown);
    if (ctx.stop.aborted) return EXIT_CODES.ok;
    const keys = await ensureDecisionKeys(ctx.env, ctx.projectRoot);
    const envPath = envFile === undefined ? null : resolve(ctx.projectRoot, envFile);
    if (envPath !== null)
      await writeDevEnvFile(envPath, devEnvironment(stack, keys, ctx.config.databaseSchema), ctx.cli);
    const signing =
      keys.source === 'environment'
        ? 'Decisions are signed with the keys in the environment (TTC_DECISION_KEY / TTC_DECISION_VERIFY_KEYS).'
        : `Decisions are signed: approve/reject/resolve run in this folder sign with ${SIGNING_KEY_FILE}; workers started here verify with ${VERIFY_KEYS_FILE}.`;
    const next = `In another terminal (in this folder):\n${exportLines(stack)}\n  ${ctx.cli} worker            # the demo worker; or --tools <module> for yours`;
    const ownWorker =
      envPath === null
        ? `A worker of your own: \`${ctx.cli} dev --write-env .env.dev\` writes the environment it needs (database URLs with passwords, decision keys).`
        : `A worker of your own: its environment (database URLs with passwords, decision keys) is in ${relative(ctx.projectRoot, envPath) || envPath} (mode 0600):\n  node --env-file=${relative(ctx.projectRoot, envPath) || envPath} worker.js   # or: npx tsx --env-file=… worker.ts`;
    ctx.out.report(
      { ...readyEvent(stack), envFile: envPath },
      `${describeStack(stack)}\n${signing}\n\n${next}\n\n${ownWorker}\n\nCtrl-C stops everything.`,
    );
    await untilStoppedOrDead(ctx.stop, stack.temporal.process);
    ctx.out.progress('stopping the dev stack');
    return EXIT_CODES.ok;
  } finally {
    await teardown.run();
    ctx.out.report({ event: 'stopped' }, 'stopped');
  }
}

/** Starts the dev stack (see `startDevStack`) and registers its stop. */
export async function bringUpStack(ctx: StackContext, ports: DevPorts, teardown: Teardown): Promise<DevStack> {
  const stack = await startDevStack({
    projectRoot: ctx.projectRoot,
    env: ctx.env,
    ports,
    database: ctx.config,
    progress: ctx.out.progress,
  });
  teardown.add('the dev stack', () => stack.stop());
  return stack;
}

/** The stack's addresses as a machine-readable event. */
export function readyEvent(stack: DevStack) {
  return {
    event: 'ready',
    temporalAddress: stack.temporal.address,
    namespace: stack.temporal.namespace,
    uiUrl: stack.temporal.uiUrl,
    temporalDataFile: stack.temporalDataFile,
    database: stack.database.source.kind,
    // Masked: the URLs hold passwords (of DATABASE_URL and DATABASE_OWNER_URL, or the embedded cluster's own).
    databaseUrl: maskCredentials(stack.database.connectionString),
    databaseOwnerUrl:
      stack.database.ownerConnectionString === null ? null : maskCredentials(stack.database.ownerConnectionString),
    migrationsApplied: stack.migrations.applied,
  } as const;
}

/** The stack's addresses for a human. */
export function describeStack(stack: DevStack): string {
  const source = stack.database.source;
  return [
    `Temporal dev server  ${stack.temporal.address}  (namespace ${stack.temporal.namespace}; state in ${TEMPORAL_DATA_FILE})`,
    `Temporal UI          ${stack.temporal.uiUrl ?? '(headless)'}`,
    `Postgres             ${source.kind === 'embedded' ? `embedded (${source.dataDir})` : 'DATABASE_URL'}, migrated`,
  ].join('\n');
}

/**
 * The environment that points the other commands (worker, approve, inspect, ...) at this stack. The database URL is
 * not printed, since it holds a password: the embedded Postgres needs none (the commands run in this folder attach
 * to it), and a DATABASE_URL is the user's own, to set again.
 */
export function exportLines(stack: DevStack): string {
  const source = stack.database.source;
  const owner = stack.database.ownerConnectionString === null ? '' : ` and ${CLI_ENV.databaseOwnerUrl}`;
  const database =
    source.kind === 'embedded'
      ? `  # no ${CLI_ENV.databaseUrl}: run in this folder, the commands attach to its embedded Postgres`
      : `  # and the same ${CLI_ENV.databaseUrl}${owner} as here (${maskCredentials(stack.database.connectionString)})`;
  return [
    `  export ${CLI_ENV.temporalAddress}=${stack.temporal.address}`,
    `  export ${CLI_ENV.temporalNamespace}=${stack.temporal.namespace}`,
    database,
  ].join('\n');
}

/** Waits for the stop signal; a dev server that dies on its own is a failure, not a silent hang. */
export async function untilStoppedOrDead(stop: AbortSignal, server: ChildProcess): Promise<void> {
  const gone = (code: number | null, signal: NodeJS.Signals | null) =>
    new CliError(`the Temporal dev server exited on its own (${code ?? signal})`, EXIT_CODES.failure);
  if (server.exitCode !== null || server.signalCode !== null) throw gone(server.exitCode, server.signalCode);
  let onExit: ((code: number | null, signal: NodeJS.Signals | null) => void) | undefined;
  const died = new Promise<never>((_, reject) => {
    onExit = (code, signal) => reject(gone(code, signal));
    server.once('exit', onExit);
  });
  try {
    await Promise.race([stopRequested(stop), died]);
  } finally {
    if (onExit !== undefined) server.off('exit', onExit);
    died.catch(() => undefined);
  }
}
