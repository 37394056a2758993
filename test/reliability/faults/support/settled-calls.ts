import assert from 'node:assert/strict';
import type { ToolCallResult } from '../../../../workflows/index.js';
import type { ReconciliationRecord } from '../../../../src/store/reconciliation.js';
import type { ToolStore } from '../../../../src/store/tool-store.js';
import type { PaymentsService } from '../../../../testkit/payments-service.js';
import type { TestDatabase } from '../../../support/postgres.js';

/** One write call a fault test made, with the result its workflow returned. */
export interface TrackedCall {
  readonly workflowId: string;
  readonly tool: string;
  readonly key: string;
  readonly result: ToolCallResult;
}

/** Figures for the report. */
export interface SettlementSummary {
  readonly calls: number;
  readonly succeeded: number;
  /** Settled as failed and `not_started` (nothing happened at the provider). */
  readonly failed: number;
  /** Calls whose outcome was unknown at some point and that a reconciliation settled. */
  readonly reconciled: number;
  /** Charge requests that reached the provider, and the side effects they caused. */
  readonly dispatches: number;
  readonly sideEffects: number;
}

/**
 * Asserts that every call is settled and that the ledger and the audit agree with the provider. "Settled" means,
 * from the code: the model result's status is `succeeded` (outcome `committed`) or `failed` (outcome `not_started`,
 * only where `mayFail` allows it) — never `unknown`; the key's ledger row is `completed` or `released`, never
 * `claimed` (a crashed attempt) or `unknown` (owned by reconciliation); a reconciliation record, when one was
 * opened, is `settled` with the same outcome; and no record is left open or escalated. Agreement: the provider has
 * at most one side effect per key, exactly one for every succeeded call, and its charge id is the receipt id in
 * the model result, the ledger row and every audit row that names a receipt.
 */
export async function assertSettled(
  world: { store: ToolStore; payments: PaymentsService; db: TestDatabase },
  calls: readonly TrackedCall[],
  mayFail: (call: TrackedCall, record: ReconciliationRecord | null) => boolean,
): Promise<SettlementSummary> {
  const { store, payments } = world;
  let succeeded = 0;
  let failed = 0;
  let reconciled = 0;
  for (const call of calls) {
    const { modelResult } = call.result;
    const charge = payments.charge(call.key);
    const ledger = await store.getLedgerEntry(call.key);
    const record = await store.getReconciliation(call.key);
    const story =
      record === null
        ? 'never reconciled'
        : `reconciliation round ${record.round}, findings ${record.attempts.map((a) => a.finding).join('/') || 'none'}`;
    const where = `${call.workflowId} ${call.key} (${payments.dispatches(call.key)} requests, ${payments.commits(call.key)} commits, ${story})`;
    if (record !== null) {
      reconciled++;
      assert.equal(record.state, 'settled', `${where}: reconciliation record settled`);
    }
    if (modelResult.status === 'succeeded') {
      succeeded++;
      assert.equal(modelResult.execution.outcome, 'committed', `${where}: a success committed`);
      assert.equal(payments.commits(call.key), 1, `${where}: exactly one side effect`);
      assert.ok(charge !== undefined);
      assert.equal(
        modelResult.execution.receipt?.external_id,
        charge.charge_id,
        `${where}: the model result names the provider's charge`,
      );
      assert.equal(ledger?.status, 'completed', `${where}: ledger row completed`);
      assert.equal(
        ledger.modelResult?.execution.receipt?.external_id,
        charge.charge_id,
        `${where}: the ledger names the provider's charge`,
      );
      assert.ok(call.result.auditRef !== null, `${where}: the success is audited`);
      const audit = await store.getAudit(call.result.auditRef.audit_id);
      assert.ok(audit !== null, `${where}: audit row present`);
      assert.equal(
        audit.audit.downstream.receipt_external_id,
        charge.charge_id,
        `${where}: the audit names the provider's charge`,
      );
      // A reconciliation that found "not committed" is followed by the one safe re-dispatch (audit attempts 101–199).
      if (record?.outcome === 'committed')
        assert.equal(record.receiptExternalId, charge.charge_id, `${where}: reconciliation receipt`);
      else if (record !== null)
        assert.ok(
          audit.attempt > 100 && audit.attempt < 200,
          `${where}: succeeded after 'not committed' only by the safe re-dispatch (attempt ${audit.attempt})`,
        );
    } else {
      failed++;
      assert.equal(
        modelResult.status,
        'failed',
        `${where}: settled (status ${modelResult.status}, error ${modelResult.error?.code ?? 'none'})`,
      );
      assert.ok(mayFail(call, record), `${where}: may not fail, failed with ${modelResult.error?.code ?? 'no code'}`);
      assert.equal(modelResult.execution.outcome, 'not_started', `${where}: a failure did not start anything`);
      assert.equal(payments.commits(call.key), 0, `${where}: no side effect behind a failure`);
      assert.ok(
        ledger === null || ledger.status === 'released',
        `${where}: ledger row released (is ${ledger?.status})`,
      );
      if (record !== null) assert.equal(record.outcome, 'not_committed', `${where}: reconciliation outcome`);
    }
  }
  await assertStoreAgreesWithProvider(world);
  const keys = payments.keys();
  return {
    calls: calls.length,
    succeeded,
    failed,
    reconciled,
    dispatches: keys.reduce((sum, key) => sum + payments.dispatches(key), 0),
    sideEffects: keys.reduce((sum, key) => sum + payments.commits(key), 0),
  };
}

/** The whole store against the whole provider: nothing unsettled, no duplicate, no receipt the provider lacks. */
async function assertStoreAgreesWithProvider({
  store,
  payments,
  db,
}: {
  store: ToolStore;
  payments: PaymentsService;
  db: TestDatabase;
}): Promise<void> {
  const { rows: ledgerStates } = await db.pool.query<{ status: string; n: string }>(
    'SELECT status, count(*) AS n FROM ttc_ledger GROUP BY status ORDER BY status',
  );
  for (const { status, n } of ledgerStates)
    assert.ok(status === 'completed' || status === 'released', `${n} ledger rows are still '${status}'`);
  assert.deepEqual(await store.listUnsettled(), [], 'no reconciliation is open or escalated');
  for (const key of payments.keys()) {
    const commits = payments.commits(key);
    assert.ok(commits <= 1, `${key}: ${commits} side effects`);
    if (commits === 1) {
      const ledger = await store.getLedgerEntry(key);
      assert.equal(ledger?.status, 'completed', `${key}: a side effect the ledger does not show as completed`);
      assert.equal(
        ledger.modelResult?.execution.receipt?.external_id,
        payments.charge(key)?.charge_id,
        `${key}: ledger receipt`,
      );
    }
  }
  const { rows: audits } = await db.pool.query<{ audit_id: string; idempotency_key: string }>(
    'SELECT audit_id, idempotency_key FROM ttc_audit',
  );
  for (const row of audits) {
    const audit = await store.getAudit(row.audit_id);
    assert.ok(audit !== null, `audit ${row.audit_id} reads back and matches its digest`);
    const receipt = audit.audit.downstream.receipt_external_id;
    if (receipt !== null)
      assert.equal(
        receipt,
        payments.charge(row.idempotency_key)?.charge_id,
        `audit ${row.audit_id} names a charge the provider has for ${row.idempotency_key}`,
      );
  }
}
