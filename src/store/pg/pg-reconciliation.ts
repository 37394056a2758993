import { checkCount, checkOptionalText, checkText } from '../input-checks.js';
import type {
  EscalationInput,
  OpenReconciliationInput,
  ReconcileFinding,
  ReconciliationAttemptInput,
  ReconciliationMetrics,
  ReconciliationRecord,
  SettleReconciliationInput,
} from '../reconciliation.js';
import { checkDispatchFence, releasedByDispatcher, type Dispatcher } from '../lease.js';
import type { LedgerStatus } from '../ledger.js';
import { revokeLease } from './pg-lease.js';
import {
  type AttemptRow,
  latestRound,
  lockLatest,
  recordOf,
  ROUND_COLUMNS,
  type RoundRow,
  withAttempts,
} from './pg-reconciliation-rows.js';
import { inTransaction, type PgDatabase, type Queryable } from './sql-runner.js';
import { StoreError } from '../store-error.js';

/**
 * What settling reads of the key's ledger row (locked first: ledger row before round, as everywhere), with the
 * workflow, run and call of the attempt it last recorded.
 */
interface LedgerLock {
  readonly status: LedgerStatus;
  readonly late_commit_audit_id: string | null;
  readonly recorded_workflow_id: string | null;
  readonly recorded_run_id: string | null;
  readonly recorded_call_id: string | null;
}

const FINDINGS = new Set<ReconcileFinding>(['committed', 'not_committed', 'unknown']);

/**
 * Opens the record for a key: returns the latest round unless it was settled `not_committed`, in which case a
 * safe retry became unknown again and a new round starts. Concurrent openers end up with the same round. With a
 * fence, the fenced dispatch's lease is revoked first, in the same transaction, and a new round keeps what that found.
 */
export async function openReconciliation(
  database: PgDatabase,
  input: OpenReconciliationInput,
  now: Date,
): Promise<ReconciliationRecord> {
  const key = checkText(input.idempotencyKey, 'idempotencyKey');
  const tool = checkText(input.tool, 'tool');
  const fields = [
    checkText(input.workflowId, 'workflowId'),
    checkText(input.callId, 'callId'),
    tool,
    checkOptionalText(input.auditId, 'auditId'),
  ];
  const fence = input.fence === undefined ? null : checkDispatchFence(input.fence);
  return inTransaction(database, async (tx) => {
    // Ledger row before round, as everywhere both are locked.
    const dispatch = fence === null ? null : await revokeLease(tx, key, tool, fence, now);
    const latest = (await tx.query<RoundRow>(`${latestRound(tx)} FOR UPDATE`, [key]))[0];
    if (latest && !(latest.state === 'settled' && latest.outcome === 'not_committed')) return withAttempts(tx, latest);
    const round = (latest?.round ?? 0) + 1;
    const inserted = await tx.query<RoundRow>(
      `INSERT INTO ${tx.table('ttc_reconciliations')} (idempotency_key, round, workflow_id, call_id, tool, audit_id, state, opened_at, fenced_holder, lease_dispatched, dispatch_quiet_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'open', $7, $8, $9, $10) ON CONFLICT (idempotency_key, round) DO NOTHING RETURNING ${ROUND_COLUMNS}`,
      [key, round, ...fields, now, fence?.holder ?? null, dispatch?.dispatched ?? null, dispatch?.quietAt ?? null],
    );
    // A round this transaction created has no attempts yet. Losing the insert race means another opener created
    // this round a moment ago: use theirs.
    if (inserted[0] !== undefined) return recordOf(inserted[0], []);
    const row = (await tx.query<RoundRow>(latestRound(tx), [key]))[0];
    if (!row) throw new StoreError('internal', { problem: 'reconciliation round vanished' });
    return withAttempts(tx, row);
  });
}

/** Appends one reconcile attempt to the latest round; the same attempt number with the same finding is a no-op. */
export async function recordReconciliationAttempt(
  database: PgDatabase,
  input: ReconciliationAttemptInput,
  now: Date,
): Promise<ReconciliationRecord> {
  const key = checkText(input.idempotencyKey, 'idempotencyKey');
  const attempt = checkedAttempt(input);
  return inTransaction(database, async (tx) => {
    const round = await lockLatest(tx, key);
    await appendAttempt(tx, round, attempt, now);
    return withAttempts(tx, round);
  });
}

type CheckedAttempt = Omit<ReconciliationAttemptInput, 'idempotencyKey'>;

function checkedAttempt(input: CheckedAttempt): CheckedAttempt {
  if (!FINDINGS.has(input.finding))
    throw new StoreError('invalid_input', { field: 'finding', problem: 'unknown_finding' });
  return {
    attempt: checkCount(input.attempt, 'attempt', 1),
    finding: input.finding,
    detail: checkOptionalText(input.detail, 'detail'),
  };
}

/**
 * Appends an attempt to a round locked by this transaction: one statement when the number is new (always, but on a
 * retry). The same number with the same finding is a retry; a new number on a settled round is a conflict.
 */
async function appendAttempt(
  tx: Queryable,
  round: RoundRow,
  { attempt, finding, detail }: CheckedAttempt,
  now: Date,
): Promise<void> {
  const key = round.idempotency_key;
  if (round.state !== 'settled') {
    const inserted = await tx.query(
      `INSERT INTO ${tx.table('ttc_reconciliation_attempts')} (idempotency_key, round, attempt, finding, detail, at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (idempotency_key, round, attempt) DO NOTHING RETURNING 1`,
      [key, round.round, attempt, finding, detail, now],
    );
    if (inserted.length > 0) return;
  }
  const existing = (
    await tx.query<AttemptRow>(
      `SELECT finding FROM ${tx.table('ttc_reconciliation_attempts')} WHERE idempotency_key = $1 AND round = $2 AND attempt = $3`,
      [key, round.round, attempt],
    )
  )[0];
  if (existing === undefined)
    throw new StoreError('reconciliation_conflict', { idempotencyKey: key, problem: 'already settled' });
  if (existing.finding !== finding)
    throw new StoreError('reconciliation_conflict', { idempotencyKey: key, attempt, recorded: existing.finding });
}

/** Hands the latest round to a human; escalating again is a no-op, escalating a settled round a conflict. */
export async function escalateReconciliation(
  database: PgDatabase,
  input: EscalationInput,
  now: Date,
): Promise<ReconciliationRecord> {
  const key = checkText(input.idempotencyKey, 'idempotencyKey');
  const reason = checkText(input.reason, 'reason');
  return inTransaction(database, async (tx) => {
    const round = await lockLatest(tx, key);
    if (round.state === 'settled')
      throw new StoreError('reconciliation_conflict', { idempotencyKey: key, problem: 'already settled' });
    if (round.state === 'escalated') return withAttempts(tx, round);
    const row = (
      await tx.query<RoundRow>(
        `UPDATE ${tx.table('ttc_reconciliations')} SET state = 'escalated', escalated_at = $3, escalation_reason = $4 WHERE idempotency_key = $1 AND round = $2 RETURNING ${ROUND_COLUMNS}`,
        [key, round.round, now, reason],
      )
    )[0];
    return withAttempts(tx, row ?? round);
  });
}

/**
 * Settles the latest round. Settling the same way again is a no-op, differently a conflict. `not_committed`
 * also releases the ledger key in the same transaction (unless another dispatcher holds it), so the safe retry with
 * that key can claim it; by receipt it is refused as `verdict_premature` while the fenced dispatch may still be in
 * flight (database clock) or when a commit was recorded meanwhile. A human's settlement ends a late-commit dispute.
 * The query that found a receipt's answer is recorded in the same transaction.
 */
export async function settleReconciliation(
  database: PgDatabase,
  input: SettleReconciliationInput,
  now: Date,
): Promise<ReconciliationRecord> {
  const settlement = checkedSettlement(input);
  return inTransaction(database, async (tx) => withAttempts(tx, await settleWithin(tx, settlement, now)));
}

/** A settlement whose fields were checked, ready to run inside a transaction. */
export interface CheckedSettlement {
  readonly key: string;
  readonly outcome: 'committed' | 'not_committed';
  readonly via: 'receipt' | 'human';
  readonly receipt: string | null;
  readonly resolvedBy: string | null;
  readonly note: string | null;
  readonly finding: CheckedAttempt | null;
}

/** The input checks of a settlement, before any transaction starts. */
export function checkedSettlement(input: SettleReconciliationInput): CheckedSettlement {
  const key = checkText(input.idempotencyKey, 'idempotencyKey');
  if (input.outcome !== 'committed' && input.outcome !== 'not_committed')
    throw new StoreError('invalid_input', { field: 'outcome' });
  if (input.via !== 'receipt' && input.via !== 'human') throw new StoreError('invalid_input', { field: 'via' });
  const resolvedBy = checkOptionalText(input.resolvedBy, 'resolvedBy');
  if (input.via === 'human' && resolvedBy === null)
    throw new StoreError('invalid_input', { field: 'resolvedBy', problem: 'a human resolution names its resolver' });
  if (input.finding !== undefined && input.via !== 'receipt')
    throw new StoreError('invalid_input', { field: 'finding', problem: 'only an answer by receipt is a finding' });
  return {
    key,
    outcome: input.outcome,
    via: input.via,
    receipt: checkOptionalText(input.receiptExternalId, 'receiptExternalId'),
    resolvedBy,
    note: checkOptionalText(input.note, 'note'),
    finding: input.finding === undefined ? null : checkedAttempt({ ...input.finding, finding: input.outcome }),
  };
}

/**
 * {@link settleReconciliation} inside the caller's transaction: locks the key's ledger row, then its latest round
 * (the order every writer of both keeps), and returns the round as settled.
 */
export async function settleWithin(tx: Queryable, settlement: CheckedSettlement, now: Date): Promise<RoundRow> {
  const { key, outcome, via } = settlement;
  const ledger = (
    await tx.query<LedgerLock>(
      `SELECT l.status, l.late_commit_audit_id, a.workflow_id AS recorded_workflow_id, a.run_id AS recorded_run_id, a.call_id AS recorded_call_id
         FROM ${tx.table('ttc_ledger')} l LEFT JOIN ${tx.table('ttc_audit')} a ON a.audit_id = l.audit_id
        WHERE l.idempotency_key = $1 FOR UPDATE OF l`,
      [key],
    )
  )[0];
  const round = await lockLatest(tx, key);
  // As if recorded just before settling: a refusal below rolls it back with everything else.
  if (settlement.finding !== null) await appendAttempt(tx, round, settlement.finding, now);
  if (round.state === 'settled') {
    if (round.outcome === outcome && round.via === via) return round;
    throw new StoreError('reconciliation_conflict', { idempotencyKey: key, recorded: round.outcome, via: round.via });
  }
  if (outcome === 'not_committed' && via === 'receipt') await assertVerdictFinal(tx, key, round, ledger);
  const row = (
    await tx.query<RoundRow>(
      `UPDATE ${tx.table('ttc_reconciliations')} SET state = 'settled', settled_at = $3, outcome = $4, via = $5, receipt_external_id = $6, resolved_by = $7, note = $8
        WHERE idempotency_key = $1 AND round = $2 RETURNING ${ROUND_COLUMNS}`,
      [key, round.round, now, outcome, via, settlement.receipt, settlement.resolvedBy, settlement.note],
    )
  )[0];
  if (outcome === 'not_committed') {
    await tx.query(
      `UPDATE ${tx.table('ttc_ledger')} SET status = 'released', late_commit_audit_id = NULL
        WHERE idempotency_key = $1 AND status IN ('claimed', 'unknown')
          AND ($2::text IS NULL OR lease_holder IS NULL OR lease_holder = $2 OR late_commit_audit_id IS NOT NULL)`,
      [key, round.fenced_holder],
    );
  } else if (ledger !== undefined && ledger.late_commit_audit_id !== null) {
    // The committed result (reconciled or a human's) is recorded next and completes the row; a dispute ends here.
    // The row is locked above, so what was read of it still holds.
    await tx.query(`UPDATE ${tx.table('ttc_ledger')} SET late_commit_audit_id = NULL WHERE idempotency_key = $1`, [
      key,
    ]);
  }
  return row ?? round;
}

/**
 * "Not committed" from the provider is final only when nothing of the fenced dispatch can still arrive: it had not
 * passed its fence, its own record says it never started, or the end of its lease (its deadline, or its record of an
 * unknown outcome when that came first) plus grace is over; and no commit of the key was recorded meanwhile.
 */
async function assertVerdictFinal(
  tx: Queryable,
  key: string,
  round: RoundRow,
  ledger: LedgerLock | undefined,
): Promise<void> {
  if (ledger !== undefined && (ledger.status === 'completed' || ledger.late_commit_audit_id !== null)) {
    throw new StoreError('verdict_premature', { idempotencyKey: key, why: 'commit_recorded' });
  }
  if (
    round.dispatch_quiet_at === null ||
    (ledger !== undefined && releasedByDispatcher(round.fenced_holder, ledger.status, recordedBy(ledger)))
  )
    return;
  const clock = (
    await tx.query<{ in_flight: boolean }>('SELECT clock_timestamp() < $1::timestamptz AS in_flight', [
      round.dispatch_quiet_at,
    ])
  )[0];
  if (clock?.in_flight === true)
    throw new StoreError('verdict_premature', {
      idempotencyKey: key,
      why: 'dispatch_in_flight',
      quietAt: round.dispatch_quiet_at.toISOString(),
    });
}

/** The workflow, run and call of the attempt a ledger row last recorded, or `null`. */
function recordedBy(ledger: LedgerLock): Dispatcher | null {
  const { recorded_workflow_id: workflowId, recorded_run_id: runId, recorded_call_id: callId } = ledger;
  return workflowId === null || runId === null || callId === null ? null : { workflowId, runId, callId };
}

/** The latest round of a key, or `null`. */
export async function getReconciliation(db: Queryable, idempotencyKey: string): Promise<ReconciliationRecord | null> {
  const row = (await db.query<RoundRow>(latestRound(db), [checkText(idempotencyKey, 'idempotencyKey')]))[0];
  return row ? withAttempts(db, row) : null;
}

/** Unsettled rounds (open or escalated), oldest first. */
export async function listUnsettled(db: Queryable, limit = 100): Promise<ReconciliationRecord[]> {
  const rows = await db.query<RoundRow>(unsettledRoundsSql(db), [checkCount(limit, 'limit', 1)]);
  if (rows.length === 0) return [];
  const attempts = await db.query<AttemptRow>(
    `SELECT a.idempotency_key, a.round, a.attempt, a.finding, a.detail, a.at
       FROM ${db.table('ttc_reconciliation_attempts')} a JOIN unnest($1::text[], $2::int[]) AS r(k, n) ON a.idempotency_key = r.k AND a.round = r.n
      ORDER BY a.attempt`,
    [rows.map((r) => r.idempotency_key), rows.map((r) => r.round)],
  );
  return rows.map((row) =>
    recordOf(
      row,
      attempts.filter((a) => a.idempotency_key === row.idempotency_key && a.round === row.round),
    ),
  );
}

/** The oldest `$1` open and escalated rounds (the partial index of unsettled rounds serves it). */
export function unsettledRoundsSql(db: Queryable): string {
  return `SELECT ${ROUND_COLUMNS} FROM ${db.table('ttc_reconciliations')} WHERE state <> 'settled' ORDER BY opened_at, idempotency_key LIMIT $1`;
}

/** Open and escalated rounds by tool; the condition is the partial index's, so only unsettled rounds are read. */
export function unsettledByToolSql(db: Queryable): string {
  return `SELECT tool, count(*) AS unsettled FROM ${db.table('ttc_reconciliations')} WHERE state <> 'settled' GROUP BY tool`;
}

/** See {@link unsettledByToolSql}. */
export async function countUnsettledByTool(db: Queryable): Promise<Record<string, number>> {
  const rows = await db.query<{ tool: string; unsettled: string }>(unsettledByToolSql(db), []);
  return Object.fromEntries(rows.map((row) => [row.tool, Number(row.unsettled)]));
}

/** Unknown side-effect count and time-to-settle percentiles over every round opened at or after `since` (all when `null`). */
export async function reconciliationMetrics(db: Queryable, since: Date | null = null): Promise<ReconciliationMetrics> {
  const row = (
    await db.query<{
      unknown: string;
      escalated: string;
      settled: string;
      p50: number | null;
      p95: number | null;
      max: number | null;
    }>(
      `WITH d AS (SELECT state, EXTRACT(EPOCH FROM (settled_at - opened_at)) * 1000 AS ms FROM ${db.table('ttc_reconciliations')} WHERE $1::timestamptz IS NULL OR opened_at >= $1)
       SELECT count(*) FILTER (WHERE state <> 'settled') AS unknown,
              count(*) FILTER (WHERE state = 'escalated') AS escalated,
              count(*) FILTER (WHERE state = 'settled') AS settled,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE state = 'settled') AS p50,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY ms) FILTER (WHERE state = 'settled') AS p95,
              max(ms) FILTER (WHERE state = 'settled')::float8 AS max
         FROM d`,
      [since],
    )
  )[0];
  if (!row) throw new StoreError('internal', { problem: 'metrics query returned nothing' });
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
