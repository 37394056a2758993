import type { DecisionRecord } from '../src/contract/decision-record.js';
import type { AnyToolImplementation } from '../src/contract/tool-spec.js';
import { callOwnership } from './call-ownership.js';
import type { DecisionPolicy, DecisionSubject } from './check-decision.js';
import { confirmDecision } from './confirm-decision.js';
import type { IntendedRequest } from './request-digest.js';
import { callIdentityOf, type ToolActivityInput } from './tool-activity.js';

/** Whether an approval-required tool may run, and on whose decision. */
export type ApprovalGate =
  | { readonly ok: true; readonly decision: DecisionRecord }
  | { readonly ok: false; readonly code: 'APPROVAL_REQUIRED' | 'APPROVAL_INVALID'; readonly reason: string };

/** The call an approval must be for, as the activity's own coordinates establish it. */
export type ApprovalSubject = Extract<DecisionSubject, { kind: 'approval' }>;

/**
 * The call an approval must be for, where the call stands (see `callOwnership`): a call whose identity does not
 * belong where it runs gets `null`, and is refused without touching that other call's key or audit. A call belongs to
 * the workflow run that schedules it, or — for the reconciliation's one safe re-dispatch — to the reconciliation
 * workflow of its own key (any run of it); so an approval never runs under a fresh key or in another workflow.
 */
export function approvalSubject(
  tool: AnyToolImplementation,
  call: ToolActivityInput,
  intended: IntendedRequest,
): ApprovalSubject | null {
  const redispatch = call.dispatch === 'redispatch';
  const owner = callOwnership(tool, callIdentityOf(call, tool.name), [redispatch ? 'reconciliation' : 'own_workflow']);
  if (owner === null) return null;
  return {
    kind: 'approval',
    workflowId: owner.workflowId,
    runId: redispatch ? null : owner.running.runId,
    callId: call.callId,
    requestSha256: intended.requestSha256,
    principalSubject: call.principal.subject,
  };
}

/**
 * Defence in depth for a tool that requires approval: whatever workflow schedules its activity, the handler runs
 * only on an approval for exactly this request — a decision to approve for `subject` (this call, the digest of the
 * arguments about to run), whose token verifies again (see `confirmDecision`).
 */
export async function checkApprovalGrant(
  policy: DecisionPolicy,
  call: ToolActivityInput,
  subject: ApprovalSubject,
): Promise<ApprovalGate> {
  if (call.approval === undefined) return { ok: false, code: 'APPROVAL_REQUIRED', reason: 'no_decision' };
  const check = await confirmDecision(policy, call.approval, subject, {
    kind: 'approval',
    decision: 'approve',
    requestSha256: subject.requestSha256,
  });
  return check.ok
    ? { ok: true, decision: check.record }
    : { ok: false, code: 'APPROVAL_INVALID', reason: check.reason };
}
