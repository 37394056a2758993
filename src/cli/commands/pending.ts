import { parseCommandArgs } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';
import type { listPendingApprovals } from '../pending.js';

/** What `pending` lists: one workflow's waiting calls, or every workflow's (via visibility). */
export interface PendingInput {
  readonly workflowId?: string;
}

/** `pending`: calls waiting for approval. */
export const pendingCommand: OperatorCommandSpec<PendingInput, Awaited<ReturnType<typeof listPendingApprovals>>> = {
  name: 'pending',
  usage: { synopsis: 'pending [workflowId]', description: ['calls waiting for approval (one workflow, or all via visibility)'] },
  parse: (args) => {
    const [workflowId] = parseCommandArgs(args, {}, { min: 0, max: 1 }).positionals;
    return workflowId === undefined ? {} : { workflowId };
  },
  run: async (input, deps) => {
    const { listPendingApprovals } = await import('../pending.js');
    return listPendingApprovals(await deps.client(), input);
  },
};
