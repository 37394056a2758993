import type { KeyObject } from 'node:crypto';
import type { AuditAnchor } from '../audit-trail/anchor.js';
import { chainFindings, publishedFindings, signatureFindings } from '../audit-trail/chain-check.js';
import { monthBounds } from '../audit-trail/months.js';
import { segmentFindings } from '../audit-trail/segment-check.js';
import type { TrailFinding, TrailNote } from '../audit-trail/trail-findings.js';
import {
  monthInWindow,
  scopeOf,
  type HistoryLookup,
  type TrailReport,
  type TrailRun,
  type TrailScope,
} from '../audit-trail/trail-report.js';
import { artifactsNamedBy, rowFindings, type TrailRow } from '../audit-trail/trail-row.js';
import { compareWithHistory } from './pg-trail-history.js';
import { anchorHolding, forEachUnsealedPage, segmentsInScope } from './pg-trail-scope.js';
import { checkArtifacts } from './pg-trail-artifacts.js';
import { erasureNote, retirementNote } from '../audit-trail/lifecycle-records.js';
import { auditMonths, readErasures, readRetirements } from './pg-trail-records.js';
import {
  readAnchors,
  readLeaves,
  segmentRowsSql,
  TRAIL_ROW_COLUMNS,
  trailRowOf,
  type TrailRowSql,
} from './pg-trail-rows.js';
import { poolQueryable, type PgDatabase, type Queryable } from './sql-runner.js';

/** Options of {@link verifyAuditTrail}: the scope, and what to check the anchors and rows against. */
export interface VerifyTrailOptions extends TrailScope {
  /** Ed25519 public keys by key id: every anchor must then carry a valid signature of one of them. */
  readonly verifyKeys?: ReadonlyMap<string, KeyObject>;
  /** Anchors published outside the database (`seal --publish`): each must still be there, unchanged. */
  readonly publishedAnchors?: readonly AuditAnchor[];
  /** The audit references of each run's Temporal history; without it history is not compared. */
  readonly history?: HistoryLookup;
}

/**
 * Verifies the audit trail in the database (see docs/audit.md): the chain of anchors (digests, links, numbering,
 * ranges; signatures and published anchors when given); each segment in scope against its sealed leaves (a row
 * rewritten, re-dated, renumbered, moved, inserted or deleted is named); each row's own digests and bindings; rows
 * inside sealed ranges that no anchor holds; the artifact bodies the rows name (an erased, purged or retired one is
 * a note, not a finding); and, with `history`, each run's rows against its history's audit references. With a
 * workflow, only its rows are read: each must be a sealed leaf of its segment (a deleted row of it is found by the
 * history comparison, or by a verify of its months). Reads only: the application role may run it.
 */
export async function verifyAuditTrail(database: PgDatabase, options: VerifyTrailOptions = {}): Promise<TrailReport> {
  const db = poolQueryable(database);
  const scope = scopeOf(options);
  const anchors = await readAnchors(db);
  const findings: TrailFinding[] = [...chainFindings(anchors)];
  if (options.verifyKeys !== undefined) findings.push(...signatureFindings(anchors, options.verifyKeys));
  if (options.publishedAnchors !== undefined) findings.push(...publishedFindings(anchors, options.publishedAnchors));
  const horizon =
    (await db.query<{ horizon: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon', []))[0]
      ?.horizon ?? '0';
  for (const anchor of anchors)
    if (BigInt(anchor.xact_to) > BigInt(horizon))
      findings.push({ kind: 'anchor_unfinished', anchor_no: anchor.anchor_no });

  const retirements = await readRetirements(db);
  const notes: TrailNote[] = retirements.map(retirementNote);
  const retiredBefore = retirements.at(-1)?.retired_before ?? '';
  const live = anchors.filter((anchor) => anchor.period >= retiredBefore);
  const sealedTo = anchors.at(-1)?.xact_to ?? '0';

  // Erasures are few: the ones that touched a checked row are noted (what was erased, when, by whom).
  const erasures = await readErasures(db);
  const erasedAudits = new Set(erasures.flatMap((erasure) => erasure.audit_ids));
  const erasedChecked = new Set<string>();
  let rowsChecked = 0;
  const artifacts = new Map<string, string>();
  const check = (row: TrailRow) => {
    findings.push(...rowFindings(row));
    for (const sha256 of artifactsNamedBy(row)) artifacts.set(sha256, row.audit_id);
    if (erasedAudits.has(row.audit_id)) erasedChecked.add(row.audit_id);
    rowsChecked += 1;
  };

  const scoped = await segmentsInScope(db, scope, live, sealedTo);
  const segments = scoped.anchors;
  findings.push(...scoped.unanchored);
  const covered = new Map<string, number>();
  for (const anchor of segments) {
    const rows = (
      await db.query<TrailRowSql>(segmentRowsSql(db, TRAIL_ROW_COLUMNS), [
        ...monthBounds(anchor.period),
        anchor.xact_from,
        anchor.xact_to,
        scope.workflowId ?? null,
      ])
    ).map((row) => trailRowOf(row, true));
    findings.push(
      ...segmentFindings({ anchor, leaves: await readLeaves(db, anchor.anchor_no), rows, complete: scoped.whole }),
    );
    rows.forEach(check);
    covered.set(anchor.period, (covered.get(anchor.period) ?? 0) + rows.length);
  }
  if (scope.workflowId === undefined) {
    const months = (await auditMonths(db)).filter((period) => period >= retiredBefore && monthInWindow(period, scope));
    for (const period of months)
      findings.push(...(await unanchoredRows(db, period, sealedTo, covered.get(period) ?? 0, live)));
  }

  const unsealed = await checkUnsealed(db, scope, sealedTo, check);
  if (unsealed.rows > 0) notes.push({ kind: 'unsealed', rows: unsealed.rows, oldest_recorded_at: unsealed.oldest });

  const artifactCheck = await checkArtifacts(db, artifacts, erasures);
  findings.push(...artifactCheck.findings);
  // An erasure is noted once: for a checked row it covered, or for a missing body it explains (another's copy).
  const erased = erasures
    .filter((erasure) => erasure.audit_ids.some((auditId) => erasedChecked.has(auditId)))
    .map(erasureNote);
  for (const note of [...erased, ...artifactCheck.notes])
    if (!notes.some((noted) => JSON.stringify(noted) === JSON.stringify(note))) notes.push(note);

  let runs = 0;
  if (options.history !== undefined) {
    const compared = await compareWithHistory(
      db,
      options.history,
      await runsToCompare(db, scope, options.history),
      retiredBefore,
    );
    findings.push(...compared.findings);
    notes.push(...compared.notes);
    runs = compared.runs;
  }
  const head = anchors.at(-1);
  return {
    verified: findings.length === 0,
    checked: 'database',
    scope,
    history: options.history === undefined ? 'not_checked' : 'checked',
    head: head === undefined ? null : { anchor_no: head.anchor_no, anchor_sha256: head.anchor_sha256 },
    counts: {
      rows: rowsChecked,
      anchors: anchors.length,
      segments: segments.length,
      retired_anchors: anchors.length - live.length,
      unsealed_rows: unsealed.rows,
      runs,
    },
    findings,
    notes,
  };
}

/**
 * The rows of a month written by sealed transactions that no anchor of the month holds. Counted first (an index-only
 * count); only when the month holds more sealed rows than its anchors selected are the rows walked to name them.
 */
async function unanchoredRows(
  db: Queryable,
  period: string,
  sealedTo: string,
  covered: number,
  live: readonly AuditAnchor[],
): Promise<TrailFinding[]> {
  const bounds = monthBounds(period);
  const [{ total } = { total: 0 }] = await db.query<{ total: number }>(sealedInMonthCountSql(db), [
    ...bounds,
    sealedTo,
  ]);
  if (total <= covered) return [];
  const rows = await db.query<{ audit_id: string; seq: string; xact: string }>(
    `SELECT audit_id, seq::text AS seq, xact::text AS xact FROM ${db.table('ttc_audit')} a
      WHERE recorded_at >= $1::timestamptz AND recorded_at < $2::timestamptz AND xact < $3::bigint ORDER BY a.xact, a.seq`,
    [...bounds, sealedTo],
  );
  return rows.flatMap((row): TrailFinding[] =>
    anchorHolding(live, period, row.xact) === undefined
      ? [{ kind: 'row_unanchored', audit_id: row.audit_id, seq: row.seq, xact: row.xact }]
      : [],
  );
}

/** Checks the rows in scope newer than the last seal; returns how many and the oldest one's time. */
async function checkUnsealed(
  db: Queryable,
  scope: TrailScope,
  sealedTo: string,
  check: (row: TrailRow) => void,
): Promise<{ rows: number; oldest: string | null }> {
  let oldest: string | null = null;
  const rows = await forEachUnsealedPage<TrailRowSql>(db, TRAIL_ROW_COLUMNS, scope, sealedTo, (page) => {
    for (const row of page) {
      check(trailRowOf(row, true));
      if (oldest === null || row.recorded_at < oldest) oldest = row.recorded_at;
    }
  });
  return { rows, oldest };
}

/** The runs whose attempts were recorded in scope, and the runs Temporal knows in scope, each once. */
async function runsToCompare(db: Queryable, scope: TrailScope, history: HistoryLookup): Promise<TrailRun[]> {
  const runs = new Map<string, TrailRun>();
  const add = (run: TrailRun) => runs.set(JSON.stringify([run.workflow_id, run.run_id]), run);
  for (const run of await db.query<TrailRun>(runsInScopeSql(db), [
    scope.since ?? null,
    scope.until ?? null,
    scope.workflowId ?? null,
  ]))
    add(run);
  for await (const run of history.runs(scope)) add(run);
  return [...runs.values()];
}

/** The runs (workflow id, run id) with rows recorded in [`$1`, `$2`) of workflow `$3` (each bound optional). */
export function runsInScopeSql(db: Queryable): string {
  return `SELECT DISTINCT workflow_id, run_id FROM ${db.table('ttc_audit')}
           WHERE run_id IS NOT NULL AND ($1::timestamptz IS NULL OR recorded_at >= $1::timestamptz) AND ($2::timestamptz IS NULL OR recorded_at < $2::timestamptz) AND ($3::text IS NULL OR workflow_id = $3)
           ORDER BY workflow_id, run_id`;
}

/** How many rows of the month [`$1`, `$2`) transactions below `$3` wrote (an index-only count). */
export function sealedInMonthCountSql(db: Queryable): string {
  return `SELECT count(*)::int AS total FROM ${db.table('ttc_audit')} WHERE recorded_at >= $1::timestamptz AND recorded_at < $2::timestamptz AND xact < $3::bigint`;
}
