import { auditRecordSchema } from '../../contract/audit-record.js';
import { publishedShapeIssues } from '../../contract/published-shape.js';
import { sha256OfBytes } from '../byte-digest.js';
import { toCanonicalText } from '../canonical-text.js';
import { checkOptionalText, checkText } from '../input-checks.js';
import { lateResultEscalation } from '../lease.js';
import { auditRefOf, ledgerStatusFor, type AuditRef, type RecordExecutionInput } from '../ledger.js';
import { checkRecordedWorkflow } from '../recorded-workflow.js';
import { insertArtifact } from './pg-artifacts.js';
import { insertAuditIndex } from './pg-audit-index.js';
import { auditRefOfRow } from './pg-audit-rows.js';
import { escalateLateResult } from './pg-late-result.js';
import {
  auditColumnValues,
  evidenceArrayValues,
  evidenceColumnArrays,
  insertEvidenceSql,
  type PreparedRecord,
} from './pg-record-rows.js';
import { recordInOneStatement } from './pg-record-statement.js';
import { inTransaction, poolQueryable, type PgDatabase, type Queryable } from './sql-runner.js';
import { StoreError } from '../store-error.js';

/**
 * `recordExecution` of the pg store: audit row (with its facts and decided layers), evidence rows, artifacts and
 * the ledger transition, all or nothing. Every insert is idempotent, so recording the same attempt again changes nothing.
 *
 * The common case of a read — a new attempt without artifacts whose ledger transition lands — is one statement
 * (`pg-record-statement.ts`: one round trip, one commit). Everything else (artifacts, an attempt recorded before,
 * a conflict, a late result) takes one transaction of several statements, which the one statement leaves untouched
 * when it does not land.
 *
 * A key recorded under a different request digest is an `IDEMPOTENCY_CONFLICT`, but the attempt's audit and
 * evidence are still committed first: the attempt ran, and the audit of what ran must never be lost.
 */
export async function recordExecution(database: PgDatabase, input: RecordExecutionInput, now: Date): Promise<AuditRef> {
  const prepared = preparedRecord(input, now);
  // Reads only: the one statement locks the ledger row before it writes the audit, so a write's record stalled
  // mid-statement would hold the very row its reconciliation must release or settle. A write keeps the transaction,
  // which writes its audit first and takes the row only for the transition (and its late-result check).
  if (input.execution.artifacts.length === 0 && input.execution.audit.effect === 'read') {
    const db = poolQueryable(database);
    const outcome = await recordInOneStatement(db, input, prepared);
    if (outcome === 'recorded') return prepared.ref;
    if (outcome === 'audit_raced') return sameAttempt(db, prepared.ref);
  }
  return recordedOrConflict(prepared, await inTransaction(database, (tx) => recordInTransaction(tx, prepared)));
}

/**
 * What a record returns once its transaction committed: its reference, or the conflict it found (thrown only now,
 * so the attempt's audit committed with the rest).
 */
export function recordedOrConflict(
  prepared: PreparedRecord,
  { recorded, conflict }: { recorded: AuditRef; conflict: string | null },
): AuditRef {
  if (conflict)
    throw new StoreError('idempotency_conflict', {
      idempotencyKey: prepared.input.execution.audit.idempotency_key,
      auditId: prepared.ref.audit_id,
      recordedRequestSha256: conflict,
    });
  return recorded;
}

/**
 * The input checks (the workflow is the one the audit names: see `checkRecordedWorkflow`), canonical texts and the
 * verification of the result binding, before anything is written.
 */
export function preparedRecord(input: RecordExecutionInput, now: Date): PreparedRecord {
  const { execution } = input;
  const workflowId = checkText(input.workflowId, 'workflowId');
  const runId = checkOptionalText(input.runId, 'runId');
  const audit = auditRecordSchema.safeParse(execution.audit);
  // The published schema, with `data` checked by the shape gate (the same verdict, without walking it through zod).
  const modelResultValid = publishedShapeIssues(execution.modelResult).length === 0;
  if (!audit.success || !modelResultValid)
    throw new StoreError('invalid_input', {
      field: audit.success ? 'execution.modelResult' : 'execution.audit',
      problem: 'schema',
    });
  checkRecordedWorkflow(input);
  const record = execution.audit;
  checkText(record.call_id, 'audit.call_id');
  checkText(record.idempotency_key, 'audit.idempotency_key');
  checkText(record.audit_id, 'audit.audit_id');
  const auditJson = toCanonicalText(record, 'execution.audit');
  const modelResultJson = toCanonicalText(execution.modelResult, 'execution.modelResult');
  // The stored bytes must be the bytes the binding was computed over, or a later verification would fail.
  if (sha256OfBytes(modelResultJson) !== record.bindings.result_sha256) {
    throw new StoreError('digest_mismatch', { what: 'model_result', auditId: record.audit_id });
  }
  return {
    input,
    workflowId,
    runId,
    auditJson,
    modelResultJson,
    ref: auditRefOf(record, sha256OfBytes(auditJson)),
    now,
  };
}

const insertEvidenceRowsSql = (db: Queryable): string =>
  insertEvidenceSql({
    db,
    workflowId: '$1::text',
    callId: '$2::text',
    auditId: '$3::text',
    recordedAt: '$4::timestamptz',
    gate: null,
    firstArray: 5,
  });

/** The transactional path: each part its own statement, a conflict or late result handled with the ledger row locked. */
export async function recordInTransaction(
  tx: Queryable,
  prepared: PreparedRecord,
): Promise<{ recorded: AuditRef; conflict: string | null }> {
  const { input, ref, now, workflowId } = prepared;
  const { execution } = input;
  const inserted = await tx.query<{ audit_id: string }>(
    `INSERT INTO ${tx.table('ttc_audit')} (audit_id, workflow_id, run_id, call_id, attempt, idempotency_key, tool, status, error_code,
       request_sha256, result_sha256, call_binding_sha256, audit_sha256, audit_json, model_result_json, recorded_at, principal_ref)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
     RETURNING audit_id`,
    auditColumnValues(prepared),
  );
  // The audit's insert trigger skips an audit id already recorded (migration 006). Its query copies and evidence rows
  // were written with it, at its time (their foreign keys name it): a second record of the attempt adds none.
  const recorded = inserted.length === 0 ? await sameAttempt(tx, ref) : ref;
  if (inserted.length > 0) {
    await insertAuditIndex(tx, execution, now);
    if (execution.modelResult.evidence.length > 0) {
      await tx.query(insertEvidenceRowsSql(tx), [
        workflowId,
        execution.audit.call_id,
        execution.audit.audit_id,
        now,
        ...evidenceArrayValues(evidenceColumnArrays(input)),
      ]);
    }
  }
  for (const artifact of execution.artifacts) await insertArtifact(tx, artifact, now);
  return { recorded, conflict: await updateLedger(tx, input, workflowId, prepared.modelResultJson, now) };
}

/**
 * An audit id names one attempt: a second record under it must carry the same bindings. It may differ in other
 * fields (timings of a re-run), so the reference returned is the stored row's: its `audit_sha256` is the one that
 * matches the database, and the one history must carry.
 */
async function sameAttempt(tx: Queryable, ref: AuditRef): Promise<AuditRef> {
  const rows = await tx.query<{
    request_sha256: string;
    result_sha256: string;
    call_binding_sha256: string;
    audit_sha256: string;
  }>(
    `SELECT request_sha256, result_sha256, call_binding_sha256, audit_sha256 FROM ${tx.table('ttc_audit')} WHERE audit_id = $1`,
    [ref.audit_id],
  );
  const row = rows[0];
  if (
    !row ||
    row.request_sha256 !== ref.request_sha256 ||
    row.result_sha256 !== ref.result_sha256 ||
    row.call_binding_sha256 !== ref.call_binding_sha256
  ) {
    throw new StoreError('audit_id_reused', { auditId: ref.audit_id });
  }
  return auditRefOfRow({ audit_id: ref.audit_id, ...row });
}

/**
 * Moves the key's ledger row to the status this result implies (inserting it if nobody claimed). A completed row
 * is final, and a disputed one (a late commit) is a human's: later attempts are audited but never replace the result
 * a replay returns. A leased record moves the row only while its own claim holds it, and ends its lease (its attempt
 * dispatches nothing more: a verdict waits a grace after the record, not after the deadline); a record without a lease
 * follows the older rule: one that does not complete the key only moves a row its own claim (`claimedAt`) still
 * holds, a completing one always lands. A leased commit (or possibly late unknown outcome) that finds its claim
 * settled "not committed" meanwhile is a late result: the ledger keeps the verdict and the key escalates. Returns the recorded
 * request digest when it differs from this attempt's (a conflict), else `null`.
 */
async function updateLedger(
  tx: Queryable,
  input: RecordExecutionInput,
  workflowId: string,
  modelResultJson: string,
  now: Date,
): Promise<string | null> {
  const { audit, modelResult } = input.execution;
  const status = ledgerStatusFor(modelResult);
  const leaseToken = checkOptionalText(input.leaseToken, 'leaseToken');
  const updated = await tx.query<{ status: string }>(
    `INSERT INTO ${tx.table('ttc_ledger')} (idempotency_key, request_sha256, tool, workflow_id, call_id, status, model_result_json, audit_id, claimed_at, completed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, CASE WHEN $6 = 'completed' THEN $9::timestamptz END)
     ON CONFLICT (idempotency_key) DO UPDATE
       SET status = EXCLUDED.status, model_result_json = EXCLUDED.model_result_json, audit_id = EXCLUDED.audit_id, completed_at = EXCLUDED.completed_at,
           lease_expires_at = CASE WHEN $11::text IS NOT NULL THEN LEAST(ttc_ledger.lease_expires_at, clock_timestamp()) ELSE ttc_ledger.lease_expires_at END
       WHERE ttc_ledger.request_sha256 = EXCLUDED.request_sha256 AND ttc_ledger.status <> 'completed' AND ttc_ledger.late_commit_audit_id IS NULL
         AND CASE WHEN $11::text IS NOT NULL THEN ttc_ledger.lease_token = $11 AND ttc_ledger.status = 'claimed'
                  ELSE EXCLUDED.status = 'completed' OR $10::timestamptz IS NULL OR (ttc_ledger.claimed_at = $10::timestamptz AND ttc_ledger.status = 'claimed') END
     RETURNING status`,
    [
      audit.idempotency_key,
      audit.bindings.request_sha256,
      audit.tool,
      workflowId,
      audit.call_id,
      status,
      modelResultJson,
      audit.audit_id,
      now,
      input.claimedAt ?? null,
      leaseToken,
    ],
  );
  if (updated.length > 0) return null;
  // The upsert locked the row: this read and the escalation below see it as it stays until commit.
  const rows = await tx.query<{ request_sha256: string; status: string }>(
    `SELECT request_sha256, status FROM ${tx.table('ttc_ledger')} WHERE idempotency_key = $1`,
    [audit.idempotency_key],
  );
  const row = rows[0];
  if (row !== undefined && row.request_sha256 !== audit.bindings.request_sha256) return row.request_sha256;
  const escalation = lateResultEscalation(input);
  if (escalation !== null && row?.status !== 'completed') {
    await escalateLateResult(
      tx,
      {
        idempotencyKey: audit.idempotency_key,
        auditId: audit.audit_id,
        workflowId,
        callId: audit.call_id,
        tool: audit.tool,
        reason: escalation,
      },
      now,
    );
  }
  return null;
}
