import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PgToolStore } from '../../../src/store/pg/pg-tool-store.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { rejectsWith } from './assert-store-error.js';
import { paymentsCharge, runCall } from '../../../testkit/store-tools.js';

let db: TestDatabase;
let store: PgToolStore;
/** A controllable clock, so time-to-settle is exact. */
let clock = Date.parse('2026-11-30T12:00:00.000Z');
const tick = (ms: number) => {
  clock += ms;
};

before(async () => {
  db = await openTestDatabase('reconciliation');
  store = db.store({ now: () => new Date(clock) });
});
after(async () => db?.close());

const open = (key: string) =>
  store.openReconciliation({
    idempotencyKey: key,
    workflowId: 'wf-rec',
    callId: `call-${key}`,
    tool: 'payments.charge',
    auditId: null,
  });

describe('reconciliation records (real Postgres)', () => {
  it('starts with no unknown side effects', async () => {
    assert.deepEqual(await store.reconciliationMetrics(), {
      unknownSideEffects: 0,
      escalated: 0,
      settled: 0,
      timeToSettleMs: null,
    });
    assert.deepEqual(await store.listUnsettled(), []);
    assert.deepEqual(await store.countUnsettledByTool(), {});
  });

  it('opens once per key, records attempts idempotently, and lists the unsettled', async () => {
    const first = await open('k-1');
    const again = await open('k-1');
    assert.equal(first.round, 1);
    assert.deepEqual(again, first);
    await open('k-2');
    tick(1000);
    await store.recordReconciliationAttempt({
      idempotencyKey: 'k-1',
      attempt: 1,
      finding: 'unknown',
      detail: 'upstream 503',
    });
    await store.recordReconciliationAttempt({
      idempotencyKey: 'k-1',
      attempt: 1,
      finding: 'unknown',
      detail: 'upstream 503',
    });
    tick(1000);
    const record = await store.recordReconciliationAttempt({
      idempotencyKey: 'k-1',
      attempt: 2,
      finding: 'unknown',
      detail: null,
    });
    assert.deepEqual(
      record.attempts.map((a) => [a.attempt, a.finding]),
      [
        [1, 'unknown'],
        [2, 'unknown'],
      ],
    );
    await rejectsWith(
      store.recordReconciliationAttempt({ idempotencyKey: 'k-1', attempt: 2, finding: 'committed', detail: null }),
      'STATUS_CONFLICT',
      'reconciliation_conflict',
    );
    const unsettled = await store.listUnsettled();
    assert.deepEqual(
      unsettled.map((r) => r.idempotencyKey),
      ['k-1', 'k-2'],
    );
    assert.equal(unsettled[0]?.attempts.length, 2);
    assert.equal((await store.reconciliationMetrics()).unknownSideEffects, 2);
  });

  it('settles by receipt and measures time to settle', async () => {
    tick(3000);
    const settled = await store.settleReconciliation({
      idempotencyKey: 'k-1',
      outcome: 'committed',
      via: 'receipt',
      receiptExternalId: 'ch_1',
      resolvedBy: null,
      note: null,
    });
    assert.equal(settled.state, 'settled');
    assert.equal(settled.receiptExternalId, 'ch_1');
    // Same settlement again is a no-op; a different one is a conflict; attempts after settling are refused.
    assert.deepEqual(
      await store.settleReconciliation({
        idempotencyKey: 'k-1',
        outcome: 'committed',
        via: 'receipt',
        receiptExternalId: 'ch_1',
        resolvedBy: null,
        note: null,
      }),
      settled,
    );
    await rejectsWith(
      store.settleReconciliation({
        idempotencyKey: 'k-1',
        outcome: 'not_committed',
        via: 'human',
        receiptExternalId: null,
        resolvedBy: 'ops',
        note: null,
      }),
      'STATUS_CONFLICT',
      'reconciliation_conflict',
    );
    await rejectsWith(
      store.recordReconciliationAttempt({ idempotencyKey: 'k-1', attempt: 3, finding: 'unknown', detail: null }),
      'STATUS_CONFLICT',
      'reconciliation_conflict',
    );
    const metrics = await store.reconciliationMetrics();
    assert.equal(metrics.unknownSideEffects, 1);
    assert.equal(metrics.settled, 1);
    assert.deepEqual(metrics.timeToSettleMs, { p50: 5000, p95: 5000, max: 5000 });
    assert.deepEqual(
      (await store.listUnsettled()).map((r) => r.idempotencyKey),
      ['k-2'],
    );
  });

  it('escalates to a human, who settles it; the human must be named', async () => {
    const escalated = await store.escalateReconciliation({ idempotencyKey: 'k-2', reason: 'deadline passed' });
    assert.equal(escalated.state, 'escalated');
    assert.equal(
      (await store.escalateReconciliation({ idempotencyKey: 'k-2', reason: 'deadline passed' })).escalatedAt,
      escalated.escalatedAt,
    );
    assert.equal((await store.reconciliationMetrics()).escalated, 1);
    await rejectsWith(
      store.settleReconciliation({
        idempotencyKey: 'k-2',
        outcome: 'committed',
        via: 'human',
        receiptExternalId: null,
        resolvedBy: null,
        note: null,
      }),
      'INVALID_ARGUMENTS',
      'invalid_input',
    );
    tick(5000);
    const settled = await store.settleReconciliation({
      idempotencyKey: 'k-2',
      outcome: 'committed',
      via: 'human',
      receiptExternalId: null,
      resolvedBy: 'ops@example',
      note: 'checked the bank statement',
    });
    assert.equal(settled.via, 'human');
    assert.equal(settled.resolvedBy, 'ops@example');
    const metrics = await store.reconciliationMetrics();
    assert.deepEqual(metrics, {
      unknownSideEffects: 0,
      escalated: 0,
      settled: 2,
      timeToSettleMs: { p50: 7500, p95: 9750, max: 10000 },
    });
    await rejectsWith(
      store.escalateReconciliation({ idempotencyKey: 'k-2', reason: 'late' }),
      'STATUS_CONFLICT',
      'reconciliation_conflict',
    );
  });

  it('releases the ledger key when settled not committed, and opens a new round if the retry is unknown again', async () => {
    const unknown = await runCall(
      paymentsCharge,
      { amount: 1, mode: 'no_receipt' },
      { workflowId: 'wf-rec', callId: 'c-pay', idempotencyKey: 'k-pay' },
    );
    const claim = {
      idempotencyKey: 'k-pay',
      requestSha256: unknown.audit.bindings.request_sha256,
      tool: 'payments.charge',
      callId: 'c-pay',
      workflowId: 'wf-rec',
    };
    await store.claimIdempotencyKey(claim);
    const ref = await store.recordExecution({ execution: unknown, workflowId: 'wf-rec', runId: null });
    const opened = await store.openReconciliation({
      idempotencyKey: 'k-pay',
      workflowId: 'wf-rec',
      callId: 'c-pay',
      tool: 'payments.charge',
      auditId: ref.audit_id,
    });
    assert.equal(opened.auditId, ref.audit_id);
    assert.equal((await store.claimIdempotencyKey(claim)).kind, 'in_progress');

    await store.settleReconciliation({
      idempotencyKey: 'k-pay',
      outcome: 'not_committed',
      via: 'receipt',
      receiptExternalId: null,
      resolvedBy: null,
      note: null,
    });
    assert.equal((await store.getLedgerEntry('k-pay'))?.status, 'released');
    assert.equal((await store.claimIdempotencyKey(claim)).kind, 'claimed');

    const secondRound = await store.openReconciliation({
      idempotencyKey: 'k-pay',
      workflowId: 'wf-rec',
      callId: 'c-pay',
      tool: 'payments.charge',
      auditId: null,
    });
    assert.equal(secondRound.round, 2);
    assert.equal(secondRound.state, 'open');
    assert.deepEqual(secondRound.attempts, []);
    assert.equal((await store.getReconciliation('k-pay'))?.round, 2);
  });

  it('lets concurrent openers of one key share one round', async () => {
    const records = await Promise.all(Array.from({ length: 10 }, () => open('k-race')));
    assert.ok(records.every((r) => r.round === 1));
    const { rows } = await db.pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM ttc_reconciliations WHERE idempotency_key = 'k-race'",
    );
    assert.equal(Number(rows[0]!.n), 1);
  });

  it('counts open and escalated rounds by tool, and no settled one', async () => {
    const before = await store.countUnsettledByTool();
    const openFor = (key: string, tool: string) =>
      store.openReconciliation({
        idempotencyKey: key,
        workflowId: 'wf-gauge',
        callId: `call-${key}`,
        tool,
        auditId: null,
      });
    await openFor('k-count-1', 'mail.send');
    await openFor('k-count-2', 'mail.send');
    await store.escalateReconciliation({ idempotencyKey: 'k-count-2', reason: 'deadline passed' });
    await openFor('k-count-3', 'payments.charge');
    await store.settleReconciliation({
      idempotencyKey: 'k-count-3',
      outcome: 'committed',
      via: 'receipt',
      receiptExternalId: 'ch_3',
      resolvedBy: null,
      note: null,
    });
    assert.deepEqual(await store.countUnsettledByTool(), { ...before, 'mail.send': 2 });
    assert.equal(
      (await store.reconciliationMetrics()).unknownSideEffects,
      Object.values(await store.countUnsettledByTool()).reduce((sum, n) => sum + n, 0),
    );
  });

  it('answers NOT_FOUND for a key that was never opened', async () => {
    await rejectsWith(
      store.recordReconciliationAttempt({ idempotencyKey: 'k-none', attempt: 1, finding: 'unknown', detail: null }),
      'NOT_FOUND',
      'reconciliation_not_found',
    );
    assert.equal(await store.getReconciliation('k-none'), null);
  });
});
