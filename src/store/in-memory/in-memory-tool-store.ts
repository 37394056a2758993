/* eslint-disable @typescript-eslint/require-await -- methods are async so that every validation failure is a rejected promise, exactly as with the pg store. */
import type { ArtifactPayload } from '../../contract/execute-tool.js';
import type {
  ApprovalRequest,
  ApprovalRequestFilter,
  ApprovalRequestInput,
  ApprovalRequestRef,
} from '../approval-requests.js';
import type { ContractMetrics, MetricsWindow } from '../contract-metrics.js';
import type { FenceDecision, FenceDispatchInput } from '../lease.js';
import type { AuditRef, ClaimInput, ClaimResult, LedgerEntry, RecordExecutionInput } from '../ledger.js';
import type { MemoryConfirmation, MemoryFilter, MemoryOutcome, MemoryProposal, MemoryRecord } from '../memory.js';
import { DEFAULT_MEMORY_POLICY, type MemoryPolicy } from '../memory-policy.js';
import type { OutcomeLabel, OutcomeLabelKind } from '../outcome-labels.js';
import type {
  EscalationInput,
  OpenReconciliationInput,
  ReconciliationAttemptInput,
  ReconciliationMetrics,
  ReconciliationRecord,
  SettleReconciliationInput,
} from '../reconciliation.js';
import type { StateEntry, StatePatchInput, StatePatchRecord, StatePatchResult } from '../state-patch.js';
import type { CallFilter, EvidenceRecord, StoredArtifact, StoredAudit } from '../stored-records.js';
import type { StoreClock } from '../timestamps.js';
import type { ToolStore, ToolStoreOptions } from '../tool-store.js';
import { confirmMemoryCandidate, listMemories, proposeMemory } from './in-memory-agent-memory.js';
import * as approvalRequests from './in-memory-approval-requests.js';
import { getArtifact, putArtifact } from './in-memory-artifacts.js';
import { fenceDispatch } from './in-memory-lease.js';
import { claimIdempotencyKey, getLedgerEntry, recordExecution } from './in-memory-ledger.js';
import { labelOutcome, listOutcomeLabels } from './in-memory-labels.js';
import { contractMetrics } from './in-memory-metrics.js';
import * as reconciliation from './in-memory-reconciliation.js';
import { settleWithResult } from './in-memory-settle-with-result.js';
import { applyStatePatch, getState, listStatePatches } from './in-memory-state.js';
import { copy, emptyTables, matchesCall, type InMemoryTables } from './in-memory-tables.js';

/**
 * An in-process {@link ToolStore} for unit tests of other layers: the same rules and error codes as the Postgres
 * store (replay, conflict, versions, evidence checks, memory policy, reconciliation rounds), nothing durable.
 * Values are copied through canonical JSON on the way in and out, as the database would.
 */
export class InMemoryToolStore implements ToolStore {
  private readonly tables: InMemoryTables = emptyTables();
  private readonly clock: StoreClock;
  private readonly memoryPolicy: MemoryPolicy;

  constructor(options: ToolStoreOptions = {}) {
    this.clock = options.now ?? (() => new Date());
    this.memoryPolicy = options.memoryPolicy ?? DEFAULT_MEMORY_POLICY;
  }

  async claimIdempotencyKey(input: ClaimInput): Promise<ClaimResult> {
    return claimIdempotencyKey(this.tables, input, this.now());
  }

  async fenceDispatch(input: FenceDispatchInput): Promise<FenceDecision> {
    return fenceDispatch(this.tables, input, this.now());
  }

  async recordExecution(input: RecordExecutionInput): Promise<AuditRef> {
    return recordExecution(this.tables, input, this.now());
  }

  async getLedgerEntry(idempotencyKey: string): Promise<LedgerEntry | null> {
    return getLedgerEntry(this.tables, idempotencyKey);
  }

  async getAudit(auditId: string): Promise<StoredAudit | null> {
    const audit = this.tables.audits.get(auditId);
    return audit ? copy(audit) : null;
  }

  async listAudits(filter: CallFilter): Promise<StoredAudit[]> {
    return [...this.tables.audits.values()].filter((a) => matchesCall(a, filter)).map(copy);
  }

  async listEvidence(filter: CallFilter): Promise<EvidenceRecord[]> {
    return [...this.tables.evidence.values()].filter((e) => matchesCall(e, filter)).map(copy);
  }

  async putArtifact(artifact: ArtifactPayload): Promise<void> {
    putArtifact(this.tables, artifact);
  }

  async getArtifact(sha256: string): Promise<StoredArtifact> {
    return getArtifact(this.tables, sha256);
  }

  async applyStatePatch(input: StatePatchInput): Promise<StatePatchResult> {
    return applyStatePatch(this.tables, input, this.now());
  }

  async getState(workflowId: string, key: string): Promise<StateEntry | null> {
    return getState(this.tables, workflowId, key);
  }

  async listStatePatches(filter: { readonly workflowId: string; readonly key?: string }): Promise<StatePatchRecord[]> {
    return listStatePatches(this.tables, filter);
  }

  async proposeMemory(input: MemoryProposal): Promise<MemoryOutcome> {
    return proposeMemory(this.tables, input, this.memoryPolicy, this.now());
  }

  async confirmMemoryCandidate(input: MemoryConfirmation): Promise<MemoryRecord> {
    return confirmMemoryCandidate(this.tables, input, this.now());
  }

  async listMemories(filter: MemoryFilter): Promise<MemoryRecord[]> {
    return listMemories(this.tables, filter);
  }

  async openReconciliation(input: OpenReconciliationInput): Promise<ReconciliationRecord> {
    return reconciliation.openReconciliation(this.tables, input, this.now());
  }

  async recordReconciliationAttempt(input: ReconciliationAttemptInput): Promise<ReconciliationRecord> {
    return reconciliation.recordReconciliationAttempt(this.tables, input, this.now());
  }

  async escalateReconciliation(input: EscalationInput): Promise<ReconciliationRecord> {
    return reconciliation.escalateReconciliation(this.tables, input, this.now());
  }

  async settleReconciliation(input: SettleReconciliationInput): Promise<ReconciliationRecord> {
    return reconciliation.settleReconciliation(this.tables, input, this.now());
  }

  async settleWithResult(settlement: SettleReconciliationInput, result: RecordExecutionInput): Promise<AuditRef> {
    return settleWithResult(this.tables, settlement, result, this.now());
  }

  async getReconciliation(idempotencyKey: string): Promise<ReconciliationRecord | null> {
    return reconciliation.getReconciliation(this.tables, idempotencyKey);
  }

  async listUnsettled(options: { readonly limit?: number } = {}): Promise<ReconciliationRecord[]> {
    return reconciliation.listUnsettled(this.tables, options.limit);
  }

  async countUnsettledByTool(): Promise<Readonly<Record<string, number>>> {
    return reconciliation.countUnsettledByTool(this.tables);
  }

  async reconciliationMetrics(): Promise<ReconciliationMetrics> {
    return reconciliation.reconciliationMetricsSince(this.tables, null);
  }

  async contractMetrics(window: MetricsWindow = {}): Promise<ContractMetrics> {
    return contractMetrics(this.tables, window);
  }

  async labelOutcome(
    auditRef: AuditRef,
    label: OutcomeLabelKind,
    labelledBy: string,
    note: string | null,
  ): Promise<OutcomeLabel> {
    return labelOutcome(this.tables, auditRef, label, labelledBy, note, this.now());
  }

  async listOutcomeLabels(auditIds: readonly string[]): Promise<OutcomeLabel[]> {
    return listOutcomeLabels(this.tables, auditIds);
  }

  async recordApprovalRequest(input: ApprovalRequestInput): Promise<ApprovalRequest> {
    return approvalRequests.recordApprovalRequest(this.tables, input, this.clock());
  }

  async getApprovalRequest(ref: ApprovalRequestRef): Promise<ApprovalRequest | null> {
    return approvalRequests.getApprovalRequest(this.tables, ref);
  }

  async listApprovalRequests(filter: ApprovalRequestFilter): Promise<ApprovalRequest[]> {
    return approvalRequests.listApprovalRequests(this.tables, filter);
  }

  /** The clock's time as the ISO-8601 text every stored timestamp is kept as. */
  private now(): string {
    return this.clock().toISOString();
  }
}
