// A settlement and the result that settles it, as one step of the in-memory store.
import type { AuditRef, RecordExecutionInput } from '../ledger.js';
import type { SettleReconciliationInput } from '../reconciliation.js';
import { isStoreError, StoreError } from '../store-error.js';
import { recordExecution } from './in-memory-ledger.js';
import { settleReconciliation } from './in-memory-reconciliation.js';
import type { InMemoryTables } from './in-memory-tables.js';

/**
 * The pg store's one transaction: settles, then records. A record refused before it wrote anything (a reused audit
 * id, a digest mismatch) puts the round and the ledger row back as they were; an idempotency conflict keeps both,
 * as it keeps the audit.
 */
export function settleWithResult(
  tables: InMemoryTables,
  settlement: SettleReconciliationInput,
  result: RecordExecutionInput,
  now: string,
): AuditRef {
  const key = settlement.idempotencyKey;
  if (result.execution.audit.idempotency_key !== key)
    throw new StoreError('invalid_input', { field: 'result', problem: 'another key' });
  const round = tables.reconciliations.get(key)?.at(-1);
  const ledgerRow = tables.ledger.get(key);
  const before = { round: round && { ...round }, ledgerRow: ledgerRow && { ...ledgerRow } };
  settleReconciliation(tables, settlement, now);
  try {
    return recordExecution(tables, result, now);
  } catch (error) {
    if (!isStoreError(error) || error.reason !== 'idempotency_conflict') {
      if (round !== undefined && before.round !== undefined) Object.assign(round, before.round);
      if (ledgerRow !== undefined && before.ledgerRow !== undefined) Object.assign(ledgerRow, before.ledgerRow);
    }
    throw error;
  }
}
