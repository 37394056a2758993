// Reads the records the audit's lifecycle leaves: retirements, erasures, purged artifacts, and the months the audit has.
import type { ArtifactPurge, AuditRetirement, ErasureRecord } from '../audit-trail/lifecycle-records.js';
import { microsecondText } from './pg-trail-rows.js';
import type { Queryable } from './sql-runner.js';

/** The columns of an {@link AuditRetirement}. */
export const RETIREMENT_COLUMNS = `to_char(retired_before, 'YYYY-MM-DD') AS retired_before, ${microsecondText('retired_at')} AS retired_at, retired_by,
  ARRAY(SELECT to_char(p, 'YYYY-MM-DD') FROM unnest(periods) AS p ORDER BY p) AS periods, anchors::int AS anchors, last_anchor_no::int AS last_anchor_no,
  audit_rows::int AS audit_rows, evidence_rows::int AS evidence_rows, artifact_rows::int AS artifact_rows, ledger_rows::int AS ledger_rows,
  label_rows::int AS label_rows, anchors_export_sha256`;

/** Every retention run that dropped months, oldest first. */
export async function readRetirements(db: Queryable): Promise<AuditRetirement[]> {
  return [
    ...(await db.query<AuditRetirement>(
      `SELECT ${RETIREMENT_COLUMNS} FROM ${db.table('ttc_audit_retirements')} ORDER BY retired_before`,
      [],
    )),
  ];
}

/** The columns of an {@link ErasureRecord}. */
export const ERASURE_COLUMNS = `erasure_id, ${microsecondText('erased_at')} AS erased_at, erased_by, erased_as, scope, scope_ref, reason, audit_ids, artifacts, memory_ids`;

/** Every erasure's tombstone, oldest first. */
export async function readErasures(db: Queryable): Promise<ErasureRecord[]> {
  return [
    ...(await db.query<ErasureRecord>(
      `SELECT ${ERASURE_COLUMNS} FROM ${db.table('ttc_erasures')} ORDER BY erased_at, erasure_id`,
      [],
    )),
  ];
}

/** The purges of some artifact bodies (`ttc_purge_before`), if any. */
export async function readArtifactPurges(db: Queryable, sha256s: readonly string[]): Promise<ArtifactPurge[]> {
  if (sha256s.length === 0) return [];
  return [
    ...(await db.query<ArtifactPurge>(
      `SELECT item[1] AS sha256, ${microsecondText('purged_at')} AS purged_at, purged_by FROM ${db.table('ttc_retention_log')} WHERE kind = 'artifact' AND item[1] = ANY($1::text[])`,
      [sha256s],
    )),
  ];
}

/** The months (`YYYY-MM-01`) that have an audit partition, oldest first (partitions are named `ttc_audit_yYYYYmMM`). */
export async function auditMonths(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ period: string }>(
    `SELECT to_char(to_date(right(c.relname, 8), '"y"YYYY"m"MM'), 'YYYY-MM-DD') AS period
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1`,
    [db.table('ttc_audit')],
  );
  return rows.map((row) => row.period);
}
