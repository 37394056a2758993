import { auditRecordSchema, type AuditRecord } from '../../contract/audit-record.js';
import { callBindingDigest } from '../../contract/bindings.js';
import type { ModelResult } from '../../contract/model-result.js';
import { differingAuditColumn } from '../audit-columns.js';
import { sha256OfBytes } from '../byte-digest.js';
import type { AuditLeafFields } from './audit-leaf.js';
import type { TrailFinding } from './trail-findings.js';

/**
 * An audit row as verify reads it — from the database, or from an export line — with its columns' names. The JSON
 * documents are their canonical text (the bytes the digests are taken over). The protected fields (the record itself,
 * the idempotency key, the principal reference) are there only when the reader may see them: without them the
 * record's own digest and call binding cannot be recomputed, and the row is checked through its model result, its
 * leaf and its history reference.
 */
export interface TrailRow extends AuditLeafFields {
  readonly run_id: string | null;
  readonly call_id: string;
  readonly attempt: number;
  readonly tool: string;
  readonly status: string;
  readonly error_code: string | null;
  readonly request_sha256: string;
  readonly result_sha256: string;
  readonly call_binding_sha256: string;
  readonly xact: string;
  readonly model_result: string;
  readonly protected: ProtectedTrailFields | null;
}

/** The fields of an audit row only the protected view shows. */
export interface ProtectedTrailFields {
  readonly audit: string;
  readonly idempotency_key: string;
  readonly principal_ref: string;
}

/**
 * Recomputes what a row can prove on its own: its model result hashes to `result_sha256` and says the row's status;
 * with the protected fields, its record hashes to `audit_sha256`, is a `tool-result.audit.v1` record, every column
 * repeats it, and its call binding recomputes from the record's provider, call, operation, key, contract and the
 * request and result digests. (The request digest needs the arguments, which the audit does not keep: it is bound
 * through the call binding, and compared with Temporal history's reference.)
 */
export function rowFindings(row: TrailRow): TrailFinding[] {
  const altered = (field: string): TrailFinding => ({ kind: 'row_altered', audit_id: row.audit_id, field });
  if (sha256OfBytes(row.model_result) !== row.result_sha256) return [altered('model_result')];
  const modelResult = parsed<ModelResult>(row.model_result);
  if (modelResult?.status !== row.status) return [altered('status')];
  if (row.protected === null) return [];
  const { audit: auditText, idempotency_key, principal_ref } = row.protected;
  if (sha256OfBytes(auditText) !== row.audit_sha256) return [altered('audit_sha256')];
  const record = auditRecordSchema.safeParse(parsed(auditText));
  if (!record.success) return [altered('audit')];
  const audit: AuditRecord = record.data;
  const differing = differingAuditColumn({ ...row, idempotency_key, principal_ref }, audit);
  if (differing !== null) return [altered(differing)];
  const copied = (['tool', 'status', 'error_code'] as const).find((column) => audit[column] !== row[column]);
  if (copied !== undefined) return [altered(copied)];
  const binding = callBindingDigest(
    {
      provider: {
        provider: audit.provider.provider,
        apiFamily: audit.provider.api_family,
        responseId: audit.provider.response_id,
        providerCallId: audit.provider.provider_call_id,
        adapterRevision: audit.provider.adapter_revision,
      },
      callId: audit.call_id,
      operationId: audit.operation_id,
      idempotencyKey: audit.idempotency_key,
      tool: { name: audit.tool, revisions: audit.revisions },
      requestSha256: audit.bindings.request_sha256,
      resultSha256: audit.bindings.result_sha256,
    },
    sha256OfBytes,
  );
  return binding === audit.bindings.call_binding_sha256 ? [] : [altered('call_binding_sha256')];
}

/** The SHA-256 of every artifact body a row names: its model result's full result and its record's recorded call. */
export function artifactsNamedBy(row: TrailRow): string[] {
  const named = [parsed<{ artifact?: { artifact_id?: unknown } }>(row.model_result)?.artifact?.artifact_id];
  if (row.protected !== null)
    named.push(
      parsed<{ recorded_output?: { artifact_id?: unknown } }>(row.protected.audit)?.recorded_output?.artifact_id,
    );
  return named.flatMap((id) => (typeof id === 'string' && /^art_[0-9a-f]{64}$/.test(id) ? [id.slice(4)] : []));
}

function parsed<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
