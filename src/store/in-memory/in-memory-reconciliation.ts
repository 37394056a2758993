import { percentile } from '../contract-metrics.js';
import type {
  EscalationInput,
  OpenReconciliationInput,
  ReconciliationAttemptInput,
  ReconciliationMetrics,
  ReconciliationRecord,
  SettleReconciliationInput,
} from '../reconciliation.js';
import { StoreError } from '../store-error.js';
import { copy, type InMemoryTables, type Mutable } from './in-memory-tables.js';

/** The current round, or a new one when there is none or the last settled `not_committed` (a retry went unknown again). */
export function openReconciliation(tables: InMemoryTables, input: OpenReconciliationInput, now: string): ReconciliationRecord {
  const rounds = tables.reconciliations.get(input.idempotencyKey) ?? [];
  const latest = rounds.at(-1);
  if (latest && !(latest.state === 'settled' && latest.outcome === 'not_committed')) return copy(latest);
  const record: Mutable<ReconciliationRecord> = {
    idempotencyKey: input.idempotencyKey, round: (latest?.round ?? 0) + 1, workflowId: input.workflowId, callId: input.callId, tool: input.tool, auditId: input.auditId,
    state: 'open', openedAt: now, escalatedAt: null, escalationReason: null, settledAt: null, outcome: null, via: null, receiptExternalId: null, resolvedBy: null, note: null, attempts: [],
  };
  tables.reconciliations.set(input.idempotencyKey, [...rounds, record]);
  return copy(record);
}

/** Appends an attempt to the current round; the same attempt number with the same finding is a retry. */
export function recordReconciliationAttempt(tables: InMemoryTables, input: ReconciliationAttemptInput, now: string): ReconciliationRecord {
  const round = currentRound(tables, input.idempotencyKey);
  const existing = round.attempts.find((a) => a.attempt === input.attempt);
  if (existing) {
    if (existing.finding !== input.finding) throw new StoreError('reconciliation_conflict', { idempotencyKey: input.idempotencyKey, attempt: input.attempt });
    return copy(round);
  }
  if (round.state === 'settled') throw new StoreError('reconciliation_conflict', { idempotencyKey: input.idempotencyKey, problem: 'already settled' });
  round.attempts = [...round.attempts, { attempt: input.attempt, finding: input.finding, detail: input.detail, at: now }].sort((a, b) => a.attempt - b.attempt);
  return copy(round);
}

/** Marks an open round as waiting for a human (an escalated round stays as it is). */
export function escalateReconciliation(tables: InMemoryTables, input: EscalationInput, now: string): ReconciliationRecord {
  const round = currentRound(tables, input.idempotencyKey);
  if (round.state === 'settled') throw new StoreError('reconciliation_conflict', { idempotencyKey: input.idempotencyKey, problem: 'already settled' });
  if (round.state === 'open') Object.assign(round, { state: 'escalated', escalatedAt: now, escalationReason: input.reason });
  return copy(round);
}

/** Settles the current round; `not_committed` releases the ledger key in the same step, so a retry may claim it. */
export function settleReconciliation(tables: InMemoryTables, input: SettleReconciliationInput, now: string): ReconciliationRecord {
  const round = currentRound(tables, input.idempotencyKey);
  if (input.via === 'human' && !input.resolvedBy) throw new StoreError('invalid_input', { field: 'resolvedBy' });
  if (round.state === 'settled') {
    if (round.outcome === input.outcome && round.via === input.via) return copy(round);
    throw new StoreError('reconciliation_conflict', { idempotencyKey: input.idempotencyKey });
  }
  Object.assign(round, { state: 'settled', settledAt: now, outcome: input.outcome, via: input.via, receiptExternalId: input.receiptExternalId, resolvedBy: input.resolvedBy, note: input.note });
  const ledgerRow = tables.ledger.get(input.idempotencyKey);
  if (input.outcome === 'not_committed' && ledgerRow && (ledgerRow.status === 'claimed' || ledgerRow.status === 'unknown')) ledgerRow.status = 'released';
  return copy(round);
}

/** The latest round of a key, or `null`. */
export function getReconciliation(tables: InMemoryTables, idempotencyKey: string): ReconciliationRecord | null {
  const latest = tables.reconciliations.get(idempotencyKey)?.at(-1);
  return latest ? copy(latest) : null;
}

/** Open and escalated rounds, oldest first. */
export function listUnsettled(tables: InMemoryTables, limit = 100): ReconciliationRecord[] {
  const unsettled = [...tables.reconciliations.values()].flat().filter((r) => r.state !== 'settled');
  return unsettled.sort((a, b) => a.openedAt.localeCompare(b.openedAt)).slice(0, limit).map(copy);
}

/** Unknown side effects and time to settle over rounds opened since `since` (every round when `null`). */
export function reconciliationMetricsSince(tables: InMemoryTables, since: Date | null): ReconciliationMetrics {
  const all = [...tables.reconciliations.values()].flat().filter((r) => since === null || Date.parse(r.openedAt) >= since.getTime());
  const durations = all.filter((r) => r.settledAt !== null).map((r) => Date.parse(r.settledAt ?? '') - Date.parse(r.openedAt)).sort((a, b) => a - b);
  return {
    unknownSideEffects: all.filter((r) => r.state !== 'settled').length,
    escalated: all.filter((r) => r.state === 'escalated').length,
    settled: durations.length,
    timeToSettleMs: durations.length === 0 ? null : { p50: percentile(durations, 0.5), p95: percentile(durations, 0.95), max: durations.at(-1) ?? 0 },
  };
}

function currentRound(tables: InMemoryTables, idempotencyKey: string): Mutable<ReconciliationRecord> {
  const latest = tables.reconciliations.get(idempotencyKey)?.at(-1);
  if (!latest) throw new StoreError('reconciliation_not_found', { idempotencyKey });
  return latest;
}
