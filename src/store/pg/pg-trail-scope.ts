// Which segments and rows verify and export look at.
import type { AuditAnchor } from '../audit-trail/anchor.js';
import { periodOf } from '../audit-trail/months.js';
import type { TrailFinding } from '../audit-trail/trail-findings.js';
import { monthInWindow, type TrailScope } from '../audit-trail/trail-report.js';
import { microsecondText } from './pg-trail-rows.js';
import type { Queryable } from './sql-runner.js';

/** The segments in scope, and the sealed rows of the scope that no anchor holds. */
export interface ScopedSegments {
  readonly anchors: readonly AuditAnchor[];
  /** Whether each of `anchors` is in scope whole (a window), or only for some of its rows (one workflow). */
  readonly whole: boolean;
  readonly unanchored: readonly TrailFinding[];
}

/**
 * The live anchors (of months not retired) in scope: with a window, every anchor of a month it touches; with a
 * workflow, the anchors of that workflow's sealed rows, found by month and transaction range — and those of its
 * sealed rows no anchor holds. (Unanchored rows of a window are verify's to find: it counts each month's rows.)
 */
export async function segmentsInScope(
  db: Queryable,
  scope: TrailScope,
  live: readonly AuditAnchor[],
  sealedTo: string,
): Promise<ScopedSegments> {
  if (scope.workflowId === undefined)
    return { anchors: live.filter((anchor) => monthInWindow(anchor.period, scope)), whole: true, unanchored: [] };
  const rows = await db.query<{ audit_id: string; seq: string; xact: string; recorded_at: string }>(
    workflowSealedRowsSql(db),
    [scope.workflowId, sealedTo],
  );
  const anchors = new Map<number, AuditAnchor>();
  const unanchored: TrailFinding[] = [];
  for (const row of rows) {
    const anchor = anchorHolding(live, periodOf(row.recorded_at), row.xact);
    if (anchor === undefined)
      unanchored.push({ kind: 'row_unanchored', audit_id: row.audit_id, seq: row.seq, xact: row.xact });
    else anchors.set(anchor.anchor_no, anchor);
  }
  return { anchors: [...anchors.values()].sort((a, b) => a.anchor_no - b.anchor_no), whole: false, unanchored };
}

/** The sealed rows (transaction below `$2`) of workflow `$1`: where each stands, to find its anchor. */
export function workflowSealedRowsSql(db: Queryable): string {
  return `SELECT audit_id, seq::text AS seq, xact::text AS xact, ${microsecondText('recorded_at')} AS recorded_at FROM ${db.table('ttc_audit')} WHERE workflow_id = $1 AND xact < $2::bigint`;
}

/** The anchor that seals a row of month `period` written by transaction `xact`, if any. */
export function anchorHolding(anchors: readonly AuditAnchor[], period: string, xact: string): AuditAnchor | undefined {
  const at = BigInt(xact);
  return anchors.find(
    (anchor) => anchor.period === period && BigInt(anchor.xact_from) <= at && at < BigInt(anchor.xact_to),
  );
}

/** Rows read per round trip where a statement pages through rows no segment bounds (the unsealed ones). */
export const PAGE_ROWS = 1_000;

/**
 * The rows in scope newer than the last seal, in pages of {@link PAGE_ROWS} in (xact, seq) order (keyset: the
 * previous page's last row). Parameters: sealed-to, after xact and seq (or null), since, until, workflow.
 */
export function unsealedPageSql(db: Queryable, columns: string): string {
  return `SELECT ${columns} FROM ${db.table('ttc_audit')} a
           WHERE xact >= $1::bigint AND ($2::bigint IS NULL OR (xact, seq) > ($2::bigint, $3::bigint))
             AND ($4::timestamptz IS NULL OR recorded_at >= $4::timestamptz) AND ($5::timestamptz IS NULL OR recorded_at < $5::timestamptz) AND ($6::text IS NULL OR workflow_id = $6)
           ORDER BY a.xact, a.seq LIMIT ${PAGE_ROWS}`;
}

/** Calls `visit` with every page of {@link unsealedPageSql}'s rows; returns how many rows there were. */
export async function forEachUnsealedPage<R extends { readonly xact: string; readonly seq: string }>(
  db: Queryable,
  columns: string,
  scope: TrailScope,
  sealedTo: string,
  visit: (page: readonly R[]) => Promise<void> | void,
): Promise<number> {
  let after: { xact: string; seq: string } | null = null;
  let rows = 0;
  for (;;) {
    const page: readonly R[] = await db.query<R>(unsealedPageSql(db, columns), [
      sealedTo,
      after?.xact ?? null,
      after?.seq ?? null,
      scope.since ?? null,
      scope.until ?? null,
      scope.workflowId ?? null,
    ]);
    await visit(page);
    rows += page.length;
    const last = page.at(-1);
    if (last === undefined || page.length < PAGE_ROWS) return rows;
    after = { xact: last.xact, seq: last.seq };
  }
}
