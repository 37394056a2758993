import type { Client } from '@temporalio/client';
import type { ApprovalDecision, ApprovalUpdateResult } from '../temporal/index.js';
import { submitApprovalDecision } from '../temporal/approval-client.js';
import { toCliError } from './temporal-errors.js';

/** What `approve` / `reject` need: the call, the digest of the request the approver saw, and who decides. */
export interface DecideInput {
  readonly workflowId: string;
  readonly callId: string;
  readonly requestSha256: string;
  readonly decision: ApprovalDecision['decision'];
  readonly approver: string;
  readonly reason?: string;
}

/** What the CLI prints after a decision. */
export interface DecideOutput extends ApprovalUpdateResult {
  readonly workflowId: string;
  readonly callId: string;
  readonly decision: ApprovalDecision['decision'];
}

/** Approves or rejects a pending call through the validated approval update. */
export async function decideApproval(client: Client, input: DecideInput): Promise<DecideOutput> {
  const decision: ApprovalDecision = {
    callId: input.callId,
    requestSha256: input.requestSha256,
    decision: input.decision,
    approver: input.approver,
    ...(input.reason === undefined ? {} : { reason: input.reason }),
  };
  try {
    const result = await submitApprovalDecision(client, input.workflowId, decision);
    return { workflowId: input.workflowId, callId: input.callId, decision: input.decision, ...result };
  } catch (error) {
    throw toCliError(error, input.workflowId);
  }
}
