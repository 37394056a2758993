import type { ModelResult } from '../../contract/model-result.js';
import type { ApprovalRequest } from '../approval-requests.js';
import type { AuditRef, LedgerStatus } from '../ledger.js';
import type { MemoryRecord } from '../memory.js';
import type { OutcomeLabel } from '../outcome-labels.js';
import type { ReconciliationRecord } from '../reconciliation.js';
import type { StateEntry, StatePatchRecord } from '../state-patch.js';
import type { CallFilter, EvidenceRecord, StoredArtifact, StoredAudit } from '../stored-records.js';

/** A ledger row; claims, completions and releases update it in place, as an UPDATE would. */
export interface LedgerRow {
  requestSha256: string;
  tool: string;
  workflowId: string;
  callId: string;
  status: LedgerStatus;
  modelResult: ModelResult | null;
  auditRef: AuditRef | null;
  claimedAt: string;
  completedAt: string | null;
  /** The current claim's lease (holder, token, deadline, fence passage, revocation), when it was leased. */
  lease: LeaseRow | null;
  /** Dispatchers reconciliation fenced out of the key for good. */
  fencedHolders: string[];
  lateCommitAuditId: string | null;
}

/** A claim's lease, as the ledger columns hold it. */
export interface LeaseRow {
  readonly holder: string;
  readonly token: string;
  readonly expiresAt: string;
  dispatchedAt: string | null;
  revokedAt: string | null;
}

/** A reconciliation round with the dispatcher it fenced (a column the record does not show). */
export interface RoundRow extends Mutable<ReconciliationRecord> {
  fencedHolder: string | null;
}

/** A row type whose fields the store may update in place (callers only ever see copies). */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A row kept with the SHA-256 of what created it, so a reused id with different content is told from a retry. */
export interface Fingerprinted<T> {
  record: T;
  readonly sha256: string;
}

/**
 * What the in-memory store holds, one map per table of the Postgres schema. Keys that span columns join them with
 * U+0000, the one character no text column may hold.
 */
export interface InMemoryTables {
  /** By idempotency key. */
  readonly ledger: Map<string, LedgerRow>;
  /** By audit id. */
  readonly audits: Map<string, StoredAudit>;
  /** By workflow id, call id and evidence id. */
  readonly evidence: Map<string, EvidenceRecord>;
  /** By SHA-256 of the body. */
  readonly artifacts: Map<string, StoredArtifact>;
  /** By patch id within its workflow (`storedPatchKey`). */
  readonly patches: Map<string, Fingerprinted<StatePatchRecord>>;
  /** By workflow id and key. */
  readonly state: Map<string, StateEntry>;
  /** By memory id. */
  readonly memory: Map<string, Fingerprinted<MemoryRecord>>;
  /** By idempotency key: every round, oldest first. */
  readonly reconciliations: Map<string, RoundRow[]>;
  /** By label id, in the order they were added. */
  readonly labels: Map<string, OutcomeLabel>;
  /** By workflow id, run id and call id. */
  readonly approvalRequests: Map<string, ApprovalRequest>;
}

/** Tables with no rows. */
export function emptyTables(): InMemoryTables {
  return {
    ledger: new Map(),
    audits: new Map(),
    evidence: new Map(),
    artifacts: new Map(),
    patches: new Map(),
    state: new Map(),
    memory: new Map(),
    reconciliations: new Map(),
    labels: new Map(),
    approvalRequests: new Map(),
  };
}

/** Deep copy through JSON, so callers can never mutate what the store holds (as with a real database). */
export function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** True when a row belongs to the filter's workflow (and call, when the filter names one). */
export function matchesCall(
  row: { readonly workflowId: string; readonly callId: string },
  filter: CallFilter,
): boolean {
  return row.workflowId === filter.workflowId && (filter.callId === undefined || row.callId === filter.callId);
}
