// How the audit trail's statements read audit rows and anchors (sealing, verify, export, retention).
import type { AuditAnchor } from '../audit-trail/anchor.js';
import type { AuditLeafFields } from '../audit-trail/audit-leaf.js';
import { splitLeaves } from '../audit-trail/merkle.js';
import type { TrailRow } from '../audit-trail/trail-row.js';
import type { Queryable } from './sql-runner.js';

/** A timestamptz column as the trail writes times: UTC to the microsecond (`microsecondIso`). */
export function microsecondText(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

/**
 * The columns of a row's leaf (`AuditLeafFields`). Its bigints are text under their own names, so a statement that
 * selects them orders by the table's columns (`a.xact, a.seq`: numbers, the index's order), never by the text.
 */
export const LEAF_COLUMNS = `audit_id, audit_sha256, xact::text AS xact, seq::text AS seq, ${microsecondText('recorded_at')} AS recorded_at, workflow_id`;

/** The columns of a {@link TrailRow}, the protected ones included (verify and export read them as `TrailRowSql`). */
export const TRAIL_ROW_COLUMNS = `${LEAF_COLUMNS}, run_id, call_id, attempt, tool, status, error_code, request_sha256, result_sha256, call_binding_sha256,
  model_result_json, audit_json, idempotency_key, principal_ref`;

/** A row of {@link TRAIL_ROW_COLUMNS}. */
export interface TrailRowSql extends AuditLeafFields {
  readonly run_id: string | null;
  readonly call_id: string;
  readonly attempt: number;
  readonly tool: string;
  readonly status: string;
  readonly error_code: string | null;
  readonly request_sha256: string;
  readonly result_sha256: string;
  readonly call_binding_sha256: string;
  readonly model_result_json: string;
  readonly audit_json: string;
  readonly idempotency_key: string;
  readonly principal_ref: string;
}

/** The row as verify and export see it, with or without its protected fields. */
export function trailRowOf(row: TrailRowSql, withProtected: boolean): TrailRow {
  const { model_result_json, audit_json, idempotency_key, principal_ref, ...columns } = row;
  return {
    ...columns,
    model_result: model_result_json,
    protected: withProtected ? { audit: audit_json, idempotency_key, principal_ref } : null,
  };
}

/**
 * The rows a segment's anchor seals, in leaf order: its month, its transaction range — of one workflow, or all of them
 * when `$5` is null. Parameters: month start and end, xact from and to, workflow id or null.
 */
export function segmentRowsSql(db: Queryable, columns: string): string {
  return `SELECT ${columns} FROM ${db.table('ttc_audit')} a
           WHERE recorded_at >= $1::timestamptz AND recorded_at < $2::timestamptz AND xact >= $3::bigint AND xact < $4::bigint AND ($5::text IS NULL OR workflow_id = $5)
           ORDER BY a.xact, a.seq`;
}

/** The columns of an {@link AuditAnchor}, as text where it is a bigint or a time. */
export const ANCHOR_COLUMNS = `anchor_no::int AS anchor_no, to_char(period, 'YYYY-MM-DD') AS period, xact_from::text AS xact_from, xact_to::text AS xact_to,
  row_count, merkle_root, prev_anchor_sha256, anchor_sha256, ${microsecondText('sealed_at')} AS sealed_at, sealed_by, key_id, signature`;

/** Every anchor, in number order (without their leaves). */
export async function readAnchors(db: Queryable): Promise<AuditAnchor[]> {
  return [
    ...(await db.query<AuditAnchor>(
      `SELECT ${ANCHOR_COLUMNS} FROM ${db.table('ttc_audit_anchors')} ORDER BY anchor_no`,
      [],
    )),
  ];
}

/** The leaves kept with an anchor, 32 bytes each, in order. */
export async function readLeaves(db: Queryable, anchorNo: number): Promise<Buffer[]> {
  const rows = await db.query<{ leaves: Buffer }>(
    `SELECT leaves FROM ${db.table('ttc_audit_anchors')} WHERE anchor_no = $1`,
    [anchorNo],
  );
  return splitLeaves(rows[0]?.leaves ?? Buffer.alloc(0));
}
