import { randomUUID } from 'node:crypto';
import { checkSha256, checkText } from './input-checks.js';
import type { LedgerStatus, RecordExecutionInput } from './ledger.js';
import { StoreError } from './store-error.js';

/**
 * Dispatch leases: how a write's claim on its idempotency key fences the request it is about to send.
 *
 * A claim made with a {@link LeaseRequest} carries a lease: a random token and the attempt's deadline, kept on the
 * store's clock (the database's, for Postgres) so a worker's clock can never stretch it. Before its handler runs,
 * and again immediately before its request leaves, the attempt passes the fence ({@link FenceDispatchInput}): one
 * atomic step that checks the lease is still held, unrevoked and unexpired, and marks it dispatched (at the first
 * passage: once its handler runs, the attempt may have sent its request). Reconciliation revokes the lease of the
 * dispatch it reconciles before it asks the provider, and fences that dispatcher out of the key for good, so an
 * attempt that wakes up from a freeze can neither pass its fence nor claim the key again.
 */

/** Longest lease or grace a store accepts (about 24 days, far beyond any activity timeout worth fencing). */
const MAX_LEASE_MS = 2_147_483_647;

/** The execution that dispatches a write: one call of one workflow run. Leases and fences are per dispatcher. */
export interface Dispatcher {
  readonly workflowId: string;
  readonly runId: string;
  readonly callId: string;
}

/** The stored form of a dispatcher (a JSON array: unambiguous whatever the ids contain, and readable in SQL). */
export function leaseHolder(dispatcher: Dispatcher): string {
  return JSON.stringify([dispatcher.workflowId, dispatcher.runId, dispatcher.callId]);
}

/** What a claimer asks for besides the key: its run (the claim names workflow and call) and how long it may dispatch. */
export interface LeaseRequest {
  readonly runId: string;
  /** From now until the attempt's own deadline (its start-to-close timeout), in milliseconds. */
  readonly durationMs: number;
}

/** A lease granted with a claim. */
export interface Lease {
  readonly token: string;
  /** The deadline, on the store's clock. */
  readonly expiresAt: string;
}

/** The lease state of a ledger row, for inspection. */
export interface LeaseState {
  readonly expiresAt: string;
  /** When the holder passed its fence (its request may have left), or `null`. */
  readonly dispatchedAt: string | null;
  /** When reconciliation revoked the lease, or `null`. */
  readonly revokedAt: string | null;
}

/** The fence an attempt passes immediately before its request leaves. */
export interface FenceDispatchInput {
  readonly idempotencyKey: string;
  readonly leaseToken: string;
}

/**
 * Whether the request may leave. Refused when reconciliation revoked the lease, when its deadline passed, or when
 * the claim is no longer the row's (another claim replaced it): in each case the request is not sent.
 */
export type FenceDecision =
  { readonly allowed: true } | { readonly allowed: false; readonly reason: 'revoked' | 'expired' | 'superseded' };

/**
 * What opening a reconciliation round fences: the dispatch whose outcome is unknown. Its lease is revoked in the
 * same step (a tombstone row is written when it never claimed the key, so it never can).
 */
export interface DispatchFence {
  readonly dispatcher: Dispatcher;
  /** The call's request digest, for the tombstone row. */
  readonly requestSha256: string;
  /**
   * How long after the lease's deadline a request that passed the fence may still be leaving its worker: the worker's
   * local timeout buffer. "Not committed" is final only once that much time has passed.
   */
  readonly graceMs: number;
}

/** What revoking established about the fenced dispatch, kept on the round. */
export interface DispatchState {
  /** It had passed its fence (and had not recorded a result): its request may be in flight. */
  readonly dispatched: boolean;
  /** For a dispatched attempt: when its request can no longer be leaving (deadline plus grace); else `null`. */
  readonly quietAt: string | null;
}

/**
 * Escalation reasons of a round opened because a leased attempt's result was recorded after its call had been settled
 * "not committed": a commit, or an unknown outcome of an attempt that may have sent its request after the verdict.
 */
export const LATE_RESULT_ESCALATION = Object.freeze({
  committed: 'late_commit_after_verdict',
  unknown: 'late_unknown_after_verdict',
} as const);

/**
 * Whether a record that finds its claim no longer holding the row contradicts a "not committed" verdict, and how
 * the key escalates if so (`null`: it does not). A commit always does; an unknown outcome does when the attempt says
 * its request may have left after the verdict (its handler ran and finished past its deadline plus grace).
 */
export function lateResultEscalation(input: RecordExecutionInput): string | null {
  if (input.leaseToken === undefined) return null;
  const { outcome } = input.execution.modelResult.execution;
  if (outcome === 'committed') return LATE_RESULT_ESCALATION.committed;
  return outcome === 'unknown' && input.possiblySentLate === true ? LATE_RESULT_ESCALATION.unknown : null;
}

/**
 * Whether the fenced dispatcher's own record says its attempt never started: the key is released, and the attempt its
 * ledger row last recorded is the dispatcher's (`recordedBy`: the workflow, run and call of that record). Then no
 * request of it is on its way, and "not committed" need not wait any longer. A record of an unknown outcome does not
 * say so — a request that left before its handler gave up may still be in the network (its record ends its lease
 * instead, so the wait ends a grace after it) — and a record of another call under the key does not count.
 */
export function releasedByDispatcher(
  fencedHolder: string | null,
  status: LedgerStatus,
  recordedBy: Dispatcher | null,
): boolean {
  return (
    fencedHolder !== null && status === 'released' && recordedBy !== null && leaseHolder(recordedBy) === fencedHolder
  );
}

/** A lease request as both stores store it: the holder, a fresh random token and a whole duration. */
export interface CheckedLease {
  readonly holder: string;
  readonly token: string;
  readonly durationMs: number;
}

/** Checks a claim's lease request; `null` when the claim asks for none. A deadline already passed is a zero lease. */
export function checkLeaseRequest(claim: {
  readonly workflowId: string;
  readonly callId: string;
  readonly lease?: LeaseRequest;
}): CheckedLease | null {
  const { lease } = claim;
  if (lease === undefined) return null;
  if (typeof lease.durationMs !== 'number' || Number.isNaN(lease.durationMs))
    throw new StoreError('invalid_input', { field: 'lease.durationMs', problem: 'not_a_number' });
  const holder = leaseHolder({
    workflowId: claim.workflowId,
    runId: checkText(lease.runId, 'lease.runId'),
    callId: claim.callId,
  });
  return { holder, token: randomUUID(), durationMs: Math.round(Math.min(Math.max(lease.durationMs, 0), MAX_LEASE_MS)) };
}

/** A dispatch fence as both stores apply it. */
export interface CheckedFence {
  readonly holder: string;
  readonly dispatcher: Dispatcher;
  readonly requestSha256: string;
  readonly graceMs: number;
}

/** Checks the fence of an open-reconciliation input. */
export function checkDispatchFence(fence: DispatchFence): CheckedFence {
  const dispatcher = {
    workflowId: checkText(fence.dispatcher.workflowId, 'fence.dispatcher.workflowId'),
    runId: checkText(fence.dispatcher.runId, 'fence.dispatcher.runId'),
    callId: checkText(fence.dispatcher.callId, 'fence.dispatcher.callId'),
  };
  if (
    typeof fence.graceMs !== 'number' ||
    !Number.isInteger(fence.graceMs) ||
    fence.graceMs < 0 ||
    fence.graceMs > MAX_LEASE_MS
  ) {
    throw new StoreError('invalid_input', { field: 'fence.graceMs', problem: 'not_a_valid_duration' });
  }
  return {
    holder: leaseHolder(dispatcher),
    dispatcher,
    requestSha256: checkSha256(fence.requestSha256, 'fence.requestSha256'),
    graceMs: fence.graceMs,
  };
}
