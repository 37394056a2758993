import { parseCommandArgs } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';
import type { listPendingApprovals } from '../pending.js';

/** What `pending` lists: one workflow's waiting calls, or every workflow's (from the store's approval requests). */
export interface PendingInput {
  readonly workflowId?: string;
}

/** `pending`: calls waiting for approval. */
export const pendingCommand: OperatorCommandSpec<PendingInput, Awaited<ReturnType<typeof listPendingApprovals>>> = {
  name: 'pending',
  usage: {
    synopsis: 'pending [workflowId]',
    description: ['calls waiting for approval, as the worker recorded them (one workflow, or all)'],
  },
  parse: (args) => {
    const [workflowId] = parseCommandArgs(args, {}, { min: 0, max: 1 }).positionals;
    return workflowId === undefined ? {} : { workflowId };
  },
  run: async (input, deps) => {
    const { listPendingApprovals } = await import('../pending.js');
    // Temporal first: an unreachable server fails the command before any database is opened.
    const client = await deps.client();
    return listPendingApprovals(client, await deps.store(), input);
  },
};
