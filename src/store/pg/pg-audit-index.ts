import type { ToolExecution } from '../../contract/execute-tool.js';
import { auditFactsOf, decidedLayersOf } from '../audit-index.js';
import { queryCopy } from './query-copy.js';
import type { Queryable } from './sql-runner.js';

/** Where {@link auditIndexCtes} takes the per-attempt values: SQL expressions, and the number of the first of its 7 parameters. */
interface AuditIndexSources {
  /** Names the tables (schema-qualified). */
  readonly db: Queryable;
  readonly auditId: string;
  readonly recordedAt: string;
  /** The relation whose rows gate the insert (`FROM <gate>`), or `null` for none. */
  readonly gate: string | null;
  readonly firstParam: number;
}

/**
 * The facts row and the decided-layer rows of one attempt as two CTEs, `facts` and `layers`, written only with the
 * audit row they copy (the caller gates them on its insert), at its time. Their parameters are {@link auditIndexValues}.
 */
export function auditIndexCtes(sources: AuditIndexSources): string {
  const p = (offset: number) => `$${sources.firstParam + offset}`;
  return `facts AS (
    INSERT INTO ${sources.db.table('ttc_audit_facts')} (audit_id, tool, error_code, accepted, warnings, recorded_at)
    SELECT ${sources.auditId}, ${p(0)}::text, ${p(1)}::text, ${p(2)}::boolean, ${p(3)}::text[], ${sources.recordedAt}${sources.gate === null ? '' : ` FROM ${sources.gate}`}
    RETURNING audit_id
  ), layers AS (
    INSERT INTO ${sources.db.table('ttc_audit_layers')} (audit_id, tool, layer, outcome, rule_version, accepted, recorded_at)
    SELECT facts.audit_id, ${p(0)}, l.layer, l.outcome, l.rule_version, ${p(2)}, ${sources.recordedAt}
      FROM facts, unnest(${p(4)}::text[], ${p(5)}::text[], ${p(6)}::text[]) AS l(layer, outcome, rule_version)
  )`;
}

/** The 7 parameters of {@link auditIndexCtes}: what the metrics read out of an attempt's audit and model result. */
export function auditIndexValues(execution: ToolExecution): unknown[] {
  const facts = auditFactsOf(execution.audit, execution.modelResult);
  const layers = decidedLayersOf(execution.audit);
  return [
    queryCopy(facts.tool),
    facts.errorCode === null ? null : queryCopy(facts.errorCode),
    facts.accepted,
    facts.warnings.map(queryCopy),
    layers.map((l) => l.layer),
    layers.map((l) => l.outcome),
    layers.map((l) => queryCopy(l.ruleVersion)),
  ];
}

const insertAuditIndexSql = (db: Queryable): string =>
  `WITH ${auditIndexCtes({ db, auditId: '$1::text', recordedAt: '$2::timestamptz', gate: null, firstParam: 3 })} SELECT 1`;

/** Copies what the metrics read out of an attempt into its query-copy rows, in the transaction that inserted its audit row, with its time. */
export async function insertAuditIndex(tx: Queryable, execution: ToolExecution, now: Date): Promise<void> {
  await tx.query(insertAuditIndexSql(tx), [execution.audit.audit_id, now, ...auditIndexValues(execution)]);
}
