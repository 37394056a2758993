import type { Client } from '@temporalio/client';
import type { ToolStore } from '../store/index.js';
import { decideApproval } from './approve.js';
import type { CliCommand } from './argv.js';
import { USAGE } from './argv.js';
import { CliError, EXIT_CODES } from './cli-error.js';
import { inspectCalls } from './inspect.js';
import { listPendingApprovals } from './pending.js';
import { resolveOutcome } from './resolve.js';
import { reportMetrics } from './metrics.js';
import { listUnsettled } from './unsettled.js';

/** The connections a command may need, made on first use (so `pending` never touches Postgres, nor `inspect` Temporal). */
export interface CliDeps {
  client(): Promise<Client>;
  store(): Promise<ToolStore>;
}

/**
 * Runs a parsed operator command; the result is what the CLI prints (JSON, or the usage text for `help`). The
 * stack commands (`start`, `dev`, `worker`, `demo`, `migrate`) own their output and run in `runStackCommand`.
 */
export async function runCommand(command: CliCommand, deps: CliDeps): Promise<unknown> {
  switch (command.name) {
    case 'help':
      return USAGE;
    case 'decide':
      return decideApproval(await deps.client(), command.input);
    case 'resolve':
      return resolveOutcome(await deps.client(), command.input);
    case 'pending':
      return listPendingApprovals(await deps.client(), command.workflowId === undefined ? {} : { workflowId: command.workflowId });
    case 'unsettled':
      return listUnsettled(await deps.store(), command.limit === undefined ? {} : { limit: command.limit });
    case 'metrics':
      return reportMetrics(await deps.store(), command.since === undefined ? {} : { since: command.since });
    case 'inspect':
      return inspectCalls(await deps.store(), command.callId === undefined ? { workflowId: command.workflowId } : { workflowId: command.workflowId, callId: command.callId });
    default:
      throw new CliError(`'${command.name}' is a stack command: run it through runStackCommand`, EXIT_CODES.failure);
  }
}
