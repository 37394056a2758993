// Approval requests (migration 005) on real Postgres: what the worker recorded for the approver is written once and
// read back exactly, listed while it waits, and cannot be changed afterwards — not by the application role (no
// UPDATE or DELETE granted), not by the owner by mistake (the append-only trigger). Parity with the in-memory store:
// store-scenario.ts (memory-tool-store.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApprovalRequestInput } from '../../../src/store/approval-requests.js';
import { APPEND_ONLY_SQLSTATE } from '../../../src/store/index.js';
import type { PgToolStore } from '../../../src/store/pg/pg-tool-store.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { rejectsWith } from './assert-store-error.js';
import { ordersGet, runCall } from '../../../testkit/store-tools.js';

let db: TestDatabase;
let clock = new Date('2026-12-01T09:00:00.000Z');
let store: PgToolStore;

before(async () => {
  db = await openTestDatabase('approval-requests');
  store = db.store({ now: () => clock });
});
after(async () => db?.close());

const request = (callId: string, overrides: Partial<ApprovalRequestInput> = {}): ApprovalRequestInput => ({
  workflowId: 'wf-transfer',
  runId: 'run-1',
  callId,
  tool: 'bank.transfer',
  effect: 'write',
  arguments: {
    to_account: 'acct_payroll',
    amount_cents: 100,
    credentials: '[REDACTED: sensitive field]',
    note: 'ünïcödé ✓',
  },
  hidden: [{ path: '/credentials', reason: 'sensitive_field' }],
  requestSha256: 'c'.repeat(64),
  waitMs: 3_600_000,
  ...overrides,
});

/** The Postgres error a statement fails with (its SQLSTATE), or `null` when it succeeds. */
async function sqlstateOf(pool: TestDatabase['pool'], sql: string): Promise<string | null> {
  try {
    await pool.query(sql);
    return null;
  } catch (error) {
    return (error as { code?: string }).code ?? 'unknown';
  }
}

describe('approval requests (real Postgres)', () => {
  it("records a request with the store clock's times and reads it back exactly; a retry returns the first write", async () => {
    const recorded = await store.recordApprovalRequest(request('call-1'));
    assert.deepEqual(recorded, {
      workflowId: 'wf-transfer',
      runId: 'run-1',
      callId: 'call-1',
      tool: 'bank.transfer',
      effect: 'write',
      arguments: {
        to_account: 'acct_payroll',
        amount_cents: 100,
        credentials: '[REDACTED: sensitive field]',
        note: 'ünïcödé ✓',
      },
      hidden: [{ path: '/credentials', reason: 'sensitive_field' }],
      requestSha256: 'c'.repeat(64),
      requestedAt: '2026-12-01T09:00:00.000Z',
      expiresAt: '2026-12-01T10:00:00.000Z',
    });
    clock = new Date('2026-12-01T09:05:00.000Z');
    assert.deepEqual(
      await store.recordApprovalRequest(request('call-1')),
      recorded,
      'a retried step gets the stored request, times included',
    );
    assert.deepEqual(
      await store.getApprovalRequest({ workflowId: 'wf-transfer', runId: 'run-1', callId: 'call-1' }),
      recorded,
    );
    assert.equal(
      await store.getApprovalRequest({ workflowId: 'wf-transfer', runId: 'run-2', callId: 'call-1' }),
      null,
      'another run has no request',
    );
  });

  it('refuses another request for a call that has one, whatever differs', async () => {
    for (const changed of [
      { requestSha256: 'd'.repeat(64) },
      { arguments: { to_account: 'acct_mallory', amount_cents: 100 } },
      { tool: 'bank.transfer_all' },
      { effect: 'destructive' as const },
    ]) {
      await rejectsWith(
        store.recordApprovalRequest(request('call-1', changed)),
        'IDEMPOTENCY_CONFLICT',
        'approval_request_reused',
      );
    }
    for (const bad of [
      { waitMs: 0 },
      { waitMs: 10 ** 12 },
      { requestSha256: 'C'.repeat(64) },
      { runId: '' },
      { callId: 'call\u0000x' },
      { arguments: { n: Number.NaN } },
    ]) {
      await rejectsWith(store.recordApprovalRequest(request('call-bad', bad)), 'INVALID_ARGUMENTS', 'invalid_input');
    }
  });

  it('lists the requests still within their wait, oldest first, of one workflow id or of all', async () => {
    clock = new Date('2026-12-01T09:10:00.000Z');
    await store.recordApprovalRequest(request('call-2', { waitMs: 60_000 }));
    await store.recordApprovalRequest(request('call-1', { workflowId: 'wf-other' }));
    const at = (iso: string, workflowId?: string) =>
      store.listApprovalRequests({ at: new Date(iso), ...(workflowId === undefined ? {} : { workflowId }) });
    const calls = async (iso: string, workflowId?: string) =>
      (await at(iso, workflowId)).map((r) => `${r.workflowId}/${r.callId}`);
    // Oldest first; made at the same time, by workflow id.
    assert.deepEqual(await calls('2026-12-01T09:10:30Z'), [
      'wf-transfer/call-1',
      'wf-other/call-1',
      'wf-transfer/call-2',
    ]);
    assert.deepEqual(await calls('2026-12-01T09:10:30Z', 'wf-other'), ['wf-other/call-1']);
    assert.deepEqual(
      await calls('2026-12-01T09:11:00Z', 'wf-transfer'),
      ['wf-transfer/call-1'],
      'a request whose wait is over is not listed',
    );
    assert.deepEqual(await calls('2026-12-01T08:00:00Z'), [], 'nor one not yet made');
    assert.equal((await store.listApprovalRequests({ at: new Date('2026-12-01T09:10:30Z'), limit: 1 })).length, 1);
  });

  it('stops listing a request once its call recorded an attempt in its run (approved, rejected or expired)', async () => {
    clock = new Date('2026-12-01T09:20:00.000Z');
    await store.recordApprovalRequest(request('call-3', { runId: 'run-3' }));
    await store.recordApprovalRequest(request('call-3', { runId: 'run-4' }));
    const waiting = async () =>
      (await store.listApprovalRequests({ at: new Date('2026-12-01T09:20:30Z'), workflowId: 'wf-transfer' }))
        .filter((r) => r.callId === 'call-3')
        .map((r) => r.runId);
    assert.deepEqual(await waiting(), ['run-3', 'run-4']);
    const attempt = await runCall(ordersGet, { orderId: 'o-3' }, { workflowId: 'wf-transfer', callId: 'call-3' });
    await store.recordExecution({ execution: attempt, workflowId: 'wf-transfer', runId: 'run-3' });
    assert.deepEqual(await waiting(), ['run-4'], "the other run's call still waits");
  });

  it('cannot be changed afterwards: the application role has no UPDATE or DELETE, the owner meets the append-only trigger', async () => {
    const privileges = await db.ownerPool.query<{ privilege: string; granted: boolean }>(
      `SELECT p AS privilege, has_table_privilege($1, format('%I.ttc_approval_requests', $2::text), p) AS granted FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE']) AS p`,
      [db.appRole, db.schema],
    );
    assert.deepEqual(Object.fromEntries(privileges.rows.map((row) => [row.privilege, row.granted])), {
      SELECT: true,
      INSERT: true,
      UPDATE: false,
      DELETE: false,
      TRUNCATE: false,
    });
    const forged = `UPDATE ttc_approval_requests SET preview_json = '{"arguments":{"amount_cents":1},"hidden":[]}' WHERE call_id = 'call-1'`;
    assert.equal(
      await sqlstateOf(db.pool, forged),
      '42501',
      'the application role may not rewrite what an approver is shown',
    );
    assert.equal(await sqlstateOf(db.pool, `DELETE FROM ttc_approval_requests`), '42501');
    assert.equal(
      await sqlstateOf(db.ownerPool, `UPDATE ${db.schema}.ttc_approval_requests SET tool = 'x'`),
      APPEND_ONLY_SQLSTATE,
    );
    assert.deepEqual(
      (await store.getApprovalRequest({ workflowId: 'wf-transfer', runId: 'run-1', callId: 'call-1' }))?.arguments,
      request('call-1').arguments,
      'the request is as recorded',
    );
  });
});
