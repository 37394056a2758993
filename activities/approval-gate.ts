import { requestDigest } from '../src/contract/bindings.js';
import type { DecisionRecord } from '../src/contract/decision-record.js';
import type { AnyToolDefinition, Principal } from '../src/contract/define-tool.js';
import type { ExecutionContext } from '../src/contract/execution-context.js';
import { reconcileWorkflowId } from '../src/wire/ids.js';
import type { DecisionPolicy } from './check-decision.js';
import { confirmDecision } from './confirm-decision.js';
import type { ToolActivityInput } from './tool-activity.js';

/** The request a tool activity is about to run: its validated arguments (raw when invalid) and their digest. */
export interface IntendedRequest {
  readonly args: unknown;
  readonly requestSha256: string;
}

/** Whether an approval-required tool may run, and on whose decision. */
export type ApprovalGate =
  | { readonly ok: true; readonly decision: DecisionRecord }
  | { readonly ok: false; readonly code: 'APPROVAL_REQUIRED' | 'APPROVAL_INVALID'; readonly reason: string };

/**
 * Defence in depth for a tool that requires approval: whatever workflow schedules its activity, the handler runs
 * only on an approval for exactly this request. The grant must carry a decision to approve whose digest equals the
 * digest of the arguments about to run; with an authenticator, its token must verify again and be bound to the
 * call: issued for this call id in the workflow run that schedules the activity — or, for the reconciliation's one
 * safe re-dispatch, in the reconciliation workflow of the call's own idempotency key — and the key must be the one
 * the approved request owns (its business key, or `<workflow id>:<call id>`), so an approval never runs under a
 * fresh key.
 */
export async function checkApprovalGrant(policy: DecisionPolicy, tool: AnyToolDefinition, call: ToolActivityInput, ctx: ExecutionContext, intended: IntendedRequest): Promise<ApprovalGate> {
  if (call.approval === undefined) return { ok: false, code: 'APPROVAL_REQUIRED', reason: 'no_decision' };
  const approvedIn = approvedWorkflow(call);
  if (approvedIn === null) return invalid('binding_mismatch');
  const running = ctx.temporal;
  const redispatch = call.dispatch === 'redispatch';
  const where = redispatch ? running?.workflowId === reconcileWorkflowId(call.idempotencyKey) : running?.workflowId === approvedIn;
  if (running === undefined || running === null || !where) return invalid('binding_mismatch');
  if (call.idempotencyKey !== ownKey(tool, intended.args, approvedIn, call.callId)) return invalid('binding_mismatch');
  const check = await confirmDecision(
    policy,
    call.approval,
    { kind: 'approval', workflowId: approvedIn, runId: redispatch ? null : running.runId, callId: call.callId, requestSha256: intended.requestSha256, principalSubject: call.principal.subject },
    { kind: 'approval', decision: 'approve', requestSha256: intended.requestSha256 },
  );
  return check.ok ? { ok: true, decision: check.record } : invalid(check.reason);
}

/**
 * The request about to run, digested as the funnel will digest it (over the validated arguments): the ledger is keyed
 * on it, and an approval must be for it.
 */
export function intendedRequest(tool: AnyToolDefinition, principal: Principal, rawArgs: unknown): IntendedRequest {
  const parsed = (tool.input as { safeParse: (value: unknown) => { success: boolean; data?: unknown } }).safeParse(rawArgs);
  if (parsed.success) {
    try {
      return { args: parsed.data, requestSha256: requestDigest(principal, tool, parsed.data) };
    } catch {
      // Arguments whose parsed form is not JSON are digested as sent, like the funnel does.
    }
  }
  return { args: rawArgs, requestSha256: requestDigest(principal, tool, rawArgs) };
}

function invalid(reason: string): ApprovalGate {
  return { ok: false, code: 'APPROVAL_INVALID', reason };
}

/** The workflow the call was approved in: its operation id is `<workflow id>:<call id>` (prepareCall fixes it). */
function approvedWorkflow(call: ToolActivityInput): string | null {
  const suffix = `:${call.callId}`;
  return call.operationId.endsWith(suffix) && call.operationId.length > suffix.length ? call.operationId.slice(0, -suffix.length) : null;
}

/** The idempotency key the approved request owns (as prepareCall derives it). */
function ownKey(tool: AnyToolDefinition, args: unknown, workflowId: string, callId: string): string | null {
  if (tool.idempotencyKey === undefined) return `${workflowId}:${callId}`;
  try {
    return `${tool.name}:${String(tool.idempotencyKey(args))}`;
  } catch {
    return null;
  }
}
