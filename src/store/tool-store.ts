import type { ArtifactPayload } from '../contract/execute-tool.js';
import type {
  ApprovalRequest,
  ApprovalRequestFilter,
  ApprovalRequestInput,
  ApprovalRequestRef,
} from './approval-requests.js';
import type { ContractMetrics, MetricsWindow } from './contract-metrics.js';
import type { FenceDecision, FenceDispatchInput } from './lease.js';
import type { AuditRef, ClaimInput, ClaimResult, LedgerEntry, RecordExecutionInput } from './ledger.js';
import type { MemoryConfirmation, MemoryFilter, MemoryOutcome, MemoryProposal, MemoryRecord } from './memory.js';
import type { MemoryPolicy } from './memory-policy.js';
import type { OutcomeLabel, OutcomeLabelKind } from './outcome-labels.js';
import type {
  EscalationInput,
  OpenReconciliationInput,
  ReconciliationAttemptInput,
  ReconciliationMetrics,
  ReconciliationRecord,
  SettleReconciliationInput,
} from './reconciliation.js';
import type { StateEntry, StatePatchInput, StatePatchRecord, StatePatchResult } from './state-patch.js';
import type { CallFilter, EvidenceRecord, StoredArtifact, StoredAudit } from './stored-records.js';
import type { StoreClock } from './timestamps.js';

/** What both stores take: they implement the same rules, so they are configured alike. */
export interface ToolStoreOptions {
  /** Clock for every timestamp the store writes; defaults to the system clock. */
  readonly now?: StoreClock;
  /** The domain's memory write policy; defaults to `DEFAULT_MEMORY_POLICY`. */
  readonly memoryPolicy?: MemoryPolicy;
}

/** The idempotency ledger and its leases: who may run a key, and what ran under it. */
export interface LedgerStore {
  /** Claims an idempotency key before a tool runs; concurrent claimers of one key get exactly one `claimed`. */
  claimIdempotencyKey(input: ClaimInput): Promise<ClaimResult>;
  /**
   * The dispatch fence, passed immediately before a leased attempt's request leaves: in one atomic step, checks that
   * its claim still holds the key and its lease is unrevoked and unexpired, and marks it dispatched.
   */
  fenceDispatch(input: FenceDispatchInput): Promise<FenceDecision>;
  /**
   * In one transaction: appends the attempt's audit row, its evidence rows and artifacts, and moves the ledger
   * row for its key to the status the result implies. Recording the same attempt twice is a no-op.
   */
  recordExecution(input: RecordExecutionInput): Promise<AuditRef>;
  /** The ledger row of a key, for inspection. */
  getLedgerEntry(idempotencyKey: string): Promise<LedgerEntry | null>;
}

/** The append-only audit and the evidence it cites, as recorded. */
export interface AuditReader {
  /** The audit row of one attempt, or `null`; the stored model result is checked against its `result_sha256`. */
  getAudit(auditId: string): Promise<StoredAudit | null>;
  /** Audit rows of a workflow (or one call), oldest first. */
  listAudits(filter: CallFilter): Promise<StoredAudit[]>;
  /** Evidence rows of a workflow (or one call). */
  listEvidence(filter: CallFilter): Promise<EvidenceRecord[]>;
}

/** Raw results too large for a model result, by digest. */
export interface ArtifactStore {
  /** Stores an artifact by its SHA-256 (idempotent); refuses a payload whose body does not match its digest. */
  putArtifact(artifact: ArtifactPayload): Promise<void>;
  /** Reads an artifact and verifies its digest; a tampered body fails with `digest_mismatch`. */
  getArtifact(sha256: string): Promise<StoredArtifact>;
}

/** Business state written back from tool results, citing the evidence it rests on. */
export interface StateStore {
  /** Applies a state patch: idempotent by patch id, optimistic on version, evidence checked. */
  applyStatePatch(input: StatePatchInput): Promise<StatePatchResult>;
  /** The current value of a state key, or `null`. */
  getState(workflowId: string, key: string): Promise<StateEntry | null>;
  /** Applied patches of a workflow (optionally one key), oldest first. */
  listStatePatches(filter: { readonly workflowId: string; readonly key?: string }): Promise<StatePatchRecord[]>;
}

/** Memory candidates and confirmed memories, under a write policy. */
export interface MemoryStore {
  /** Applies the memory write policy to a proposal and stores it unless refused. Idempotent by memory id. */
  proposeMemory(input: MemoryProposal): Promise<MemoryOutcome>;
  /** A user confirms a candidate: it becomes accepted memory. */
  confirmMemoryCandidate(input: MemoryConfirmation): Promise<MemoryRecord>;
  /** Memory rows of one subject or one workflow, oldest first. */
  listMemories(filter: MemoryFilter): Promise<MemoryRecord[]>;
}

/** Reconciliation rounds of writes whose outcome was unknown. */
export interface ReconciliationStore {
  /**
   * Opens a reconciliation record for a key. Returns the current round when it is unsettled (or settled
   * committed); starts a new round after a `not_committed` settlement (a safe retry that became unknown again).
   */
  openReconciliation(input: OpenReconciliationInput): Promise<ReconciliationRecord>;
  /** Appends one reconcile attempt to the record's history (idempotent by attempt number). */
  recordReconciliationAttempt(input: ReconciliationAttemptInput): Promise<ReconciliationRecord>;
  /** Marks the record as waiting for a human. */
  escalateReconciliation(input: EscalationInput): Promise<ReconciliationRecord>;
  /** Settles the record; see {@link SettleReconciliationInput}. */
  settleReconciliation(input: SettleReconciliationInput): Promise<ReconciliationRecord>;
  /**
   * Settles the record and records the result that settles it (for its key), as one step: what
   * `settleReconciliation` and then `recordExecution` do, all or nothing — except that an `IDEMPOTENCY_CONFLICT` of
   * the record is thrown once both are in, as `recordExecution` keeps the audit of what ran.
   */
  settleWithResult(settlement: SettleReconciliationInput, result: RecordExecutionInput): Promise<AuditRef>;
  /** The record of a key, or `null`. */
  getReconciliation(idempotencyKey: string): Promise<ReconciliationRecord | null>;
  /** Open and escalated records, oldest first. */
  listUnsettled(options?: { readonly limit?: number }): Promise<ReconciliationRecord[]>;
  /**
   * How many rounds are open or escalated right now, by tool (tools with none are absent): the side effects whose
   * outcome is still unknown. Cheap enough to sample every few seconds (the unsettled rounds have their own index).
   */
  countUnsettledByTool(): Promise<Readonly<Record<string, number>>>;
}

/** What approvers see and sign: the requests workers recorded for them. */
export interface ApprovalRequestStore {
  /**
   * Records a call that begins to wait for approval, for the approver (see {@link ApprovalRequest}); the store's
   * clock starts its wait. Written once: a retry returns the stored request, another request for the call is
   * `approval_request_reused`.
   */
  recordApprovalRequest(input: ApprovalRequestInput): Promise<ApprovalRequest>;
  /** The approval request of one call, or `null`. */
  getApprovalRequest(ref: ApprovalRequestRef): Promise<ApprovalRequest | null>;
  /** Approval requests still waiting at `filter.at` (of one workflow id, when given), oldest first. */
  listApprovalRequests(filter: ApprovalRequestFilter): Promise<ApprovalRequest[]>;
}

/** What operators read: rates per rule version, outcome labels, time to settle. */
export interface MetricsStore {
  /** Unknown side-effect count and time-to-settle figures. */
  reconciliationMetrics(): Promise<ReconciliationMetrics>;
  /**
   * Seed 004's validation metrics over audits recorded (and reconciliations opened) since `window.since`, of
   * `window.tool` or every tool: failure and warning rates of each layer, stale data, conflicts, omitted evidence,
   * unknown outcomes and time to settle, overall, per tool and per rule version, with false acceptance and rejection
   * rates from the labels. An invalid `since` is `INVALID_ARGUMENTS`.
   */
  contractMetrics(window?: MetricsWindow): Promise<ContractMetrics>;
  /**
   * Labels the audited attempt `auditRef` names as a false acceptance (it was accepted and wrong) or a false
   * rejection (it was refused and right), by `labelledBy`. Append-only and idempotent. The reference's digests must
   * be the stored row's (`digest_mismatch`), and the label must fit how the attempt ended (`label_mismatch`).
   */
  labelOutcome(
    auditRef: AuditRef,
    label: OutcomeLabelKind,
    labelledBy: string,
    note: string | null,
  ): Promise<OutcomeLabel>;
  /** Labels of some audited attempts, oldest first. */
  listOutcomeLabels(auditIds: readonly string[]): Promise<OutcomeLabel[]>;
}

/**
 * What a worker needs of a store (the plugin takes this): everything but the operators' read models. A third-party
 * store implements these concerns; `MetricsStore` only where operators read metrics from it.
 */
export interface WorkerStore
  extends LedgerStore, AuditReader, ArtifactStore, StateStore, MemoryStore, ReconciliationStore, ApprovalRequestStore {}

/**
 * Durable storage of everything a tool call leaves behind that must not live in Temporal history: the
 * idempotency ledger, the append-only audit, evidence, artifacts, state patches, memory and reconciliation.
 *
 * Every method either succeeds or throws a {@link StoreError} (a `ToolError` with a catalog `code` and a store
 * `reason`); retrying after `UPSTREAM_UNAVAILABLE` is always safe because every write is idempotent.
 */
export interface ToolStore extends WorkerStore, MetricsStore {}
