import { registerOperatorCommand, registerStackCommand, type RegisteredCommand } from '../command.js';
import { casesCommand } from './cases.js';
import { codecServerCommand } from './codec-server.js';
import { consoleCommand } from './console.js';
import { approveCommand, rejectCommand } from './decide.js';
import { demoCommand } from './demo.js';
import { devCommand } from './dev.js';
import { eraseCommand } from './erase.js';
import { exportCommand } from './export.js';
import { helpCommand } from './help.js';
import { inspectCommand } from './inspect.js';
import { mcpCommand } from './mcp.js';
import { metricsCommand } from './metrics.js';
import { migrateCommand } from './migrate.js';
import { pendingCommand } from './pending.js';
import { regressCommand } from './regress.js';
import { resolveCommand } from './resolve.js';
import { retentionCommand } from './retention.js';
import { sealCommand } from './seal.js';
import { startCommand } from './start.js';
import { unsettledCommand } from './unsettled.js';
import { verifyCommand } from './verify.js';
import { workerCommand } from './worker.js';

/** Commands under one heading of the usage text. */
export interface CommandGroup {
  readonly title: string;
  readonly commands: readonly RegisteredCommand[];
}

/** Every command, in the order of the usage text: parsing, `help` and dispatch all read this one list. */
export const COMMAND_GROUPS: readonly CommandGroup[] = [
  {
    title: 'Run it all locally:',
    commands: [
      registerStackCommand(startCommand),
      registerStackCommand(devCommand),
      registerStackCommand(workerCommand),
      registerStackCommand(demoCommand),
      registerStackCommand(migrateCommand),
      registerStackCommand(codecServerCommand),
      registerStackCommand(consoleCommand),
      registerStackCommand(mcpCommand),
    ],
  },
  {
    title: 'Operate (print JSON):',
    commands: [
      registerOperatorCommand(approveCommand),
      registerOperatorCommand(rejectCommand),
      registerOperatorCommand(resolveCommand),
      registerOperatorCommand(pendingCommand),
      registerOperatorCommand(unsettledCommand),
      registerOperatorCommand(metricsCommand),
      registerOperatorCommand(inspectCommand),
      registerOperatorCommand(casesCommand),
      registerOperatorCommand(regressCommand),
    ],
  },
  {
    title: 'Audit trail (Postgres; docs/audit.md):',
    commands: [
      registerOperatorCommand(sealCommand),
      registerOperatorCommand(verifyCommand),
      registerOperatorCommand(exportCommand),
      registerOperatorCommand(retentionCommand),
      registerOperatorCommand(eraseCommand),
    ],
  },
  { title: 'Help:', commands: [registerOperatorCommand(helpCommand)] },
];

/** The command a word selects (its name or an alias), if any. */
export function findCommand(word: string): RegisteredCommand | undefined {
  return COMMAND_GROUPS.flatMap((group) => group.commands).find(
    (command) => command.name === word || command.aliases.includes(word),
  );
}
