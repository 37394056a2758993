import type { RecordExecutionInput } from '../ledger.js';
import { ledgerStatusFor } from '../ledger.js';
import { checkOptionalText } from '../input-checks.js';
import {
  auditColumnValues,
  evidenceArrayValues,
  evidenceColumnArrays,
  insertEvidenceSql,
  type PreparedRecord,
} from './pg-record-rows.js';
import { auditIndexCtes, auditIndexValues } from './pg-audit-index.js';
import type { Queryable } from './sql-runner.js';

/**
 * The common case of `recordExecution` as one statement (one round trip, one commit): the ledger transition, then —
 * only if it landed — the audit row, its query copies and its evidence rows, in data-modifying CTEs. The ledger
 * upsert comes first and gates everything else, so the statement either records the whole attempt or writes nothing:
 *
 * - it lands on the conditions of the transactional path (same request digest, row not completed nor disputed, the
 *   attempt's own claim when it holds one) and only while the audit id is new: absent from the audit table as this
 *   statement sees it, and not the row's own audit id — so of two concurrent records of one audit id, the second
 *   (which waited for the first's row lock and re-checks the row as the first left it) never lands;
 * - anything else — an attempt recorded before, a conflict, a late result to escalate — writes nothing, and the
 *   caller takes the transactional path, whose outcome is then exactly what it was before this statement existed.
 *
 * The foreign keys from the evidence and the query copies to the audit are checked at the end of the statement, after
 * the audit row of the same statement exists. The audit's insert trigger skips an audit id already recorded (its
 * RETURNING is then empty, as ON CONFLICT DO NOTHING left it before the table was partitioned: migration 006).
 */
const recordInOneStatementSql = (db: Queryable): string => `
  WITH ledger AS (
    INSERT INTO ${db.table('ttc_ledger')} (idempotency_key, request_sha256, tool, workflow_id, call_id, status, model_result_json, audit_id, claimed_at, completed_at)
    SELECT $6::text, $10::text, $18::text, $2::text, $4::text, $19::text, $15::text, $1::text, $16::timestamptz, CASE WHEN $19 = 'completed' THEN $16::timestamptz END
     WHERE NOT EXISTS (SELECT 1 FROM ${db.table('ttc_audit')} WHERE audit_id = $1)
    ON CONFLICT (idempotency_key) DO UPDATE
      SET status = EXCLUDED.status, model_result_json = EXCLUDED.model_result_json, audit_id = EXCLUDED.audit_id, completed_at = EXCLUDED.completed_at
      WHERE ttc_ledger.request_sha256 = EXCLUDED.request_sha256 AND ttc_ledger.status <> 'completed' AND ttc_ledger.late_commit_audit_id IS NULL
        AND ttc_ledger.audit_id IS DISTINCT FROM EXCLUDED.audit_id
        AND CASE WHEN $21::text IS NOT NULL THEN ttc_ledger.lease_token = $21 AND ttc_ledger.status = 'claimed'
                 ELSE EXCLUDED.status = 'completed' OR $20::timestamptz IS NULL OR (ttc_ledger.claimed_at = $20::timestamptz AND ttc_ledger.status = 'claimed') END
    RETURNING 1
  ), audit AS (
    INSERT INTO ${db.table('ttc_audit')} (audit_id, workflow_id, run_id, call_id, attempt, idempotency_key, tool, status, error_code,
      request_sha256, result_sha256, call_binding_sha256, audit_sha256, audit_json, model_result_json, recorded_at, principal_ref)
    SELECT $1, $2, $3::text, $4, $5::integer, $6, $7::text, $8::text, $9::text, $10, $11::text, $12::text, $13::text, $14::text, $15, $16, $17::text FROM ledger
    RETURNING audit_id
  ), ${auditIndexCtes({ db, auditId: 'audit.audit_id', recordedAt: '$16', gate: 'audit', firstParam: 22 })}, evidence AS (
    ${insertEvidenceSql({ db, workflowId: '$2', callId: '$4', auditId: 'audit.audit_id', recordedAt: '$16', gate: 'audit', firstArray: 29 })}
  )
  SELECT (SELECT count(*) FROM ledger)::int AS landed, (SELECT count(*) FROM audit)::int AS audit_inserted`;

/**
 * What the one statement did: `recorded` (the whole attempt), `not_landed` (nothing: take the transactional path), or
 * `audit_raced` (the ledger moved, but a concurrent record of the same audit id wrote the audit: compare it first; a
 * defence, since the ledger condition above keeps a second record of one audit id from landing).
 */
export type OneStatementOutcome = 'recorded' | 'not_landed' | 'audit_raced';

/** Records an attempt without artifacts in one statement (see {@link recordInOneStatementSql}). */
export async function recordInOneStatement(
  db: Queryable,
  input: RecordExecutionInput,
  prepared: PreparedRecord,
): Promise<OneStatementOutcome> {
  const { execution } = input;
  const { audit, modelResult } = execution;
  const rows = await db.query<{ landed: number; audit_inserted: number }>(recordInOneStatementSql(db), [
    ...auditColumnValues(prepared),
    audit.tool,
    ledgerStatusFor(modelResult),
    input.claimedAt ?? null,
    checkOptionalText(input.leaseToken, 'leaseToken'),
    ...auditIndexValues(execution),
    ...evidenceArrayValues(evidenceColumnArrays(input)),
  ]);
  const row = rows[0];
  if (row === undefined || row.landed === 0) return 'not_landed';
  return row.audit_inserted === 1 ? 'recorded' : 'audit_raced';
}
