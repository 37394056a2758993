import { condition, defineQuery, defineSignal, defineUpdate, setHandler } from '@temporalio/workflow';
import type { SubmittedDecision } from '../activities/check-decision.js';
import type { ApprovalRecorded } from '../activities/request-approval.js';
import type { VerifiedDecision } from '../activities/verify-decision.js';
import type { DecisionRecord } from '../src/contract/decision-record.js';
import type { CallIdentity } from '../src/contract/call-identity.js';
import { MAX_DECISION_TOKEN_CHARS, type DecisionRefusal } from '../src/wire/decisions.js';
import {
  APPROVAL_DECISIONS_QUERY,
  APPROVAL_SIGNAL,
  APPROVAL_UPDATE,
  PENDING_APPROVALS_QUERY,
} from '../src/wire/names.js';
import { catalogWorkflowFailure } from './catalog-failure.js';
import {
  answer,
  answerTo,
  enqueue,
  keepLatest,
  refusal,
  verifyDecision,
  type DecisionAnswer,
  type QueuedDecision,
} from './decision-inbox.js';
import {
  describe,
  describePending,
  pending,
  publish,
  type PendingApproval,
  type PendingState,
  type RefusedDecision,
} from './pending-approvals.js';

export type { PendingApproval, RefusedDecision } from './pending-approvals.js';

/**
 * An approver's decision on one pending call, as a signal or update carries it. It is bound to the exact request by
 * its digest and — on a worker with an authenticator — proven by `token` (made by `signDecision`, bound to this
 * workflow run, call and digest), which also names the approver.
 */
export interface ApprovalDecision {
  readonly callId: string;
  readonly requestSha256: string;
  readonly decision: 'approve' | 'reject';
  /** The signed decision; required when the worker has an authenticator (else the decision is refused `unsigned`). */
  readonly token?: string;
  /** Who decides. Counts only on a worker that takes decisions unauthenticated (development); a token names its approver. */
  readonly approver?: string;
  /** Why. For a signed decision, the token's note counts instead. */
  readonly reason?: string;
}

/** The decisions a workflow took, and the latest ones it refused (also those for calls that were not pending). */
export interface ApprovalDecisions {
  readonly decided: readonly { readonly callId: string; readonly decision: DecisionRecord }[];
  readonly refused: readonly RefusedDecision[];
}

/** How a wait for approval ended. */
export type ApprovalOutcome =
  | { readonly kind: 'approved'; readonly verified: VerifiedDecision }
  | { readonly kind: 'rejected'; readonly verified: VerifiedDecision }
  | { readonly kind: 'expired'; readonly invalidDecisions: number };

/** Answer of the approval update: the decision took effect, or why not (after a lost race, with the winner). */
export type ApprovalUpdateResult = DecisionAnswer;

export const approvalSignal = defineSignal<[ApprovalDecision]>(APPROVAL_SIGNAL);
export const approvalUpdate = defineUpdate<ApprovalUpdateResult, [ApprovalDecision]>(APPROVAL_UPDATE);
export const pendingApprovalsQuery = defineQuery<PendingApproval[]>(PENDING_APPROVALS_QUERY);
export const approvalDecisionsQuery = defineQuery<ApprovalDecisions>(APPROVAL_DECISIONS_QUERY);

// Per-workflow state (module state is isolated per workflow execution in the sandbox).
const decided = new Map<string, VerifiedDecision>();
const refused: RefusedDecision[] = [];
let installed = false;

/**
 * Registers the approval signal, update and queries. Called by `callTool` before a call can wait; a workflow that
 * wants early decisions recorded (as refused) from its very first moment may call it first thing. Idempotent.
 */
export function installApprovalHandlers(): void {
  if (installed) return;
  installed = true;
  setHandler(approvalSignal, (payload) => {
    // Signals come from people and services: a bad one is refused and recorded, never thrown — a throwing signal
    // handler would fail the workflow task over and over.
    const decision = parseDecision(payload);
    if (decision === null) refuse('malformed', { callId: null });
    else submit(decision, false);
  });
  setHandler(
    approvalUpdate,
    async (payload) => {
      const decision = parseDecision(payload);
      if (decision === null) return refusal('malformed');
      const queued = submit(decision, true);
      return 'ticket' in queued ? answerTo(queued) : queued;
    },
    {
      // Only what cannot be attributed is refused here (and leaves no trace): every decision that names a call is
      // accepted and answered, so it is on the record.
      validator: (payload: ApprovalDecision) => {
        if (parseDecision(payload) === null) throw catalogWorkflowFailure('APPROVAL_INVALID', 'malformed decision');
      },
    },
  );
  setHandler(pendingApprovalsQuery, () => [...pending.values()].map(describePending));
  setHandler(approvalDecisionsQuery, () => ({
    decided: [...decided.entries()].map(([callId, verified]) => ({ callId, decision: verified.decision })),
    refused: [...refused],
  }));
}

/** A call the worker recorded for its approver: what the approver sees and signs, and until when it waits. */
export type RecordedCall = Omit<ApprovalRecorded, 'kind'> & { readonly identity: CallIdentity };

/**
 * Waits for a decision on a call the worker recorded for its approver (the store's approval request: what an
 * approver signs for is what the worker wrote, never what this workflow answers to a query). Decisions are checked
 * as they arrive — for a call pending now, for its exact digest — and queued; the worker verifies them one at a time,
 * in arrival order, and the first that verifies decides. Every other one is answered (`already_decided` with the
 * winner). No decision before the request's deadline: expired.
 */
export async function awaitApproval(call: RecordedCall): Promise<ApprovalOutcome> {
  installApprovalHandlers();
  const state: PendingState = { call, invalidDecisions: [], queue: [] };
  const deadline = Date.parse(call.expiresAt);
  const { callId } = call.identity;
  pending.set(callId, state);
  publish();
  try {
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0 || !(await condition(() => state.queue.length > 0, remaining)))
        return { kind: 'expired', invalidDecisions: state.invalidDecisions.length };
      const next = state.queue.shift() as QueuedDecision<SubmittedDecision & { readonly kind: 'approval' }>;
      const verdict = await verifyDecision({
        submitted: next.submitted,
        target: {
          kind: 'approval',
          callId,
          requestSha256: call.requestSha256,
          principalSubject: call.identity.principal.subject,
        },
      });
      if (!verdict.ok) {
        answer(next, refuse(verdict.reason, { callId, state, submitted: next.submitted }));
        continue;
      }
      const verified: VerifiedDecision = { token: next.submitted.token, decision: verdict.record };
      decided.set(callId, verified);
      answer(next, { accepted: true, decision: verdict.record });
      return { kind: verdict.record.decision === 'approve' ? 'approved' : 'rejected', verified };
    }
  } finally {
    pending.delete(callId);
    // Whoever still waits is told: the call was decided by another decision, or its wait is over.
    const winner = decided.get(callId)?.decision ?? null;
    for (const queued of state.queue.splice(0))
      answer(
        queued,
        refuse(winner === null ? 'not_pending' : 'already_decided', {
          callId,
          state,
          submitted: queued.submitted,
          winner,
        }),
      );
    publish();
  }
}

/**
 * Checks what the handler can check at once — the call is pending now, the decision is for its digest — then
 * queues the decision for the worker's verdict; or answers it at once. A decision for no pending call approves
 * nothing, ever: it is refused `not_pending`.
 */
function submit(decision: ApprovalDecision, awaited: boolean): QueuedDecision<SubmittedDecision> | DecisionAnswer {
  const { callId } = decision;
  const submitted = toSubmitted(decision);
  const winner = decided.get(callId);
  if (winner !== undefined) return refuse('already_decided', { callId, submitted, winner: winner.decision });
  const state = pending.get(callId);
  if (state === undefined) return refuse('not_pending', { callId, submitted });
  if (decision.requestSha256 !== state.call.requestSha256)
    return refuse('digest_mismatch', { callId, state, submitted });
  return enqueue(state.queue, submitted, awaited) ?? refuse('too_many', { callId, state, submitted });
}

/** What a refusal is about: the call (and its pending state, if it waits), the decision, and the winner if any. */
interface Refused {
  readonly callId: string | null;
  readonly state?: PendingState;
  readonly submitted?: SubmittedDecision;
  readonly winner?: DecisionRecord | null;
}

/** Records a refused decision (bounded) for the queries and the UI, and returns the answer its sender gets. */
function refuse(reason: DecisionRefusal, about: Refused): DecisionAnswer {
  const { submitted, state } = about;
  const entry: RefusedDecision = {
    callId: about.callId,
    reason,
    claimedBy: submitted?.claimedBy ?? null,
    requestSha256: submitted?.kind === 'approval' ? submitted.requestSha256 : null,
    at: new Date(Date.now()).toISOString(),
  };
  keepLatest(refused, entry);
  if (state !== undefined) {
    keepLatest(state.invalidDecisions, entry);
    describe();
  }
  return refusal(reason, about.winner ?? null);
}

function toSubmitted(decision: ApprovalDecision): SubmittedDecision & { readonly kind: 'approval' } {
  return {
    kind: 'approval',
    decision: decision.decision,
    requestSha256: decision.requestSha256,
    token: decision.token ?? null,
    claimedBy: decision.approver ?? null,
    note: decision.reason ?? null,
  };
}

/**
 * A decision with every field of the right type, or `null`. It names an approver or carries a token. Text fields
 * are bounded (they end up in history).
 */
function parseDecision(payload: unknown): ApprovalDecision | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const { callId, requestSha256, decision, approver, reason, token } = payload as Partial<
    Record<keyof ApprovalDecision, unknown>
  >;
  if (typeof callId !== 'string' || typeof requestSha256 !== 'string') return null;
  if (decision !== 'approve' && decision !== 'reject') return null;
  const named = typeof approver === 'string' && approver.trim() !== '';
  const signed = typeof token === 'string' && token !== '';
  if (!named && !signed) return null;
  return {
    callId: callId.slice(0, 200),
    requestSha256: requestSha256.slice(0, 64),
    decision,
    ...(named ? { approver: approver.slice(0, 200) } : {}),
    ...(signed ? { token: token.slice(0, MAX_DECISION_TOKEN_CHARS + 1) } : {}),
    ...(typeof reason === 'string' ? { reason: reason.slice(0, 2000) } : {}),
  };
}
