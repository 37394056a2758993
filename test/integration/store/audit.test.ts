import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { executeTool } from '../../../src/contract/execute-tool.js';
import { verifyAudit } from '../../../src/contract/bindings.js';
import { APPEND_ONLY_SQLSTATE, toStoreError } from '../../../src/store/pg/pg-errors.js';
import type { PgToolStore } from '../../../src/store/pg/pg-tool-store.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { testContext } from '../../../testkit/context.js';
import { ordersGet, runCall } from '../../../testkit/store-tools.js';
import { rejectsWith } from './assert-store-error.js';

let db: TestDatabase;
let store: PgToolStore;
before(async () => {
  db = await openTestDatabase('audit');
  store = db.store();
});
after(async () => db?.close());

/** SQLSTATE `insufficient_privilege`: what the application role gets for anything it was not granted. */
const INSUFFICIENT_PRIVILEGE = '42501';

/** Runs raw SQL as `pool`'s role would, and returns the SQLSTATE it failed with. */
async function sqlState(pool: pg.Pool, sql: string, params: unknown[] = []): Promise<string> {
  try {
    await pool.query(sql, params);
  } catch (error) {
    return (error as { code: string }).code;
  }
  assert.fail(`expected the database to refuse: ${sql}`);
}

/** The application role is refused by its privileges; the owner, who has them, by the append-only trigger. */
async function refusedToBoth(sql: string, params: unknown[] = []): Promise<void> {
  assert.equal(await sqlState(db.pool, sql, params), INSUFFICIENT_PRIVILEGE, `application role: ${sql}`);
  assert.equal(await sqlState(db.ownerPool, sql, params), APPEND_ONLY_SQLSTATE, `owner: ${sql}`);
  await assert.rejects(db.ownerPool.query(sql, params), (error) => toStoreError(error).reason === 'append_only');
}

/** A call of `ordersGet` made without Temporal: its audit has no Temporal coordinates. */
function executeToolOutsideTemporal() {
  return executeTool(
    ordersGet,
    { orderId: 'o-outside' },
    testContext({ callId: 'c-outside', idempotencyKey: 'k-outside' }),
  );
}

describe('audit log (real Postgres)', () => {
  it('stores one row per attempt and reads back the exact record, which still verifies', async () => {
    const first = await runCall(ordersGet, { orderId: 'o-1' }, { workflowId: 'wf-audit', callId: 'c1', attempt: 1 });
    const second = await runCall(ordersGet, { orderId: 'o-1' }, { workflowId: 'wf-audit', callId: 'c1', attempt: 2 });
    await store.recordExecution({ execution: first, workflowId: 'wf-audit', runId: 'run-1' });
    await store.recordExecution({ execution: second, workflowId: 'wf-audit', runId: 'run-1' });

    const audits = await store.listAudits({ workflowId: 'wf-audit', callId: 'c1' });
    assert.deepEqual(audits.map((a) => a.attempt).sort(), [1, 2]);
    const stored = await store.getAudit(first.audit.audit_id);
    assert.ok(stored);
    assert.deepEqual(stored.audit, first.audit);
    assert.deepEqual(stored.modelResult, first.modelResult);
    assert.equal(stored.runId, 'run-1');

    const ctx = testContext({ callId: 'c1', operationId: 'op-wf-audit-c1', idempotencyKey: 'wf-audit/c1' });
    const verification = verifyAudit({
      modelResult: stored.modelResult,
      audit: stored.audit,
      trusted: {
        principal: ctx.principal,
        tool: ordersGet,
        arguments: { orderId: 'o-1' },
        provider: ctx.provider,
        callId: ctx.callId,
        operationId: ctx.operationId,
        idempotencyKey: ctx.idempotencyKey,
      },
    });
    assert.deepEqual(verification, { ok: true, failed: [] });
  });

  it('stores evidence rows with call, locator, supports, quote and source', async () => {
    const evidence = await store.listEvidence({ workflowId: 'wf-audit', callId: 'c1' });
    assert.equal(evidence.length, 2);
    const status = evidence.find((e) => e.supports.includes('/order/status'));
    assert.ok(status);
    assert.equal(status.locator, 'orders/o-1');
    assert.equal(status.quote, 'status of o-1');
    assert.equal(status.source, 'orders-db');
    assert.equal(status.callId, 'c1');
    const total = evidence.find((e) => e.supports.includes('/order/total'));
    assert.equal(total?.source, 'billing-db');
    assert.equal(total?.quote, null);
  });

  it('refuses UPDATE of an audit row in the database itself', async () => {
    const [row] = await store.listAudits({ workflowId: 'wf-audit' });
    assert.ok(row);
    await refusedToBoth(`UPDATE ttc_audit SET status = 'succeeded', audit_json = '{}' WHERE audit_id = $1`, [
      row.auditId,
    ]);
    assert.deepEqual((await store.getAudit(row.auditId))?.audit, row.audit);
  });

  it('refuses DELETE and TRUNCATE of audit rows in the database itself', async () => {
    await refusedToBoth('DELETE FROM ttc_audit');
    await refusedToBoth('TRUNCATE ttc_audit CASCADE');
    assert.equal((await store.listAudits({ workflowId: 'wf-audit' })).length, 2);
  });

  it('keeps state-patch and reconciliation-attempt history append-only too', async () => {
    const [evidence] = await store.listEvidence({ workflowId: 'wf-audit' });
    await store.applyStatePatch({
      patchId: 'p-audit',
      workflowId: 'wf-audit',
      key: 'order',
      value: { status: 'shipped' },
      evidenceIds: [evidence!.evidenceId],
      source: 'orders-db',
      observedAt: null,
      retrievedAt: '2026-11-30T12:00:00Z',
      expectedVersion: 0,
      callId: 'c1',
    });
    await store.openReconciliation({
      idempotencyKey: 'k-audit',
      workflowId: 'wf-audit',
      callId: 'c9',
      tool: 'payments.charge',
      auditId: null,
    });
    await store.recordReconciliationAttempt({
      idempotencyKey: 'k-audit',
      attempt: 1,
      finding: 'unknown',
      detail: null,
    });
    await refusedToBoth('DELETE FROM ttc_state_patches');
    await refusedToBoth('UPDATE ttc_reconciliation_attempts SET finding = $1', ['committed']);
    assert.equal((await store.listStatePatches({ workflowId: 'wf-audit' })).length, 1);
    assert.equal((await store.getReconciliation('k-audit'))?.attempts[0]?.finding, 'unknown');
  });

  it('detects a model result edited behind the trigger (by a superuser) when reading the audit', async () => {
    const [row] = await store.listAudits({ workflowId: 'wf-audit' });
    assert.ok(row);
    const client = await db.ownerPool.connect();
    try {
      // Replica mode skips ordinary triggers: what someone with superuser access could do.
      await client.query("SET session_replication_role = 'replica'");
      await client.query('UPDATE ttc_audit SET model_result_json = $1 WHERE audit_id = $2', [
        JSON.stringify({ ...row.modelResult, status: 'failed' }),
        row.auditId,
      ]);
    } finally {
      await client.query("SET session_replication_role = 'origin'");
      client.release();
    }
    await assert.rejects(
      store.getAudit(row.auditId),
      (error: { code?: unknown; reason?: unknown }) =>
        error.code === 'PROTOCOL_ERROR' && error.reason === 'digest_mismatch',
    );
  });

  it('detects an audit record whose bindings were edited behind the trigger', async () => {
    const execution = await runCall(ordersGet, { orderId: 'o-edit' }, { workflowId: 'wf-audit-edit', callId: 'c1' });
    await store.recordExecution({ execution, workflowId: 'wf-audit-edit', runId: null });
    const forged = { ...execution.audit, bindings: { ...execution.audit.bindings, request_sha256: 'f'.repeat(64) } };
    const client = await db.ownerPool.connect();
    try {
      await client.query("SET session_replication_role = 'replica'");
      await client.query('UPDATE ttc_audit SET audit_json = $1 WHERE audit_id = $2', [
        JSON.stringify(forged),
        execution.audit.audit_id,
      ]);
    } finally {
      await client.query("SET session_replication_role = 'origin'");
      client.release();
    }
    await assert.rejects(
      store.getAudit(execution.audit.audit_id),
      (error: { code?: unknown; reason?: unknown }) =>
        error.code === 'PROTOCOL_ERROR' && error.reason === 'digest_mismatch',
    );
  });

  it('refuses, before writing anything, an execution filed under a workflow its audit does not name (cut, or another)', async () => {
    const count = async (table: string, column: string, value: string) =>
      Number(
        (await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE ${column} = $1`, [value]))
          .rows[0]!.n,
      );
    // A 10 KB workflow id (and the idempotency key derived from it): the audit records both cut, the row would hold it whole.
    const longWorkflow = `wf-${'w'.repeat(10_000)}`;
    const cut = await runCall(ordersGet, { orderId: 'o-long' }, { workflowId: longWorkflow, callId: 'c1' });
    assert.notEqual(cut.audit.temporal?.workflow_id, longWorkflow, 'the audit holds it cut');
    const moved = await runCall(ordersGet, { orderId: 'o-moved' }, { workflowId: 'wf-named', callId: 'c1' });
    for (const [execution, workflowId] of [
      [cut, longWorkflow],
      [moved, 'wf-other'],
    ] as const) {
      await rejectsWith(
        store.recordExecution({ execution, workflowId, runId: null }),
        'INVALID_ARGUMENTS',
        'invalid_input',
      );
      assert.equal(await count('ttc_audit', 'audit_id', execution.audit.audit_id), 0, 'no audit row');
      assert.equal(await count('ttc_evidence', 'audit_id', execution.audit.audit_id), 0, 'no evidence rows');
      assert.equal(await count('ttc_ledger', 'idempotency_key', execution.audit.idempotency_key), 0, 'no ledger row');
    }
    // Control: filed under the workflow it names, the same execution is recorded and reads back.
    await store.recordExecution({ execution: moved, workflowId: 'wf-named', runId: null });
    assert.equal((await store.getAudit(moved.audit.audit_id))?.workflowId, 'wf-named');
    // An audit recorded outside Temporal names no workflow: the caller's is taken.
    const outside = await executeToolOutsideTemporal();
    await store.recordExecution({ execution: outside, workflowId: 'wf-any', runId: null });
    assert.equal((await store.getAudit(outside.audit.audit_id))?.workflowId, 'wf-any');
  });

  it('returns null for an unknown audit id and nothing for an unknown workflow', async () => {
    assert.equal(await store.getAudit('aud_missing'), null);
    assert.deepEqual(await store.listAudits({ workflowId: 'wf-none' }), []);
    assert.deepEqual(await store.listEvidence({ workflowId: 'wf-none' }), []);
  });
});
