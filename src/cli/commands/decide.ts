import type { DecideInput, DecideOutput } from '../approve.js';
import { optionalString, parseCommandArgs, requiredString, usageError } from '../command-args.js';
import type { OperatorCommandSpec } from '../command.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;

const DESCRIPTIONS = {
  approve: [
    "runs a call waiting for approval (--digest: its request's SHA-256, from `pending`); signed with",
    'TTC_DECISION_KEY (else the project key in .data/decisions/) for exactly that run, call and digest',
  ],
  reject: [
    'refuses it: the call ends with APPROVAL_REJECTED and nothing runs. Both exit 5 with the reason (and the',
    'winning decision) when the workflow does not take the decision',
  ],
} as const satisfies Record<DecideInput['decision'], readonly string[]>;

/** `approve` and `reject`: one signed decision through the workflow's approval update. */
function decideCommand(decision: DecideInput['decision']): OperatorCommandSpec<DecideInput, DecideOutput> {
  return {
    name: decision,
    usage: {
      synopsis: `${decision.padEnd(7)} <workflowId> <callId> --digest <requestSha256> --approver <name> [--reason <text>]`,
      description: DESCRIPTIONS[decision],
    },
    parse: (args) => {
      const { values, positionals } = parseCommandArgs(
        args,
        { digest: { type: 'string' }, approver: { type: 'string' }, reason: { type: 'string' } },
        { min: 2, max: 2 },
      );
      const [workflowId = '', callId = ''] = positionals;
      const requestSha256 = requiredString(values, 'digest').toLowerCase();
      if (!SHA256_HEX.test(requestSha256))
        throw usageError("--digest must be the request's SHA-256 (64 hex digits), as `pending` shows it");
      const reason = optionalString(values, 'reason');
      return {
        workflowId,
        callId,
        requestSha256,
        decision,
        approver: requiredString(values, 'approver'),
        ...(reason === undefined ? {} : { reason }),
      };
    },
    run: async (input, deps) => {
      const { decideApproval } = await import('../approve.js');
      // Temporal first: an unreachable server fails the command before any database is opened.
      const client = await deps.client();
      return decideApproval(client, await deps.store(), input, await deps.signingKey());
    },
  };
}

/** `approve`: lets a call waiting for approval run. */
export const approveCommand = decideCommand('approve');
/** `reject`: refuses a call waiting for approval. */
export const rejectCommand = decideCommand('reject');
