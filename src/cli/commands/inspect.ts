import { parseCommandArgs } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';
import type { InspectView } from '../inspect-view.js';

/** Which calls `inspect` shows, and whether with the protected audit fields. */
export interface InspectInput {
  readonly workflowId: string;
  readonly callId?: string;
  readonly includeProtected: boolean;
}

/** `inspect`: what the store knows of a workflow's calls, without the protected audit fields unless asked. */
export const inspectCommand: OperatorCommandSpec<InspectInput, InspectView> = {
  name: 'inspect',
  usage: {
    synopsis: 'inspect <workflowId> [callId] [--protected]',
    description: [
      'model results, audit records (ids, status, error code, layer outcomes, digests, who',
      'approved or resolved), evidence, state patches and memory; --protected: also the',
      'protected fields (error detail, downstream and provider refs, idempotency key,',
      "operation id, principal and memory subject refs, the decider's note)",
    ],
  },
  parse: (args) => {
    const { values, positionals } = parseCommandArgs(args, { protected: { type: 'boolean' } }, { min: 1, max: 2 });
    const [workflowId = '', callId] = positionals;
    return { workflowId, ...(callId === undefined ? {} : { callId }), includeProtected: values['protected'] === true };
  },
  run: async (input, deps) => {
    const [{ inspectCalls }, view] = await Promise.all([import('../inspect.js'), import('../inspect-view.js')]);
    const found = await inspectCalls(await deps.store(), input.callId === undefined ? { workflowId: input.workflowId } : { workflowId: input.workflowId, callId: input.callId });
    if (input.includeProtected) return view.includingProtected(found);
    return view.withholdingProtected(found, [`${deps.cli} inspect`, input.workflowId, ...(input.callId === undefined ? [] : [input.callId]), '--protected'].join(' '));
  },
  // What the operator asked to see in full is printed as stored, URL credentials included.
  showsProtected: (input) => input.includeProtected,
};
