import type { Client } from '@temporalio/client';
import type { ApprovalDecision, DecisionAnswer } from '../../workflows/index.js';
import type { ResolveOutcomeSignal } from '../../workflows/reconcile-tool-call.js';
import { reconcileWorkflowId } from '../wire/ids.js';
import { APPROVAL_UPDATE, RESOLVE_OUTCOME_UPDATE } from '../wire/names.js';

/**
 * Sends an approval decision through the approval update (not the signal), so the sender is told at once and
 * truthfully whether it decided the call — or why not, with the winning decision after a lost race. The one
 * client-side way to decide, shared by the CLI and the demo; find what to sign with `approvalToSign` and sign the
 * decision with `signDecision` first. With `runId`, the update goes to that run only (the one the decision is for).
 */
export function submitApprovalDecision(
  client: Client,
  workflowId: string,
  decision: ApprovalDecision,
  runId?: string,
): Promise<DecisionAnswer> {
  return client.workflow
    .getHandle(workflowId, runId)
    .executeUpdate<DecisionAnswer, [ApprovalDecision]>(APPROVAL_UPDATE, { args: [decision] });
}

/** Sends a resolution of an escalated reconciliation (by idempotency key) through the resolution update. */
export function submitResolution(
  client: Client,
  idempotencyKey: string,
  resolution: ResolveOutcomeSignal,
): Promise<DecisionAnswer> {
  return client.workflow
    .getHandle(reconcileWorkflowId(idempotencyKey))
    .executeUpdate<DecisionAnswer, [ResolveOutcomeSignal]>(RESOLVE_OUTCOME_UPDATE, { args: [resolution] });
}
