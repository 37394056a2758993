import type { Client } from '@temporalio/client';
import { submitApprovalDecision, type ApprovalDecision, type ApprovalUpdateResult, type PendingApproval } from '../temporal/index.js';

/**
 * Approves a pending call through the approval update, as an operator would with `tool-contract approve`: the
 * decision is bound to the digest the pending call shows, and the workflow's validator refuses a wrong one at once.
 */
export async function approvePending(client: Client, workflowId: string, approval: PendingApproval, approver: string): Promise<ApprovalUpdateResult> {
  const decision: ApprovalDecision = {
    callId: approval.callId,
    requestSha256: approval.preview.requestSha256,
    decision: 'approve',
    approver,
    reason: 'approved automatically by the demo (approval: auto)',
  };
  return submitApprovalDecision(client, workflowId, decision);
}

/**
 * The command an operator runs to approve `approval` by hand (the digest binds the decision to these arguments);
 * `cli` is how the CLI runs where it is printed (`npx tool-contract`, `npm run cli --`, ...).
 */
export function approveCommand(cli: string, workflowId: string, approval: PendingApproval): string {
  return `${cli} approve ${workflowId} ${approval.callId} --digest ${approval.preview.requestSha256} --approver <you>`;
}
