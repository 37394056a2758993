import type { StackCommand } from './argv.js';
import type { DevPorts } from './cli-config.js';
import { EXIT_CODES, type ExitCode } from './cli-error.js';
import { openDatabase } from './database.js';
import { runDemoCommand, runStart } from './demo-command.js';
import { runDev } from './dev-command.js';
import { migrateDatabase } from './migrate-command.js';
import type { StackContext } from './stack-context.js';
import { runWorkerCommand } from './worker-command.js';

/**
 * Runs a stack command to its end: `migrate` prints its JSON and returns; `dev`, `worker`, `demo` and `start` run
 * until `ctx.stop` aborts (or `--exit`), stopping what they started in reverse order. Errors are CliErrors.
 */
export async function runStackCommand(command: StackCommand, ctx: StackContext, devPortsFromEnv: () => DevPorts): Promise<ExitCode> {
  // Read only by the commands that start a server, so a bad TTC_DEV_PORT never stops `worker` or `migrate`.
  const ports = (flags: Partial<DevPorts>): DevPorts => ({ ...devPortsFromEnv(), ...flags });
  switch (command.name) {
    case 'migrate': {
      const database = await openDatabase(ctx.config.databaseUrl, ctx.projectRoot);
      try {
        ctx.out.result(await migrateDatabase(database));
      } finally {
        await database.close();
      }
      return EXIT_CODES.ok;
    }
    case 'dev':
      return runDev(ctx, ports(command.ports));
    case 'worker':
      return runWorkerCommand(ctx, command.source);
    case 'demo':
      return runDemoCommand(ctx, command.demo);
    case 'start':
      return runStart(ctx, command.demo, ports(command.ports));
  }
}
