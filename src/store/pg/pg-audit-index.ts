import type { ToolExecution } from '../../contract/execute-tool.js';
import { auditFactsOf, decidedLayersOf } from '../audit-index.js';
import { queryCopy } from './query-copy.js';
import type { Queryable } from './sql-runner.js';

/**
 * The facts row and the decided-layer rows of one attempt, in one statement (the layers are written only with the
 * facts row, so re-recording an attempt adds nothing). Runs in the transaction that inserts the audit row.
 */
const insertAuditIndexSql = (db: Queryable): string => `
  WITH f AS (
    INSERT INTO ${db.table('ttc_audit_facts')} (audit_id, tool, error_code, accepted, warnings, recorded_at)
    VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (audit_id) DO NOTHING RETURNING audit_id
  )
  INSERT INTO ${db.table('ttc_audit_layers')} (audit_id, tool, layer, outcome, rule_version, accepted, recorded_at)
  SELECT f.audit_id, $2, l.layer, l.outcome, l.rule_version, $4, $6 FROM f, unnest($7::text[], $8::text[], $9::text[]) AS l(layer, outcome, rule_version)`;

/** Copies what the metrics read out of an attempt's audit and model result. */
export async function insertAuditIndex(tx: Queryable, execution: ToolExecution, now: Date): Promise<void> {
  const facts = auditFactsOf(execution.audit, execution.modelResult);
  const layers = decidedLayersOf(execution.audit);
  await tx.query(
    insertAuditIndexSql(tx),
    [
      facts.auditId, queryCopy(facts.tool), facts.errorCode === null ? null : queryCopy(facts.errorCode), facts.accepted, facts.warnings.map(queryCopy), now,
      layers.map((l) => l.layer), layers.map((l) => l.outcome), layers.map((l) => queryCopy(l.ruleVersion)),
    ],
  );
}
