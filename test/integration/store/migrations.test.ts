import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { canonicalJson } from '../../../src/contract/canonical-json.js';
import { sha256Hex } from '../../../src/contract/sha256.js';
import { loadMigrations, migrate, MIGRATIONS_TABLE } from '../../../src/store/pg/migrate.js';
import { isStoreError } from '../../../src/store/store-error.js';
import { PgAuditTrail } from '../../../src/store/pg/pg-audit-trail.js';
import { PgToolStore } from '../../../src/store/pg/pg-tool-store.js';
import { ensureLoginRole } from '../../../src/testing/application-role.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { rejectsWith } from './assert-store-error.js';
import { ordersGet, runCall } from '../../../testkit/store-tools.js';

let db: TestDatabase;
before(async () => {
  // A cluster of its own: a seal covers only rows older than every transaction open anywhere in the cluster
  // (docs/audit.md), and the run's shared cluster has other files' long transactions open.
  db = await openTestDatabase('migrations', { migrate: false, privateServer: true });
});
after(async () => db?.close());

/** The package's tables, without the monthly partitions of the history tables (migration 006). */
async function tables(): Promise<string[]> {
  const { rows } = await db.ownerPool.query<{ tablename: string }>(
    `SELECT tablename FROM pg_tables t WHERE schemaname = current_schema()
        AND NOT (SELECT relispartition FROM pg_class WHERE oid = format('%I.%I', t.schemaname, t.tablename)::regclass) ORDER BY tablename`,
  );
  return rows.map((r) => r.tablename);
}

/** A scratch schema (dropped afterwards) and a pool on it for each connection string given. */
async function withSchema(
  suffix: string,
  work: (schema: string, poolOf: (connectionString: string, max?: number) => pg.Pool) => Promise<void>,
): Promise<void> {
  const schema = `${db.schema}_${suffix}`;
  await db.ownerPool.query(`CREATE SCHEMA ${schema}`);
  const pools: pg.Pool[] = [];
  try {
    await work(schema, (connectionString, max = 2) => {
      const pool = new pg.Pool({ connectionString, max });
      pools.push(pool);
      return pool;
    });
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
    await db.ownerPool.query(`DROP SCHEMA ${schema} CASCADE`);
  }
}

/** What the application role may do to each package table, partitions included (`has_table_privilege`, for the privileges asked). */
async function appPrivileges(): Promise<Record<string, string>> {
  const { rows } = await db.ownerPool.query<{ tablename: string; granted: string }>(
    `SELECT tablename, concat_ws(',',
        CASE WHEN has_table_privilege($1, format('%I.%I', schemaname, tablename), 'SELECT') THEN 'SELECT' END,
        CASE WHEN has_table_privilege($1, format('%I.%I', schemaname, tablename), 'INSERT') THEN 'INSERT' END,
        CASE WHEN has_table_privilege($1, format('%I.%I', schemaname, tablename), 'UPDATE') THEN 'UPDATE' END,
        CASE WHEN has_table_privilege($1, format('%I.%I', schemaname, tablename), 'DELETE') THEN 'DELETE' END,
        CASE WHEN has_table_privilege($1, format('%I.%I', schemaname, tablename), 'TRUNCATE') THEN 'TRUNCATE' END,
        CASE WHEN has_table_privilege($1, format('%I.%I', schemaname, tablename), 'TRIGGER') THEN 'TRIGGER' END) AS granted
       FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`,
    [db.appRole],
  );
  return Object.fromEntries(rows.map((row) => [row.tablename, row.granted]));
}

describe('migrations (real Postgres)', () => {
  it('migrates an empty schema from nothing to the current version as the owner, granting the application role', async () => {
    assert.deepEqual(await tables(), []);
    const all = await loadMigrations();
    assert.ok(all.length >= 2);
    const report = await migrate(db.ownerPool, { schema: db.schema, appRole: db.appRole });
    assert.deepEqual(
      report.applied,
      all.map((m) => m.version),
    );
    assert.deepEqual(report.alreadyApplied, []);
    assert.equal(report.appRole, db.appRole);
    assert.deepEqual(await tables(), [
      'ttc_approval_requests',
      'ttc_artifacts',
      'ttc_audit',
      'ttc_audit_anchors',
      'ttc_audit_facts',
      'ttc_audit_layers',
      'ttc_audit_retirements',
      'ttc_erasures',
      'ttc_evidence',
      'ttc_ledger',
      'ttc_memory',
      'ttc_outcome_labels',
      'ttc_reconciliation_attempts',
      'ttc_reconciliations',
      'ttc_retention_log',
      MIGRATIONS_TABLE,
      'ttc_state',
      'ttc_state_patches',
    ]);
  });

  it('grants the application role exactly SELECT/INSERT on history and SELECT/INSERT/UPDATE on state, nothing else', async () => {
    const privileges = await appPrivileges();
    const partitions = Object.keys(privileges).filter((table) => /_y\d{4}m\d{2}$/.test(table));
    assert.ok(partitions.length >= 10, 'this month and the next, of five tables');
    // A partition is reached only through its table: nothing is granted on it directly.
    for (const partition of partitions) assert.equal(privileges[partition], '', partition);
    assert.deepEqual(Object.fromEntries(Object.entries(privileges).filter(([table]) => !partitions.includes(table))), {
      ttc_approval_requests: 'SELECT,INSERT',
      ttc_artifacts: 'SELECT,INSERT',
      ttc_audit: 'SELECT,INSERT',
      ttc_audit_anchors: 'SELECT,INSERT',
      ttc_audit_facts: 'SELECT,INSERT',
      ttc_audit_layers: 'SELECT,INSERT',
      ttc_audit_retirements: 'SELECT',
      ttc_erasures: 'SELECT',
      ttc_evidence: 'SELECT,INSERT',
      ttc_ledger: 'SELECT,INSERT,UPDATE',
      ttc_memory: 'SELECT,INSERT,UPDATE',
      ttc_outcome_labels: 'SELECT,INSERT',
      ttc_reconciliation_attempts: 'SELECT,INSERT',
      ttc_reconciliations: 'SELECT,INSERT,UPDATE',
      ttc_retention_log: 'SELECT',
      [MIGRATIONS_TABLE]: 'SELECT',
      ttc_state: 'SELECT,INSERT,UPDATE',
      ttc_state_patches: 'SELECT,INSERT',
    });
    const { rows } = await db.ownerPool.query<{
      owner: string;
      retention: boolean;
      retire: boolean;
      erase: boolean;
      grant: boolean;
      partitions: boolean;
      sequence: string;
    }>(
      `SELECT (SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tableowner = $1)::int AS owner,
              has_function_privilege($1, 'ttc_purge_before(timestamptz)', 'EXECUTE') AS retention,
              has_function_privilege($1, 'ttc_retire_before(date, text)', 'EXECUTE') AS retire,
              has_function_privilege($1, 'ttc_erase(text, text, text, text)', 'EXECUTE') AS erase,
              has_function_privilege($1, 'ttc_grant_application_role(name)', 'EXECUTE') AS grant,
              has_function_privilege($1, 'ttc_ensure_partitions(timestamptz)', 'EXECUTE') AS partitions,
              concat_ws(',', CASE WHEN has_sequence_privilege($1, 'ttc_audit_seq', 'USAGE') THEN 'USAGE' END,
                             CASE WHEN has_sequence_privilege($1, 'ttc_audit_seq', 'UPDATE') THEN 'UPDATE' END) AS sequence`,
      [db.appRole],
    );
    assert.deepEqual(
      rows[0],
      { owner: 0, retention: false, retire: false, erase: false, grant: false, partitions: true, sequence: 'USAGE' },
      'the application role owns nothing and may not purge, retire, erase or grant; it may prepare a month and stamp rows',
    );
  });

  it('does nothing on a re-run, and re-grants: a privilege added by hand is revoked again', async () => {
    await db.ownerPool.query(`GRANT DELETE ON ttc_audit TO ${db.appRole}`);
    const before = await db.ownerPool.query<{ version: number; applied_at: Date }>(
      `SELECT version, applied_at FROM ${MIGRATIONS_TABLE} ORDER BY version`,
    );
    const report = await migrate(db.ownerPool, { schema: db.schema, appRole: db.appRole });
    assert.deepEqual(report.applied, []);
    assert.deepEqual(
      report.alreadyApplied,
      before.rows.map((r) => r.version),
    );
    const afterRows = await db.ownerPool.query<{ version: number; applied_at: Date }>(
      `SELECT version, applied_at FROM ${MIGRATIONS_TABLE} ORDER BY version`,
    );
    assert.deepEqual(afterRows.rows, before.rows);
    assert.equal((await appPrivileges())['ttc_audit'], 'SELECT,INSERT');
  });

  it('lets the application role confirm a schema its owner migrated, without DDL and without a single-role warning', async () => {
    const report = await migrate(db.pool, { schema: db.schema });
    assert.deepEqual(report.applied, []);
    assert.deepEqual(
      report.alreadyApplied,
      (await loadMigrations()).map((m) => m.version),
    );
    assert.deepEqual([report.appRole, report.singleRole], [null, false]);
    // One migration behind, it cannot catch up itself: the owner must migrate.
    const next = {
      version: report.alreadyApplied.length + 1,
      name: 'next.sql',
      sql: 'CREATE TABLE ttc_next (id int)',
      sha256: 'e'.repeat(64),
    };
    await assert.rejects(
      migrate(db.pool, { schema: db.schema, migrations: [...(await loadMigrations()), next] }),
      (error: unknown) => isStoreError(error) && error.details['sqlstate'] === '42501',
    );
  });

  it('refuses an application role that could act as the owner: the owner itself, a superuser, a member of the owner, or none', async () => {
    const owner = (await db.ownerPool.query<{ current_user: string }>('SELECT current_user')).rows[0]!.current_user;
    await rejectsWith(migrate(db.ownerPool, { schema: db.schema, appRole: owner }), 'TOOL_ERROR', 'role_setup');
    await rejectsWith(
      migrate(db.ownerPool, { schema: db.schema, appRole: `${db.schema}_nobody` }),
      'TOOL_ERROR',
      'role_setup',
    );
    const member = `${db.schema}_member`;
    await db.ownerPool.query(`CREATE ROLE ${member} LOGIN`);
    try {
      await db.ownerPool.query(`GRANT ${owner} TO ${member}`);
      await rejectsWith(migrate(db.ownerPool, { schema: db.schema, appRole: member }), 'TOOL_ERROR', 'role_setup');
      await db.ownerPool.query(`REVOKE ${owner} FROM ${member}`);
      await db.ownerPool.query(`ALTER ROLE ${member} SUPERUSER`);
      await rejectsWith(migrate(db.ownerPool, { schema: db.schema, appRole: member }), 'TOOL_ERROR', 'role_setup');
    } finally {
      await db.ownerPool.query(`DROP ROLE ${member}`);
    }
  });

  it('refuses to grant on tables the application role owns (an older single-role setup) until ownership moves', async () => {
    await withSchema('single', async (schema, poolOf) => {
      await db.ownerPool.query(`GRANT USAGE, CREATE ON SCHEMA ${schema} TO ${db.appRole}`);
      const report = await migrate(poolOf(db.connectionString), { schema });
      assert.deepEqual(
        [report.appRole, report.singleRole],
        [null, true],
        'migrated by the application role itself: no separation',
      );
      await rejectsWith(
        migrate(poolOf(db.ownerConnectionString), { schema, appRole: db.appRole }),
        'TOOL_ERROR',
        'role_setup',
      );
    });
  });

  it('backfills audit_sha256 of audit rows recorded before migration 002, and the store reads them as intact', async () => {
    const [first] = await loadMigrations();
    const execution = await runCall(ordersGet, { orderId: 'o-old' }, { workflowId: 'wf-old', callId: 'c1' });
    const auditJson = canonicalJson(execution.audit);
    await withSchema('backfill', async (schema, poolOf) => {
      const owner = poolOf(db.ownerConnectionString);
      await migrate(owner, { schema, migrations: [first!] });
      const { audit } = execution;
      await owner.query(
        `INSERT INTO ${schema}.ttc_audit (audit_id, workflow_id, run_id, call_id, attempt, idempotency_key, tool, status, error_code, request_sha256, result_sha256,
           call_binding_sha256, audit_json, model_result_json, recorded_at) VALUES ($1, $2, NULL, $3, $4, $5, $6, $7, NULL, $8, $9, $10, $11, $12, now())`,
        [
          audit.audit_id,
          'wf-old',
          audit.call_id,
          audit.attempt,
          audit.idempotency_key,
          audit.tool,
          audit.status,
          audit.bindings.request_sha256,
          audit.bindings.result_sha256,
          audit.bindings.call_binding_sha256,
          auditJson,
          canonicalJson(execution.modelResult),
        ],
      );
      await migrate(owner, { schema, appRole: db.appRole });
      const stored = await new PgToolStore(poolOf(db.connectionString), { schema }).getAudit(audit.audit_id);
      assert.equal(stored?.auditSha256, sha256Hex(auditJson));
      assert.deepEqual(stored?.audit, audit);
    });
  });

  it("moves rows recorded before migration 006 into their months' partitions, stamped, and they seal and verify", async () => {
    const all = await loadMigrations();
    const runs = [
      {
        execution: await runCall(ordersGet, { orderId: 'o-1' }, { workflowId: 'wf-before', callId: 'c1' }),
        at: '2026-09-15T10:00:00Z',
      },
      {
        execution: await runCall(ordersGet, { orderId: 'o-2' }, { workflowId: 'wf-before', callId: 'c2' }),
        at: '2026-10-15T10:00:00Z',
      },
    ];
    await withSchema('before006', async (schema, poolOf) => {
      const owner = poolOf(db.ownerConnectionString);
      await migrate(owner, { schema, migrations: all.filter((m) => m.version < 6), appRole: db.appRole });
      for (const { execution, at } of runs) {
        const { audit, modelResult } = execution;
        const auditJson = canonicalJson(audit);
        await owner.query(
          `INSERT INTO ${schema}.ttc_audit (audit_id, workflow_id, run_id, call_id, attempt, idempotency_key, tool, status, error_code, request_sha256, result_sha256,
             call_binding_sha256, audit_sha256, audit_json, model_result_json, recorded_at) VALUES ($1, 'wf-before', 'run-1', $2, 1, $3, $4, $5, NULL, $6, $7, $8, $9, $10, $11, $12)`,
          [
            audit.audit_id,
            audit.call_id,
            audit.idempotency_key,
            audit.tool,
            audit.status,
            audit.bindings.request_sha256,
            audit.bindings.result_sha256,
            audit.bindings.call_binding_sha256,
            sha256Hex(auditJson),
            auditJson,
            canonicalJson(modelResult),
            at,
          ],
        );
        for (const item of modelResult.evidence) {
          const source = execution.evidenceSources[item.evidence_id] ?? modelResult.provenance.source_label;
          await owner.query(
            `INSERT INTO ${schema}.ttc_evidence (workflow_id, call_id, evidence_id, audit_id, kind, locator, supports, quote, observed_at, source, record_json, recorded_at)
             VALUES ('wf-before', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
            [
              audit.call_id,
              item.evidence_id,
              audit.audit_id,
              item.kind,
              item.locator,
              item.supports,
              item.quote ?? null,
              item.observed_at ?? null,
              source,
              canonicalJson({ ...item, source }),
              at,
            ],
          );
        }
      }
      await migrate(owner, { schema, appRole: db.appRole });
      const { rows } = await owner.query<{ partition: string; principal_ref: string; stamped: boolean }>(
        `SELECT tableoid::regclass::text AS partition, principal_ref, seq IS NOT NULL AND xact IS NOT NULL AS stamped FROM ${schema}.ttc_audit ORDER BY recorded_at`,
      );
      assert.deepEqual(
        rows.map((row) => row.partition.replace(`${schema}.`, '')),
        ['ttc_audit_y2026m09', 'ttc_audit_y2026m10'],
      );
      assert.deepEqual(
        rows.map((row) => row.principal_ref),
        runs.map(({ execution }) => execution.audit.principal_ref),
        'the principal reference, read from each record',
      );
      assert.ok(rows.every((row) => row.stamped));
      const app = poolOf(db.connectionString);
      assert.equal(
        (await new PgToolStore(app, { schema }).listEvidence({ workflowId: 'wf-before' })).length,
        4,
        'the evidence came along, still verified',
      );
      const trail = new PgAuditTrail(app, { schema });
      assert.equal((await trail.seal()).sealed.length, 2, 'one anchor per month');
      const report = await trail.verify();
      assert.deepEqual(report.findings, []);
      assert.equal(report.counts.rows, 2);
    });
  });

  it('lets concurrent migrators of a fresh schema apply each migration exactly once', async () => {
    await withSchema('concurrent', async (schema, poolOf) => {
      const pools = Array.from({ length: 5 }, () => poolOf(db.ownerConnectionString));
      const reports = await Promise.all(pools.map((pool) => migrate(pool, { schema, appRole: db.appRole })));
      assert.equal(reports.filter((r) => r.applied.length > 0).length, 1);
      const { rows } = await db.ownerPool.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${schema}.${MIGRATIONS_TABLE}`,
      );
      assert.equal(Number(rows[0]!.n), (await loadMigrations()).length);
    });
  });

  it('refuses to run when an applied migration file was edited (forward only)', async () => {
    const edited = (await loadMigrations()).map((m) =>
      m.version === 1 ? { ...m, sql: `${m.sql}\n-- edited`, sha256: 'f'.repeat(64) } : m,
    );
    await rejectsWith(
      migrate(db.ownerPool, { schema: db.schema, migrations: edited }),
      'TOOL_ERROR',
      'migration_mismatch',
    );
  });

  it('refuses a database that has migrations this package does not know', async () => {
    await rejectsWith(migrate(db.ownerPool, { schema: db.schema, migrations: [] }), 'TOOL_ERROR', 'migration_mismatch');
  });

  it('creates a login role idempotently, and a second call resets its password', async () => {
    const role = `${db.schema}_login`;
    const password = randomBytes(12).toString('hex');
    await ensureLoginRole(db.ownerConnectionString, role, 'first-password');
    await ensureLoginRole(db.ownerConnectionString, role, password);
    const url = new URL(db.ownerConnectionString);
    url.username = role;
    url.password = password;
    const client = new pg.Client({ connectionString: url.toString() });
    try {
      await client.connect();
      assert.equal((await client.query<{ current_user: string }>('SELECT current_user')).rows[0]?.current_user, role);
    } finally {
      await client.end().catch(() => undefined);
      await db.ownerPool.query(`DROP ROLE ${role}`);
    }
  });
});
