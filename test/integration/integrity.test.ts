// Issue 12 through the whole stack: a real dev server, a worker with the plugin (keyed principal references), the
// store as the application role, and the owner (a superuser) as the attacker; then the CLI as an operator runs it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { auditDigest, verifyAudit } from '../../src/contract/bindings.js';
import { canonicalJson } from '../../src/contract/canonical-json.js';
import { principalRef } from '../../src/contract/principal-ref.js';
import { reconcileWorkflowId, WORKFLOW_PROVIDER, type ToolCallResult } from '../../workflows/index.js';
import { EXIT_CODES } from '../../src/cli/cli-error.js';
import { runCli } from '../support/cli-process.js';
import { historyText } from '../support/history-text.js';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import type { RunningWorker } from '../../testkit/running-worker.js';
import { asOwnerWithoutTriggers, databaseEnv, openTestDatabase, type TestDatabase } from '../support/postgres.js';
import { startRuntimeHarness, type RuntimeHarness } from '../support/runtime-harness.js';

/** The worker's principal key (a test value; real keys come from a secret store). */
const PRINCIPAL_KEY = 'integration-test-principal-key-0123456789abcdef';
const acme = { tenant: 'tenant-acme', subject: 'user-42' };
const globex = { tenant: 'tenant-globex', subject: 'user-42' };
const fast = { timeoutMs: 1500, reconcile: { initialIntervalMs: 200, maximumIntervalMs: 800, deadlineMs: 30_000 } };

let h: RuntimeHarness;
let db: TestDatabase;
let worker: RunningWorker;

before(
  async () => {
    h = await startRuntimeHarness(
      {
        create: async () => {
          db = await openTestDatabase('it-integrity');
          return { store: db.store(), close: () => db.close() };
        },
      },
      { principalKey: PRINCIPAL_KEY, safeRetryTools: [TOOLS.charge] },
    );
    worker = await h.startWorker();
  },
  { timeout: 180_000 },
);

after(
  async () => {
    await worker?.stop();
    await h?.stop();
  },
  { timeout: 180_000 },
);

async function run(
  workflowId: string,
  tool: string,
  args: unknown,
  principal: { tenant: string; subject: string },
): Promise<ToolCallResult> {
  return (await h.temporal.client.workflow.execute('runToolCall', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [tool, args, { principal, ...fast }],
  })) as ToolCallResult;
}

test(
  'two tenants whose tool derives the same business key get two ledger rows, two provider keys and two reconciliations',
  { timeout: 180_000 },
  async () => {
    const charge = { payment_id: 'pay_shared_1', customer: 'cus_1', amount_cents: 900 };
    const [acmeKey, globexKey] = [chargeKey(acme.tenant, 'pay_shared_1'), chargeKey(globex.tenant, 'pay_shared_1')];
    assert.notEqual(acmeKey, globexKey);
    // Both writes commit and then time out, so each is reconciled by its own child workflow.
    h.payments.inject(acmeKey, 'commit_then_hang');
    h.payments.inject(globexKey, 'commit_then_hang');
    const [first, second] = await Promise.all([
      run('tenant-acme-charge', TOOLS.charge, charge, acme),
      run('tenant-globex-charge', TOOLS.charge, charge, globex),
    ]);
    for (const result of [first, second]) {
      assert.equal(result.modelResult.status, 'succeeded', result.modelResult.error?.code);
      assert.equal(result.modelResult.execution.delivery, 'receipt_reconciled');
    }
    assert.deepEqual(
      [h.payments.commits(acmeKey), h.payments.commits(globexKey)],
      [1, 1],
      'the provider saw two keys, one commit each',
    );
    assert.equal((await h.store.getLedgerEntry(acmeKey))?.workflowId, 'tenant-acme-charge');
    assert.equal((await h.store.getLedgerEntry(globexKey))?.workflowId, 'tenant-globex-charge');
    const reconciliations = [reconcileWorkflowId(acmeKey), reconcileWorkflowId(globexKey)];
    for (const id of reconciliations)
      assert.equal((await h.temporal.client.workflow.getHandle(id).describe()).status.name, 'COMPLETED');
    const { text } = await historyText(h.temporal.client, reconciliations[0]!);
    assert.doesNotMatch(text, /tenant-globex/, "one tenant's reconciliation knows nothing of the other");
  },
);

test(
  'the audit carries an HMAC principal reference that verifies only with the key, which never reaches history',
  { timeout: 120_000 },
  async () => {
    const { modelResult, auditRef } = await run('keyed-read', TOOLS.customer, { customer_id: 'cus_7' }, acme);
    assert.ok(auditRef !== null);
    const stored = await h.store.getAudit(auditRef.audit_id);
    assert.ok(stored !== null);
    assert.notEqual(stored.audit.principal_ref, principalRef(acme), 'not the plain digest anyone can recompute');
    assert.equal(stored.audit.principal_ref, principalRef(acme, PRINCIPAL_KEY));
    const trusted = {
      principal: acme,
      tool: h.tools.get(TOOLS.customer),
      arguments: { customer_id: 'cus_7' },
      provider: WORKFLOW_PROVIDER,
      callId: 'call-1',
      operationId: 'keyed-read:call-1',
      idempotencyKey: 'keyed-read:call-1',
    };
    const inputs = { modelResult, audit: stored.audit, auditSha256: auditRef.audit_sha256! };
    assert.deepEqual(verifyAudit({ ...inputs, trusted: { ...trusted, principalKey: PRINCIPAL_KEY } }), {
      ok: true,
      failed: [],
    });
    assert.deepEqual(verifyAudit({ ...inputs, trusted }).failed, ['principal']);
    assert.deepEqual(
      verifyAudit({ ...inputs, trusted: { ...trusted, principalKey: `${PRINCIPAL_KEY}-other` } }).failed,
      ['principal'],
    );
    const { text } = await historyText(h.temporal.client, 'keyed-read');
    assert.ok(!text.includes(PRINCIPAL_KEY), 'the key is not in history');
    assert.ok(!JSON.stringify(stored.audit).includes(PRINCIPAL_KEY), 'nor in the audit');
  },
);

test(
  'history carries audit_sha256: an owner who rewrites a receipt inside the audit, digest column included, is caught',
  { timeout: 120_000 },
  async () => {
    const payment = { payment_id: 'pay_audit_1', customer: 'cus_2', amount_cents: 400 };
    const { modelResult, auditRef } = await run('audit-sha-charge', TOOLS.charge, payment, acme);
    assert.equal(modelResult.execution.outcome, 'committed');
    assert.ok(auditRef?.audit_sha256 !== undefined);
    const stored = await h.store.getAudit(auditRef.audit_id);
    assert.ok(stored !== null);
    assert.equal(auditRef.audit_sha256, auditDigest(stored.audit), 'history names the exact record stored');

    const forged = { ...stored.audit, downstream: { ...stored.audit.downstream, receipt_external_id: 'ch_attacker' } };
    const asOwner = (sql: string, params: unknown[]) => asOwnerWithoutTriggers(db, sql, params);

    // The record alone: the store refuses it, and an operator inspecting the call through the CLI is told and shown
    // nothing of the forged record.
    await asOwner('UPDATE ttc_audit SET audit_json = $1 WHERE audit_id = $2', [
      canonicalJson(forged),
      auditRef.audit_id,
    ]);
    await assert.rejects(
      h.store.getAudit(auditRef.audit_id),
      (error: { reason?: unknown }) => error.reason === 'digest_mismatch',
    );
    const inspected = await runCli(['inspect', 'audit-sha-charge'], {
      env: { DATABASE_URL: databaseEnv(db).DATABASE_URL, DATABASE_SCHEMA: db.schema },
    });
    assert.equal(inspected.code, EXIT_CODES.failure, inspected.stderr);
    assert.match(inspected.stderr, /integrity check failed/);
    assert.doesNotMatch(inspected.stdout + inspected.stderr, /ch_attacker/);

    // Record and digest column together: the store cannot tell, but the digest in history can.
    await asOwner('UPDATE ttc_audit SET audit_sha256 = $1 WHERE audit_id = $2', [
      auditDigest(forged),
      auditRef.audit_id,
    ]);
    const served = await h.store.getAudit(auditRef.audit_id);
    assert.equal(served?.audit.downstream.receipt_external_id, 'ch_attacker');
    const verdict = verifyAudit({
      modelResult,
      audit: served.audit,
      trusted: {
        principal: acme,
        tool: h.tools.get(TOOLS.charge),
        arguments: payment,
        provider: WORKFLOW_PROVIDER,
        callId: 'call-1',
        operationId: 'audit-sha-charge:call-1',
        idempotencyKey: chargeKey(acme.tenant, 'pay_audit_1'),
        principalKey: PRINCIPAL_KEY,
      },
      auditSha256: auditRef.audit_sha256,
    });
    assert.deepEqual(verdict.failed, ['audit'], 'the three bindings alone do not cover the receipt');
  },
);
