import type { Client } from '@temporalio/client';
import type { ApprovalDecision, ApprovalUpdateResult } from '../../workflows/approvals.js';
import { APPROVAL_UPDATE } from '../wire/names.js';

/**
 * Sends an approval decision through the validated update (not the signal), so a wrong digest or an unknown call id
 * is refused at once (`APPROVAL_INVALID`) instead of being recorded as an invalid decision. The one client-side way
 * to decide, shared by the CLI and the demo.
 */
export function submitApprovalDecision(client: Client, workflowId: string, decision: ApprovalDecision): Promise<ApprovalUpdateResult> {
  return client.workflow.getHandle(workflowId).executeUpdate<ApprovalUpdateResult, [ApprovalDecision]>(APPROVAL_UPDATE, { args: [decision] });
}
