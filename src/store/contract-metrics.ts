import { VALIDATION_LAYERS, type ValidationLayer } from '../contract/audit-record.js';
import { checkText, checkTimestamp } from './input-checks.js';
import type { ReconciliationMetrics } from './reconciliation.js';

/**
 * The validation metrics of seed 004 §8 — failure and warning rates of each layer, stale data, conflicts, omitted
 * evidence, unknown side effects, time to settle — overall, per tool and per rule version, plus false acceptance and
 * rejection rates once people have labelled outcomes. Computed from what the store records with each audit row (its
 * facts and the layers that decided it, see `audit-index.ts`), the labels, and one reconciliation round per unknown
 * outcome (with open and settle times).
 */

/** Which records count: those recorded (audits) or opened (reconciliations) at or after `since`, of one tool or all. */
export interface MetricsWindow {
  /** ISO-8601 timestamp with an offset. */
  readonly since?: string;
  /** Only this tool's attempts and reconciliations. */
  readonly tool?: string;
}

/** A count and its share of a whole (`null` when the whole is empty: no rate, rather than a zero rate). */
export interface MetricRate {
  readonly count: number;
  readonly rate: number | null;
}

/** Time from opening to settling an unknown side effect, over the settled ones. */
export type TimeToSettle = ReconciliationMetrics['timeToSettleMs'];

/** How often one rule version of one layer of one tool decided, and how its decisions held up once labelled. */
export interface RuleCounts {
  readonly tool: string;
  readonly layer: ValidationLayer;
  readonly ruleVersion: string;
  readonly passed: number;
  readonly warned: number;
  readonly failed: number;
  /** Attempts this rule version passed or warned that ended accepted (no error). */
  readonly accepted: number;
  /** Of those, the ones labelled `false_accept`. */
  readonly falseAccepts: number;
  /** Attempts this rule version failed that were labelled `false_reject`. */
  readonly falseRejects: number;
}

/** What the store counts for one tool; the rates are derived from these. */
export interface ToolCounts {
  readonly tool: string;
  readonly attempts: number;
  /** Attempts per catalogued error code; attempts without an error are not listed. */
  readonly byCode: Readonly<Record<string, number>>;
  /** Attempts whose model result carried each warning code. */
  readonly warnings: Readonly<Record<string, number>>;
  /** Accepted attempts labelled `false_accept`, refused attempts labelled `false_reject`. */
  readonly falseAccepts: number;
  readonly falseRejects: number;
  /** The tool's reconciliation rounds opened in the window. */
  readonly reconciliation: ReconciliationMetrics;
}

/** What a store counts over a window: everything else is derived by {@link contractMetricsOf}, the same for every store. */
export interface MetricCounts {
  readonly tools: readonly ToolCounts[];
  readonly rules: readonly RuleCounts[];
  /** Reconciliation rounds opened in the window (of the window's tool, when it names one). */
  readonly reconciliation: ReconciliationMetrics;
}

/** One layer of one tool: the share of the tool's attempts it failed, and the share it let through with a warning. */
export interface LayerMetrics {
  readonly layer: ValidationLayer;
  readonly failed: MetricRate;
  readonly warned: MetricRate;
}

/** Seed 004's metrics for one tool. */
export interface ToolMetrics {
  readonly tool: string;
  readonly attempts: number;
  /** Attempts that ended without an error (succeeded or partial). */
  readonly accepted: number;
  readonly failuresByCode: Readonly<Record<string, number>>;
  /** Each layer that decided any of the tool's attempts, in funnel order. */
  readonly layers: readonly LayerMetrics[];
  /** Every warning code the tool's results carried, by share of its attempts. */
  readonly warnings: Readonly<Record<string, MetricRate>>;
  /** Stale data let through with a warning (`onStale: 'warn'`). */
  readonly staleWarnings: MetricRate;
  /** Results reporting sources that disagree, unresolved. */
  readonly conflicts: MetricRate;
  /** Results whose evidence was dropped with the data it cited (cut to the budget). */
  readonly omittedEvidence: MetricRate;
  readonly unknownOutcomes: MetricRate;
  /** Labelled `false_accept`, of the accepted attempts. */
  readonly falseAccepts: MetricRate;
  /** Labelled `false_reject`, of the refused attempts. */
  readonly falseRejects: MetricRate;
  readonly reconciliation: ReconciliationMetrics;
}

/** One rule version of one layer of one tool: how often it decided which way, and how often it was wrong. */
export interface RuleMetrics {
  readonly tool: string;
  readonly layer: ValidationLayer;
  readonly ruleVersion: string;
  /** Attempts this rule version decided (passed, warned or failed). */
  readonly decided: number;
  readonly passed: number;
  readonly warned: MetricRate;
  readonly failed: MetricRate;
  /** Accepted attempts it let through. */
  readonly accepted: number;
  /** The false-acceptance rate: of the accepted attempts it let through, those labelled `false_accept`. */
  readonly falseAccepts: MetricRate;
  /** The false-rejection rate: of the attempts it failed, those labelled `false_reject`. */
  readonly falseRejects: MetricRate;
}

/** Seed 004's metrics over one window. */
export interface ContractMetrics {
  /** The window's start, normalised to UTC; `null` = everything recorded. */
  readonly since: string | null;
  /** The one tool the window is narrowed to, or `null` for all. */
  readonly tool: string | null;
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
  /** Labelled `false_accept`, of the accepted attempts. */
  readonly falseAccepts: MetricRate;
  /** Labelled `false_reject`, of the refused attempts. */
  readonly falseRejects: MetricRate;
  /** Reconciliation rounds opened in the window: still unknown now, escalated, settled, and time to settle. */
  readonly reconciliation: ReconciliationMetrics;
  /** The same figures per tool, by tool name. */
  readonly byTool: readonly ToolMetrics[];
  /** Per tool, layer and rule version, in funnel order: what each rule version decided and its labelled error rates. */
  readonly byRule: readonly RuleMetrics[];
}

/** Checks a window and returns its start as a Date (or `null` for "everything") and its tool (or `null`). */
export function checkWindow(window: MetricsWindow): { since: Date | null; tool: string | null } {
  return {
    since: window.since === undefined ? null : checkTimestamp(window.since, 'since'),
    tool: window.tool === undefined ? null : checkText(window.tool, 'tool'),
  };
}

/** Builds the metrics from a store's counts; the same code for every store, so their figures cannot drift. */
export function contractMetricsOf(
  window: { since: Date | null; tool: string | null },
  counts: MetricCounts,
): ContractMetrics {
  const tools = [...counts.tools].sort((a, b) => compareText(a.tool, b.tool));
  const rules = [...counts.rules].sort(
    (a, b) =>
      compareText(a.tool, b.tool) ||
      VALIDATION_LAYERS.indexOf(a.layer) - VALIDATION_LAYERS.indexOf(b.layer) ||
      compareText(a.ruleVersion, b.ruleVersion),
  );
  const total = (pick: (tool: ToolCounts) => number) => tools.reduce((sum, tool) => sum + pick(tool), 0);
  const byCode = sumRecords(tools.map((tool) => tool.byCode));
  const attempts = total((tool) => tool.attempts);
  const refused = Object.values(byCode).reduce((sum, n) => sum + n, 0);
  const codeRate = (code: string) => rateOf(byCode[code] ?? 0, attempts);
  return {
    since: window.since === null ? null : window.since.toISOString(),
    tool: window.tool,
    attempts,
    accepted: attempts - refused,
    failuresByCode: sortedRecord(byCode),
    schemaFailure: codeRate('OUTPUT_CONTRACT_VIOLATION'),
    invariantFailure: codeRate('INVARIANT_VIOLATION'),
    staleData: codeRate('STALE_DATA'),
    protocolFailure: codeRate('PROTOCOL_ERROR'),
    unknownOutcomes: codeRate('OUTCOME_UNKNOWN'),
    falseAccepts: rateOf(
      total((tool) => tool.falseAccepts),
      attempts - refused,
    ),
    falseRejects: rateOf(
      total((tool) => tool.falseRejects),
      refused,
    ),
    reconciliation: counts.reconciliation,
    byTool: tools.map((tool) =>
      toolMetricsOf(
        tool,
        rules.filter((rule) => rule.tool === tool.tool),
      ),
    ),
    byRule: rules.map(ruleMetricsOf),
  };
}

function toolMetricsOf(counts: ToolCounts, rules: readonly RuleCounts[]): ToolMetrics {
  const refused = Object.values(counts.byCode).reduce((sum, n) => sum + n, 0);
  const accepted = counts.attempts - refused;
  const share = (count: number) => rateOf(count, counts.attempts);
  const layers = VALIDATION_LAYERS.flatMap((layer): LayerMetrics[] => {
    const decided = rules.filter((rule) => rule.layer === layer);
    if (decided.length === 0) return [];
    return [
      {
        layer,
        failed: share(decided.reduce((sum, rule) => sum + rule.failed, 0)),
        warned: share(decided.reduce((sum, rule) => sum + rule.warned, 0)),
      },
    ];
  });
  return {
    tool: counts.tool,
    attempts: counts.attempts,
    accepted,
    failuresByCode: sortedRecord(counts.byCode),
    layers,
    warnings: Object.fromEntries(Object.entries(sortedRecord(counts.warnings)).map(([code, n]) => [code, share(n)])),
    staleWarnings: share(counts.warnings['STALE_DATA'] ?? 0),
    conflicts: share(counts.warnings['CONFLICTING_SOURCES'] ?? 0),
    omittedEvidence: share(counts.warnings['EVIDENCE_OMITTED'] ?? 0),
    unknownOutcomes: share(counts.byCode['OUTCOME_UNKNOWN'] ?? 0),
    falseAccepts: rateOf(counts.falseAccepts, accepted),
    falseRejects: rateOf(counts.falseRejects, refused),
    reconciliation: counts.reconciliation,
  };
}

function ruleMetricsOf(rule: RuleCounts): RuleMetrics {
  const decided = rule.passed + rule.warned + rule.failed;
  return {
    tool: rule.tool,
    layer: rule.layer,
    ruleVersion: rule.ruleVersion,
    decided,
    passed: rule.passed,
    warned: rateOf(rule.warned, decided),
    failed: rateOf(rule.failed, decided),
    accepted: rule.accepted,
    falseAccepts: rateOf(rule.falseAccepts, rule.accepted),
    falseRejects: rateOf(rule.falseRejects, rule.failed),
  };
}

function rateOf(count: number, whole: number): MetricRate {
  return { count, rate: whole === 0 ? null : count / whole };
}

function sumRecords(records: readonly Readonly<Record<string, number>>[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const record of records) for (const [key, n] of Object.entries(record)) sum[key] = (sum[key] ?? 0) + n;
  return sum;
}

function sortedRecord<T>(record: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compareText(a, b)));
}

/** Code-unit order, the same in every store and locale (Postgres sorts with its collation, so stores sort here). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Linear-interpolated percentile of an ascending list, as Postgres `percentile_cont` computes it. */
export function percentile(sorted: readonly number[], p: number): number {
  const rank = (sorted.length - 1) * p;
  const low = Math.floor(rank);
  const lowValue = sorted[low] ?? 0;
  const highValue = sorted[Math.ceil(rank)] ?? lowValue;
  return lowValue + (highValue - lowValue) * (rank - low);
}
