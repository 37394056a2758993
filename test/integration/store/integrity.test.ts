// Issue 12 replayed against a real Postgres: what the application role can no longer do at all, and what an owner
// (or a superuser) can still do but no longer gets past a reader. Every attack connects exactly as the store does
// (db.pool: the application role) or, on purpose, as the owner (db.ownerPool).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { canonicalJson } from '../../../src/contract/canonical-json.js';
import { sha256Hex } from '../../../src/contract/sha256.js';
import { verifyAudit } from '../../../src/contract/bindings.js';
import { type ToolExecution } from '../../../src/contract/execute-tool.js';
import type { AuditRef } from '../../../src/store/ledger.js';
import type { PgToolStore } from '../../../src/store/pg/pg-tool-store.js';
import type { StatePatchInput } from '../../../src/store/state-patch.js';
import { testContext } from '../../../testkit/context.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { rejectsWith } from './assert-store-error.js';
import { catalogSearch, ordersGet, paymentsCharge, runCall } from '../../../testkit/store-tools.js';

/** SQLSTATE `insufficient_privilege`. */
const INSUFFICIENT_PRIVILEGE = '42501';

let db: TestDatabase;
let store: PgToolStore;
/** A committed payment: its audit carries a downstream receipt. */
let payment: ToolExecution;
let paymentRef: AuditRef;

before(async () => {
  db = await openTestDatabase('integrity');
  store = db.store();
  payment = await runCall(paymentsCharge, { amount: 25, mode: 'commit' }, { workflowId: 'wf-pay', callId: 'c1' });
  paymentRef = await store.recordExecution({ execution: payment, workflowId: 'wf-pay', runId: 'run-1' });
  const lookup = await runCall(ordersGet, { orderId: 'o-pay' }, { workflowId: 'wf-pay', callId: 'c2' });
  await store.recordExecution({ execution: lookup, workflowId: 'wf-pay', runId: 'run-1' });
});
after(async () => db?.close());

async function sqlState(pool: pg.Pool, sql: string, params: unknown[] = []): Promise<string> {
  try {
    await pool.query(sql, params);
  } catch (error) {
    return (error as { code: string }).code;
  }
  assert.fail(`expected the database to refuse: ${sql}`);
}

/** Runs `statements` as the owner with ordinary triggers off (replica mode): what a superuser can always do. */
async function asOwnerBehindTriggers(statements: readonly [string, unknown[]][]): Promise<void> {
  const client = await db.ownerPool.connect();
  try {
    await client.query("SET session_replication_role = 'replica'");
    for (const [sql, params] of statements) await client.query(sql, params);
  } finally {
    await client.query("SET session_replication_role = 'origin'").catch(() => undefined);
    client.release();
  }
}

function trustedFor(execution: ToolExecution) {
  const ctx = testContext();
  return {
    principal: ctx.principal,
    tool: { name: execution.audit.tool, revisions: execution.audit.revisions },
    arguments: { amount: 25, mode: 'commit' },
    provider: ctx.provider,
    callId: execution.audit.call_id,
    operationId: execution.audit.operation_id,
    idempotencyKey: execution.audit.idempotency_key,
  };
}

describe('the application role cannot rewrite history (real Postgres)', () => {
  it('cannot disable a trigger, change an owner, drop a table, skip triggers or create objects', async () => {
    const refused: string[] = [
      'ALTER TABLE ttc_audit DISABLE TRIGGER ttc_audit_append_only',
      'ALTER TABLE ttc_audit DISABLE TRIGGER ALL',
      `ALTER TABLE ttc_audit OWNER TO ${db.appRole}`,
      `ALTER TABLE ttc_evidence OWNER TO ${db.appRole}`,
      'DROP TRIGGER ttc_audit_append_only ON ttc_audit',
      'DROP TABLE ttc_audit CASCADE',
      "SET session_replication_role = 'replica'",
      'CREATE TABLE ttc_shadow (id integer)',
      'SELECT ttc_purge_before(now())',
      `SELECT ttc_grant_application_role('${db.appRole}')`,
    ];
    for (const sql of refused) assert.equal(await sqlState(db.pool, sql), INSUFFICIENT_PRIVILEGE, sql);
  });

  it('cannot UPDATE, DELETE or TRUNCATE audit, evidence, artifacts, state patches or reconciliation attempts', async () => {
    const artifactRun = await runCall(catalogSearch, { count: 300 }, { workflowId: 'wf-pay', callId: 'c-art' });
    await store.recordExecution({ execution: artifactRun, workflowId: 'wf-pay', runId: 'run-1' });
    const [evidence] = await store.listEvidence({ workflowId: 'wf-pay', callId: 'c2' });
    await store.applyStatePatch(patchCiting('wf-pay', evidence!.evidenceId, 'p-locked'));
    await store.openReconciliation({
      idempotencyKey: 'k-locked',
      workflowId: 'wf-pay',
      callId: 'c9',
      tool: 'payments.charge',
      auditId: null,
    });
    await store.recordReconciliationAttempt({
      idempotencyKey: 'k-locked',
      attempt: 1,
      finding: 'unknown',
      detail: null,
    });
    for (const table of [
      'ttc_audit',
      'ttc_evidence',
      'ttc_artifacts',
      'ttc_state_patches',
      'ttc_reconciliation_attempts',
    ]) {
      for (const sql of [
        `UPDATE ${table} SET ${table === 'ttc_artifacts' ? 'content_type' : 'workflow_id'} = 'x'`,
        `DELETE FROM ${table}`,
        `TRUNCATE ${table} CASCADE`,
      ]) {
        const statement =
          table === 'ttc_reconciliation_attempts' ? sql.replace("workflow_id = 'x'", "finding = 'committed'") : sql;
        assert.equal(await sqlState(db.pool, statement), INSUFFICIENT_PRIVILEGE, statement);
      }
    }
    const stored = await store.getAudit(payment.audit.audit_id);
    assert.deepEqual(stored?.audit, payment.audit, 'the audit row is unchanged');
  });

  it('an owner that bypasses triggers by mistake still meets them: evidence is append-only now too', async () => {
    assert.equal(await sqlState(db.ownerPool, "UPDATE ttc_evidence SET workflow_id = 'wf-other'"), 'TT001');
    assert.equal(await sqlState(db.ownerPool, 'DELETE FROM ttc_evidence'), 'TT001');
    assert.equal(await sqlState(db.ownerPool, 'DELETE FROM ttc_artifacts'), 'TT001');
  });
});

describe('what an owner rewrites is detected, not served (real Postgres)', () => {
  it('an edited downstream.receipt_external_id inside audit_json fails getAudit, listAudits, the ledger and a replay', async () => {
    const edited = {
      ...payment.audit,
      downstream: { ...payment.audit.downstream, receipt_external_id: 'ch_attacker' },
    };
    await asOwnerBehindTriggers([
      ['UPDATE ttc_audit SET audit_json = $1 WHERE audit_id = $2', [canonicalJson(edited), payment.audit.audit_id]],
    ]);
    await rejectsWith(store.getAudit(payment.audit.audit_id), 'PROTOCOL_ERROR', 'digest_mismatch');
    await rejectsWith(store.listAudits({ workflowId: 'wf-pay' }), 'PROTOCOL_ERROR', 'digest_mismatch');
    await rejectsWith(store.getLedgerEntry(payment.audit.idempotency_key), 'PROTOCOL_ERROR', 'digest_mismatch');
    const claim = {
      idempotencyKey: payment.audit.idempotency_key,
      requestSha256: payment.audit.bindings.request_sha256,
      tool: 'payments.charge',
      callId: 'c1',
      workflowId: 'wf-pay',
    };
    await rejectsWith(store.claimIdempotencyKey(claim), 'PROTOCOL_ERROR', 'digest_mismatch');
    await asOwnerBehindTriggers([
      [
        'UPDATE ttc_audit SET audit_json = $1 WHERE audit_id = $2',
        [canonicalJson(payment.audit), payment.audit.audit_id],
      ],
    ]);
    assert.equal((await store.claimIdempotencyKey(claim)).kind, 'replay', 'restored, the record is served again');
  });

  it('a record rewritten together with its audit_sha256 gets past the store, but not verifyAudit with the digest history carries', async () => {
    const edited = {
      ...payment.audit,
      downstream: { ...payment.audit.downstream, receipt_external_id: 'ch_attacker' },
    };
    const editedJson = canonicalJson(edited);
    await asOwnerBehindTriggers([
      [
        'UPDATE ttc_audit SET audit_json = $1, audit_sha256 = $2 WHERE audit_id = $3',
        [editedJson, sha256Hex(editedJson), payment.audit.audit_id],
      ],
    ]);
    try {
      const stored = await store.getAudit(payment.audit.audit_id);
      assert.ok(stored);
      assert.equal(stored.audit.downstream.receipt_external_id, 'ch_attacker');
      const untouched = verifyAudit({
        modelResult: stored.modelResult,
        audit: stored.audit,
        trusted: trustedFor(payment),
      });
      assert.deepEqual(
        untouched,
        { ok: true, failed: [] },
        'the three bindings do not cover the receipt: this is why audit_sha256 exists',
      );
      assert.equal(
        paymentRef.audit_sha256,
        sha256Hex(canonicalJson(payment.audit)),
        'the reference returned to history is the digest of the original',
      );
      const checked = verifyAudit({
        modelResult: stored.modelResult,
        audit: stored.audit,
        trusted: trustedFor(payment),
        auditSha256: paymentRef.audit_sha256,
      });
      assert.deepEqual(checked, { ok: false, failed: ['audit'] });
    } finally {
      await asOwnerBehindTriggers([
        [
          'UPDATE ttc_audit SET audit_json = $1, audit_sha256 = $2 WHERE audit_id = $3',
          [canonicalJson(payment.audit), paymentRef.audit_sha256, payment.audit.audit_id],
        ],
      ]);
    }
  });

  it('an evidence row moved to another workflow is refused as a citation there, and listing it fails', async () => {
    const own = await runCall(ordersGet, { orderId: 'o-moved' }, { workflowId: 'wf-source', callId: 'c1' });
    await store.recordExecution({ execution: own, workflowId: 'wf-source', runId: 'run-1' });
    const target = await runCall(ordersGet, { orderId: 'o-target' }, { workflowId: 'wf-target', callId: 'c1' });
    await store.recordExecution({ execution: target, workflowId: 'wf-target', runId: 'run-1' });
    const moved = own.modelResult.evidence[0]!.evidence_id;
    await rejectsWith(
      store.applyStatePatch(patchCiting('wf-target', moved, 'p-before')),
      'INVALID_ARGUMENTS',
      'evidence_not_found',
    );

    await asOwnerBehindTriggers([
      [
        "UPDATE ttc_evidence SET workflow_id = 'wf-target' WHERE workflow_id = 'wf-source' AND evidence_id = $1",
        [moved],
      ],
    ]);
    await rejectsWith(
      store.applyStatePatch(patchCiting('wf-target', moved, 'p-moved')),
      'PROTOCOL_ERROR',
      'digest_mismatch',
    );
    await rejectsWith(store.listEvidence({ workflowId: 'wf-target' }), 'PROTOCOL_ERROR', 'digest_mismatch');
    assert.equal((await store.listStatePatches({ workflowId: 'wf-target' })).length, 0, 'no patch was written');

    // Moving the audit row along (its indexed workflow column) does not help: the record names its workflow.
    await asOwnerBehindTriggers([
      ["UPDATE ttc_audit SET workflow_id = 'wf-target' WHERE audit_id = $1", [own.audit.audit_id]],
    ]);
    await rejectsWith(
      store.applyStatePatch(patchCiting('wf-target', moved, 'p-moved-2')),
      'PROTOCOL_ERROR',
      'digest_mismatch',
    );
    await rejectsWith(store.getAudit(own.audit.audit_id), 'PROTOCOL_ERROR', 'digest_mismatch');
  });

  it('an evidence row whose content was edited is refused too', async () => {
    const run = await runCall(ordersGet, { orderId: 'o-quote' }, { workflowId: 'wf-quote', callId: 'c1' });
    await store.recordExecution({ execution: run, workflowId: 'wf-quote', runId: 'run-1' });
    const item = run.modelResult.evidence[0]!;
    const forged = canonicalJson({ ...item, quote: 'status of o-quote: refunded', source: 'orders-db' });
    await asOwnerBehindTriggers([
      [
        'UPDATE ttc_evidence SET record_json = $1 WHERE workflow_id = $2 AND evidence_id = $3',
        [forged, 'wf-quote', item.evidence_id],
      ],
    ]);
    await rejectsWith(store.listEvidence({ workflowId: 'wf-quote' }), 'PROTOCOL_ERROR', 'digest_mismatch');
    await rejectsWith(
      store.applyStatePatch(patchCiting('wf-quote', item.evidence_id, 'p-quote')),
      'PROTOCOL_ERROR',
      'digest_mismatch',
    );
  });
});

describe('retention: the one documented way out for evidence and artifacts (real Postgres)', () => {
  it('ttc_purge_before, run by the owner, removes what is older than the cutoff and logs each item', async () => {
    const old = db.store({ now: () => new Date('2020-01-01T00:00:00Z') });
    const oldRun = await runCall(catalogSearch, { count: 250 }, { workflowId: 'wf-old', callId: 'c1' });
    const withEvidence = await runCall(ordersGet, { orderId: 'o-old' }, { workflowId: 'wf-old', callId: 'c2' });
    await old.recordExecution({ execution: oldRun, workflowId: 'wf-old', runId: 'run-1' });
    await old.recordExecution({ execution: withEvidence, workflowId: 'wf-old', runId: 'run-1' });
    assert.equal(oldRun.artifacts.length, 1);

    assert.equal(
      await sqlState(db.ownerPool, "SELECT * FROM ttc_purge_before(now() + interval '1 day')"),
      '22023',
      'a cutoff in the future is refused',
    );
    const { rows } = await db.ownerPool.query<{ evidence_rows: string; artifact_rows: string }>(
      "SELECT * FROM ttc_purge_before('2021-01-01T00:00:00Z')",
    );
    assert.deepEqual(rows[0], { evidence_rows: '2', artifact_rows: '1' });
    assert.deepEqual(await store.listEvidence({ workflowId: 'wf-old' }), []);
    await rejectsWith(store.getArtifact(oldRun.artifacts[0]!.sha256), 'NOT_FOUND', 'artifact_not_found');
    assert.ok(await store.getAudit(withEvidence.audit.audit_id), 'audits are kept');
    assert.ok((await store.listEvidence({ workflowId: 'wf-pay' })).length > 0, 'newer evidence is kept');

    const log = await db.ownerPool.query<{ kind: string; item: string[] }>(
      'SELECT kind, item FROM ttc_retention_log ORDER BY kind, item',
    );
    assert.deepEqual(
      log.rows.map((row) => row.kind),
      ['artifact', 'evidence', 'evidence'],
    );
    assert.deepEqual(log.rows[0]!.item, [oldRun.artifacts[0]!.sha256]);
    assert.equal(await sqlState(db.ownerPool, 'DELETE FROM ttc_retention_log'), 'TT001', 'the log is append-only');
    // The application role reads the log (verify tells a purged body from a deleted one) but cannot write to it.
    assert.equal((await db.pool.query('SELECT kind FROM ttc_retention_log')).rowCount, 3);
    assert.equal(
      await sqlState(
        db.pool,
        "INSERT INTO ttc_retention_log (purged_at, purged_before, purged_by, kind, item, created_at) VALUES (now(), now(), 'x', 'artifact', '{x}', now())",
      ),
      INSUFFICIENT_PRIVILEGE,
    );
  });
});

function patchCiting(workflowId: string, evidenceId: string, patchId: string): StatePatchInput {
  return {
    patchId,
    workflowId,
    key: `k-${patchId}`,
    value: { cited: evidenceId },
    evidenceIds: [evidenceId],
    source: 'orders-db',
    observedAt: null,
    retrievedAt: '2026-11-30T12:00:00Z',
    expectedVersion: 0,
    callId: 'c1',
  };
}
