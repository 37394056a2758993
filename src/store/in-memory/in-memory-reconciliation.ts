import { percentile } from '../contract-metrics.js';
import type {
  EscalationInput,
  OpenReconciliationInput,
  ReconciliationAttemptInput,
  ReconciliationMetrics,
  ReconciliationRecord,
  SettleReconciliationInput,
} from '../reconciliation.js';
import { checkDispatchFence, releasedByDispatcher, type Dispatcher } from '../lease.js';
import { auditRefOf } from '../ledger.js';
import { StoreError } from '../store-error.js';
import { revokeLease } from './in-memory-lease.js';
import { copy, type InMemoryTables, type LedgerRow, type Mutable, type RoundRow } from './in-memory-tables.js';

/**
 * The current round, or a new one when there is none or the last settled `not_committed` (a retry went unknown
 * again). With a fence, the fenced dispatch's lease is revoked first and a new round keeps what that found.
 */
export function openReconciliation(
  tables: InMemoryTables,
  input: OpenReconciliationInput,
  now: string,
): ReconciliationRecord {
  const fence = input.fence === undefined ? null : checkDispatchFence(input.fence);
  const dispatch = fence === null ? null : revokeLease(tables, input.idempotencyKey, input.tool, fence, now);
  const rounds = tables.reconciliations.get(input.idempotencyKey) ?? [];
  const latest = rounds.at(-1);
  if (latest && !(latest.state === 'settled' && latest.outcome === 'not_committed')) return recordOf(latest);
  const record: RoundRow = {
    ...newRound(input, (latest?.round ?? 0) + 1, now),
    fencedHolder: fence?.holder ?? null,
    dispatch,
  };
  tables.reconciliations.set(input.idempotencyKey, [...rounds, record]);
  return recordOf(record);
}

/**
 * A leased result recorded after its call was settled "not committed": the row is marked disputed and `unknown` (it
 * keeps the verdict's result), and the key's latest round is escalated — a new round when the latest was settled.
 */
export function escalateLateResult(
  tables: InMemoryTables,
  late: { idempotencyKey: string; auditId: string; workflowId: string; callId: string; tool: string; reason: string },
  now: string,
): void {
  const row = tables.ledger.get(late.idempotencyKey);
  if (row && row.status !== 'completed' && row.lateCommitAuditId === null) {
    const lateAudit = tables.audits.get(late.auditId);
    Object.assign(row, {
      status: 'unknown',
      lateCommitAuditId: late.auditId,
      auditRef: row.auditRef ?? (lateAudit ? auditRefOf(lateAudit.audit) : null),
    });
  }
  const rounds = tables.reconciliations.get(late.idempotencyKey) ?? [];
  const latest = rounds.at(-1);
  const escalated = { state: 'escalated' as const, escalatedAt: now, escalationReason: late.reason };
  if (latest === undefined || latest.state === 'settled') {
    const round: RoundRow = {
      ...newRound(late, (latest?.round ?? 0) + 1, now),
      ...escalated,
      fencedHolder: null,
      dispatch: null,
    };
    tables.reconciliations.set(late.idempotencyKey, [...rounds, round]);
  } else if (latest.state === 'open') Object.assign(latest, escalated);
}

/** Appends an attempt to the current round; the same attempt number with the same finding is a retry. */
export function recordReconciliationAttempt(
  tables: InMemoryTables,
  input: ReconciliationAttemptInput,
  now: string,
): ReconciliationRecord {
  const round = currentRound(tables, input.idempotencyKey);
  attemptAppender(round, input, now)();
  return recordOf(round);
}

/**
 * Checks an attempt against the round (a conflict throws now) and returns what appends it, so that a caller that
 * may still refuse appends nothing: the pg store's transaction gives that for free.
 */
function attemptAppender(round: RoundRow, input: ReconciliationAttemptInput, now: string): () => void {
  const existing = round.attempts.find((a) => a.attempt === input.attempt);
  if (existing) {
    if (existing.finding !== input.finding)
      throw new StoreError('reconciliation_conflict', { idempotencyKey: input.idempotencyKey, attempt: input.attempt });
    return () => {};
  }
  if (round.state === 'settled')
    throw new StoreError('reconciliation_conflict', {
      idempotencyKey: input.idempotencyKey,
      problem: 'already settled',
    });
  return () => {
    round.attempts = [
      ...round.attempts,
      { attempt: input.attempt, finding: input.finding, detail: input.detail, at: now },
    ].sort((a, b) => a.attempt - b.attempt);
  };
}

/** Marks an open round as waiting for a human (an escalated round stays as it is). */
export function escalateReconciliation(
  tables: InMemoryTables,
  input: EscalationInput,
  now: string,
): ReconciliationRecord {
  const round = currentRound(tables, input.idempotencyKey);
  if (round.state === 'settled')
    throw new StoreError('reconciliation_conflict', {
      idempotencyKey: input.idempotencyKey,
      problem: 'already settled',
    });
  if (round.state === 'open')
    Object.assign(round, { state: 'escalated', escalatedAt: now, escalationReason: input.reason });
  return recordOf(round);
}

/**
 * Settles the current round; `not_committed` releases the ledger key in the same step (unless another dispatcher
 * holds it), so a retry may claim it. By receipt it is refused while the fenced dispatch may still be in flight or
 * when a commit was recorded meanwhile; any settlement ends a late-commit dispute. A receipt's finding is appended
 * only when the settlement is not refused.
 */
export function settleReconciliation(
  tables: InMemoryTables,
  input: SettleReconciliationInput,
  now: string,
): ReconciliationRecord {
  const round = currentRound(tables, input.idempotencyKey);
  if (input.via === 'human' && !input.resolvedBy) throw new StoreError('invalid_input', { field: 'resolvedBy' });
  if (input.finding !== undefined && input.via !== 'receipt')
    throw new StoreError('invalid_input', { field: 'finding' });
  const appendFinding =
    input.finding === undefined
      ? () => {}
      : attemptAppender(round, { idempotencyKey: input.idempotencyKey, ...input.finding, finding: input.outcome }, now);
  if (round.state === 'settled') {
    if (round.outcome === input.outcome && round.via === input.via) return recordOf(round);
    throw new StoreError('reconciliation_conflict', { idempotencyKey: input.idempotencyKey });
  }
  const ledgerRow = tables.ledger.get(input.idempotencyKey);
  if (input.outcome === 'not_committed' && input.via === 'receipt') {
    if (ledgerRow && (ledgerRow.status === 'completed' || ledgerRow.lateCommitAuditId !== null))
      throw new StoreError('verdict_premature', { idempotencyKey: input.idempotencyKey, why: 'commit_recorded' });
    // As in Postgres: the fenced attempt's own record saying it never started ends the wait.
    const quietAt =
      ledgerRow !== undefined &&
      releasedByDispatcher(round.fencedHolder, ledgerRow.status, recordedBy(tables, ledgerRow))
        ? null
        : (round.dispatch?.quietAt ?? null);
    if (quietAt !== null && Date.parse(now) < Date.parse(quietAt))
      throw new StoreError('verdict_premature', {
        idempotencyKey: input.idempotencyKey,
        why: 'dispatch_in_flight',
        quietAt,
      });
  }
  appendFinding();
  Object.assign(round, {
    state: 'settled',
    settledAt: now,
    outcome: input.outcome,
    via: input.via,
    receiptExternalId: input.receiptExternalId,
    resolvedBy: input.resolvedBy,
    note: input.note,
  });
  if (ledgerRow === undefined) return recordOf(round);
  if (input.outcome === 'committed') ledgerRow.lateCommitAuditId = null;
  else if (
    (ledgerRow.status === 'claimed' || ledgerRow.status === 'unknown') &&
    (round.fencedHolder === null ||
      ledgerRow.lease === null ||
      ledgerRow.lease.holder === round.fencedHolder ||
      ledgerRow.lateCommitAuditId !== null)
  ) {
    Object.assign(ledgerRow, { status: 'released', lateCommitAuditId: null });
  }
  return recordOf(round);
}

/** The workflow, run and call of the attempt a ledger row last recorded, or `null`. */
function recordedBy(tables: InMemoryTables, row: LedgerRow): Dispatcher | null {
  const audit = row.auditRef === null ? undefined : tables.audits.get(row.auditRef.audit_id);
  return audit === undefined || audit.runId === null
    ? null
    : { workflowId: audit.workflowId, runId: audit.runId, callId: audit.callId };
}

/** The latest round of a key, or `null`. */
export function getReconciliation(tables: InMemoryTables, idempotencyKey: string): ReconciliationRecord | null {
  const latest = tables.reconciliations.get(idempotencyKey)?.at(-1);
  return latest ? recordOf(latest) : null;
}

/** Open and escalated rounds, oldest first. */
export function listUnsettled(tables: InMemoryTables, limit = 100): ReconciliationRecord[] {
  const unsettled = [...tables.reconciliations.values()].flat().filter((r) => r.state !== 'settled');
  return unsettled
    .sort((a, b) => a.openedAt.localeCompare(b.openedAt))
    .slice(0, limit)
    .map(recordOf);
}

/** Open and escalated rounds by tool. */
export function countUnsettledByTool(tables: InMemoryTables): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const round of [...tables.reconciliations.values()].flat())
    if (round.state !== 'settled') counts[round.tool] = (counts[round.tool] ?? 0) + 1;
  return counts;
}

/** Unknown side effects and time to settle over rounds opened since `since` (every round when `null`). */
export function reconciliationMetricsSince(tables: InMemoryTables, since: Date | null): ReconciliationMetrics {
  return reconciliationMetricsOf(
    [...tables.reconciliations.values()]
      .flat()
      .filter((r) => since === null || Date.parse(r.openedAt) >= since.getTime()),
  );
}

/** Unknown side-effect count and time-to-settle percentiles over some rounds. */
export function reconciliationMetricsOf(all: readonly ReconciliationRecord[]): ReconciliationMetrics {
  const durations = all
    .filter((r) => r.settledAt !== null)
    .map((r) => Date.parse(r.settledAt ?? '') - Date.parse(r.openedAt))
    .sort((a, b) => a - b);
  return {
    unknownSideEffects: all.filter((r) => r.state !== 'settled').length,
    escalated: all.filter((r) => r.state === 'escalated').length,
    settled: durations.length,
    timeToSettleMs:
      durations.length === 0
        ? null
        : { p50: percentile(durations, 0.5), p95: percentile(durations, 0.95), max: durations.at(-1) ?? 0 },
  };
}

function currentRound(tables: InMemoryTables, idempotencyKey: string): RoundRow {
  const latest = tables.reconciliations.get(idempotencyKey)?.at(-1);
  if (!latest) throw new StoreError('reconciliation_not_found', { idempotencyKey });
  return latest;
}

function newRound(
  input: OpenReconciliationInput,
  round: number,
  now: string,
): Omit<RoundRow, 'fencedHolder' | 'dispatch'> {
  return {
    idempotencyKey: input.idempotencyKey,
    round,
    workflowId: input.workflowId,
    callId: input.callId,
    tool: input.tool,
    auditId: input.auditId,
    state: 'open',
    openedAt: now,
    escalatedAt: null,
    escalationReason: null,
    settledAt: null,
    outcome: null,
    via: null,
    receiptExternalId: null,
    resolvedBy: null,
    note: null,
    attempts: [],
  };
}

/** The record a caller sees: a copy, without the fenced dispatcher (a column the Postgres store does not return either). */
function recordOf(row: RoundRow): ReconciliationRecord {
  const record: Mutable<ReconciliationRecord> & { fencedHolder?: string | null } = copy(row);
  delete record.fencedHolder;
  return record;
}
