import { setCurrentDetails, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { SubmittedDecision } from '../activities/check-decision.js';
import type { CallPreview } from '../activities/call-preview.js';
import type { DecisionRefusal } from '../src/wire/decisions.js';
import { APPROVAL_PENDING_SA } from '../src/wire/search-attributes.js';
import type { RecordedCall } from './approvals.js';
import type { QueuedDecision } from './decision-inbox.js';

/** A decision that did not count, kept (bounded) for the queries; every one also stays in history. */
export interface RefusedDecision {
  readonly callId: string | null;
  readonly reason: DecisionRefusal;
  /** The approver the sender named (unverified). */
  readonly claimedBy: string | null;
  readonly requestSha256: string | null;
  readonly at: string;
}

/** A call waiting for approval, as the pending-approvals query shows it: everything an approver needs to decide. */
export interface PendingApproval {
  /** The workflow run the call waits in: a signed decision is bound to it. */
  readonly workflowId: string;
  readonly runId: string;
  readonly callId: string;
  readonly preview: CallPreview;
  readonly requestedAt: string;
  readonly expiresAt: string;
  /** The latest decisions for this call that did not count, with why. */
  readonly invalidDecisions: readonly RefusedDecision[];
}

/** A call waiting for approval, in workflow state. */
export interface PendingState {
  readonly call: RecordedCall;
  readonly invalidDecisions: RefusedDecision[];
  /** Decisions waiting for the worker's verdict, in arrival order. */
  readonly queue: QueuedDecision<SubmittedDecision & { readonly kind: 'approval' }>[];
}

/** The calls of this workflow waiting for approval, by call id (module state is per workflow execution). */
export const pending = new Map<string, PendingState>();

/** A pending call as the query shows it. */
export function describePending(state: PendingState): PendingApproval {
  const { workflowId, runId } = workflowInfo();
  return {
    workflowId,
    runId,
    callId: state.call.identity.callId,
    preview: state.call.preview,
    requestedAt: state.call.requestedAt,
    expiresAt: state.call.expiresAt,
    invalidDecisions: [...state.invalidDecisions],
  };
}

/** Mirrors the pending set into the search attribute and the UI's current details. */
export function publish(): void {
  upsertSearchAttributes([{ key: APPROVAL_PENDING_SA, value: pending.size > 0 }]);
  describe();
}

/** The UI's current details only: each pending call, its digest and deadline, and how many decisions were refused. */
export function describe(): void {
  const lines = [...pending.values()].map((s) => {
    const { preview } = s.call;
    const refused = s.invalidDecisions.length > 0 ? `, ${s.invalidDecisions.length} refused decision(s)` : '';
    return `- ${s.call.identity.callId}: ${preview.tool} (${preview.effect}) digest ${preview.requestSha256.slice(0, 12)}… until ${s.call.expiresAt}${refused}`;
  });
  setCurrentDetails(lines.length === 0 ? '' : `**Waiting for approval**\n${lines.join('\n')}`);
}
