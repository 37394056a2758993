// Issue 25, item 8, replayed on a real Postgres: a SECURITY DEFINER function runs with its owner's rights, and a name
// it does not qualify is looked up in the caller's session first — pg_temp comes first unless the search_path lists
// it. Whoever may call such a function (a retention role, the application role) creates temporary tables named like
// the store's and watches the function write to them instead. Every definer function of the store must name its
// tables by schema and pin search_path = "<schema>", pg_temp.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ensureLoginRole, withCredentials } from '../../../src/testing/application-role.js';
import { catalogSearch, ordersGet, runCall } from '../../../testkit/store-tools.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';

let db: TestDatabase;
/** A role that may run retention and erasure (granted EXECUTE, as docs/security.md says to), and nothing else. */
let operatorPool: pg.Pool;
const operator = `ttc_definer_${randomBytes(4).toString('hex')}`;

before(async () => {
  db = await openTestDatabase('definer-search-path');
  const password = randomBytes(18).toString('base64url');
  await ensureLoginRole(db.ownerConnectionString, operator, password);
  await db.ownerPool.query(`GRANT USAGE ON SCHEMA ${db.schema} TO ${operator}`);
  await db.ownerPool.query(`GRANT EXECUTE ON FUNCTION ttc_purge_before(timestamptz) TO ${operator}`);
  await db.ownerPool.query(`ALTER ROLE ${operator} SET search_path TO ${db.schema}`);
  operatorPool = new pg.Pool({ connectionString: withCredentials(db.connectionString, operator, password), max: 1 });
  operatorPool.on('error', () => undefined);
});
after(async () => {
  await operatorPool?.end().catch(() => undefined);
  await db?.ownerPool.query(`DROP OWNED BY ${operator}`).catch(() => undefined);
  await db?.ownerPool.query(`DROP ROLE ${operator}`).catch(() => undefined);
  await db?.close();
});

/**
 * Runs `work` in one transaction of one connection of `pool`, committed unless it throws (a refused statement has
 * already aborted it: COMMIT then rolls back): a temporary table lives as long as its session, and through a
 * transaction-mode pooler (the pooler tier) a session is one transaction.
 */
async function inOneSession<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release(true);
  }
}

describe("SECURITY DEFINER functions cannot be steered by the caller's temporary tables (real Postgres)", () => {
  it('ttc_purge_before logs every item it deletes in the real retention log, even when the caller made a temporary one', async () => {
    const store = db.store({ now: () => new Date('2020-01-01T00:00:00Z') });
    const withArtifact = await runCall(catalogSearch, { count: 250 }, { workflowId: 'wf-purge', callId: 'c1' });
    const withEvidence = await runCall(ordersGet, { orderId: 'o-purge' }, { workflowId: 'wf-purge', callId: 'c2' });
    await store.recordExecution({ execution: withArtifact, workflowId: 'wf-purge', runId: 'run-1' });
    await store.recordExecution({ execution: withEvidence, workflowId: 'wf-purge', runId: 'run-1' });

    const swallowed = await inOneSession(operatorPool, async (client) => {
      await client.query(
        'CREATE TEMPORARY TABLE ttc_retention_log (purged_at timestamptz, purged_before timestamptz, purged_by text, kind text, item text[], created_at timestamptz)',
      );
      await client.query("SELECT * FROM ttc_purge_before('2021-01-01T00:00:00Z')");
      return (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_temp.ttc_retention_log')).rows[0]?.n;
    });
    assert.equal(swallowed, 0, "nothing went into the caller's table");
    const { rows } = await db.ownerPool.query<{ kind: string; item: string[] }>(
      'SELECT kind, item FROM ttc_retention_log ORDER BY kind, item',
    );
    assert.deepEqual(
      rows.map((row) => row.kind),
      ['artifact', 'evidence', 'evidence'],
      'each deletion is in the real log',
    );
    assert.deepEqual(rows[0]!.item, [withArtifact.artifacts[0]!.sha256]);
  });

  it('every SECURITY DEFINER function of the store pins search_path to its schema, then pg_temp', async () => {
    const { rows } = await db.ownerPool.query<{ name: string; config: string[] | null }>(
      `SELECT p.proname AS name, p.proconfig AS config FROM pg_proc p WHERE p.pronamespace = to_regnamespace($1) AND p.prosecdef ORDER BY p.proname`,
      [db.schema],
    );
    assert.ok(rows.length > 0);
    for (const row of rows)
      assert.ok(
        row.config?.includes(`search_path=${db.schema}, pg_temp`),
        `${row.name}: ${JSON.stringify(row.config)}`,
      );
  });

  it('ttc_erase records its tombstone in the real table, and ttc_retire_before its run', async () => {
    await db.ownerPool.query(
      `GRANT EXECUTE ON FUNCTION ttc_erase(text, text, text, text), ttc_retire_before(date, text) TO ${operator}`,
    );
    const store = db.store({ now: () => new Date('2020-02-01T00:00:00Z') });
    await store.recordExecution({
      execution: await runCall(ordersGet, { orderId: 'o-erase' }, { workflowId: 'wf-erase', callId: 'c1' }),
      workflowId: 'wf-erase',
      runId: 'run-1',
    });
    await inOneSession(operatorPool, async (client) => {
      await client.query(`CREATE TEMPORARY TABLE ttc_erasures (erasure_id text, erased_at timestamptz, erased_by text, erased_as text, scope text, scope_ref text, reason text,
                                                               audit_ids text[], artifacts text[], memory_ids text[])`);
      await client.query("SELECT * FROM ttc_erase('workflow', 'wf-erase', 'operator', 'test')");
      assert.equal(
        (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_temp.ttc_erasures')).rows[0]?.n,
        0,
      );
    });
    assert.equal(
      (await db.ownerPool.query<{ n: number }>('SELECT count(*)::int AS n FROM ttc_erasures')).rows[0]?.n,
      1,
    );
    await inOneSession(operatorPool, async (client) => {
      // A temporary anchors table claiming every transaction sealed would let the cut drop unsealed rows.
      await client.query(`CREATE TEMPORARY TABLE ttc_audit_anchors (anchor_no bigint, period date, xact_from bigint, xact_to bigint, row_count integer, leaves bytea, merkle_root text,
                                                                    prev_anchor_sha256 text, anchor_sha256 text, sealed_at timestamptz, sealed_by text, key_id text, signature text)`);
      await client.query(`INSERT INTO pg_temp.ttc_audit_anchors (anchor_no, period, xact_from, xact_to, row_count, leaves, merkle_root, prev_anchor_sha256, anchor_sha256, sealed_at, sealed_by)
                          VALUES (1, '2020-01-01', 0, 9000000000000000, 1, '\\x00', repeat('0', 64), repeat('0', 64), repeat('0', 64), now(), 'x')`);
      await assert.rejects(
        client.query(`SELECT * FROM ttc_retire_before('2020-02-01', repeat('a', 64))`),
        (error: { code?: string }) => error.code === 'TT003',
      );
    });
  });

  it('the application role cannot reopen a retired month through a temporary retirements table', async () => {
    await db.ownerPool
      .query(`INSERT INTO ttc_audit_retirements (retired_before, retired_at, retired_by, periods, anchors, audit_rows, evidence_rows, artifact_rows, ledger_rows, label_rows, anchors_export_sha256)
                              VALUES ('2019-06-01', now(), 'owner', '{2019-05-01}', 0, 0, 0, 0, 0, 0, repeat('a', 64))`);
    await inOneSession(db.pool, async (client) => {
      await client.query('CREATE TEMPORARY TABLE ttc_audit_retirements (retired_before date)');
      await assert.rejects(
        client.query("SELECT ttc_ensure_partitions('2019-05-15T00:00:00Z')"),
        (error: { code?: string }) => error.code === 'TT002',
      );
    });
  });
});
