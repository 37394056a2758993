import type { CallIdentity } from '../src/contract/call-identity.js';
import type { CallSpanRef } from '../activities/call-telemetry.js';
import type { VerifiedDecision } from '../activities/verify-decision.js';
import type { StartedJob } from '../src/contract/execute-tool.js';
import type { UnsettledBecause } from '../src/contract/settled-results.js';

/** Backoff and deadline of a reconciliation, and the timeouts of its own activities. */
export interface ReconcilePolicy {
  /** Wait after the first inconclusive query. */
  readonly initialIntervalMs: number;
  readonly backoffCoefficient: number;
  readonly maximumIntervalMs: number;
  /** After this long without a definite answer, a human is asked (escalation). */
  readonly deadlineMs: number;
  /** Start-to-close timeout of each attempt of the reconciliation's own activities (open, query, escalate, settle). */
  readonly activityTimeoutMs: number;
  /**
   * Heartbeat timeout of those activities; they heartbeat while they run, so one on a worker that died is retried
   * elsewhere after this long rather than after the whole start-to-close timeout.
   */
  readonly activityHeartbeatTimeoutMs: number;
}

/** Defaults: 1 s, doubling to 5 min, escalate after 1 h; activities get 10 s per attempt and a 3 s heartbeat timeout. */
export const DEFAULT_RECONCILE_POLICY: ReconcilePolicy = Object.freeze({
  initialIntervalMs: 1000,
  backoffCoefficient: 2,
  maximumIntervalMs: 300_000,
  deadlineMs: 3600_000,
  activityTimeoutMs: 10_000,
  activityHeartbeatTimeoutMs: 3_000,
});

/**
 * The wait before the next query: between half and all of the backoff `intervalMs`, at a point fixed by the key and
 * the query's number ("equal jitter"). Many reconciliations opened together (a provider outage times out a burst of
 * writes) would otherwise query in lock-step and stampede the provider on every round. Derived from the key rather
 * than from the workflow's random stream, so that no other value drawn from that stream moves on replay.
 */
export function jitteredWaitMs(intervalMs: number, idempotencyKey: string, query: number): number {
  // FNV-1a over the key and the query number: cheap, deterministic and spread evenly enough for a wait.
  let hash = 0x811c9dc5;
  for (const char of `${idempotencyKey}#${query}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return Math.round(intervalMs / 2 + (hash / 0x1_0000_0000) * (intervalMs / 2));
}

/**
 * Input of the reconciliation child workflow. What the tool can be asked (by key, by a job's handle) and whether it
 * may be sent once more after "not committed" are the worker's to say: its queries answer them.
 */
export interface ReconcileInput {
  readonly identity: CallIdentity;
  /** The revision of the tool the call was decided by (a re-dispatch carries it, see `ToolFacts.revision`). */
  readonly revision: string;
  /** The asynchronous job the attempt started (an `accepted` result): polled by its handle when the tool can. */
  readonly job?: StartedJob;
  /** False for a write whose workflow was cancelled while it ran: whoever cancelled did not want it sent again. */
  readonly mayRedispatch: boolean;
  /** Audit of the attempt whose outcome is unknown, when one was recorded. */
  readonly auditId: string | null;
  readonly toolTimeoutMs: number;
  readonly policy: ReconcilePolicy;
  readonly summary: string;
  readonly taskQueue?: string;
  /** How the attempt left the outcome unknown. */
  readonly unsettledBecause: UnsettledBecause;
  /** The approval the call ran on, for the one safe re-dispatch of a tool that requires approval. */
  readonly approval?: VerifiedDecision;
  /** The span the worker's telemetry made for the unknown attempt: the reconciliation's steps link to it. */
  readonly callSpan?: CallSpanRef;
}
