import type { AuditRecord } from '../contract/audit-record.js';
import { auditDigest } from '../contract/bindings.js';
import type { ToolExecution } from '../contract/execute-tool.js';
import type { ModelResult } from '../contract/model-result.js';
import type { Lease, LeaseRequest, LeaseState } from './lease.js';

/**
 * What Temporal history carries instead of the protected audit: the audit id, the three binding digests (SPEC §2)
 * and the digest of the whole record. Snake case because it is stored in history and compared with the audit
 * record's own fields. History is where a database owner cannot reach: an audit rewritten together with its stored
 * digest still differs from the `audit_sha256` here (`verifyAudit` with `auditSha256`).
 */
export interface AuditRef {
  readonly audit_id: string;
  readonly request_sha256: string;
  readonly result_sha256: string;
  readonly call_binding_sha256: string;
  /** Absent only in references recorded before the digest existed (older histories). */
  readonly audit_sha256?: string;
}

/**
 * The reference to an audit record, taken from the record itself; `auditSha256` when the caller already hashed the
 * record's canonical bytes (the store does, for the row it writes).
 */
export function auditRefOf(audit: AuditRecord, auditSha256: string = auditDigest(audit)): AuditRef {
  return {
    audit_id: audit.audit_id,
    request_sha256: audit.bindings.request_sha256,
    result_sha256: audit.bindings.result_sha256,
    call_binding_sha256: audit.bindings.call_binding_sha256,
    audit_sha256: auditSha256,
  };
}

/** A claim on an idempotency key before a tool runs. */
export interface ClaimInput {
  readonly idempotencyKey: string;
  /** `audit.bindings.request_sha256` of the intended call: the business intent, independent of call id and key. */
  readonly requestSha256: string;
  readonly tool: string;
  readonly callId: string;
  readonly workflowId: string;
  /**
   * Asks for a dispatch lease (writes under the plugin always do): the claim then fences its request, see
   * `lease.ts`. A dispatcher that reconciliation fenced out of the key is answered `fenced`.
   */
  readonly lease?: LeaseRequest;
}

/**
 * State of a ledger row. `claimed`: running or crashed; `completed`: a recorded result to replay; `unknown`: a
 * write whose outcome is not known (reconciliation owns it); `released`: nothing ran, the key may be claimed again.
 */
export type LedgerStatus = 'claimed' | 'completed' | 'unknown' | 'released';

/** Outcome of {@link ClaimInput}: exactly one of four, discriminated by `kind`. */
export type ClaimResult =
  /** First use of the key (or a released key): run the tool, then call `recordExecution`. */
  | { readonly kind: 'claimed'; readonly claimedAt: string; readonly lease: Lease | null }
  /** Same key, same request digest, already completed: return this instead of running again. */
  | { readonly kind: 'replay'; readonly modelResult: ModelResult; readonly auditRef: AuditRef }
  /** Same key, different request digest: the caller answers `IDEMPOTENCY_CONFLICT`. */
  | { readonly kind: 'conflict'; readonly recordedRequestSha256: string; readonly recordedTool: string }
  /**
   * This dispatcher's call was reconciled while it had not claimed the key (a frozen or slow attempt waking up):
   * its outcome was settled without it, and it must not run. Nothing is recorded.
   */
  | { readonly kind: 'fenced' }
  /**
   * Same key and digest, claimed earlier but never completed (`running`: possibly a crashed attempt), or completed
   * with an unknown side effect (`outcome_unknown`). A write must treat its outcome as unknown and reconcile; a
   * read may simply run again and record.
   */
  | {
      readonly kind: 'in_progress';
      readonly state: 'running' | 'outcome_unknown';
      readonly claimedAt: string;
      readonly claimedBy: { readonly workflowId: string; readonly callId: string };
      /** Audit of the last recorded attempt, when one was recorded (always for `outcome_unknown`). */
      readonly auditRef: AuditRef | null;
    };

/** One tool execution to persist, with the Temporal coordinates the store indexes it by. */
export interface RecordExecutionInput {
  readonly execution: ToolExecution;
  readonly workflowId: string;
  readonly runId: string | null;
  /**
   * The claim this attempt holds (`claimedAt` of its `claimed` result). When given, a result that does not complete
   * the key changes the ledger only while this claim still holds the row (status `claimed`, same claim): a late
   * record of an older attempt is audited but can never release or relabel a key a newer attempt has claimed since,
   * nor turn a key that reconciliation released back to `unknown`.
   */
  readonly claimedAt?: string;
  /**
   * The lease token of the claim this attempt held. A leased record moves the row only while that claim still holds
   * it; a committed result whose claim was settled "not committed" meanwhile is a late commit: it is audited, the
   * ledger keeps the verdict and marks the row disputed (`unknown`), and the key's reconciliation escalates (see
   * `lateResultEscalation`).
   */
  readonly leaseToken?: string;
  /**
   * For a leased write whose outcome is unknown: its handler ran and finished past its deadline plus the worker's
   * timeout buffer, so its request may have left after a "not committed" verdict. Recorded after such a verdict, it
   * is kept as a dispute like a late commit instead of being dropped.
   */
  readonly possiblySentLate?: boolean;
}

/** A ledger row as stored, for inspection. */
export interface LedgerEntry {
  readonly idempotencyKey: string;
  readonly requestSha256: string;
  readonly tool: string;
  readonly workflowId: string;
  readonly callId: string;
  readonly status: LedgerStatus;
  /** The recorded model result (as delivered fresh), once an attempt was recorded. */
  readonly modelResult: ModelResult | null;
  readonly auditRef: AuditRef | null;
  readonly claimedAt: string;
  readonly completedAt: string | null;
  /** The dispatch lease of the current claim, when it was leased. */
  readonly lease: LeaseState | null;
  /** The audit of a commit recorded after the call was settled "not committed"; while set, a human owns the row. */
  readonly lateCommitAuditId: string | null;
}

/**
 * The ledger status a recorded result leaves its key in. A result that did not start anything frees the key
 * (re-running is safe by definition); an unknown side effect belongs to reconciliation; anything else is final.
 */
export function ledgerStatusFor(modelResult: ModelResult): Exclude<LedgerStatus, 'claimed'> {
  switch (modelResult.execution.outcome) {
    case 'not_started':
      return 'released';
    case 'unknown':
      return 'unknown';
    case 'committed':
    case 'none':
      return 'completed';
  }
}
