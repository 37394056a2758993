import { parseCommandArgs } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';
import type { InspectOutput } from '../inspect.js';

/** Which calls `inspect` shows. */
export interface InspectInput {
  readonly workflowId: string;
  readonly callId?: string;
}

/** `inspect`: what the store knows of a workflow's calls. */
export const inspectCommand: OperatorCommandSpec<InspectInput, InspectOutput> = {
  name: 'inspect',
  usage: { synopsis: 'inspect <workflowId> [callId]', description: ['model results, audit records, evidence and state patches'] },
  parse: (args) => {
    const [workflowId = '', callId] = parseCommandArgs(args, {}, { min: 1, max: 2 }).positionals;
    return callId === undefined ? { workflowId } : { workflowId, callId };
  },
  run: async (input, deps) => {
    const { inspectCalls } = await import('../inspect.js');
    return inspectCalls(await deps.store(), input);
  },
};
