import type { Pool } from 'pg';
import type { ArtifactPayload } from '../../contract/execute-tool.js';
import type {
  ApprovalRequest,
  ApprovalRequestFilter,
  ApprovalRequestInput,
  ApprovalRequestRef,
} from '../approval-requests.js';
import * as approvalRequests from './pg-approval-requests.js';
import { checkText } from '../input-checks.js';
import type { AuditRef, ClaimInput, ClaimResult, LedgerEntry, RecordExecutionInput } from '../ledger.js';
import type { MemoryConfirmation, MemoryFilter, MemoryOutcome, MemoryProposal, MemoryRecord } from '../memory.js';
import { DEFAULT_MEMORY_POLICY, type MemoryPolicy } from '../memory-policy.js';
import type { OutcomeLabel, OutcomeLabelKind } from '../outcome-labels.js';
import { insertArtifact, readArtifact } from './pg-artifacts.js';
import type { ContractMetrics, MetricsWindow } from '../contract-metrics.js';
import { AUDIT_COLUMNS, storedAuditOf, type AuditRow } from './pg-audit-rows.js';
import { readVerifiedEvidence } from './pg-evidence.js';
import type { FenceDecision, FenceDispatchInput } from '../lease.js';
import { fenceDispatch } from './pg-lease.js';
import { claimIdempotencyKey, getLedgerEntry } from './pg-ledger.js';
import { labelOutcome, listOutcomeLabels } from './pg-labels.js';
import { contractMetrics } from './pg-metrics.js';
import { partitionGuard, type PartitionGuard } from './pg-partitions.js';
import { confirmMemoryCandidate, listMemories, proposeMemory } from './pg-memory.js';
import * as reconciliation from './pg-reconciliation.js';
import { recordExecution } from './pg-record-execution.js';
import { settleWithResult } from './pg-settle-with-result.js';
import { applyStatePatch, getState, listStatePatches } from './pg-state.js';
import type {
  EscalationInput,
  OpenReconciliationInput,
  ReconciliationAttemptInput,
  ReconciliationMetrics,
  ReconciliationRecord,
  SettleReconciliationInput,
} from '../reconciliation.js';
import { poolQueryable, type PgDatabase, type Queryable } from './sql-runner.js';
import { checkSchemaName, DEFAULT_SCHEMA } from './pg-schema.js';
import type { StateEntry, StatePatchInput, StatePatchRecord, StatePatchResult } from '../state-patch.js';
import type { CallFilter, EvidenceRecord, StoredArtifact, StoredAudit } from '../stored-records.js';
import type { StoreClock } from '../timestamps.js';
import type { ToolStore, ToolStoreOptions } from '../tool-store.js';

/** Options of {@link PgToolStore}. */
export interface PgToolStoreOptions extends ToolStoreOptions {
  /**
   * The schema holding the store's tables (default `public`): the one {@link migrate} was given. Every statement
   * names it, so the connection's `search_path` does not matter (a transaction-mode pooler does not keep one).
   */
  readonly schema?: string;
}

/**
 * The Postgres {@link ToolStore}. The pool is injected and owned by the caller (who also handles its `error`
 * events); run {@link migrate} on it first. Every statement is parameterised and unnamed (nothing is prepared per
 * connection), so the pool may point at a transaction-mode pooler such as PgBouncer.
 */
export class PgToolStore implements ToolStore {
  private readonly database: PgDatabase;
  private readonly db: Queryable;
  private readonly now: StoreClock;
  private readonly memoryPolicy: MemoryPolicy;
  /** Run before every write into the monthly history tables, with the time the rows are dated. */
  private readonly partitions: PartitionGuard;

  constructor(pool: Pool, options: PgToolStoreOptions = {}) {
    this.database = { pool, schema: checkSchemaName(options.schema ?? DEFAULT_SCHEMA) };
    this.db = poolQueryable(this.database);
    this.now = options.now ?? (() => new Date());
    this.memoryPolicy = options.memoryPolicy ?? DEFAULT_MEMORY_POLICY;
    this.partitions = partitionGuard(this.database);
  }

  claimIdempotencyKey(input: ClaimInput): Promise<ClaimResult> {
    return claimIdempotencyKey(this.db, input, this.now());
  }

  fenceDispatch(input: FenceDispatchInput): Promise<FenceDecision> {
    return fenceDispatch(this.db, input);
  }

  async recordExecution(input: RecordExecutionInput): Promise<AuditRef> {
    const now = this.now();
    await this.partitions(now);
    return recordExecution(this.database, input, now);
  }

  getLedgerEntry(idempotencyKey: string): Promise<LedgerEntry | null> {
    return getLedgerEntry(this.db, idempotencyKey);
  }

  async getAudit(auditId: string): Promise<StoredAudit | null> {
    const rows = await this.db.query<AuditRow>(
      `SELECT ${AUDIT_COLUMNS} FROM ${this.db.table('ttc_audit')} WHERE audit_id = $1`,
      [checkText(auditId, 'auditId')],
    );
    return rows[0] ? storedAuditOf(rows[0]) : null;
  }

  async listAudits(filter: CallFilter): Promise<StoredAudit[]> {
    const rows = await this.db.query<AuditRow>(
      `SELECT ${AUDIT_COLUMNS} FROM ${this.db.table('ttc_audit')} WHERE workflow_id = $1 AND ($2::text IS NULL OR call_id = $2) ORDER BY recorded_at, call_id, attempt`,
      [
        checkText(filter.workflowId, 'workflowId'),
        filter.callId === undefined ? null : checkText(filter.callId, 'callId'),
      ],
    );
    return rows.map(storedAuditOf);
  }

  listEvidence(filter: CallFilter): Promise<EvidenceRecord[]> {
    return readVerifiedEvidence(this.db, {
      workflowId: checkText(filter.workflowId, 'workflowId'),
      ...(filter.callId === undefined ? {} : { callId: checkText(filter.callId, 'callId') }),
    });
  }

  async putArtifact(artifact: ArtifactPayload): Promise<void> {
    const now = this.now();
    await this.partitions(now);
    return insertArtifact(this.db, artifact, now);
  }

  getArtifact(sha256: string): Promise<StoredArtifact> {
    return readArtifact(this.db, sha256);
  }

  applyStatePatch(input: StatePatchInput): Promise<StatePatchResult> {
    return applyStatePatch(this.database, input, this.now());
  }

  getState(workflowId: string, key: string): Promise<StateEntry | null> {
    return getState(this.db, workflowId, key);
  }

  listStatePatches(filter: { readonly workflowId: string; readonly key?: string }): Promise<StatePatchRecord[]> {
    return listStatePatches(this.db, filter);
  }

  proposeMemory(input: MemoryProposal): Promise<MemoryOutcome> {
    return proposeMemory(this.db, input, this.memoryPolicy, this.now());
  }

  confirmMemoryCandidate(input: MemoryConfirmation): Promise<MemoryRecord> {
    return confirmMemoryCandidate(this.db, input, this.now());
  }

  listMemories(filter: MemoryFilter): Promise<MemoryRecord[]> {
    return listMemories(this.db, filter);
  }

  openReconciliation(input: OpenReconciliationInput): Promise<ReconciliationRecord> {
    return reconciliation.openReconciliation(this.database, input, this.now());
  }

  recordReconciliationAttempt(input: ReconciliationAttemptInput): Promise<ReconciliationRecord> {
    return reconciliation.recordReconciliationAttempt(this.database, input, this.now());
  }

  escalateReconciliation(input: EscalationInput): Promise<ReconciliationRecord> {
    return reconciliation.escalateReconciliation(this.database, input, this.now());
  }

  settleReconciliation(input: SettleReconciliationInput): Promise<ReconciliationRecord> {
    return reconciliation.settleReconciliation(this.database, input, this.now());
  }

  async settleWithResult(settlement: SettleReconciliationInput, result: RecordExecutionInput): Promise<AuditRef> {
    const now = this.now();
    await this.partitions(now);
    return settleWithResult(this.database, settlement, result, now);
  }

  getReconciliation(idempotencyKey: string): Promise<ReconciliationRecord | null> {
    return reconciliation.getReconciliation(this.db, idempotencyKey);
  }

  listUnsettled(options: { readonly limit?: number } = {}): Promise<ReconciliationRecord[]> {
    return reconciliation.listUnsettled(this.db, options.limit);
  }

  countUnsettledByTool(): Promise<Readonly<Record<string, number>>> {
    return reconciliation.countUnsettledByTool(this.db);
  }

  reconciliationMetrics(): Promise<ReconciliationMetrics> {
    return reconciliation.reconciliationMetrics(this.db);
  }

  contractMetrics(window: MetricsWindow = {}): Promise<ContractMetrics> {
    return contractMetrics(this.db, window);
  }

  labelOutcome(
    auditRef: AuditRef,
    label: OutcomeLabelKind,
    labelledBy: string,
    note: string | null,
  ): Promise<OutcomeLabel> {
    return labelOutcome(this.db, auditRef, label, labelledBy, note, this.now());
  }

  listOutcomeLabels(auditIds: readonly string[]): Promise<OutcomeLabel[]> {
    return listOutcomeLabels(this.db, auditIds);
  }

  recordApprovalRequest(input: ApprovalRequestInput): Promise<ApprovalRequest> {
    return approvalRequests.recordApprovalRequest(this.db, input, this.now());
  }

  getApprovalRequest(ref: ApprovalRequestRef): Promise<ApprovalRequest | null> {
    return approvalRequests.getApprovalRequest(this.db, ref);
  }

  listApprovalRequests(filter: ApprovalRequestFilter): Promise<ApprovalRequest[]> {
    return approvalRequests.listApprovalRequests(this.db, filter);
  }
}
