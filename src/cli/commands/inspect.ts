import { parseCommandArgs } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';
import type { InspectView } from '../inspect-view.js';

/** Which calls `inspect` shows, and whether with the protected audit fields. */
export interface InspectInput {
  readonly workflowId: string;
  readonly callId?: string;
  readonly includeProtected: boolean;
  /** Add to each call the walk call → execution → contract → interpretation of its latest attempt. */
  readonly diagnose: boolean;
}

/** `inspect`: what the store knows of a workflow's calls, without the protected audit fields unless asked. */
export const inspectCommand: OperatorCommandSpec<InspectInput, InspectView> = {
  name: 'inspect',
  usage: {
    synopsis: 'inspect <workflowId> [callId] [--protected] [--diagnose]',
    description: [
      'model results, audit records (ids, status, error code, layer outcomes, digests, who',
      'approved or resolved), evidence, state patches and memory; --protected: also the',
      'protected fields (error detail, downstream and provider refs, idempotency key,',
      "operation id, principal and memory subject refs, the decider's note); --diagnose:",
      'each call walked from call to execution, contract and what the model may conclude',
    ],
  },
  parse: (args) => {
    const { values, positionals } = parseCommandArgs(
      args,
      { protected: { type: 'boolean' }, diagnose: { type: 'boolean' } },
      { min: 1, max: 2 },
    );
    const [workflowId = '', callId] = positionals;
    return {
      workflowId,
      ...(callId === undefined ? {} : { callId }),
      includeProtected: values['protected'] === true,
      diagnose: values['diagnose'] === true,
    };
  },
  run: async (input, deps) => {
    const [{ inspectCalls }, view] = await Promise.all([import('../inspect.js'), import('../inspect-view.js')]);
    const inspected = await inspectCalls(
      await deps.store(),
      input.callId === undefined
        ? { workflowId: input.workflowId }
        : { workflowId: input.workflowId, callId: input.callId },
    );
    const found = input.diagnose ? view.withDiagnosis(inspected) : inspected;
    if (input.includeProtected) return view.includingProtected(found);
    return view.withholdingProtected(
      found,
      [
        `${deps.cli} inspect`,
        input.workflowId,
        ...(input.callId === undefined ? [] : [input.callId]),
        '--protected',
      ].join(' '),
    );
  },
  // What the operator asked to see in full is printed as stored, URL credentials included.
  showsProtected: (input) => input.includeProtected,
};
