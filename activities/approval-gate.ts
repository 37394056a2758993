import type { DecisionRecord } from '../src/contract/decision-record.js';
import type { AnyToolDefinition } from '../src/contract/define-tool.js';
import type { ExecutionContext } from '../src/contract/execution-context.js';
import { businessIdempotencyKey } from '../src/contract/idempotency-key.js';
import { reconcileWorkflowId } from '../src/wire/ids.js';
import type { DecisionPolicy, DecisionSubject } from './check-decision.js';
import { confirmDecision } from './confirm-decision.js';
import type { IntendedRequest } from './request-digest.js';
import type { ToolActivityInput } from './tool-activity.js';

/** Whether an approval-required tool may run, and on whose decision. */
export type ApprovalGate =
  | { readonly ok: true; readonly decision: DecisionRecord }
  | { readonly ok: false; readonly code: 'APPROVAL_REQUIRED' | 'APPROVAL_INVALID'; readonly reason: string };

/** The call an approval must be for, as the activity's own coordinates establish it. */
export type ApprovalSubject = Extract<DecisionSubject, { kind: 'approval' }>;

/**
 * Where the call stands, before anything is claimed or recorded: a call whose identity does not belong where it
 * runs — an operation id of another workflow, a key its request does not own — gets `null`, and is refused without
 * touching that other call's key or audit. A call belongs to the workflow run that schedules it (its operation id is
 * `<workflow id>:<call id>`, as prepareCall fixes it), or — for the reconciliation's one safe re-dispatch — to the
 * reconciliation workflow of its own key; its key is the one the request owns (its business key, or its operation
 * id), so an approval never runs under a fresh key.
 */
export function approvalSubject(tool: AnyToolDefinition, call: ToolActivityInput, ctx: ExecutionContext, intended: IntendedRequest): ApprovalSubject | null {
  const suffix = `:${call.callId}`;
  if (!call.operationId.endsWith(suffix) || call.operationId.length === suffix.length) return null;
  const approvedIn = call.operationId.slice(0, -suffix.length);
  const running = ctx.temporal;
  if (running === undefined || running === null) return null;
  const redispatch = call.dispatch === 'redispatch';
  if (running.workflowId !== (redispatch ? reconcileWorkflowId(call.idempotencyKey) : approvedIn)) return null;
  if (call.idempotencyKey !== ownKey(tool, call.principal.tenant, intended.args, call.operationId)) return null;
  return { kind: 'approval', workflowId: approvedIn, runId: redispatch ? null : running.runId, callId: call.callId, requestSha256: intended.requestSha256, principalSubject: call.principal.subject };
}

/**
 * Defence in depth for a tool that requires approval: whatever workflow schedules its activity, the handler runs
 * only on an approval for exactly this request — a decision to approve for `subject` (this call, the digest of the
 * arguments about to run), whose token verifies again (see `confirmDecision`).
 */
export async function checkApprovalGrant(policy: DecisionPolicy, call: ToolActivityInput, subject: ApprovalSubject): Promise<ApprovalGate> {
  if (call.approval === undefined) return { ok: false, code: 'APPROVAL_REQUIRED', reason: 'no_decision' };
  const check = await confirmDecision(policy, call.approval, subject, { kind: 'approval', decision: 'approve', requestSha256: subject.requestSha256 });
  return check.ok ? { ok: true, decision: check.record } : { ok: false, code: 'APPROVAL_INVALID', reason: check.reason };
}

/** The idempotency key the request owns, as prepareCall derives it: its tenant-scoped business key, or its operation id. */
function ownKey(tool: AnyToolDefinition, tenant: string, args: unknown, operationId: string): string | null {
  if (tool.idempotencyKey === undefined) return operationId;
  try {
    return businessIdempotencyKey(tool.name, tenant, String(tool.idempotencyKey(args)));
  } catch {
    return null;
  }
}
