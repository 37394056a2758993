import type { AuditRecord } from '../contract/audit-record.js';

/** The columns of an audit row that repeat what its record says (so rows can be found without reading the record). */
export interface AuditRecordColumns {
  readonly audit_id: string;
  readonly workflow_id: string;
  readonly call_id: string;
  readonly attempt: number;
  readonly idempotency_key: string;
  readonly request_sha256: string;
  readonly result_sha256: string;
  readonly call_binding_sha256: string;
  readonly principal_ref: string;
}

/**
 * The first column that says something else than the record, or `null`. The workflow column is compared with the
 * record's Temporal coordinates when it has them (a row moved to another workflow no longer agrees); a record made
 * outside Temporal does not name its workflow.
 */
export function differingAuditColumn(columns: AuditRecordColumns, audit: AuditRecord): keyof AuditRecordColumns | null {
  const { bindings } = audit;
  const pairs: readonly [keyof AuditRecordColumns, unknown, unknown][] = [
    ['audit_id', audit.audit_id, columns.audit_id],
    ['call_id', audit.call_id, columns.call_id],
    ['attempt', audit.attempt, columns.attempt],
    ['idempotency_key', audit.idempotency_key, columns.idempotency_key],
    ['request_sha256', bindings.request_sha256, columns.request_sha256],
    ['result_sha256', bindings.result_sha256, columns.result_sha256],
    ['call_binding_sha256', bindings.call_binding_sha256, columns.call_binding_sha256],
    // What erasure by principal finds the record by.
    ['principal_ref', audit.principal_ref, columns.principal_ref],
    ['workflow_id', audit.temporal?.workflow_id ?? columns.workflow_id, columns.workflow_id],
  ];
  return pairs.find(([, recorded, column]) => recorded !== column)?.[0] ?? null;
}
