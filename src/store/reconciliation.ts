/**
 * Durable records of side effects whose outcome was unknown (SPEC §7). The reconciliation workflow drives them;
 * the store keeps history, lists what is unsettled and measures how long settling takes.
 */

import type { DispatchFence, DispatchState } from './lease.js';

/** `open`: being reconciled; `escalated`: waiting for a human; `settled`: the outcome is known. */
export type ReconciliationState = 'open' | 'escalated' | 'settled';

/** What one reconcile query (or a human) found. */
export type ReconcileFinding = 'committed' | 'not_committed' | 'unknown';

/** Opens (or returns the already open) record for an idempotency key. */
export interface OpenReconciliationInput {
  readonly idempotencyKey: string;
  readonly workflowId: string;
  readonly callId: string;
  readonly tool: string;
  /** Audit of the attempt whose outcome is unknown, when it was recorded. */
  readonly auditId: string | null;
  /**
   * The dispatch whose outcome is unknown. Opening revokes its lease and fences it out of the key before anyone asks
   * the provider; the round keeps what that established, and settles `not_committed` by receipt only once the
   * dispatch can no longer be in flight.
   */
  readonly fence?: DispatchFence;
}

/** One reconcile query; idempotent by (key, attempt). */
export interface ReconciliationAttemptInput {
  readonly idempotencyKey: string;
  readonly attempt: number;
  readonly finding: ReconcileFinding;
  readonly detail: string | null;
}

/** Hands the record to a human after the reconcile deadline. */
export interface EscalationInput {
  readonly idempotencyKey: string;
  readonly reason: string;
}

/**
 * Settles the record. `via: 'receipt'` = the authoritative system answered (`receipt_reconciled`); `via: 'human'`
 * = a person decided (`human_resolved`). Settling twice the same way is a no-op; differently is a conflict.
 * Settling `not_committed` also releases the ledger key, so a safe retry with the same key can claim it. By receipt
 * it is refused (`verdict_premature`) while the fenced dispatch may still be in flight or once a commit of it was
 * recorded: the next query will tell. A human's settlement also ends a late-commit dispute.
 */
export interface SettleReconciliationInput {
  readonly idempotencyKey: string;
  readonly outcome: 'committed' | 'not_committed';
  readonly via: 'receipt' | 'human';
  readonly receiptExternalId: string | null;
  readonly resolvedBy: string | null;
  readonly note: string | null;
  /**
   * By receipt: the query whose answer this is, recorded as that query's attempt (finding `outcome`) in the same
   * step as the settlement — all or nothing, so a refused settlement (`verdict_premature`) records no attempt either.
   * Idempotent as {@link ReconciliationAttemptInput} is; a human's settlement takes none (`invalid_input`).
   */
  readonly finding?: { readonly attempt: number; readonly detail: string | null };
}

/** One recorded reconcile attempt. */
export interface ReconciliationAttempt {
  readonly attempt: number;
  readonly finding: ReconcileFinding;
  readonly detail: string | null;
  readonly at: string;
}

/** A reconciliation record with its attempt history. Operations act on the key's latest round. */
export interface ReconciliationRecord {
  readonly idempotencyKey: string;
  /** 1 for the first unknown outcome of a key; a new round starts when a safe retry is unknown again. */
  readonly round: number;
  readonly workflowId: string;
  readonly callId: string;
  readonly tool: string;
  readonly auditId: string | null;
  readonly state: ReconciliationState;
  readonly openedAt: string;
  readonly escalatedAt: string | null;
  readonly escalationReason: string | null;
  readonly settledAt: string | null;
  readonly outcome: 'committed' | 'not_committed' | null;
  readonly via: 'receipt' | 'human' | null;
  readonly receiptExternalId: string | null;
  readonly resolvedBy: string | null;
  readonly note: string | null;
  /** What fencing the reconciled dispatch established, when the round was opened with a fence. */
  readonly dispatch: DispatchState | null;
  readonly attempts: readonly ReconciliationAttempt[];
}

/** Operational metrics: how many side effects are unknown now, and how long settling took. */
export interface ReconciliationMetrics {
  /** Open or escalated records: side effects whose outcome is unknown right now. */
  readonly unknownSideEffects: number;
  readonly escalated: number;
  readonly settled: number;
  /** Milliseconds from open to settle over settled records; `null` when none settled yet. */
  readonly timeToSettleMs: { readonly p50: number; readonly p95: number; readonly max: number } | null;
}
