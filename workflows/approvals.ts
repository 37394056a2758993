import { condition, defineQuery, defineSignal, defineUpdate, setCurrentDetails, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { CallPreview } from '../activities/prepare-call.js';
import { catalogWorkflowFailure } from './catalog-failure.js';
import { APPROVAL_SIGNAL, APPROVAL_UPDATE, PENDING_APPROVALS_QUERY } from '../src/wire/names.js';
import { APPROVAL_PENDING_SA } from '../src/wire/search-attributes.js';

/** An approver's decision on one pending call, bound to the exact request by its digest. */
export interface ApprovalDecision {
  readonly callId: string;
  readonly requestSha256: string;
  readonly decision: 'approve' | 'reject';
  readonly approver: string;
  readonly reason?: string;
}

/** A decision that did not match the pending request (wrong digest): recorded, the call stays pending. */
export interface InvalidDecision {
  readonly approver: string;
  readonly requestSha256: string;
  readonly at: string;
}

/** A call waiting for approval, as the pending-approvals query shows it. */
export interface PendingApproval {
  readonly callId: string;
  readonly preview: CallPreview;
  readonly requestedAt: string;
  readonly expiresAt: string;
  readonly invalidDecisions: readonly InvalidDecision[];
}

/** How a wait for approval ended. */
export type ApprovalOutcome =
  | { readonly kind: 'approved'; readonly approver: string }
  | { readonly kind: 'rejected'; readonly approver: string; readonly reason: string | null }
  | { readonly kind: 'expired'; readonly invalidDecisions: number };

/** Answer of the approval update. */
export interface ApprovalUpdateResult {
  readonly accepted: boolean;
  readonly duplicate: boolean;
}

export const approvalSignal = defineSignal<[ApprovalDecision]>(APPROVAL_SIGNAL);
export const approvalUpdate = defineUpdate<ApprovalUpdateResult, [ApprovalDecision]>(APPROVAL_UPDATE);
export const pendingApprovalsQuery = defineQuery<PendingApproval[]>(PENDING_APPROVALS_QUERY);

interface PendingState {
  readonly callId: string;
  readonly preview: CallPreview;
  readonly requestedAt: string;
  readonly expiresAt: string;
  readonly invalidDecisions: InvalidDecision[];
}

// Per-workflow state (module state is isolated per workflow execution in the sandbox).
const pending = new Map<string, PendingState>();
const decided = new Map<string, ApprovalDecision>();
/** Decisions that arrived before their call was pending; applied when it becomes pending. */
const early: ApprovalDecision[] = [];
let installed = false;

/**
 * Registers the approval signal, update and query. Called by `callTool` before a call can wait; a workflow that
 * wants decisions buffered from its very first moment may call it first thing. Idempotent.
 */
export function installApprovalHandlers(): void {
  if (installed) return;
  installed = true;
  setHandler(approvalSignal, (payload) => {
    // Signals come from people and services: a malformed one is dropped (it stays visible in history), never
    // thrown — a throwing signal handler would fail the workflow task over and over.
    const decision = parseDecision(payload);
    if (decision !== null) receive(decision);
  });
  setHandler(
    approvalUpdate,
    (payload) => {
      const decision = parseDecision(payload);
      if (decision === null) return { accepted: false, duplicate: false };
      const duplicate = decided.has(decision.callId);
      receive(decision);
      return { accepted: !duplicate, duplicate };
    },
    {
      // An update gets an immediate answer: a decision for no pending call, or for other arguments, is refused
      // with failure type APPROVAL_INVALID (and, unlike a signal, leaves no trace in history).
      validator: (payload: ApprovalDecision) => {
        const decision = parseDecision(payload);
        if (decision === null) throw catalogWorkflowFailure('APPROVAL_INVALID', 'malformed decision');
        const state = pending.get(decision.callId);
        if (state === undefined && !decided.has(decision.callId)) throw catalogWorkflowFailure('APPROVAL_INVALID', 'no pending call with this id');
        // Checked against the pending call, or against the decision that already settled it: after a decision, a
        // wrong digest is still refused as invalid rather than answered as a harmless duplicate.
        const expected = state?.preview.requestSha256 ?? decided.get(decision.callId)?.requestSha256;
        if (expected !== decision.requestSha256) throw catalogWorkflowFailure('APPROVAL_INVALID', 'the decision is for a different request digest');
      },
    },
  );
  setHandler(pendingApprovalsQuery, () =>
    [...pending.values()].map((state) => ({ ...state, invalidDecisions: [...state.invalidDecisions] })),
  );
}

/**
 * Waits for a decision on a prepared call. Only a decision whose digest equals the request's counts; the first
 * one wins and later ones are ignored (duplicates are idempotent). No valid decision before `timeout`: expired.
 */
export async function awaitApproval(preview: CallPreview, callId: string, timeoutMs: number): Promise<ApprovalOutcome> {
  installApprovalHandlers();
  const now = Date.now();
  const state: PendingState = {
    callId,
    preview,
    requestedAt: new Date(now).toISOString(),
    expiresAt: new Date(now + timeoutMs).toISOString(),
    invalidDecisions: [],
  };
  pending.set(callId, state);
  publish();
  const buffered = early.splice(0);
  early.push(...buffered.filter((d) => d.callId !== callId));
  for (const decision of buffered.filter((d) => d.callId === callId)) receive(decision);
  try {
    const got = await condition(() => decided.has(callId), timeoutMs);
    const decision = decided.get(callId);
    if (!got || decision === undefined) return { kind: 'expired', invalidDecisions: state.invalidDecisions.length };
    return decision.decision === 'approve'
      ? { kind: 'approved', approver: decision.approver }
      : { kind: 'rejected', approver: decision.approver, reason: decision.reason ?? null };
  } finally {
    pending.delete(callId);
    publish();
  }
}

/** A decision with every field of the right type, or `null`. Text fields are bounded (they end up in history). */
function parseDecision(payload: unknown): ApprovalDecision | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const { callId, requestSha256, decision, approver, reason } = payload as Partial<Record<keyof ApprovalDecision, unknown>>;
  if (typeof callId !== 'string' || typeof requestSha256 !== 'string' || typeof approver !== 'string' || approver.trim() === '') return null;
  if (decision !== 'approve' && decision !== 'reject') return null;
  return {
    callId: callId.slice(0, 200),
    requestSha256: requestSha256.slice(0, 64),
    decision,
    approver: approver.slice(0, 200),
    ...(typeof reason === 'string' ? { reason: reason.slice(0, 2000) } : {}),
  };
}

function receive(decision: ApprovalDecision): void {
  if (decided.has(decision.callId)) return;
  const state = pending.get(decision.callId);
  if (state === undefined) {
    early.push(decision);
    return;
  }
  if (decision.requestSha256 !== state.preview.requestSha256) {
    state.invalidDecisions.push({ approver: decision.approver, requestSha256: decision.requestSha256, at: new Date(Date.now()).toISOString() });
    publish();
    return;
  }
  decided.set(decision.callId, decision);
}

/** Mirrors the pending set into the search attribute and the UI's current details. */
function publish(): void {
  upsertSearchAttributes([{ key: APPROVAL_PENDING_SA, value: pending.size > 0 }]);
  const lines = [...pending.values()].map((s) => `- ${s.callId}: ${s.preview.tool} (${s.preview.effect}) digest ${s.preview.requestSha256.slice(0, 12)}… until ${s.expiresAt}${s.invalidDecisions.length > 0 ? `, ${s.invalidDecisions.length} invalid decision(s)` : ''}`);
  setCurrentDetails(lines.length === 0 ? '' : `**Waiting for approval**\n${lines.join('\n')}`);
}
