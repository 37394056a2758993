import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { monthBounds } from '../../../src/store/audit-trail/months.js';
import { PgAuditTrail } from '../../../src/store/pg/pg-audit-trail.js';
import { unsettledByToolSql, unsettledRoundsSql } from '../../../src/store/pg/pg-reconciliation.js';
import { runRowsSql } from '../../../src/store/pg/pg-trail-history.js';
import { segmentRowsSql, TRAIL_ROW_COLUMNS } from '../../../src/store/pg/pg-trail-rows.js';
import { unsealedPageSql, workflowSealedRowsSql } from '../../../src/store/pg/pg-trail-scope.js';
import { rangeEndSql, rangeRowsSql } from '../../../src/store/pg/pg-trail-seal.js';
import { runsInScopeSql, sealedInMonthCountSql } from '../../../src/store/pg/pg-trail-verify.js';
import { poolQueryable, type Queryable } from '../../../src/store/pg/sql-runner.js';
import { bulkLoadHistory } from '../../support/bulk-history.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { accessPaths, planNodes } from '../../support/query-plans.js';

/**
 * The audit trail's statements (seal, verify, export) and the operator's `unsettled` list on tables of realistic size:
 * 1,000,000 audit rows over four months (one transaction each, 50,000 workflows of 20 calls), sealed into ranges of
 * 10,000 transactions, and 1,000,000 reconciliation rounds of which 100 are open. Each statement must read through
 * an index (or one month's partition), never a whole table. Generated in the database with generate_series.
 */
const ROWS = 1_000_000;
const RANGE = 10_000;
const end = new Date('2026-11-30T12:00:00Z');
let db: TestDatabase;
let q: Queryable;

before(
  async () => {
    db = await openTestDatabase('audit-trail-plans');
    q = poolQueryable({ pool: db.pool, schema: db.schema });
    const started = Date.now();
    const owner = db.ownerPool;
    await owner.query(
      `SELECT ttc_ensure_partitions(m) FROM generate_series($1::timestamptz - interval '120 days', $1::timestamptz, interval '1 month') AS m`,
      [end],
    );
    await bulkLoadHistory(owner, async (client) => {
      // The stamps are given (row i: transaction i, seq i, ten seconds after row i - 1): the stamp trigger is off too.
      await client.query('ALTER TABLE ttc_audit DISABLE TRIGGER ttc_audit_stamp');
      try {
        await client.query(
          `INSERT INTO ttc_audit (audit_id, workflow_id, run_id, call_id, attempt, idempotency_key, tool, status, error_code, request_sha256, result_sha256,
                                call_binding_sha256, audit_sha256, principal_ref, audit_json, model_result_json, recorded_at, seq, xact)
         SELECT 'aud_' || i, 'wf-' || (i % 50000), 'run-1', 'call-' || (i / 50000), 1, 'key-' || i, 'tool-' || (i % 20), 'succeeded', NULL,
                repeat('a', 64), repeat('b', 64), repeat('c', 64), repeat('d', 64), repeat('e', 64), '{}', '{}',
                $1::timestamptz - ($2::int - i) * interval '10 seconds', i, i
           FROM generate_series(1, $2::int) AS i`,
          [end, ROWS],
        );
      } finally {
        await client.query('ALTER TABLE ttc_audit ENABLE TRIGGER ttc_audit_stamp');
      }
    });
    // One anchor per range of transactions and month (their digests do not matter to a plan).
    await owner.query(
      `INSERT INTO ttc_audit_anchors (anchor_no, period, xact_from, xact_to, row_count, leaves, merkle_root, prev_anchor_sha256, anchor_sha256, sealed_at, sealed_by)
     SELECT row_number() OVER (ORDER BY k, m), m, 1 + k * $1::int, 1 + (k + 1) * $1::int, 1, decode(repeat('00', 32), 'hex'), repeat('0', 64), repeat('0', 64),
            md5(k || '/' || m) || md5(m || '/' || k), now(), 'generated'
       FROM (SELECT DISTINCT (xact - 1) / $1::int AS k, date_trunc('month', recorded_at, 'UTC')::date AS m FROM ttc_audit) AS ranges`,
      [RANGE],
    );
    await owner.query(
      `INSERT INTO ttc_reconciliations (idempotency_key, round, workflow_id, call_id, tool, audit_id, state, opened_at, settled_at, outcome, via)
     SELECT 'key-' || i, 1, 'wf-' || (i % 50000), 'call-' || i, 'tool-' || (i % 20), 'aud_' || i, CASE WHEN i % 10000 = 0 THEN 'open' ELSE 'settled' END,
            $1::timestamptz - i * interval '10 seconds', CASE WHEN i % 10000 = 0 THEN NULL ELSE $1::timestamptz - i * interval '10 seconds' + interval '1 minute' END,
            CASE WHEN i % 10000 = 0 THEN NULL ELSE 'committed' END, CASE WHEN i % 10000 = 0 THEN NULL ELSE 'receipt' END
       FROM generate_series(1, $2::int) AS i`,
      [end, ROWS],
    );
    await owner.query('ANALYZE ttc_audit, ttc_audit_anchors, ttc_reconciliations');
    process.stdout.write(
      `# generated ${ROWS} audit rows and ${ROWS} reconciliation rounds in ${Date.now() - started} ms\n`,
    );
  },
  { timeout: 1_200_000 },
);
after(async () => db?.close());

/** A full range of 10,000 transactions in the middle of October, and the month around it. */
const range = { from: String(1 + 70 * RANGE), to: String(1 + 71 * RANGE) };
const october = monthBounds('2026-10-01');

describe(`audit trail and unsettled plans (real Postgres, ${ROWS.toLocaleString('en')} rows)`, () => {
  it('seal: the end of a range and its rows come from the (xact, seq) index', async () => {
    assert.deepEqual(await accessPaths(db.pool, rangeEndSql(q), [range.from, String(ROWS), RANGE]), [
      'ttc_audit_seal_idx',
    ]);
    assert.deepEqual(await accessPaths(db.pool, rangeRowsSql(q), [range.from, range.to]), ['ttc_audit_seal_idx']);
  });

  it("verify and export: a segment's rows come from one month's (xact, seq) index", async () => {
    const sql = segmentRowsSql(q, TRAIL_ROW_COLUMNS);
    const params = [...october, range.from, range.to, null];
    assert.deepEqual(await accessPaths(db.pool, sql, params), ['ttc_audit_seal_idx']);
    assert.deepEqual(partitionsRead(await planNodes(db.pool, sql, params)), ['ttc_audit_y2026m10'], 'one partition');
    const oneWorkflow = await accessPaths(db.pool, sql, [...october, range.from, range.to, 'wf-4242']);
    assert.ok(oneWorkflow.length > 0 && oneWorkflow.every((path) => !path.startsWith('seq:')), oneWorkflow.join());
  });

  it("verify: a month's sealed rows are counted in that month's partition alone", async () => {
    const nodes = await planNodes(db.pool, sealedInMonthCountSql(q), [...october, String(ROWS)]);
    assert.deepEqual(partitionsRead(nodes), ['ttc_audit_y2026m10']);
  });

  it('verify and export of one workflow: its rows, its runs and their rows come from the (workflow, call) index', async () => {
    assert.deepEqual(await accessPaths(db.pool, workflowSealedRowsSql(q), ['wf-4242', String(ROWS)]), [
      'ttc_audit_call_idx',
    ]);
    assert.deepEqual(await accessPaths(db.pool, runsInScopeSql(q), [null, null, 'wf-4242']), ['ttc_audit_call_idx']);
    assert.deepEqual(await accessPaths(db.pool, runRowsSql(q), ['wf-4242', 'run-1']), ['ttc_audit_call_idx']);
  });

  it('verify and export: the rows after the last seal are paged through the (xact, seq) index', async () => {
    const sealedTo = String(ROWS - 5_000);
    assert.deepEqual(
      await accessPaths(db.pool, unsealedPageSql(q, TRAIL_ROW_COLUMNS), [sealedTo, null, null, null, null, null]),
      ['ttc_audit_seal_idx'],
    );
    assert.deepEqual(
      await accessPaths(db.pool, unsealedPageSql(q, TRAIL_ROW_COLUMNS), [
        sealedTo,
        String(ROWS - 4_000),
        String(ROWS - 4_000),
        null,
        null,
        null,
      ]),
      ['ttc_audit_seal_idx'],
    );
    const oneWorkflow = await accessPaths(db.pool, unsealedPageSql(q, TRAIL_ROW_COLUMNS), [
      sealedTo,
      null,
      null,
      null,
      null,
      'wf-4242',
    ]);
    assert.ok(oneWorkflow.length > 0 && oneWorkflow.every((path) => !path.startsWith('seq:')), oneWorkflow.join());
  });

  it("an audit id is found through each month's primary key (reads, and the one-row-per-id insert trigger)", async () => {
    assert.deepEqual(
      await accessPaths(db.pool, `SELECT 1 FROM ${q.table('ttc_audit')} WHERE audit_id = $1`, ['aud_777']),
      ['ttc_audit_pkey'],
    );
  });

  it('unsettled: the open rounds and their count by tool come from the partial index of unsettled rounds', async () => {
    assert.deepEqual(await accessPaths(db.pool, unsettledRoundsSql(q), [100]), ['ttc_reconciliations_unsettled_idx']);
    assert.deepEqual(await accessPaths(db.pool, unsettledByToolSql(q), []), ['ttc_reconciliations_unsettled_idx']);
  });

  it('the trail answers a one-workflow verify and export from the generated rows', async () => {
    const trail = new PgAuditTrail(db.pool, { schema: db.schema });
    const timed = async <T>(work: () => Promise<T>) => {
      const started = performance.now();
      const result = await work();
      return { result, ms: Math.round(performance.now() - started) };
    };
    // The generated anchors are not real seals: only what the plans promise is measured here, not what verify finds.
    const verified = await timed(() => trail.verify({ workflowId: 'wf-4242' }));
    let lines = 0;
    const exported = await timed(() =>
      trail.export({ protectedFields: false, workflowId: 'wf-4242' }, async () => void (lines += 1)),
    );
    process.stdout.write(
      `# one workflow of ${ROWS} rows: verify ${verified.ms} ms (${verified.result.counts.segments} segments, ${verified.result.counts.rows} rows), export ${exported.ms} ms (${lines} lines)\n`,
    );
    assert.equal(exported.result.records, 20);
    assert.ok(verified.result.counts.segments <= 20);
  });
});

/** The partitions of the audit a plan reads. */
function partitionsRead(nodes: readonly { 'Relation Name'?: string }[]): string[] {
  return [
    ...new Set(
      nodes.flatMap((node) =>
        node['Relation Name']?.startsWith('ttc_audit_y') === true ? [node['Relation Name']] : [],
      ),
    ),
  ].sort();
}
