import { isStoreError, type ContractMetrics, type MetricRate, type ToolStore } from '../store/index.js';
import { CliError, EXIT_CODES } from './cli-error.js';

/** What `tool-contract metrics [--since <ISO time>]` prints: the figures, and the same as a Markdown table. */
export interface MetricsReport {
  readonly metrics: ContractMetrics;
  readonly table: string;
}

/**
 * Seed 004's validation metrics from the store (audits recorded and reconciliations opened since `since`, or all).
 * A `since` that is not an ISO-8601 time with an offset is a usage error, reported before anything is read.
 */
export async function reportMetrics(store: ToolStore, options: { readonly since?: string } = {}): Promise<MetricsReport> {
  try {
    const metrics = await store.contractMetrics(options.since === undefined ? {} : { since: options.since });
    return { metrics, table: metricsTable(metrics) };
  } catch (error) {
    if (isStoreError(error) && error.code === 'INVALID_ARGUMENTS') {
      throw new CliError(`--since must be an ISO-8601 time with an offset, e.g. 2026-11-30T12:00:00Z (got '${options.since ?? ''}')`, EXIT_CODES.usage, { cause: error });
    }
    throw error;
  }
}

/** The metrics as a Markdown table (docs/reliability.md shows one). */
export function metricsTable(metrics: ContractMetrics): string {
  const { reconciliation: r } = metrics;
  const settle = r.timeToSettleMs === null ? 'none settled' : `p50 ${ms(r.timeToSettleMs.p50)} · p95 ${ms(r.timeToSettleMs.p95)} · max ${ms(r.timeToSettleMs.max)}`;
  const rows: [string, string][] = [
    ['window', metrics.since === null ? 'everything recorded' : `since ${metrics.since}`],
    ['audited attempts', String(metrics.attempts)],
    ['accepted (succeeded or partial)', String(metrics.accepted)],
    ['schema failure rate (OUTPUT_CONTRACT_VIOLATION)', rate(metrics.schemaFailure)],
    ['invariant failure rate (INVARIANT_VIOLATION)', rate(metrics.invariantFailure)],
    ['stale data rate (STALE_DATA)', rate(metrics.staleData)],
    ['protocol failure rate (PROTOCOL_ERROR)', rate(metrics.protocolFailure)],
    ['unknown outcomes (OUTCOME_UNKNOWN)', rate(metrics.unknownOutcomes)],
    ['side effects still unknown (open + escalated)', `${r.unknownSideEffects} (${r.escalated} escalated)`],
    ['reconciliations settled', String(r.settled)],
    ['time to settle', settle],
  ];
  return ['| metric | value |', '| --- | --- |', ...rows.map(([name, value]) => `| ${name} | ${value} |`)].join('\n');
}

function rate({ count, rate: share }: MetricRate): string {
  return share === null ? `${count} (no attempts)` : `${(share * 100).toFixed(1)} % (${count})`;
}

function ms(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;
}
