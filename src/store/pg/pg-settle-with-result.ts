// A settlement and the result that settles it, committed together.
import type { AuditRef, RecordExecutionInput } from '../ledger.js';
import type { SettleReconciliationInput } from '../reconciliation.js';
import { StoreError } from '../store-error.js';
import { checkedSettlement, settleWithin } from './pg-reconciliation.js';
import { preparedRecord, recordedOrConflict, recordInTransaction } from './pg-record-execution.js';
import { inTransaction, type PgDatabase } from './sql-runner.js';

/**
 * `settleReconciliation` and then `recordExecution` of the result, in one transaction: the ledger row is locked
 * first, then the round, and the record's ledger transition runs under that lock. All or nothing, except that an
 * idempotency conflict of the record is thrown after the commit, as `recordExecution` does.
 */
export async function settleWithResult(
  database: PgDatabase,
  settlement: SettleReconciliationInput,
  result: RecordExecutionInput,
  now: Date,
): Promise<AuditRef> {
  const checked = checkedSettlement(settlement);
  const prepared = preparedRecord(result, now);
  if (result.execution.audit.idempotency_key !== checked.key)
    throw new StoreError('invalid_input', { field: 'result', problem: 'another key' });
  return recordedOrConflict(
    prepared,
    await inTransaction(database, async (tx) => {
      await settleWithin(tx, checked, now);
      return recordInTransaction(tx, prepared);
    }),
  );
}
