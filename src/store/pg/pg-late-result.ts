// A leased result recorded after its call was settled "not committed": kept as a dispute and escalated to a person.
import { latestRound, type RoundRow } from './pg-reconciliation-rows.js';
import type { Queryable } from './sql-runner.js';

/** A leased result recorded after its call was settled "not committed" (see `lateResultEscalation`). */
export interface LateResult {
  readonly idempotencyKey: string;
  readonly auditId: string;
  readonly workflowId: string;
  readonly callId: string;
  readonly tool: string;
  /** One of `LATE_RESULT_ESCALATION`. */
  readonly reason: string;
}

/**
 * A late result (the record path calls this with the ledger row locked): the row is marked disputed and `unknown`
 * (it keeps the verdict's result), and the key's latest round is escalated — a new round when the latest was
 * settled — with the late record's audit, for a human to decide. A row already disputed keeps its first dispute.
 */
export async function escalateLateResult(tx: Queryable, late: LateResult, now: Date): Promise<void> {
  await tx.query(
    `UPDATE ${tx.table('ttc_ledger')} SET status = 'unknown', late_commit_audit_id = $2, audit_id = COALESCE(audit_id, $2)
      WHERE idempotency_key = $1 AND status <> 'completed' AND late_commit_audit_id IS NULL`,
    [late.idempotencyKey, late.auditId],
  );
  const latest = (await tx.query<RoundRow>(`${latestRound(tx)} FOR UPDATE`, [late.idempotencyKey]))[0];
  if (latest === undefined || latest.state === 'settled') {
    await tx.query(
      `INSERT INTO ${tx.table('ttc_reconciliations')} (idempotency_key, round, workflow_id, call_id, tool, audit_id, state, opened_at, escalated_at, escalation_reason)
       VALUES ($1, $2, $3, $4, $5, $6, 'escalated', $7, $7, $8)`,
      [
        late.idempotencyKey,
        (latest?.round ?? 0) + 1,
        late.workflowId,
        late.callId,
        late.tool,
        late.auditId,
        now,
        late.reason,
      ],
    );
  } else if (latest.state === 'open') {
    await tx.query(
      `UPDATE ${tx.table('ttc_reconciliations')} SET state = 'escalated', escalated_at = $3, escalation_reason = $4 WHERE idempotency_key = $1 AND round = $2`,
      [late.idempotencyKey, latest.round, now, late.reason],
    );
  }
}
