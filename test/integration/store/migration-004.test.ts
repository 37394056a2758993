import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { canonicalJson } from '../../../src/contract/canonical-json.js';
import { sha256Hex } from '../../../src/contract/sha256.js';
import { VALIDATION_LAYERS } from '../../../src/contract/audit-record.js';
import { type ToolExecution } from '../../../src/contract/execute-tool.js';
import { auditFactsOf, decidedLayersOf } from '../../../src/store/audit-index.js';
import { loadMigrations, migrate } from '../../../src/store/pg/migrate.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { goodOrderOutput, orderTool, returning, sampleOrder } from '../../support/tools.js';
import { runCall } from '../../../testkit/store-tools.js';

let db: TestDatabase;
before(async () => {
  db = await openTestDatabase('migration-004', { migrate: false });
});
after(async () => db?.close());

/** An attempt as a store before migration 004 wrote it: the audit row only (inserted by the owner, as a backfill test may). */
async function insertOldAudit(execution: ToolExecution, workflowId: string): Promise<void> {
  const { audit } = execution;
  const auditJson = canonicalJson(audit);
  await db.ownerPool.query(
    `INSERT INTO ttc_audit (audit_id, workflow_id, run_id, call_id, attempt, idempotency_key, tool, status, error_code, request_sha256, result_sha256, call_binding_sha256, audit_sha256, audit_json, model_result_json, recorded_at)
     VALUES ($1, $2, NULL, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, now())`,
    [
      audit.audit_id,
      workflowId,
      audit.call_id,
      audit.attempt,
      audit.idempotency_key,
      audit.tool,
      audit.status,
      audit.error_code,
      audit.bindings.request_sha256,
      audit.bindings.result_sha256,
      audit.bindings.call_binding_sha256,
      sha256Hex(auditJson),
      auditJson,
      canonicalJson(execution.modelResult),
    ],
  );
}

describe('migration 004 (real Postgres)', () => {
  it('copies the facts and decided layers of attempts recorded before it, and leaves out a record jsonb cannot read', async () => {
    const all = await loadMigrations();
    await migrate(db.ownerPool, {
      schema: db.schema,
      migrations: all.filter((migration) => migration.version < 4),
      appRole: db.appRole,
    });
    const stale = orderTool(returning(goodOrderOutput('2026-01-01T00:00:00Z')), {
      freshness: { maxAgeMs: 60_000, onStale: 'warn' },
    });
    const warned = await runCall(stale, { order_id: 'ord_1001' }, { workflowId: 'wf-old', callId: 'c-1' });
    const refused = await runCall(
      orderTool(returning({ ...goodOrderOutput(), data: { ...sampleOrder, total_cents: 1 } })),
      { order_id: 'ord_1001' },
      { workflowId: 'wf-old', callId: 'c-2' },
    );
    const withNul = await runCall(
      orderTool(returning({ ...goodOrderOutput(), data: { ...sampleOrder, id: 'ord_\u0000' } })),
      { order_id: 'ord_1001' },
      { workflowId: 'wf-old', callId: 'c-3' },
    );
    for (const execution of [warned, refused, withNul]) await insertOldAudit(execution, 'wf-old');

    assert.deepEqual(
      (await migrate(db.ownerPool, { schema: db.schema, migrations: all, appRole: db.appRole })).applied,
      all.filter((migration) => migration.version >= 4).map((migration) => migration.version),
    );

    const facts = await db.pool.query<{
      audit_id: string;
      tool: string;
      accepted: boolean;
      warnings: string[];
      error_code: string | null;
    }>('SELECT audit_id, tool, accepted, warnings, error_code FROM ttc_audit_facts ORDER BY audit_id');
    const expected = [warned, refused]
      .map((execution) => auditFactsOf(execution.audit, execution.modelResult))
      .sort((a, b) => (a.auditId < b.auditId ? -1 : 1));
    assert.deepEqual(
      facts.rows.map((row) => [row.audit_id, row.tool, row.accepted, row.warnings, row.error_code]),
      expected.map((f) => [f.auditId, f.tool, f.accepted, f.warnings, f.errorCode]),
    );
    assert.deepEqual(expected.find((f) => f.auditId === warned.audit.audit_id)?.warnings, ['STALE_DATA']);
    const layers = await db.pool.query<{ audit_id: string; layer: string; outcome: string; rule_version: string }>(
      'SELECT audit_id, layer, outcome, rule_version FROM ttc_audit_layers ORDER BY audit_id, array_position($1::text[], layer)',
      [VALIDATION_LAYERS],
    );
    // The NUL is in the model result (the data), not in the audit: its layers are copied, its facts are not.
    const expectedLayers = [warned, refused, withNul]
      .sort((a, b) => (a.audit.audit_id < b.audit.audit_id ? -1 : 1))
      .flatMap((execution) =>
        decidedLayersOf(execution.audit).map((l) => [execution.audit.audit_id, l.layer, l.outcome, l.ruleVersion]),
      );
    assert.deepEqual(
      layers.rows.map((row) => [row.audit_id, row.layer, row.outcome, row.rule_version]),
      expectedLayers,
    );
  });
});
