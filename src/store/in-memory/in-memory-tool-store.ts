/* eslint-disable @typescript-eslint/require-await -- methods are async so that every validation failure is a rejected promise, exactly as with the pg store. */
import type { ArtifactPayload } from '../../contract/execute-tool.js';
import type { ModelResult } from '../../contract/model-result.js';
import { sha256OfBytes } from '../byte-digest.js';
import { fromCanonicalText, toCanonicalText } from '../canonical-text.js';
import { checkIdList, checkSha256, checkText, checkTimestamp, checkOptionalTimestamp, checkCount } from '../input-checks.js';
import { asLocalReplay, auditRefOf, ledgerStatusFor, type AuditRef, type ClaimInput, type ClaimResult, type LedgerEntry, type LedgerStatus, type RecordExecutionInput } from '../ledger.js';
import type { MemoryConfirmation, MemoryFilter, MemoryOutcome, MemoryProposal, MemoryRecord } from '../memory.js';
import { contractMetricsOf, percentile, windowStart, type ContractMetrics, type MetricsWindow } from '../contract-metrics.js';
import { decideMemoryWrite, DEFAULT_MEMORY_POLICY, type MemoryPolicy } from '../memory-policy.js';
import type {
  EscalationInput,
  OpenReconciliationInput,
  ReconciliationAttemptInput,
  ReconciliationMetrics,
  ReconciliationRecord,
  SettleReconciliationInput,
} from '../reconciliation.js';
import type { StateEntry, StatePatchInput, StatePatchRecord, StatePatchResult } from '../state-patch.js';
import { StoreError } from '../store-error.js';
import type { CallFilter, EvidenceRecord, StoredArtifact, StoredAudit } from '../stored-records.js';
import type { ToolStore, ToolStoreOptions } from '../tool-store.js';

interface LedgerRow {
  requestSha256: string;
  tool: string;
  workflowId: string;
  callId: string;
  status: LedgerStatus;
  modelResult: ModelResult | null;
  auditRef: AuditRef | null;
  claimedAt: string;
  completedAt: string | null;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * An in-process {@link ToolStore} for unit tests of other layers: the same rules and error codes as the Postgres
 * store (replay, conflict, versions, evidence checks, memory policy, reconciliation rounds), nothing durable.
 * Values are copied through canonical JSON on the way in and out, as the database would.
 */
export class InMemoryToolStore implements ToolStore {
  private readonly ledger = new Map<string, LedgerRow>();
  private readonly audits = new Map<string, StoredAudit>();
  private readonly evidence = new Map<string, EvidenceRecord>();
  private readonly artifacts = new Map<string, StoredArtifact>();
  private readonly patches = new Map<string, { record: StatePatchRecord; sha256: string }>();
  private readonly state = new Map<string, StateEntry>();
  private readonly memory = new Map<string, { record: MemoryRecord; sha256: string }>();
  private readonly reconciliations = new Map<string, Mutable<ReconciliationRecord>[]>();
  private readonly now: () => string;
  private readonly memoryPolicy: MemoryPolicy;

  constructor(options: ToolStoreOptions = {}) {
    const clock = options.now ?? (() => new Date());
    this.now = () => clock().toISOString();
    this.memoryPolicy = options.memoryPolicy ?? DEFAULT_MEMORY_POLICY;
  }

  async claimIdempotencyKey(input: ClaimInput): Promise<ClaimResult> {
    const key = checkText(input.idempotencyKey, 'idempotencyKey');
    const requestSha256 = checkSha256(input.requestSha256, 'requestSha256');
    const row = this.ledger.get(key);
    const claim = (): ClaimResult => {
      const claimedAt = this.now();
      this.ledger.set(key, { requestSha256, tool: input.tool, workflowId: input.workflowId, callId: input.callId, status: 'claimed', modelResult: row?.modelResult ?? null, auditRef: row?.auditRef ?? null, claimedAt, completedAt: null });
      return { kind: 'claimed', claimedAt };
    };
    if (!row) return claim();
    if (row.requestSha256 !== requestSha256) return { kind: 'conflict', recordedRequestSha256: row.requestSha256, recordedTool: row.tool };
    if (row.status === 'released') return claim();
    if (row.status === 'completed' && row.modelResult && row.auditRef) return { kind: 'replay', modelResult: asLocalReplay(copy(row.modelResult)), auditRef: row.auditRef };
    return { kind: 'in_progress', state: row.status === 'unknown' ? 'outcome_unknown' : 'running', claimedAt: row.claimedAt, claimedBy: { workflowId: row.workflowId, callId: row.callId }, auditRef: row.auditRef };
  }

  async recordExecution(input: RecordExecutionInput): Promise<AuditRef> {
    const { audit, modelResult, artifacts, evidenceSources } = input.execution;
    const modelResultJson = toCanonicalText(modelResult, 'execution.modelResult');
    if (sha256OfBytes(modelResultJson) !== audit.bindings.result_sha256) throw new StoreError('digest_mismatch', { what: 'model_result', auditId: audit.audit_id });
    const ref = auditRefOf(audit);
    const existing = this.audits.get(audit.audit_id);
    if (existing && toCanonicalText(auditRefOf(existing.audit), 'ref') !== toCanonicalText(ref, 'ref')) throw new StoreError('audit_id_reused', { auditId: audit.audit_id });
    for (const artifact of artifacts) await this.putArtifact(artifact);
    const now = this.now();
    if (!existing) {
      this.audits.set(audit.audit_id, {
        auditId: audit.audit_id,
        workflowId: input.workflowId,
        runId: input.runId,
        callId: audit.call_id,
        attempt: audit.attempt,
        idempotencyKey: audit.idempotency_key,
        recordedAt: now,
        audit: copy(audit),
        modelResult: copy(modelResult),
      });
    }
    for (const item of modelResult.evidence) {
      const id = `${input.workflowId}\u0000${audit.call_id}\u0000${item.evidence_id}`;
      if (this.evidence.has(id)) continue;
      this.evidence.set(id, {
        evidenceId: item.evidence_id,
        workflowId: input.workflowId,
        callId: audit.call_id,
        auditId: audit.audit_id,
        kind: item.kind,
        locator: item.locator,
        supports: [...item.supports],
        quote: item.quote ?? null,
        observedAt: item.observed_at ?? null,
        source: evidenceSources[item.evidence_id] ?? modelResult.provenance.source_label,
      });
    }
    const row = this.ledger.get(audit.idempotency_key);
    const status = ledgerStatusFor(modelResult);
    if (!row) {
      this.ledger.set(audit.idempotency_key, { requestSha256: ref.request_sha256, tool: audit.tool, workflowId: input.workflowId, callId: audit.call_id, status, modelResult: copy(modelResult), auditRef: ref, claimedAt: now, completedAt: status === 'completed' ? now : null });
    } else if (row.requestSha256 !== ref.request_sha256) {
      throw new StoreError('idempotency_conflict', { idempotencyKey: audit.idempotency_key, auditId: audit.audit_id, recordedRequestSha256: row.requestSha256 });
    } else if (row.status !== 'completed' && (status === 'completed' || input.claimedAt === undefined || (row.claimedAt === input.claimedAt && row.status === 'claimed'))) {
      Object.assign(row, { status, modelResult: copy(modelResult), auditRef: ref, completedAt: status === 'completed' ? now : null });
    }
    return ref;
  }

  async getLedgerEntry(idempotencyKey: string): Promise<LedgerEntry | null> {
    const row = this.ledger.get(idempotencyKey);
    return row ? { idempotencyKey, ...row, modelResult: row.modelResult && copy(row.modelResult) } : null;
  }

  async getAudit(auditId: string): Promise<StoredAudit | null> {
    const audit = this.audits.get(auditId);
    return audit ? copy(audit) : null;
  }

  async listAudits(filter: CallFilter): Promise<StoredAudit[]> {
    return [...this.audits.values()].filter((a) => matches(a, filter)).map(copy);
  }

  async listEvidence(filter: CallFilter): Promise<EvidenceRecord[]> {
    return [...this.evidence.values()].filter((e) => matches(e, filter)).map(copy);
  }

  async putArtifact(artifact: ArtifactPayload): Promise<void> {
    const sha256 = checkSha256(artifact.sha256, 'artifact.sha256');
    const bytes = Buffer.byteLength(artifact.body, 'utf8');
    if (sha256OfBytes(artifact.body) !== sha256 || bytes !== artifact.bytes) throw new StoreError('digest_mismatch', { what: 'artifact', declared: sha256 });
    if (!this.artifacts.has(sha256)) this.artifacts.set(sha256, { sha256, contentType: artifact.contentType, bytes, body: artifact.body });
  }

  async getArtifact(sha256: string): Promise<StoredArtifact> {
    const artifact = this.artifacts.get(checkSha256(sha256, 'sha256'));
    if (!artifact) throw new StoreError('artifact_not_found', { sha256 });
    if (sha256OfBytes(artifact.body) !== sha256) throw new StoreError('digest_mismatch', { what: 'artifact', sha256 });
    return { ...artifact };
  }

  async applyStatePatch(input: StatePatchInput): Promise<StatePatchResult> {
    const evidenceIds = checkIdList(input.evidenceIds, 'evidenceIds');
    if (evidenceIds.length === 0) throw new StoreError('evidence_required', { field: 'evidenceIds' });
    const observedAt = checkOptionalTimestamp(input.observedAt, 'observedAt')?.toISOString() ?? null;
    const retrievedAt = checkTimestamp(input.retrievedAt, 'retrievedAt').toISOString();
    const expectedVersion = checkCount(input.expectedVersion, 'expectedVersion');
    const valueJson = toCanonicalText(input.value, 'value');
    const identity = { patchId: checkText(input.patchId, 'patchId'), workflowId: checkText(input.workflowId, 'workflowId'), key: checkText(input.key, 'key', { allowEmpty: true }), valueJson, evidenceIds, source: checkText(input.source, 'source'), observedAt, retrievedAt, expectedVersion, callId: checkText(input.callId, 'callId') };
    const sha256 = sha256OfBytes(toCanonicalText(identity, 'patch'));
    const existing = this.patches.get(input.patchId);
    if (existing) {
      if (existing.sha256 !== sha256) throw new StoreError('patch_id_reused', { patchId: input.patchId });
      return { applied: false, version: existing.record.version, patch: copy(existing.record) };
    }
    this.assertEvidence(input.workflowId, evidenceIds);
    const stateKey = `${input.workflowId}\u0000${input.key}`;
    const currentVersion = this.state.get(stateKey)?.version ?? 0;
    if (currentVersion !== expectedVersion) throw new StoreError('version_conflict', { workflowId: input.workflowId, key: input.key, expectedVersion, currentVersion });
    const now = this.now();
    const value = fromCanonicalText(valueJson);
    const record: StatePatchRecord = { patchId: input.patchId, workflowId: input.workflowId, key: input.key, value, evidenceIds, source: input.source, observedAt, retrievedAt, version: expectedVersion + 1, callId: input.callId, appliedAt: now };
    this.patches.set(input.patchId, { record, sha256 });
    this.state.set(stateKey, { workflowId: input.workflowId, key: input.key, value, version: record.version, evidenceIds, source: input.source, observedAt, retrievedAt, callId: input.callId, patchId: input.patchId, updatedAt: now });
    return { applied: true, version: record.version, patch: copy(record) };
  }

  async getState(workflowId: string, key: string): Promise<StateEntry | null> {
    const entry = this.state.get(`${workflowId}\u0000${key}`);
    return entry ? copy(entry) : null;
  }

  async listStatePatches(filter: { readonly workflowId: string; readonly key?: string }): Promise<StatePatchRecord[]> {
    return [...this.patches.values()].map((p) => p.record).filter((p) => p.workflowId === filter.workflowId && (filter.key === undefined || p.key === filter.key)).map(copy);
  }

  async proposeMemory(input: MemoryProposal): Promise<MemoryOutcome> {
    const evidenceIds = checkIdList(input.evidenceIds, 'evidenceIds');
    const { decision, reason } = decideMemoryWrite(input.kind, evidenceIds.length, this.memoryPolicy);
    if (decision === 'refused') return { decision, reason, memory: null };
    this.assertEvidence(input.workflowId, evidenceIds);
    const observedAt = checkOptionalTimestamp(input.observedAt, 'observedAt')?.toISOString() ?? null;
    const sha256 = sha256OfBytes(toCanonicalText({ ...input, evidenceIds, observedAt }, 'proposal'));
    const existing = this.memory.get(input.memoryId);
    if (existing) {
      if (existing.sha256 !== sha256) throw new StoreError('memory_id_reused', { memoryId: input.memoryId });
      return { decision: existing.record.status, reason: existing.record.reason, memory: copy(existing.record) };
    }
    const now = this.now();
    const record: MemoryRecord = { memoryId: input.memoryId, subjectRef: input.subjectRef, workflowId: input.workflowId, fact: checkText(input.fact, 'fact'), kind: input.kind, evidenceIds, observedAt, confidence: input.confidence, status: decision, reason, confirmedBy: null, createdAt: now, updatedAt: now };
    this.memory.set(input.memoryId, { record, sha256 });
    return { decision, reason, memory: copy(record) };
  }

  async confirmMemoryCandidate(input: MemoryConfirmation): Promise<MemoryRecord> {
    const entry = this.memory.get(input.memoryId);
    if (!entry) throw new StoreError('memory_not_found', { memoryId: input.memoryId });
    if (entry.record.status === 'candidate') {
      entry.record = { ...entry.record, status: 'accepted', reason: 'user_confirmed', confirmedBy: input.confirmedBy, updatedAt: this.now() };
    } else if (entry.record.confirmedBy !== input.confirmedBy) {
      throw new StoreError('not_a_candidate', { memoryId: input.memoryId, status: entry.record.status });
    }
    return copy(entry.record);
  }

  async listMemories(filter: MemoryFilter): Promise<MemoryRecord[]> {
    return [...this.memory.values()].map((m) => m.record).filter((m) => m.subjectRef === filter.subjectRef && (filter.status === undefined || m.status === filter.status)).map(copy);
  }

  async openReconciliation(input: OpenReconciliationInput): Promise<ReconciliationRecord> {
    const rounds = this.reconciliations.get(input.idempotencyKey) ?? [];
    const latest = rounds.at(-1);
    if (latest && !(latest.state === 'settled' && latest.outcome === 'not_committed')) return copy(latest);
    const record: Mutable<ReconciliationRecord> = {
      idempotencyKey: input.idempotencyKey, round: (latest?.round ?? 0) + 1, workflowId: input.workflowId, callId: input.callId, tool: input.tool, auditId: input.auditId,
      state: 'open', openedAt: this.now(), escalatedAt: null, escalationReason: null, settledAt: null, outcome: null, via: null, receiptExternalId: null, resolvedBy: null, note: null, attempts: [],
    };
    this.reconciliations.set(input.idempotencyKey, [...rounds, record]);
    return copy(record);
  }

  async recordReconciliationAttempt(input: ReconciliationAttemptInput): Promise<ReconciliationRecord> {
    const round = this.latest(input.idempotencyKey);
    const existing = round.attempts.find((a) => a.attempt === input.attempt);
    if (existing) {
      if (existing.finding !== input.finding) throw new StoreError('reconciliation_conflict', { idempotencyKey: input.idempotencyKey, attempt: input.attempt });
      return copy(round);
    }
    if (round.state === 'settled') throw new StoreError('reconciliation_conflict', { idempotencyKey: input.idempotencyKey, problem: 'already settled' });
    round.attempts = [...round.attempts, { attempt: input.attempt, finding: input.finding, detail: input.detail, at: this.now() }].sort((a, b) => a.attempt - b.attempt);
    return copy(round);
  }

  async escalateReconciliation(input: EscalationInput): Promise<ReconciliationRecord> {
    const round = this.latest(input.idempotencyKey);
    if (round.state === 'settled') throw new StoreError('reconciliation_conflict', { idempotencyKey: input.idempotencyKey, problem: 'already settled' });
    if (round.state === 'open') Object.assign(round, { state: 'escalated', escalatedAt: this.now(), escalationReason: input.reason });
    return copy(round);
  }

  async settleReconciliation(input: SettleReconciliationInput): Promise<ReconciliationRecord> {
    const round = this.latest(input.idempotencyKey);
    if (input.via === 'human' && !input.resolvedBy) throw new StoreError('invalid_input', { field: 'resolvedBy' });
    if (round.state === 'settled') {
      if (round.outcome === input.outcome && round.via === input.via) return copy(round);
      throw new StoreError('reconciliation_conflict', { idempotencyKey: input.idempotencyKey });
    }
    Object.assign(round, { state: 'settled', settledAt: this.now(), outcome: input.outcome, via: input.via, receiptExternalId: input.receiptExternalId, resolvedBy: input.resolvedBy, note: input.note });
    const ledgerRow = this.ledger.get(input.idempotencyKey);
    if (input.outcome === 'not_committed' && ledgerRow && (ledgerRow.status === 'claimed' || ledgerRow.status === 'unknown')) ledgerRow.status = 'released';
    return copy(round);
  }

  async getReconciliation(idempotencyKey: string): Promise<ReconciliationRecord | null> {
    const latest = this.reconciliations.get(idempotencyKey)?.at(-1);
    return latest ? copy(latest) : null;
  }

  async listUnsettled(options: { readonly limit?: number } = {}): Promise<ReconciliationRecord[]> {
    const unsettled = [...this.reconciliations.values()].flat().filter((r) => r.state !== 'settled');
    return unsettled.sort((a, b) => a.openedAt.localeCompare(b.openedAt)).slice(0, options.limit ?? 100).map(copy);
  }

  async reconciliationMetrics(): Promise<ReconciliationMetrics> {
    return this.reconciliationMetricsSince(null);
  }

  async contractMetrics(window: MetricsWindow = {}): Promise<ContractMetrics> {
    const since = windowStart(window);
    const byCode: Record<string, number> = {};
    let attempts = 0;
    for (const { recordedAt, audit } of this.audits.values()) {
      if (since !== null && Date.parse(recordedAt) < since.getTime()) continue;
      attempts += 1;
      if (audit.error_code !== null) byCode[audit.error_code] = (byCode[audit.error_code] ?? 0) + 1;
    }
    return contractMetricsOf(since, { attempts, byCode }, this.reconciliationMetricsSince(since));
  }

  private reconciliationMetricsSince(since: Date | null): ReconciliationMetrics {
    const all = [...this.reconciliations.values()].flat().filter((r) => since === null || Date.parse(r.openedAt) >= since.getTime());
    const durations = all.filter((r) => r.settledAt !== null).map((r) => Date.parse(r.settledAt ?? '') - Date.parse(r.openedAt)).sort((a, b) => a - b);
    return {
      unknownSideEffects: all.filter((r) => r.state !== 'settled').length,
      escalated: all.filter((r) => r.state === 'escalated').length,
      settled: durations.length,
      timeToSettleMs: durations.length === 0 ? null : { p50: percentile(durations, 0.5), p95: percentile(durations, 0.95), max: durations.at(-1) ?? 0 },
    };
  }

  private latest(idempotencyKey: string): Mutable<ReconciliationRecord> {
    const latest = this.reconciliations.get(idempotencyKey)?.at(-1);
    if (!latest) throw new StoreError('reconciliation_not_found', { idempotencyKey });
    return latest;
  }

  private assertEvidence(workflowId: string, ids: readonly string[]): void {
    const known = new Set([...this.evidence.values()].filter((e) => e.workflowId === workflowId).map((e) => e.evidenceId));
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length > 0) throw new StoreError('evidence_not_found', { workflowId, missing });
  }
}

function matches(row: { workflowId: string; callId: string }, filter: CallFilter): boolean {
  return row.workflowId === filter.workflowId && (filter.callId === undefined || row.callId === filter.callId);
}

/** Deep copy through JSON, so callers can never mutate what the store holds (as with a real database). */
function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
