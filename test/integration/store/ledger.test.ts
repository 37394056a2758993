import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { asLocalReplay } from '../../../src/contract/settled-results.js';
import { canonicalJson } from '../../../src/contract/canonical-json.js';
import { sha256Hex } from '../../../src/contract/sha256.js';
import type { PgToolStore } from '../../../src/store/pg/pg-tool-store.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { rejectsWith } from './assert-store-error.js';
import { ordersGet, paymentsCharge, runCall } from '../../../testkit/store-tools.js';

let db: TestDatabase;
let store: PgToolStore;
before(async () => {
  db = await openTestDatabase('ledger');
  store = db.store();
});
after(async () => db?.close());

const claimOf = (execution: Awaited<ReturnType<typeof runCall>>, workflowId: string) => ({
  idempotencyKey: execution.audit.idempotency_key,
  requestSha256: execution.audit.bindings.request_sha256,
  tool: execution.audit.tool,
  callId: execution.audit.call_id,
  workflowId,
});

/** Rows of a table (ledger or audit, both keyed by idempotency key) for one key. */
async function countRows(table: 'ttc_ledger' | 'ttc_audit', key: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE idempotency_key = $1`, [
    key,
  ]);
  return Number(rows[0]!.n);
}

describe('idempotency ledger (real Postgres)', () => {
  it('claims a new key, then replays the recorded result as local_replay with its audit reference', async () => {
    const execution = await runCall(
      paymentsCharge,
      { amount: 10, mode: 'commit' },
      { workflowId: 'wf-replay', callId: 'c1' },
    );
    const claim = await store.claimIdempotencyKey(claimOf(execution, 'wf-replay'));
    assert.equal(claim.kind, 'claimed');

    const ref = await store.recordExecution({ execution, workflowId: 'wf-replay', runId: 'run-1' });
    assert.deepEqual(ref, {
      audit_id: execution.audit.audit_id,
      ...execution.audit.bindings,
      audit_sha256: sha256Hex(canonicalJson(execution.audit)),
    });

    const again = await store.claimIdempotencyKey(claimOf(execution, 'wf-replay'));
    assert.equal(again.kind, 'replay');
    assert.equal(again.modelResult.execution.delivery, 'local_replay');
    assert.deepEqual(again.modelResult, asLocalReplay(execution.modelResult));
    assert.deepEqual(again.modelResult.execution.receipt, execution.modelResult.execution.receipt);
    assert.deepEqual(again.auditRef, ref);
    assert.equal(await countRows('ttc_ledger', execution.audit.idempotency_key), 1);
  });

  it('answers conflict for the same key with a different request digest, and leaves the recorded row alone', async () => {
    const first = await runCall(
      paymentsCharge,
      { amount: 10, mode: 'commit' },
      { workflowId: 'wf-conflict', callId: 'c1', idempotencyKey: 'pay-order-77' },
    );
    await store.claimIdempotencyKey(claimOf(first, 'wf-conflict'));
    await store.recordExecution({ execution: first, workflowId: 'wf-conflict', runId: null });

    const different = await runCall(
      paymentsCharge,
      { amount: 99, mode: 'commit' },
      { workflowId: 'wf-conflict', callId: 'c2', idempotencyKey: 'pay-order-77' },
    );
    assert.notEqual(different.audit.bindings.request_sha256, first.audit.bindings.request_sha256);
    const claim = await store.claimIdempotencyKey(claimOf(different, 'wf-conflict'));
    assert.equal(claim.kind, 'conflict');
    assert.equal(claim.recordedRequestSha256, first.audit.bindings.request_sha256);

    // A host that records anyway gets IDEMPOTENCY_CONFLICT — and the attempt's audit is still kept.
    await rejectsWith(
      store.recordExecution({ execution: different, workflowId: 'wf-conflict', runId: null }),
      'IDEMPOTENCY_CONFLICT',
      'idempotency_conflict',
    );
    assert.ok(await store.getAudit(different.audit.audit_id));
    const entry = await store.getLedgerEntry('pay-order-77');
    assert.equal(entry?.requestSha256, first.audit.bindings.request_sha256);
    assert.equal(entry?.auditRef?.audit_id, first.audit.audit_id);
  });

  it('lets exactly one of 20 concurrent claimers of one key win, leaving one row', async () => {
    const execution = await runCall(
      paymentsCharge,
      { amount: 5, mode: 'commit' },
      { workflowId: 'wf-race', callId: 'c1' },
    );
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.claimIdempotencyKey({ ...claimOf(execution, 'wf-race'), callId: `racer-${i}` }),
      ),
    );
    const winners = claims.filter((c) => c.kind === 'claimed');
    assert.equal(winners.length, 1);
    assert.equal(claims.filter((c) => c.kind === 'in_progress' && c.state === 'running').length, 19);
    assert.equal(await countRows('ttc_ledger', execution.audit.idempotency_key), 1);
    const entry = await store.getLedgerEntry(execution.audit.idempotency_key);
    assert.equal(entry?.status, 'claimed');
  });

  it('records 20 concurrent writers of one key exactly once in the ledger, each attempt in the audit', async () => {
    const executions = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        runCall(ordersGet, { orderId: 'o-race' }, { workflowId: 'wf-race-2', callId: 'c1', attempt: i + 1 }),
      ),
    );
    const refs = await Promise.all(
      executions.map((execution) => store.recordExecution({ execution, workflowId: 'wf-race-2', runId: 'run-1' })),
    );
    assert.equal(new Set(refs.map((r) => r.audit_id)).size, 20);
    const key = executions[0]!.audit.idempotency_key;
    assert.equal(await countRows('ttc_ledger', key), 1);
    assert.equal(await countRows('ttc_audit', key), 20);
    const entry = await store.getLedgerEntry(key);
    assert.equal(entry?.status, 'completed');
    // The first completion is final: the replayed result is one of the recorded ones, unchanged.
    assert.ok(refs.some((r) => r.audit_id === entry?.auditRef?.audit_id));
  });

  it('records a read that claimed nothing in one go: ledger completed, audit, its query copies and every evidence row', async () => {
    const execution = await runCall(
      ordersGet,
      { orderId: 'o-unclaimed' },
      { workflowId: 'wf-read-once', callId: 'c1' },
    );
    const ref = await store.recordExecution({ execution, workflowId: 'wf-read-once', runId: 'run-1' });
    assert.equal(ref.audit_id, execution.audit.audit_id);
    const entry = await store.getLedgerEntry(execution.audit.idempotency_key);
    assert.equal(entry?.status, 'completed');
    assert.deepEqual(entry?.auditRef, ref);
    const evidence = await store.listEvidence({ workflowId: 'wf-read-once', callId: 'c1' });
    assert.deepEqual(
      evidence.map((e) => e.evidenceId).sort(),
      execution.modelResult.evidence.map((e) => e.evidence_id).sort(),
    );
    for (const item of execution.modelResult.evidence)
      assert.deepEqual(evidence.find((e) => e.evidenceId === item.evidence_id)?.supports, item.supports);
    const { rows } = await db.pool.query<{ facts: string; layers: string }>(
      'SELECT (SELECT count(*) FROM ttc_audit_facts WHERE audit_id = $1) AS facts, (SELECT count(*) FROM ttc_audit_layers WHERE audit_id = $1) AS layers',
      [ref.audit_id],
    );
    assert.equal(Number(rows[0]!.facts), 1);
    assert.equal(Number(rows[0]!.layers), execution.audit.validation.filter((v) => v.outcome !== 'skipped').length);
    assert.ok(Number(rows[0]!.layers) > 0);
  });

  it('reports a claimed-but-never-completed key as in_progress (a crashed attempt)', async () => {
    const execution = await runCall(
      paymentsCharge,
      { amount: 7, mode: 'commit' },
      { workflowId: 'wf-crash', callId: 'c1' },
    );
    assert.equal((await store.claimIdempotencyKey(claimOf(execution, 'wf-crash'))).kind, 'claimed');
    const retry = await store.claimIdempotencyKey(claimOf(execution, 'wf-crash'));
    assert.equal(retry.kind, 'in_progress');
    assert.equal(retry.state, 'running');
    assert.deepEqual(retry.claimedBy, { workflowId: 'wf-crash', callId: 'c1' });
    assert.equal(retry.auditRef, null);
  });

  it('keeps an unknown write as in_progress/outcome_unknown, never as a replayable result', async () => {
    const execution = await runCall(
      paymentsCharge,
      { amount: 7, mode: 'no_receipt' },
      { workflowId: 'wf-unknown', callId: 'c1' },
    );
    assert.equal(execution.modelResult.execution.outcome, 'unknown');
    await store.claimIdempotencyKey(claimOf(execution, 'wf-unknown'));
    const ref = await store.recordExecution({ execution, workflowId: 'wf-unknown', runId: 'run-1' });
    const claim = await store.claimIdempotencyKey(claimOf(execution, 'wf-unknown'));
    assert.equal(claim.kind, 'in_progress');
    assert.equal(claim.state, 'outcome_unknown');
    assert.deepEqual(claim.auditRef, ref);
  });

  it('releases a key whose attempt did not start anything, so the retry claims it again', async () => {
    const refused = await runCall(
      paymentsCharge,
      { amount: 3, mode: 'rate_limited' },
      { workflowId: 'wf-release', callId: 'c1', idempotencyKey: 'k-release' },
    );
    assert.equal(refused.modelResult.execution.outcome, 'not_started');
    await store.claimIdempotencyKey(claimOf(refused, 'wf-release'));
    await store.recordExecution({ execution: refused, workflowId: 'wf-release', runId: null });
    assert.equal((await store.getLedgerEntry('k-release'))?.status, 'released');
    assert.equal((await store.claimIdempotencyKey(claimOf(refused, 'wf-release'))).kind, 'claimed');
  });

  it('a late record of an older attempt cannot release a key that a newer attempt claimed since', async () => {
    const refused = await runCall(
      paymentsCharge,
      { amount: 4, mode: 'rate_limited' },
      { workflowId: 'wf-late', callId: 'c1', idempotencyKey: 'k-late' },
    );
    const first = await store.claimIdempotencyKey(claimOf(refused, 'wf-late'));
    assert.equal(first.kind, 'claimed');
    const firstClaim = first.kind === 'claimed' ? first.claimedAt : '';
    await store.recordExecution({ execution: refused, workflowId: 'wf-late', runId: null, claimedAt: firstClaim });
    assert.equal((await store.getLedgerEntry('k-late'))?.status, 'released');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await store.claimIdempotencyKey(claimOf(refused, 'wf-late'));
    assert.equal(second.kind, 'claimed');
    // The first attempt's record arrives again (a retried activity, a slow network): the newer claim must hold.
    await store.recordExecution({ execution: refused, workflowId: 'wf-late', runId: null, claimedAt: firstClaim });
    assert.equal((await store.getLedgerEntry('k-late'))?.status, 'claimed');
    assert.equal(
      (await store.claimIdempotencyKey(claimOf(refused, 'wf-late'))).kind,
      'in_progress',
      'no third attempt can claim while the second runs',
    );
  });

  it('treats recording the same attempt twice as a no-op (one audit row, same reference)', async () => {
    const execution = await runCall(ordersGet, { orderId: 'o-twice' }, { workflowId: 'wf-twice', callId: 'c1' });
    const first = await store.recordExecution({ execution, workflowId: 'wf-twice', runId: 'run-1' });
    const second = await store.recordExecution({ execution, workflowId: 'wf-twice', runId: 'run-1' });
    assert.deepEqual(second, first);
    assert.equal(await countRows('ttc_audit', execution.audit.idempotency_key), 1);
    assert.equal((await store.listEvidence({ workflowId: 'wf-twice' })).length, 2);
  });

  it('refuses a different record under an audit id that is already taken', async () => {
    const first = await runCall(ordersGet, { orderId: 'o-a' }, { workflowId: 'wf-aid', callId: 'c1' });
    const other = await runCall(ordersGet, { orderId: 'o-b' }, { workflowId: 'wf-aid', callId: 'c1' });
    assert.equal(other.audit.audit_id, first.audit.audit_id);
    await store.recordExecution({ execution: first, workflowId: 'wf-aid', runId: null });
    await rejectsWith(
      store.recordExecution({ execution: other, workflowId: 'wf-aid', runId: null }),
      'IDEMPOTENCY_CONFLICT',
      'audit_id_reused',
    );
  });

  it('refuses to record a model result that does not match its own result digest', async () => {
    const execution = await runCall(ordersGet, { orderId: 'o-forged' }, { workflowId: 'wf-forged', callId: 'c1' });
    // A well-formed edit (the schema accepts it) that the recorded result digest does not cover.
    const forged = {
      ...execution,
      modelResult: { ...execution.modelResult, warnings: [{ code: 'FORGED_NOTE', message: 'edited after the fact' }] },
    };
    await rejectsWith(
      store.recordExecution({ execution: forged, workflowId: 'wf-forged', runId: null }),
      'PROTOCOL_ERROR',
      'digest_mismatch',
    );
    assert.equal(await store.getAudit(execution.audit.audit_id), null);
  });

  it('never replays a recorded result that was edited in the database', async () => {
    const execution = await runCall(
      paymentsCharge,
      { amount: 10, mode: 'commit' },
      { workflowId: 'wf-edit', callId: 'c1' },
    );
    await store.recordExecution({ execution, workflowId: 'wf-edit', runId: null });
    const edited = JSON.stringify({ ...execution.modelResult, data: { chargeId: 'ch_evil', amount: 1_000_000 } });
    await db.pool.query('UPDATE ttc_ledger SET model_result_json = $1 WHERE idempotency_key = $2', [
      edited,
      execution.audit.idempotency_key,
    ]);
    await rejectsWith(store.claimIdempotencyKey(claimOf(execution, 'wf-edit')), 'PROTOCOL_ERROR', 'digest_mismatch');
  });

  it('rejects malformed claims with INVALID_ARGUMENTS', async () => {
    await rejectsWith(
      store.claimIdempotencyKey({
        idempotencyKey: 'k',
        requestSha256: 'not-a-digest',
        tool: 't',
        callId: 'c',
        workflowId: 'w',
      }),
      'INVALID_ARGUMENTS',
      'invalid_input',
    );
    await rejectsWith(
      store.claimIdempotencyKey({
        idempotencyKey: 'k\u0000',
        requestSha256: 'a'.repeat(64),
        tool: 't',
        callId: 'c',
        workflowId: 'w',
      }),
      'INVALID_ARGUMENTS',
      'invalid_input',
    );
  });
});
