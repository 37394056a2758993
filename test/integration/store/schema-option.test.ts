import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InMemoryToolStore } from '../../../src/store/in-memory/in-memory-tool-store.js';
import { migrate } from '../../../src/store/pg/migrate.js';
import { PgToolStore } from '../../../src/store/pg/pg-tool-store.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { rejectsWith } from './assert-store-error.js';
import { storeScenario } from './store-scenario.js';

/**
 * The schema option: the tables live in the schema `migrate` and `PgToolStore` are given, and no statement depends on
 * search_path. Here the application role's search_path points at the test database's own schema, which stays empty,
 * so any unqualified statement would fail `schema_missing` (or read the wrong tables).
 */
let db: TestDatabase;
let named: string;
before(async () => {
  db = await openTestDatabase('schema-option', { migrate: false });
  named = `${db.schema}_named`;
});
after(async () => {
  await db?.ownerPool.query(`DROP SCHEMA IF EXISTS ${named} CASCADE`).catch(() => undefined);
  await db?.close();
});

async function tableCount(schema: string): Promise<number> {
  const { rows } = await db.ownerPool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1 AND tablename LIKE 'ttc\\_%'`,
    [schema],
  );
  return rows[0]!.n;
}

describe('schema option (real Postgres)', () => {
  it('migrates into the schema given (creating it) and the store works there while search_path points elsewhere', async () => {
    const report = await migrate(db.ownerPool, { appRole: db.appRole, schema: named });
    assert.ok(report.applied.length > 0);
    assert.ok((await tableCount(named)) > 0, 'the tables are in the named schema');
    assert.equal(await tableCount(db.schema), 0, 'nothing landed in the search_path schema');

    const store = new PgToolStore(db.pool, { schema: named });
    assert.deepEqual(await storeScenario(store), await storeScenario(new InMemoryToolStore()));
    // The reads the scenario does not make, each of which must find the rows in the named schema.
    const audits = await store.listAudits({ workflowId: 'wf' });
    assert.ok(audits.length > 0);
    assert.equal((await store.getAudit(audits[0]!.auditId))?.auditSha256, audits[0]!.auditSha256);
    assert.ok((await store.listEvidence({ workflowId: 'wf' })).length > 0);
    const paid = await store.getLedgerEntry('k-pay');
    assert.equal(paid?.status, 'completed');
    assert.ok((await store.listStatePatches({ workflowId: 'wf' })).length > 0);
    assert.ok((await store.listMemories({ workflowId: 'wf' })).length > 0);
    assert.equal(
      (await store.escalateReconciliation({ idempotencyKey: 'k-unknown', reason: 'needs_a_person' })).state,
      'escalated',
    );
    assert.equal((await store.listUnsettled()).length, 1);
    const label = await store.labelOutcome(paid.auditRef!, 'false_accept', 'reviewer', null);
    assert.deepEqual(await store.listOutcomeLabels([label.auditId]), [label]);
    assert.ok((await store.contractMetrics()).attempts > 0);
  });

  it('migrate without a schema refuses to start a second, empty store in public when the search_path schema holds one (an upgrade that forgot DATABASE_SCHEMA)', async (t) => {
    const { rows } = await db.ownerPool.query<{ has: boolean }>(
      `SELECT to_regclass('public.ttc_schema_migrations') IS NOT NULL AS has`,
    );
    if (rows[0]!.has) return t.skip('public already holds a store on this Postgres (DATABASE_URL): nothing to refuse');
    // The store as a pre-schema-option deployment made it: wherever the owner's search_path pointed.
    await migrate(db.ownerPool, { appRole: db.appRole, schema: db.schema });
    await rejectsWith(migrate(db.ownerPool, { appRole: db.appRole }), 'TOOL_ERROR', 'migration_mismatch');
    assert.equal(await tableCount('public'), 0, 'nothing was created in public');
    // Naming the schema (what DATABASE_SCHEMA does) migrates as before.
    assert.deepEqual((await migrate(db.ownerPool, { appRole: db.appRole, schema: db.schema })).applied, []);
  });

  it('refuses a schema name that is not a lower-case identifier, before sending any SQL', async () => {
    for (const schema of ['', 'Public', 'a"b', 'x; drop table y', '1abc', 'a'.repeat(64)]) {
      assert.throws(
        () => new PgToolStore(db.pool, { schema }),
        (error: unknown) => (error as { reason?: string }).reason === 'invalid_input',
      );
      await rejectsWith(migrate(db.ownerPool, { schema }), 'INVALID_ARGUMENTS', 'invalid_input');
    }
  });
});
