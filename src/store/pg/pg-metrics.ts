import type { ValidationLayer } from '../../contract/audit-record.js';
import {
  checkWindow,
  contractMetricsOf,
  type ContractMetrics,
  type MetricsWindow,
  type RuleCounts,
  type ToolCounts,
} from '../contract-metrics.js';
import type { ReconciliationMetrics } from '../reconciliation.js';
import type { Queryable } from './sql-runner.js';

/** A window as SQL: the conditions on `alias`'s time and tool columns, and their parameters. */
interface WindowSql {
  readonly where: string;
  readonly params: readonly unknown[];
}

function windowSql(alias: string, timeColumn: string, window: { since: Date | null; tool: string | null }): WindowSql {
  // Conditions are left out rather than written as `$1 IS NULL OR …`, so the planner sees plain range and equality
  // predicates it can match to the (tool, time) and (time) indexes.
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (window.since !== null) conditions.push(`${alias}.${timeColumn} >= $${params.push(window.since)}`);
  if (window.tool !== null) conditions.push(`${alias}.tool = $${params.push(window.tool)}`);
  return { where: conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`, params };
}

const labelled = (db: Queryable, label: string, alias: string) =>
  `EXISTS (SELECT 1 FROM ${db.table('ttc_outcome_labels')} x WHERE x.audit_id = ${alias}.audit_id AND x.label = '${label}')`;

/** Attempts per tool and error code, with how many of them people labelled wrong. */
function attemptsSql(db: Queryable, window: WindowSql): string {
  return `SELECT f.tool, f.error_code, count(*) AS n,
                 count(*) FILTER (WHERE f.accepted AND ${labelled(db, 'false_accept', 'f')}) AS false_accepts,
                 count(*) FILTER (WHERE NOT f.accepted AND ${labelled(db, 'false_reject', 'f')}) AS false_rejects
            FROM ${db.table('ttc_audit_facts')} f ${window.where} GROUP BY f.tool, f.error_code`;
}

/** Attempts per tool carrying each warning code. */
function warningsSql(db: Queryable, window: WindowSql): string {
  return `SELECT f.tool, w.code, count(*) AS n FROM ${db.table('ttc_audit_facts')} f CROSS JOIN LATERAL unnest(f.warnings) AS w(code) ${window.where} GROUP BY f.tool, w.code`;
}

/** Per tool, layer and rule version: how it decided, what it let through, and the labels on those decisions. */
function rulesSql(db: Queryable, window: WindowSql): string {
  return `SELECT l.tool, l.layer, l.rule_version,
                 count(*) FILTER (WHERE l.outcome = 'passed') AS passed,
                 count(*) FILTER (WHERE l.outcome = 'warned') AS warned,
                 count(*) FILTER (WHERE l.outcome = 'failed') AS failed,
                 count(*) FILTER (WHERE l.accepted) AS accepted,
                 count(*) FILTER (WHERE l.accepted AND ${labelled(db, 'false_accept', 'l')}) AS false_accepts,
                 count(*) FILTER (WHERE l.outcome = 'failed' AND ${labelled(db, 'false_reject', 'l')}) AS false_rejects
            FROM ${db.table('ttc_audit_layers')} l ${window.where} GROUP BY l.tool, l.layer, l.rule_version`;
}

/** Reconciliation rounds per tool and in total (`total` = 1), with time-to-settle percentiles. */
function reconciliationSql(db: Queryable, window: WindowSql): string {
  return `WITH d AS (SELECT r.tool, r.state, EXTRACT(EPOCH FROM (r.settled_at - r.opened_at)) * 1000 AS ms FROM ${db.table('ttc_reconciliations')} r ${window.where})
          SELECT tool, GROUPING(tool) AS total,
                 count(*) FILTER (WHERE state <> 'settled') AS unknown,
                 count(*) FILTER (WHERE state = 'escalated') AS escalated,
                 count(*) FILTER (WHERE state = 'settled') AS settled,
                 percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE state = 'settled') AS p50,
                 percentile_cont(0.95) WITHIN GROUP (ORDER BY ms) FILTER (WHERE state = 'settled') AS p95,
                 max(ms) FILTER (WHERE state = 'settled')::float8 AS max
            FROM d GROUP BY GROUPING SETS ((tool), ())`;
}

type Count = string | number;

/** Seed 004's metrics over a window, from Postgres: four grouped reads of the indexed copies, run concurrently. */
export async function contractMetrics(db: Queryable, window: MetricsWindow): Promise<ContractMetrics> {
  const checked = checkWindow(window);
  const facts = windowSql('f', 'recorded_at', checked);
  const layers = windowSql('l', 'recorded_at', checked);
  const rounds = windowSql('r', 'opened_at', checked);
  const [attempts, warnings, rules, reconciliation] = await Promise.all([
    db.query<{ tool: string; error_code: string | null; n: Count; false_accepts: Count; false_rejects: Count }>(
      attemptsSql(db, facts),
      facts.params,
    ),
    db.query<{ tool: string; code: string; n: Count }>(warningsSql(db, facts), facts.params),
    db.query<{
      tool: string;
      layer: ValidationLayer;
      rule_version: string;
      passed: Count;
      warned: Count;
      failed: Count;
      accepted: Count;
      false_accepts: Count;
      false_rejects: Count;
    }>(rulesSql(db, layers), layers.params),
    db.query<{
      tool: string | null;
      total: number;
      unknown: Count;
      escalated: Count;
      settled: Count;
      p50: number | null;
      p95: number | null;
      max: number | null;
    }>(reconciliationSql(db, rounds), rounds.params),
  ]);
  const settling = new Map(
    reconciliation.filter((row) => row.total === 0).map((row) => [row.tool ?? '', reconciliationOf(row)]),
  );
  const tools = new Map<
    string,
    {
      attempts: number;
      byCode: Record<string, number>;
      warnings: Record<string, number>;
      falseAccepts: number;
      falseRejects: number;
    }
  >();
  const toolEntry = (tool: string) => {
    let entry = tools.get(tool);
    if (entry === undefined)
      tools.set(tool, (entry = { attempts: 0, byCode: {}, warnings: {}, falseAccepts: 0, falseRejects: 0 }));
    return entry;
  };
  for (const row of attempts) {
    const entry = toolEntry(row.tool);
    entry.attempts += Number(row.n);
    entry.falseAccepts += Number(row.false_accepts);
    entry.falseRejects += Number(row.false_rejects);
    if (row.error_code !== null) entry.byCode[row.error_code] = Number(row.n);
  }
  for (const row of warnings) toolEntry(row.tool).warnings[row.code] = Number(row.n);
  for (const tool of settling.keys()) toolEntry(tool);
  const toolCounts: ToolCounts[] = [...tools].map(([tool, entry]) => ({
    tool,
    ...entry,
    reconciliation: settling.get(tool) ?? NO_ROUNDS,
  }));
  const ruleCounts: RuleCounts[] = rules.map((row) => ({
    tool: row.tool,
    layer: row.layer,
    ruleVersion: row.rule_version,
    passed: Number(row.passed),
    warned: Number(row.warned),
    failed: Number(row.failed),
    accepted: Number(row.accepted),
    falseAccepts: Number(row.false_accepts),
    falseRejects: Number(row.false_rejects),
  }));
  const total = reconciliation.find((row) => row.total === 1);
  return contractMetricsOf(checked, {
    tools: toolCounts,
    rules: ruleCounts,
    reconciliation: total === undefined ? NO_ROUNDS : reconciliationOf(total),
  });
}

const NO_ROUNDS: ReconciliationMetrics = Object.freeze({
  unknownSideEffects: 0,
  escalated: 0,
  settled: 0,
  timeToSettleMs: null,
});

function reconciliationOf(row: {
  unknown: Count;
  escalated: Count;
  settled: Count;
  p50: number | null;
  p95: number | null;
  max: number | null;
}): ReconciliationMetrics {
  const settled = Number(row.settled);
  return {
    unknownSideEffects: Number(row.unknown),
    escalated: Number(row.escalated),
    settled,
    timeToSettleMs:
      settled === 0 || row.p50 === null || row.p95 === null || row.max === null
        ? null
        : { p50: row.p50, p95: row.p95, max: row.max },
  };
}

/** The SQL `contractMetrics` runs for a window, with its parameters: what the index test explains. */
export function metricsQueries(
  db: Queryable,
  window: MetricsWindow,
): { readonly sql: string; readonly params: readonly unknown[] }[] {
  const checked = checkWindow(window);
  const facts = windowSql('f', 'recorded_at', checked);
  const layers = windowSql('l', 'recorded_at', checked);
  return [
    { sql: attemptsSql(db, facts), params: facts.params },
    { sql: warningsSql(db, facts), params: facts.params },
    { sql: rulesSql(db, layers), params: layers.params },
  ];
}
