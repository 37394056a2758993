// How calls prepared before decisions were verified are decided (their prepared call has no `decisions: 'verified'`):
// the first decision naming the pending call's digest counts as sent, and a signal that arrives before its call is
// pending waits for it. Kept only so runs recorded that way replay and finish the way they started; every call
// prepared now is decided by `awaitApproval`. Remove once no such run is open.
import { condition, workflowInfo } from '@temporalio/workflow';
import type { VerifiedDecision } from '../activities/verify-decision.js';
import type { DecisionRecord } from '../src/contract/decision-record.js';
import { UNAUTHENTICATED_METHOD } from '../src/contract/decision-method.js';
import type { ApprovalDecision, ApprovalOutcome } from './approvals.js';
import { keepLatest, refusal, type DecisionAnswer } from './decision-inbox.js';
import { pending, publish, type PendingState } from './pending-approvals.js';

const decided = new Map<string, ApprovalDecision>();
/** Signals that named no pending call; only an old-style call takes them up (bounded, the newest kept). */
const early: ApprovalDecision[] = [];

/** True when the call is decided the old way: pending, or decided, as a call prepared before verification. */
export function isLegacyCall(callId: string): boolean {
  const state = pending.get(callId);
  return decided.has(callId) || (state !== undefined && state.call.decisions !== 'verified');
}

/** Keeps a signal for no pending call, in case an old-style call becomes pending (calls prepared now ignore it). */
export function holdEarly(decision: ApprovalDecision): void {
  if (decision.approver !== undefined) keepLatest(early, decision);
}

/** A decision for an old-style call; the update's answer for it. */
export function legacyDecide(decision: ApprovalDecision): DecisionAnswer {
  // Those calls required a named approver; anything else was dropped.
  if (decision.approver === undefined) return refusal('malformed');
  const winner = decided.get(decision.callId);
  receive(decision);
  return winner === undefined ? { accepted: true, decision: unauthenticatedRecord(decision) } : refusal('already_decided', unauthenticatedRecord(winner));
}

/** The wait of an old-style call. */
export async function awaitLegacyApproval(state: PendingState, timeoutMs: number): Promise<ApprovalOutcome> {
  const { callId } = state.call.identity;
  pending.set(callId, state);
  publish();
  const buffered = early.splice(0);
  early.push(...buffered.filter((d) => d.callId !== callId));
  for (const decision of buffered.filter((d) => d.callId === callId)) receive(decision);
  try {
    const got = await condition(() => decided.has(callId), timeoutMs);
    const decision = decided.get(callId);
    if (!got || decision === undefined) return { kind: 'expired', invalidDecisions: state.invalidDecisions.length };
    const verified: VerifiedDecision = { token: null, decision: unauthenticatedRecord(decision) };
    return { kind: decision.decision === 'approve' ? 'approved' : 'rejected', verified };
  } finally {
    pending.delete(callId);
    publish();
  }
}

function receive(decision: ApprovalDecision): void {
  if (decided.has(decision.callId)) return;
  const state = pending.get(decision.callId);
  if (state === undefined) {
    holdEarly(decision);
    return;
  }
  if (decision.requestSha256 !== state.call.requestSha256) {
    const at = new Date(Date.now()).toISOString();
    state.invalidDecisions.push({ callId: decision.callId, reason: 'digest_mismatch', claimedBy: decision.approver ?? null, requestSha256: decision.requestSha256, at });
    publish();
    return;
  }
  decided.set(decision.callId, decision);
}

/** An old-style decision as a record: the approver as sent, unauthenticated. */
function unauthenticatedRecord(decision: ApprovalDecision): DecisionRecord {
  return {
    decision_id: `legacy:${workflowInfo().workflowId}:${decision.callId}`,
    kind: 'approval',
    decision: decision.decision,
    decided_by: decision.approver ?? 'unknown',
    method: UNAUTHENTICATED_METHOD,
    key_id: null,
    decided_at: new Date(Date.now()).toISOString(),
    request_sha256: decision.requestSha256,
    note: decision.reason ?? null,
    external_id: null,
  };
}
