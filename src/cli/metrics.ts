import {
  isStoreError,
  type ContractMetrics,
  type MetricRate,
  type MetricsWindow,
  type ToolStore,
} from '../store/index.js';
import { CliError, EXIT_CODES } from './cli-error.js';

/** What `tool-contract metrics` reports: the figures (printed with `--json`), and the same as Markdown tables. */
export interface MetricsReport {
  readonly metrics: ContractMetrics;
  /** The overall table, then one row per tool and one per rule version. */
  readonly text: string;
}

/**
 * Seed 004's validation metrics from the store (audits recorded and reconciliations opened since `since`, or all;
 * of one tool, or all). A `since` that is not an ISO-8601 time with an offset is a usage error.
 */
export async function reportMetrics(store: ToolStore, window: MetricsWindow = {}): Promise<MetricsReport> {
  try {
    const metrics = await store.contractMetrics(window);
    return { metrics, text: metricsText(metrics) };
  } catch (error) {
    if (isStoreError(error) && error.code === 'INVALID_ARGUMENTS') {
      throw new CliError(
        `--since must be an ISO-8601 time with an offset, e.g. 2026-11-30T12:00:00Z (got '${window.since ?? ''}')`,
        EXIT_CODES.usage,
        { cause: error },
      );
    }
    throw error;
  }
}

/** Everything `metrics` prints without `--json`: the overall table, the tools, and the rule versions. */
export function metricsText(metrics: ContractMetrics): string {
  return [metricsTable(metrics), '### By tool', toolTable(metrics), '### By rule version', ruleTable(metrics)].join(
    '\n\n',
  );
}

/** The overall figures as a Markdown table (docs/reliability.md shows one). */
export function metricsTable(metrics: ContractMetrics): string {
  const { reconciliation: r } = metrics;
  const window = [
    metrics.since === null ? 'everything recorded' : `since ${metrics.since}`,
    ...(metrics.tool === null ? [] : [`tool ${metrics.tool}`]),
  ].join(', ');
  const rows: [string, string][] = [
    ['window', window],
    ['audited attempts', String(metrics.attempts)],
    ['accepted (succeeded or partial)', String(metrics.accepted)],
    ['schema failure rate (OUTPUT_CONTRACT_VIOLATION)', rate(metrics.schemaFailure)],
    ['invariant failure rate (INVARIANT_VIOLATION)', rate(metrics.invariantFailure)],
    ['stale data rate (STALE_DATA)', rate(metrics.staleData)],
    ['protocol failure rate (PROTOCOL_ERROR)', rate(metrics.protocolFailure)],
    ['unknown outcomes (OUTCOME_UNKNOWN)', rate(metrics.unknownOutcomes)],
    ['labelled false acceptances (of accepted)', rate(metrics.falseAccepts)],
    ['labelled false rejections (of refused)', rate(metrics.falseRejects)],
    ['side effects still unknown (open + escalated)', `${r.unknownSideEffects} (${r.escalated} escalated)`],
    ['reconciliations settled', String(r.settled)],
    ['time to settle', settleText(r.timeToSettleMs)],
  ];
  return markdownTable(['metric', 'value'], rows);
}

/** One row per tool: attempts, the layers that refused or warned, the warnings seed 004 names, labels, settling. */
function toolTable(metrics: ContractMetrics): string {
  const rows = metrics.byTool.map((tool) => [
    tool.tool,
    String(tool.attempts),
    String(tool.accepted),
    layerShares(tool.layers, 'failed'),
    layerShares(tool.layers, 'warned'),
    rate(tool.staleWarnings),
    rate(tool.conflicts),
    rate(tool.omittedEvidence),
    rate(tool.unknownOutcomes),
    rate(tool.falseAccepts),
    rate(tool.falseRejects),
    settleText(tool.reconciliation.timeToSettleMs),
  ]);
  return markdownTable(
    [
      'tool',
      'attempts',
      'accepted',
      'failed at',
      'warned at',
      'stale warnings',
      'conflicts',
      'omitted evidence',
      'unknown outcomes',
      'false accept',
      'false reject',
      'time to settle',
    ],
    rows,
  );
}

/** One row per tool, layer and rule version: what it decided, and how often it was labelled wrong. */
function ruleTable(metrics: ContractMetrics): string {
  const rows = metrics.byRule.map((rule) => [
    rule.tool,
    rule.layer,
    rule.ruleVersion,
    String(rule.decided),
    rate(rule.failed),
    rate(rule.warned),
    rate(rule.falseAccepts),
    rate(rule.falseRejects),
  ]);
  return markdownTable(
    [
      'tool',
      'layer',
      'rule version',
      'decided',
      'failed',
      'warned',
      'false accept (of accepted)',
      'false reject (of failed)',
    ],
    rows,
  );
}

function layerShares(layers: ContractMetrics['byTool'][number]['layers'], kind: 'failed' | 'warned'): string {
  const shares = layers.filter((layer) => layer[kind].count > 0).map((layer) => `${layer.layer} ${rate(layer[kind])}`);
  return shares.length === 0 ? '-' : shares.join(' · ');
}

function settleText(time: ContractMetrics['reconciliation']['timeToSettleMs']): string {
  return time === null ? 'none settled' : `p50 ${ms(time.p50)} · p95 ${ms(time.p95)} · max ${ms(time.max)}`;
}

function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function rate({ count, rate: share }: MetricRate): string {
  return share === null ? `${count} (no attempts)` : `${(share * 100).toFixed(1)} % (${count})`;
}

function ms(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;
}
