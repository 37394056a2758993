import type { AuditRecord } from '../../contract/audit-record.js';
import type { ModelResult } from '../../contract/model-result.js';
import { sha256OfBytes } from '../byte-digest.js';
import { fromCanonicalText } from '../canonical-text.js';
import type { AuditRef } from '../ledger.js';
import { StoreError } from '../store-error.js';
import type { EvidenceRecord, StoredAudit } from '../stored-records.js';
import { isoOf } from '../timestamps.js';

/** Columns of `ttc_audit` as selected by {@link AUDIT_COLUMNS}. */
export interface AuditRow {
  readonly audit_id: string;
  readonly workflow_id: string;
  readonly run_id: string | null;
  readonly call_id: string;
  readonly attempt: number;
  readonly idempotency_key: string;
  readonly request_sha256: string;
  readonly result_sha256: string;
  readonly call_binding_sha256: string;
  readonly audit_json: string;
  readonly model_result_json: string;
  readonly recorded_at: Date;
}

/** The select list matching {@link AuditRow}. */
export const AUDIT_COLUMNS =
  'audit_id, workflow_id, run_id, call_id, attempt, idempotency_key, request_sha256, result_sha256, call_binding_sha256, audit_json, model_result_json, recorded_at';

/** The reference Temporal history carries for an audit row. */
export function auditRefOfRow(row: Pick<AuditRow, 'audit_id' | 'request_sha256' | 'result_sha256' | 'call_binding_sha256'>): AuditRef {
  return { audit_id: row.audit_id, request_sha256: row.request_sha256, result_sha256: row.result_sha256, call_binding_sha256: row.call_binding_sha256 };
}

/**
 * Parses a stored model result after checking it still hashes to the result digest it was recorded with: a
 * result edited in the database must never be replayed to a model.
 */
export function verifiedModelResult(modelResultJson: string, resultSha256: string, auditId: string): ModelResult {
  if (sha256OfBytes(modelResultJson) !== resultSha256) throw new StoreError('digest_mismatch', { what: 'model_result', auditId });
  return fromCanonicalText(modelResultJson) as ModelResult;
}

/**
 * An audit row as the API returns it. The record's own id and bindings must agree with the indexed columns (which
 * the ledger and history references were built from); an audit edited behind the trigger fails `digest_mismatch`.
 */
export function storedAuditOf(row: AuditRow): StoredAudit {
  const audit = fromCanonicalText(row.audit_json) as AuditRecord;
  const { bindings } = audit;
  if (
    audit.audit_id !== row.audit_id ||
    bindings.request_sha256 !== row.request_sha256 ||
    bindings.result_sha256 !== row.result_sha256 ||
    bindings.call_binding_sha256 !== row.call_binding_sha256
  ) {
    throw new StoreError('digest_mismatch', { what: 'audit', auditId: row.audit_id });
  }
  return {
    auditId: row.audit_id,
    workflowId: row.workflow_id,
    runId: row.run_id,
    callId: row.call_id,
    attempt: row.attempt,
    idempotencyKey: row.idempotency_key,
    recordedAt: isoOf(row.recorded_at),
    audit,
    modelResult: verifiedModelResult(row.model_result_json, row.result_sha256, row.audit_id),
  };
}

/** Columns of `ttc_evidence` readers need. */
export interface EvidenceRow {
  readonly workflow_id: string;
  readonly call_id: string;
  readonly audit_id: string;
  readonly record_json: string;
}

/** The exact evidence item (plus source) stored with an evidence row. */
export interface EvidenceDocument {
  readonly evidence_id: string;
  readonly kind: string;
  readonly locator: string;
  readonly supports: string[];
  readonly quote?: string;
  readonly observed_at?: string;
  readonly source: string;
}

/** An evidence row as the API returns it (from its exact JSON, not the query copies). */
export function evidenceRecordOf(row: EvidenceRow): EvidenceRecord {
  const doc = fromCanonicalText(row.record_json) as unknown as EvidenceDocument;
  return {
    evidenceId: doc.evidence_id,
    workflowId: row.workflow_id,
    callId: row.call_id,
    auditId: row.audit_id,
    kind: doc.kind,
    locator: doc.locator,
    supports: doc.supports,
    quote: doc.quote ?? null,
    observedAt: doc.observed_at ?? null,
    source: doc.source,
  };
}
