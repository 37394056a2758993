import type { GoldenCase } from '../../contract/golden-case.js';
import { parseCommandArgs } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';

/** Which recorded calls `cases` turns into golden cases, and how it prints them. */
export interface CasesInput {
  readonly workflowId: string;
  readonly callId?: string;
  readonly json: boolean;
}

/** `cases`: a workflow's recorded calls as golden cases, ready for `regress`. */
export const casesCommand: OperatorCommandSpec<CasesInput, GoldenCase[]> = {
  name: 'cases',
  usage: {
    synopsis: 'cases <workflowId> [callId]',
    description: [
      'the recorded calls (tools with recordRawOutput) of a workflow as golden cases, one JSON',
      'line each, expecting what happened: redirect to a cases.jsonl for regress',
    ],
  },
  parse: (args) => {
    const { positionals, json } = parseCommandArgs(args, {}, { min: 1, max: 2 });
    const [workflowId = '', callId] = positionals;
    return { workflowId, ...(callId === undefined ? {} : { callId }), json };
  },
  run: async (input, deps) =>
    (await import('../recorded-cases.js')).recordedCases(
      await deps.store(),
      input.callId === undefined
        ? { workflowId: input.workflowId }
        : { workflowId: input.workflowId, callId: input.callId },
    ),
  // One JSON object per line, as a cases.jsonl holds them.
  present: (cases, input) => (input.json ? cases : cases.map((goldenCase) => JSON.stringify(goldenCase)).join('\n')),
};
