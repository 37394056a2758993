// How a reconciliation round is stored (one row per round, its attempts beside it) and read back as a record.
import type { ReconcileFinding, ReconciliationRecord, ReconciliationState } from '../reconciliation.js';
import { StoreError } from '../store-error.js';
import { isoOf, isoOrNull } from '../timestamps.js';
import type { Queryable } from './sql-runner.js';

export interface RoundRow {
  readonly idempotency_key: string;
  readonly round: number;
  readonly workflow_id: string;
  readonly call_id: string;
  readonly tool: string;
  readonly audit_id: string | null;
  readonly state: ReconciliationState;
  readonly opened_at: Date;
  readonly escalated_at: Date | null;
  readonly escalation_reason: string | null;
  readonly settled_at: Date | null;
  readonly outcome: 'committed' | 'not_committed' | null;
  readonly via: 'receipt' | 'human' | null;
  readonly receipt_external_id: string | null;
  readonly resolved_by: string | null;
  readonly note: string | null;
  readonly fenced_holder: string | null;
  readonly lease_dispatched: boolean | null;
  readonly dispatch_quiet_at: Date | null;
}

export interface AttemptRow {
  readonly idempotency_key: string;
  readonly round: number;
  readonly attempt: number;
  readonly finding: ReconcileFinding;
  readonly detail: string | null;
  readonly at: Date;
}

export const ROUND_COLUMNS =
  'idempotency_key, round, workflow_id, call_id, tool, audit_id, state, opened_at, escalated_at, escalation_reason, settled_at, outcome, via, receipt_external_id, resolved_by, note, fenced_holder, lease_dispatched, dispatch_quiet_at';
/** The latest round of a key (append ` FOR UPDATE` to lock it). */
export const latestRound = (db: Queryable): string =>
  `SELECT ${ROUND_COLUMNS} FROM ${db.table('ttc_reconciliations')} WHERE idempotency_key = $1 ORDER BY round DESC LIMIT 1`;

/** The latest round of a key, locked for this transaction; a missing round is `reconciliation_not_found`. */
export async function lockLatest(tx: Queryable, key: string): Promise<RoundRow> {
  const row = (await tx.query<RoundRow>(`${latestRound(tx)} FOR UPDATE`, [key]))[0];
  if (!row) throw new StoreError('reconciliation_not_found', { idempotencyKey: key });
  return row;
}

export async function withAttempts(db: Queryable, row: RoundRow): Promise<ReconciliationRecord> {
  const attempts = await db.query<AttemptRow>(
    `SELECT idempotency_key, round, attempt, finding, detail, at FROM ${db.table('ttc_reconciliation_attempts')} WHERE idempotency_key = $1 AND round = $2 ORDER BY attempt`,
    [row.idempotency_key, row.round],
  );
  return recordOf(row, attempts);
}

export function recordOf(row: RoundRow, attempts: readonly AttemptRow[]): ReconciliationRecord {
  return {
    idempotencyKey: row.idempotency_key,
    round: row.round,
    workflowId: row.workflow_id,
    callId: row.call_id,
    tool: row.tool,
    auditId: row.audit_id,
    state: row.state,
    openedAt: isoOf(row.opened_at),
    escalatedAt: isoOrNull(row.escalated_at),
    escalationReason: row.escalation_reason,
    settledAt: isoOrNull(row.settled_at),
    outcome: row.outcome,
    via: row.via,
    receiptExternalId: row.receipt_external_id,
    resolvedBy: row.resolved_by,
    note: row.note,
    dispatch:
      row.fenced_holder === null
        ? null
        : { dispatched: row.lease_dispatched === true, quietAt: isoOrNull(row.dispatch_quiet_at) },
    attempts: attempts.map((a) => ({ attempt: a.attempt, finding: a.finding, detail: a.detail, at: isoOf(a.at) })),
  };
}
