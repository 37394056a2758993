import type { AuditRecord } from '../../contract/audit-record.js';
import type { ModelResult } from '../../contract/model-result.js';
import { differingAuditColumn } from '../audit-columns.js';
import { sha256OfBytes } from '../byte-digest.js';
import { fromCanonicalText } from '../canonical-text.js';
import type { AuditRef } from '../ledger.js';
import { StoreError } from '../store-error.js';
import type { StoredAudit } from '../stored-records.js';
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
  readonly audit_sha256: string;
  readonly principal_ref: string;
  readonly audit_json: string;
  readonly model_result_json: string;
  readonly recorded_at: Date;
}

/** The select list matching {@link AuditRow}. */
export const AUDIT_COLUMNS =
  'audit_id, workflow_id, run_id, call_id, attempt, idempotency_key, request_sha256, result_sha256, call_binding_sha256, audit_sha256, principal_ref, audit_json, model_result_json, recorded_at';

/** The columns of an audit row that identify and bind it: what {@link verifiedAuditRecord} checks. */
const AUDIT_IDENTITY_COLUMNS = [
  'audit_id',
  'workflow_id',
  'call_id',
  'attempt',
  'idempotency_key',
  'request_sha256',
  'result_sha256',
  'call_binding_sha256',
  'audit_sha256',
  'principal_ref',
  'audit_json',
] as const;
type AuditIdentityColumn = (typeof AUDIT_IDENTITY_COLUMNS)[number];

/** An audit row's identity columns (see {@link verifiedAuditRecord}). */
export type AuditIdentityRow = Pick<AuditRow, AuditIdentityColumn>;

/** The identity columns of an audit joined into another table's query as `a_<column>` (all null if no audit row). */
export type JoinedAuditColumns = { readonly [C in AuditIdentityColumn as `a_${C}`]: AuditRow[C] | null };

/** Select list of {@link JoinedAuditColumns} for the audit table under `alias`. */
export function joinedAuditColumns(alias: string): string {
  return AUDIT_IDENTITY_COLUMNS.map((column) => `${alias}.${column} AS a_${column}`).join(', ');
}

/** The joined audit's identity row, or `null` when the join found no audit row. */
export function joinedAuditRow(row: JoinedAuditColumns): AuditIdentityRow | null {
  if (row.a_audit_id === null) return null;
  return Object.fromEntries(
    AUDIT_IDENTITY_COLUMNS.map((column) => [column, row[`a_${column}`]]),
  ) as unknown as AuditIdentityRow;
}

/**
 * The audit record of a row, after checking it is the record that was written: its bytes still hash to
 * `audit_sha256`, and the indexed columns (which ledger rows, evidence rows and history references were built from)
 * say what the record says. Any edit of the record or of those columns fails `digest_mismatch`; only someone who
 * rewrites record and digest together gets past this, and the `audit_sha256` in Temporal history still differs.
 */
export function verifiedAuditRecord(row: AuditIdentityRow): AuditRecord {
  const mismatch = (field: string) =>
    new StoreError('digest_mismatch', { what: 'audit', auditId: row.audit_id, field });
  if (sha256OfBytes(row.audit_json) !== row.audit_sha256) throw mismatch('audit_sha256');
  const audit = fromCanonicalText(row.audit_json) as AuditRecord;
  const differing = differingAuditColumn(row, audit);
  if (differing !== null) throw mismatch(differing);
  return audit;
}

/** The reference Temporal history carries for an audit row (after {@link verifiedAuditRecord}). */
export function auditRefOfRow(
  row: Pick<AuditRow, 'audit_id' | 'request_sha256' | 'result_sha256' | 'call_binding_sha256' | 'audit_sha256'>,
): AuditRef {
  return {
    audit_id: row.audit_id,
    request_sha256: row.request_sha256,
    result_sha256: row.result_sha256,
    call_binding_sha256: row.call_binding_sha256,
    audit_sha256: row.audit_sha256,
  };
}

/**
 * Parses a stored model result after checking it still hashes to the result digest it was recorded with: a
 * result edited in the database must never be replayed to a model.
 */
export function verifiedModelResult(modelResultJson: string, resultSha256: string, auditId: string): ModelResult {
  if (sha256OfBytes(modelResultJson) !== resultSha256)
    throw new StoreError('digest_mismatch', { what: 'model_result', auditId });
  return fromCanonicalText(modelResultJson) as ModelResult;
}

/**
 * An audit row as the API returns it, verified ({@link verifiedAuditRecord}, and the model result against its
 * `result_sha256`): a row edited behind the trigger fails `digest_mismatch` and is never returned.
 */
export function storedAuditOf(row: AuditRow): StoredAudit {
  const audit = verifiedAuditRecord(row);
  return {
    auditId: row.audit_id,
    workflowId: row.workflow_id,
    runId: row.run_id,
    callId: row.call_id,
    attempt: row.attempt,
    idempotencyKey: row.idempotency_key,
    recordedAt: isoOf(row.recorded_at),
    auditSha256: row.audit_sha256,
    audit,
    modelResult: verifiedModelResult(row.model_result_json, row.result_sha256, row.audit_id),
  };
}
