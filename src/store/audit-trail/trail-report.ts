import type { AuditRef } from '../ledger.js';
import { monthBounds } from './months.js';
import type { TrailFinding, TrailNote } from './trail-findings.js';

/**
 * Which part of the audit verify and export look at. `since`/`until` (ISO times) select months: every segment of a
 * month the window touches is checked whole (a segment is sealed as a whole), and the unsealed rows recorded in the
 * window. `workflowId` selects one workflow's rows, and the segments that hold them.
 */
export interface TrailScope {
  readonly since?: string;
  readonly until?: string;
  readonly workflowId?: string;
}

/** How much verify looked at. */
export interface TrailCounts {
  /** Rows whose digests were recomputed. */
  readonly rows: number;
  /** Anchors in the chain (all of them: the chain is always checked whole). */
  readonly anchors: number;
  /** Segments whose rows were compared with their sealed leaves. */
  readonly segments: number;
  /** Anchors of months retention dropped (their rows are gone; their place in the chain is checked). */
  readonly retired_anchors: number;
  /** Rows newer than the last seal, in scope. */
  readonly unsealed_rows: number;
  /** Runs whose Temporal history was compared with their rows. */
  readonly runs: number;
}

/** What `tool-contract verify` reports (and exits 1 on when `verified` is false). */
export interface TrailReport {
  readonly verified: boolean;
  /** Where the rows came from: the database, or an export file (offline). */
  readonly checked: 'database' | 'file';
  readonly scope: TrailScope;
  /** Whether the rows were compared with the audit references in their Temporal histories. */
  readonly history: 'checked' | 'not_checked';
  /** The newest anchor: what to publish, or compare with what was published. */
  readonly head: { readonly anchor_no: number; readonly anchor_sha256: string } | null;
  readonly counts: TrailCounts;
  readonly findings: readonly TrailFinding[];
  readonly notes: readonly TrailNote[];
}

/** One audit reference a run's Temporal history carries, and when it was recorded there (ISO). */
export interface HistoryReference {
  readonly ref: AuditRef;
  readonly at: string;
}

/** A Temporal run: a workflow id and a run id. */
export interface TrailRun {
  readonly workflow_id: string;
  readonly run_id: string;
}

/** Temporal's side of the comparison, supplied by whoever holds a Temporal client (the CLI): the store knows nothing of Temporal. */
export interface HistoryLookup {
  /**
   * The runs Temporal knows in scope (its visibility), compared as well as the runs the audit rows name: a run whose
   * rows were all deleted is found here.
   */
  runs(scope: TrailScope): AsyncIterable<TrailRun>;
  /** The audit references of one run's history, or `null` when Temporal has none for it. */
  references(workflowId: string, runId: string): Promise<readonly HistoryReference[] | null>;
}

/** Whether a month (`YYYY-MM-01`) overlaps the scope's window. */
export function monthInWindow(period: string, scope: TrailScope): boolean {
  const [start, end] = monthBounds(period);
  return (
    (scope.since === undefined || Date.parse(end) > Date.parse(scope.since)) &&
    (scope.until === undefined || Date.parse(start) < Date.parse(scope.until))
  );
}

/** Just the scope of some options (the fields given, none undefined). */
export function scopeOf(options: TrailScope): TrailScope {
  return {
    ...(options.since === undefined ? {} : { since: options.since }),
    ...(options.until === undefined ? {} : { until: options.until }),
    ...(options.workflowId === undefined ? {} : { workflowId: options.workflowId }),
  };
}
