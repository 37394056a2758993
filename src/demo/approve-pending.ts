import type { Client } from '@temporalio/client';
import type { DecisionKey } from '../decisions/keys.js';
import { signDecision } from '../decisions/sign.js';
import { submitApprovalDecision, type DecisionAnswer, type PendingApproval } from '../temporal/index.js';

/**
 * Approves a pending call as an operator would with `tool-contract approve`: signed with `signingKey` for exactly
 * this workflow run, call and request digest, and sent through the approval update, whose answer says whether it
 * decided the call.
 */
export function approvePending(
  client: Client,
  approval: PendingApproval,
  approver: string,
  signingKey: DecisionKey | null,
): Promise<DecisionAnswer> {
  const note = 'approved automatically by the demo (approval: auto)';
  const { workflowId, runId, callId } = approval;
  const { requestSha256 } = approval.preview;
  const token =
    signingKey === null
      ? undefined
      : signDecision(
          {
            kind: 'approval',
            workflowId,
            runId,
            callId,
            requestSha256,
            decision: 'approve',
            decidedBy: approver,
            note,
          },
          signingKey,
        );
  return submitApprovalDecision(client, workflowId, {
    callId,
    requestSha256,
    decision: 'approve',
    approver,
    reason: note,
    ...(token === undefined ? {} : { token }),
  });
}

/**
 * The command an operator runs to approve `approval` by hand (the digest binds the decision to these arguments);
 * `cli` is how the CLI runs where it is printed (`npx tool-contract`, `npm run cli --`, ...).
 */
export function approveCommand(cli: string, workflowId: string, approval: PendingApproval): string {
  return `${cli} approve ${workflowId} ${approval.callId} --digest ${approval.preview.requestSha256} --approver <you>`;
}
