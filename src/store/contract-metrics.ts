import { checkTimestamp } from './input-checks.js';
import type { ReconciliationMetrics } from './reconciliation.js';

/**
 * The validation metrics of seed 004 §8 (schema failure rate, business-rule failure rate, stale data rate, unknown
 * side effects) plus time to settle, computed from what the store records: one audit row per attempt (with its
 * catalogued error code) and one reconciliation round per unknown outcome (with open and settle times).
 */

/** Which records count: those recorded (audits) or opened (reconciliations) at or after `since`; all when absent. */
export interface MetricsWindow {
  /** ISO-8601 timestamp with an offset. */
  readonly since?: string;
}

/** A count of attempts and its share of all audited attempts in the window (`null` when there were none). */
export interface MetricRate {
  readonly count: number;
  readonly rate: number | null;
}

/** What the store counts over a window; the rates are derived from these. */
export interface AuditCounts {
  /** Audited attempts: every attempt of every call (refused, failed or not) leaves exactly one audit row. */
  readonly attempts: number;
  /** Attempts per catalogued error code; attempts without an error are not listed. */
  readonly byCode: Readonly<Record<string, number>>;
}

/** Seed 004's metrics over one window. */
export interface ContractMetrics {
  /** The window's start, normalised to UTC; `null` = everything recorded. */
  readonly since: string | null;
  readonly attempts: number;
  /** Attempts that ended without an error (succeeded or partial). */
  readonly accepted: number;
  readonly failuresByCode: Readonly<Record<string, number>>;
  /** `OUTPUT_CONTRACT_VIOLATION`: the output did not match the tool's exact schema (or its evidence did not resolve). */
  readonly schemaFailure: MetricRate;
  /** `INVARIANT_VIOLATION`: a versioned business invariant did not hold. */
  readonly invariantFailure: MetricRate;
  /** `STALE_DATA`: data older than the tool allows was refused (tools with `onStale: 'warn'` pass it with a warning). */
  readonly staleData: MetricRate;
  /** `PROTOCOL_ERROR`: the raw response was incomplete or of the wrong type. */
  readonly protocolFailure: MetricRate;
  /** Attempts that ended `OUTCOME_UNKNOWN` (a write that may or may not have happened). */
  readonly unknownOutcomes: MetricRate;
  /** Reconciliation rounds opened in the window: still unknown now, escalated, settled, and time to settle. */
  readonly reconciliation: ReconciliationMetrics;
}

/** Checks a window and returns its start as a Date (or `null` for "everything"). */
export function windowStart(window: MetricsWindow): Date | null {
  return window.since === undefined ? null : checkTimestamp(window.since, 'since');
}

/** Builds the metrics from the store's counts; the same code for every store, so their figures cannot drift. */
export function contractMetricsOf(since: Date | null, counts: AuditCounts, reconciliation: ReconciliationMetrics): ContractMetrics {
  const rate = (code: string): MetricRate => {
    const count = counts.byCode[code] ?? 0;
    return { count, rate: counts.attempts === 0 ? null : count / counts.attempts };
  };
  const failed = Object.values(counts.byCode).reduce((sum, n) => sum + n, 0);
  return {
    since: since === null ? null : since.toISOString(),
    attempts: counts.attempts,
    accepted: counts.attempts - failed,
    failuresByCode: Object.fromEntries(Object.entries(counts.byCode).sort(([a], [b]) => a.localeCompare(b))),
    schemaFailure: rate('OUTPUT_CONTRACT_VIOLATION'),
    invariantFailure: rate('INVARIANT_VIOLATION'),
    staleData: rate('STALE_DATA'),
    protocolFailure: rate('PROTOCOL_ERROR'),
    unknownOutcomes: rate('OUTCOME_UNKNOWN'),
    reconciliation,
  };
}

/** Linear-interpolated percentile of an ascending list, as Postgres `percentile_cont` computes it. */
export function percentile(sorted: readonly number[], p: number): number {
  const rank = (sorted.length - 1) * p;
  const low = Math.floor(rank);
  const lowValue = sorted[low] ?? 0;
  const highValue = sorted[Math.ceil(rank)] ?? lowValue;
  return lowValue + (highValue - lowValue) * (rank - low);
}
