// Dispatch leases and late commits, on both stores: the fence, its revocation by reconciliation, "not committed"
// held back while a dispatch may be in flight, and a commit recorded after the verdict. Real Postgres (its clock)
// for one store, the in-memory store (the system clock) for the other: the same scenarios, the same answers.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { InMemoryToolStore } from '../../../src/store/in-memory/in-memory-tool-store.js';
import { LATE_RESULT_ESCALATION, type Dispatcher } from '../../../src/store/lease.js';
import type { ToolStore } from '../../../src/store/tool-store.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { rejectsWith } from './assert-store-error.js';
import { paymentsCharge, runCall, type ChargeMode } from '../../../testkit/store-tools.js';

let db: TestDatabase;
before(async () => {
  db = await openTestDatabase('leases');
});
after(async () => db?.close());

/**
 * The worker's local timeout buffer the tests grant a dispatched attempt: short, so the tests can wait it out, and
 * longer than a few store steps take on a busy machine, which a test makes before it expects the grace still running
 * (at 300 ms, a pooler run beside the whole suite once took longer).
 */
const GRACE_MS = 2_000;

const stores: readonly [string, () => ToolStore][] = [
  ['Postgres', () => db.store()],
  ['in-memory', () => new InMemoryToolStore()],
];

for (const [name, makeStore] of stores) {
  describe(`dispatch leases (${name} store)`, () => {
    let store: ToolStore;
    let n = 0;
    before(() => {
      store = makeStore();
    });

    /** A fresh call: its key, its execution (committed by default) and its dispatcher (run `run-1` of workflow `wf-<n>`). */
    const call = async (mode: ChargeMode = 'commit') => {
      n += 1;
      const workflowId = `wf-lease-${n}`;
      const execution = await runCall(
        paymentsCharge,
        { amount: n, mode },
        { workflowId, callId: 'c1', idempotencyKey: `lease-key-${n}` },
      );
      const dispatcher: Dispatcher = { workflowId, runId: 'run-1', callId: 'c1' };
      return { key: `lease-key-${n}`, execution, dispatcher, requestSha256: execution.audit.bindings.request_sha256 };
    };
    type Call = Awaited<ReturnType<typeof call>>;
    const claim = (c: Call, durationMs: number, dispatcher: Dispatcher = c.dispatcher) =>
      store.claimIdempotencyKey({
        idempotencyKey: c.key,
        requestSha256: c.requestSha256,
        tool: 'payments.charge',
        workflowId: dispatcher.workflowId,
        callId: dispatcher.callId,
        lease: { runId: dispatcher.runId, durationMs },
      });
    const leaseOf = async (c: Call, durationMs: number) => {
      const claimed = await claim(c, durationMs);
      assert.equal(claimed.kind, 'claimed');
      assert.ok(claimed.lease !== null, 'a leased claim gets a lease');
      return claimed.lease;
    };
    const openFenced = (c: Call) =>
      store.openReconciliation({
        idempotencyKey: c.key,
        workflowId: c.dispatcher.workflowId,
        callId: 'c1',
        tool: 'payments.charge',
        auditId: null,
        fence: { dispatcher: c.dispatcher, requestSha256: c.requestSha256, graceMs: GRACE_MS },
      });
    const settleNotCommitted = (key: string) =>
      store.settleReconciliation({
        idempotencyKey: key,
        outcome: 'not_committed',
        via: 'receipt',
        receiptExternalId: null,
        resolvedBy: null,
        note: null,
      });

    it('grants a lease with the claim; the fence passes once per check and marks the row dispatched', async () => {
      const c = await call();
      const lease = await leaseOf(c, 30_000);
      assert.ok(Date.parse(lease.expiresAt) > Date.now() + 20_000, 'the deadline is the duration from now');
      assert.deepEqual(await store.fenceDispatch({ idempotencyKey: c.key, leaseToken: lease.token }), {
        allowed: true,
      });
      const first = (await store.getLedgerEntry(c.key))?.lease?.dispatchedAt;
      assert.ok(first !== null && first !== undefined);
      assert.deepEqual(await store.fenceDispatch({ idempotencyKey: c.key, leaseToken: lease.token }), {
        allowed: true,
      });
      assert.equal((await store.getLedgerEntry(c.key))?.lease?.dispatchedAt, first, 'the first passage is kept');
      assert.deepEqual(await store.fenceDispatch({ idempotencyKey: c.key, leaseToken: 'another-token' }), {
        allowed: false,
        reason: 'superseded',
      });
    });

    it('refuses the fence once the lease expired', async () => {
      const c = await call();
      const lease = await leaseOf(c, 0);
      assert.deepEqual(await store.fenceDispatch({ idempotencyKey: c.key, leaseToken: lease.token }), {
        allowed: false,
        reason: 'expired',
      });
    });

    it('revoking an attempt that had not passed its fence makes "not committed" final at once, and the fence refuses', async () => {
      const c = await call();
      const lease = await leaseOf(c, 30_000);
      const round = await openFenced(c);
      assert.deepEqual(round.dispatch, { dispatched: false, quietAt: null });
      assert.deepEqual(await store.fenceDispatch({ idempotencyKey: c.key, leaseToken: lease.token }), {
        allowed: false,
        reason: 'revoked',
      });
      assert.equal((await settleNotCommitted(c.key)).outcome, 'not_committed');
      assert.equal((await store.getLedgerEntry(c.key))?.status, 'released');
    });

    it('holds "not committed" back while a dispatched attempt may still be sending, and settles once its deadline plus grace passed', async () => {
      const c = await call();
      const lease = await leaseOf(c, 200);
      assert.deepEqual(await store.fenceDispatch({ idempotencyKey: c.key, leaseToken: lease.token }), {
        allowed: true,
      });
      const round = await openFenced(c);
      assert.equal(round.dispatch?.dispatched, true);
      assert.equal(Date.parse(round.dispatch.quietAt ?? ''), Date.parse(lease.expiresAt) + GRACE_MS);
      await rejectsWith(settleNotCommitted(c.key), 'STATUS_CONFLICT', 'verdict_premature');
      assert.equal((await store.getReconciliation(c.key))?.state, 'open');
      await sleep(Date.parse(round.dispatch.quietAt ?? '') - Date.now() + 50);
      assert.equal((await settleNotCommitted(c.key)).outcome, 'not_committed');
    });

    it("ends the wait for a dispatched attempt once its own record says it never started; not for an unknown outcome or another call's record", async () => {
      const notStarted = await call('rate_limited');
      const unknown = await call('no_receipt');
      const elsewhere = await call('rate_limited');
      for (const c of [notStarted, unknown, elsewhere]) {
        const lease = await leaseOf(c, 30_000);
        assert.deepEqual(await store.fenceDispatch({ idempotencyKey: c.key, leaseToken: lease.token }), {
          allowed: true,
        });
        assert.equal((await openFenced(c)).dispatch?.dispatched, true);
        await rejectsWith(settleNotCommitted(c.key), 'STATUS_CONFLICT', 'verdict_premature');
        if (c !== elsewhere)
          await store.recordExecution({
            execution: c.execution,
            workflowId: c.dispatcher.workflowId,
            runId: 'run-1',
            leaseToken: lease.token,
          });
      }
      // Another workflow's call under the same key, settled not started without a lease (as a refused approval is).
      const other = await runCall(
        paymentsCharge,
        { amount: n, mode: 'rate_limited' },
        { workflowId: 'wf-lease-other', callId: 'c9', idempotencyKey: elsewhere.key },
      );
      await store.recordExecution({ execution: other, workflowId: 'wf-lease-other', runId: 'run-9' });
      assert.deepEqual(
        await Promise.all(
          [notStarted, unknown, elsewhere].map(async (c) => (await store.getLedgerEntry(c.key))?.status),
        ),
        ['released', 'unknown', 'released'],
      );
      assert.equal(
        (await settleNotCommitted(notStarted.key)).outcome,
        'not_committed',
        'nothing of it is on its way: final at once, long before its deadline',
      );
      assert.deepEqual(
        [
          (await store.getLedgerEntry(notStarted.key))?.status,
          (await store.getLedgerEntry(notStarted.key))?.lateCommitAuditId,
        ],
        ['released', null],
      );
      // An unknown outcome: a request that left before its handler gave up may still be in the network.
      await rejectsWith(settleNotCommitted(unknown.key), 'STATUS_CONFLICT', 'verdict_premature');
      // The dispatched attempt itself recorded nothing: it may still be sending.
      await rejectsWith(settleNotCommitted(elsewhere.key), 'STATUS_CONFLICT', 'verdict_premature');
    });

    it('an attempt that ended unknown before its round opened is waited for a grace after its record, not after its deadline', async () => {
      const c = await call('no_receipt');
      const lease = await leaseOf(c, 30_000);
      await store.fenceDispatch({ idempotencyKey: c.key, leaseToken: lease.token });
      await store.recordExecution({
        execution: c.execution,
        workflowId: c.dispatcher.workflowId,
        runId: 'run-1',
        leaseToken: lease.token,
      });
      const recordedAt = Date.now();
      const ended = (await store.getLedgerEntry(c.key))?.lease?.expiresAt ?? '';
      assert.ok(Date.parse(ended) < Date.parse(lease.expiresAt) - 20_000, 'its record ended its lease');
      const round = await openFenced(c);
      assert.equal(round.dispatch?.dispatched, true, 'its request may still be in the network');
      assert.equal(Date.parse(round.dispatch.quietAt ?? ''), Date.parse(ended) + GRACE_MS);
      await rejectsWith(settleNotCommitted(c.key), 'STATUS_CONFLICT', 'verdict_premature');
      await sleep(Math.max(0, recordedAt + GRACE_MS + 100 - Date.now()));
      assert.equal((await settleNotCommitted(c.key)).outcome, 'not_committed');
      assert.equal((await store.getLedgerEntry(c.key))?.status, 'released');
    });

    it('a fence and a revocation racing: a passed fence is always seen by the revocation', async () => {
      for (let i = 0; i < 25; i++) {
        const c = await call();
        const lease = await leaseOf(c, 30_000);
        const [decision, round] = await Promise.all([
          store.fenceDispatch({ idempotencyKey: c.key, leaseToken: lease.token }),
          openFenced(c),
        ]);
        assert.equal(
          round.dispatch?.dispatched,
          decision.allowed,
          `race ${i}: fence ${JSON.stringify(decision)}, revocation ${JSON.stringify(round.dispatch)}`,
        );
        if (!decision.allowed) assert.equal(decision.reason, 'revoked');
      }
    });

    it('settling by receipt records the finding query with it: a refused settlement records none, a repeated one no second', async () => {
      const c = await call();
      const lease = await leaseOf(c, 200);
      await store.fenceDispatch({ idempotencyKey: c.key, leaseToken: lease.token });
      const round = await openFenced(c);
      const settleFound = (attempt: number) =>
        store.settleReconciliation({
          idempotencyKey: c.key,
          outcome: 'not_committed',
          via: 'receipt',
          receiptExternalId: null,
          resolvedBy: null,
          note: null,
          finding: { attempt, detail: null },
        });
      await rejectsWith(settleFound(1), 'STATUS_CONFLICT', 'verdict_premature');
      assert.deepEqual(
        (await store.getReconciliation(c.key))?.attempts,
        [],
        'the refused settlement recorded no attempt',
      );
      await sleep(Date.parse(round.dispatch?.quietAt ?? '') - Date.now() + 50);
      const settled = await settleFound(2);
      assert.deepEqual(
        [settled.state, settled.attempts.map((a) => [a.attempt, a.finding])],
        ['settled', [[2, 'not_committed']]],
      );
      assert.deepEqual((await settleFound(2)).attempts, settled.attempts, 'a retry records nothing more');
      await rejectsWith(settleFound(3), 'STATUS_CONFLICT', 'reconciliation_conflict');
      assert.equal((await store.getLedgerEntry(c.key))?.status, 'released');
    });

    it("a receipt that contradicts its query's recorded finding settles nothing, and a human's settlement carries no finding", async () => {
      const c = await call();
      await openFenced(c);
      await store.recordReconciliationAttempt({ idempotencyKey: c.key, attempt: 1, finding: 'unknown', detail: null });
      const settle = (via: 'receipt' | 'human', attempt: number) =>
        store.settleReconciliation({
          idempotencyKey: c.key,
          outcome: 'committed',
          via,
          receiptExternalId: 'ch_1',
          resolvedBy: via === 'human' ? 'ops' : null,
          note: null,
          finding: { attempt, detail: 'ch_1' },
        });
      await rejectsWith(settle('receipt', 1), 'STATUS_CONFLICT', 'reconciliation_conflict');
      await rejectsWith(settle('human', 2), 'INVALID_ARGUMENTS', 'invalid_input');
      assert.equal((await store.getReconciliation(c.key))?.state, 'open');
      const settled = await settle('receipt', 2);
      assert.deepEqual(
        settled.attempts.map((a) => [a.attempt, a.finding, a.detail]),
        [
          [1, 'unknown', null],
          [2, 'committed', 'ch_1'],
        ],
      );
    });

    it('settles with the result that settles it as one step: a record refused rolls the settlement back, a retry changes nothing', async () => {
      const settling = (c: Call) =>
        ({
          idempotencyKey: c.key,
          outcome: 'committed',
          via: 'receipt',
          receiptExternalId: 'ch_1',
          resolvedBy: null,
          note: null,
          finding: { attempt: 1, detail: 'ch_1' },
        }) as const;
      const recording = (c: Call, execution = c.execution) => ({
        execution,
        workflowId: c.dispatcher.workflowId,
        runId: 'run-1',
      });

      const refused = await call();
      await leaseOf(refused, 30_000);
      await openFenced(refused);
      // Another request's attempt under the same audit id was recorded first: this record is refused.
      const other = await runCall(
        paymentsCharge,
        { amount: 9999, mode: 'commit' },
        { workflowId: refused.dispatcher.workflowId, callId: 'c1', idempotencyKey: refused.key },
      );
      await rejectsWith(
        store.recordExecution(recording(refused, other)),
        'IDEMPOTENCY_CONFLICT',
        'idempotency_conflict',
      );
      await rejectsWith(
        store.settleWithResult(settling(refused), recording(refused)),
        'IDEMPOTENCY_CONFLICT',
        'audit_id_reused',
      );
      const untouched = await store.getReconciliation(refused.key);
      assert.deepEqual(
        [untouched?.state, untouched?.attempts],
        ['open', []],
        'neither the settlement nor its finding stayed',
      );
      assert.equal((await store.getLedgerEntry(refused.key))?.status, 'claimed');

      const c = await call();
      await leaseOf(c, 30_000);
      await openFenced(c);
      await rejectsWith(store.settleWithResult(settling(c), recording(refused)), 'INVALID_ARGUMENTS', 'invalid_input');
      const ref = await store.settleWithResult(settling(c), recording(c));
      const round = await store.getReconciliation(c.key);
      assert.deepEqual(
        [round?.state, round?.outcome, round?.attempts.map((a) => [a.attempt, a.finding, a.detail])],
        ['settled', 'committed', [[1, 'committed', 'ch_1']]],
      );
      const entry = await store.getLedgerEntry(c.key);
      assert.deepEqual([entry?.status, entry?.auditRef?.audit_id], ['completed', ref.audit_id]);
      assert.deepEqual(
        await store.settleWithResult(settling(c), recording(c)),
        ref,
        'a retry returns the recorded reference',
      );
      assert.equal((await store.getReconciliation(c.key))?.attempts.length, 1);
    });

    it('fences out a dispatcher that never claimed the key: it can never claim it, another call still can', async () => {
      const c = await call();
      const round = await openFenced(c);
      assert.deepEqual(round.dispatch, { dispatched: false, quietAt: null });
      await settleNotCommitted(c.key);
      assert.equal((await store.getLedgerEntry(c.key))?.status, 'released');
      assert.deepEqual(await claim(c, 30_000), { kind: 'fenced' });
      const later = await claim(c, 30_000, { ...c.dispatcher, runId: 'run-2' });
      assert.equal(later.kind, 'claimed');
    });

    it('a commit recorded within the wait lands, and then "not committed" is refused', async () => {
      const c = await call();
      const lease = await leaseOf(c, 30_000);
      await store.fenceDispatch({ idempotencyKey: c.key, leaseToken: lease.token });
      await openFenced(c);
      await store.recordExecution({
        execution: c.execution,
        workflowId: c.dispatcher.workflowId,
        runId: 'run-1',
        leaseToken: lease.token,
      });
      assert.equal((await store.getLedgerEntry(c.key))?.status, 'completed');
      await rejectsWith(settleNotCommitted(c.key), 'STATUS_CONFLICT', 'verdict_premature');
    });

    it('a commit recorded after "not committed" keeps the verdict, is audited as a late commit, escalates the key, and only a human settles it', async () => {
      const c = await call();
      const lease = await leaseOf(c, 30_000);
      await openFenced(c);
      await settleNotCommitted(c.key);
      const ref = await store.recordExecution({
        execution: c.execution,
        workflowId: c.dispatcher.workflowId,
        runId: 'run-1',
        leaseToken: lease.token,
      });
      assert.ok((await store.getAudit(ref.audit_id)) !== null, 'the late commit is audited');

      const entry = await store.getLedgerEntry(c.key);
      assert.equal(entry?.status, 'unknown', 'disputed: neither the verdict nor the late commit is replayed');
      assert.equal(entry.lateCommitAuditId, ref.audit_id);
      assert.notEqual(entry.modelResult?.execution.outcome, 'committed', 'the ledger does not take the late result');
      const round = await store.getReconciliation(c.key);
      assert.deepEqual(
        [round?.round, round?.state, round?.escalationReason, round?.auditId],
        [2, 'escalated', LATE_RESULT_ESCALATION.committed, ref.audit_id],
      );
      assert.deepEqual(
        (await store.listUnsettled()).map((r) => r.idempotencyKey).filter((k) => k === c.key),
        [c.key],
      );

      const later = await claim(c, 30_000, { ...c.dispatcher, workflowId: 'wf-later' });
      assert.deepEqual(
        [later.kind, later.kind === 'in_progress' ? later.state : null],
        ['in_progress', 'outcome_unknown'],
        'a later call is not told "committed" behind the verdict',
      );
      await rejectsWith(settleNotCommitted(c.key), 'STATUS_CONFLICT', 'verdict_premature');
      // A record without a lease (a settlement) does not move a disputed row either.
      await store.recordExecution({ execution: c.execution, workflowId: c.dispatcher.workflowId, runId: null });
      assert.equal((await store.getLedgerEntry(c.key))?.status, 'unknown');

      await store.settleReconciliation({
        idempotencyKey: c.key,
        outcome: 'committed',
        via: 'human',
        receiptExternalId: 'ch_late',
        resolvedBy: 'ops',
        note: null,
      });
      assert.equal(
        (await store.getLedgerEntry(c.key))?.lateCommitAuditId,
        null,
        "the human's settlement ends the dispute",
      );
    });

    it('an unknown outcome recorded after "not committed" is a dispute only when its request may have left late', async () => {
      for (const possiblySentLate of [false, true]) {
        const c = await call('no_receipt');
        const lease = await leaseOf(c, 30_000);
        await store.fenceDispatch({ idempotencyKey: c.key, leaseToken: lease.token });
        await openFenced(c);
        await store.settleReconciliation({
          idempotencyKey: c.key,
          outcome: 'not_committed',
          via: 'human',
          receiptExternalId: null,
          resolvedBy: 'ops',
          note: null,
        });
        assert.equal(c.execution.modelResult.execution.outcome, 'unknown');
        const ref = await store.recordExecution({
          execution: c.execution,
          workflowId: c.dispatcher.workflowId,
          runId: 'run-1',
          leaseToken: lease.token,
          possiblySentLate,
        });
        const entry = await store.getLedgerEntry(c.key);
        const round = await store.getReconciliation(c.key);
        if (possiblySentLate) {
          assert.deepEqual(
            [entry?.status, entry?.lateCommitAuditId, round?.state, round?.escalationReason],
            ['unknown', ref.audit_id, 'escalated', LATE_RESULT_ESCALATION.unknown],
          );
        } else {
          assert.deepEqual(
            [entry?.status, entry?.lateCommitAuditId, round?.state],
            ['released', null, 'settled'],
            'a request that left before the verdict was covered by it',
          );
        }
      }
    });

    it('settling "not committed" does not release a key another dispatcher claimed', async () => {
      const c = await call();
      await openFenced(c);
      const other = await claim(c, 30_000, { ...c.dispatcher, workflowId: 'wf-other-claimer' });
      assert.equal(other.kind, 'claimed');
      await settleNotCommitted(c.key);
      assert.equal((await store.getLedgerEntry(c.key))?.status, 'claimed');
    });
  });
}
