import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { metricsQueries } from '../../../src/store/pg/pg-metrics.js';
import { APPEND_ONLY_SQLSTATE } from '../../../src/store/pg/pg-errors.js';
import { poolQueryable } from '../../../src/store/pg/sql-runner.js';
import { bulkLoadHistory } from '../../support/bulk-history.js';
import { accessPaths } from '../../support/query-plans.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';

/**
 * The metrics read indexed copies of the audit (`ttc_audit_facts`, `ttc_audit_layers`): on a table of realistic
 * size, the queries of a narrow window (one tool, one week; or every tool, one day) must use those indexes, not read
 * every row. 100,000 attempts of 20 tools over 90 days, three decided layers each.
 */
const ATTEMPTS = 100_000;
const INSUFFICIENT_PRIVILEGE = '42501';
const DAY_MS = 86_400_000;
let db: TestDatabase;
let end: Date;

before(
  async () => {
    db = await openTestDatabase('metrics-indexes');
    end = new Date('2026-11-30T12:00:00Z');
    const started = Date.now();
    // Rows of the shape the store writes; the JSON columns are not read by the metrics.
    // As the owner: the generated rows stand for what the store wrote over 90 days, and ANALYZE needs the owner too.
    const owner = db.ownerPool;
    // The months the rows fall in (the history tables are partitioned by month).
    await owner.query(
      `SELECT ttc_ensure_partitions(m) FROM generate_series($1::timestamptz - interval '92 days', $1::timestamptz, interval '1 month') AS m`,
      [end],
    );
    await bulkLoadHistory(owner, async (client) => {
      await client.query(
        `INSERT INTO ttc_audit (audit_id, workflow_id, run_id, call_id, attempt, idempotency_key, tool, status, error_code, request_sha256, result_sha256, call_binding_sha256, audit_sha256, principal_ref, audit_json, model_result_json, recorded_at)
       SELECT 'aud_' || i, 'wf-' || (i % 5000), NULL, 'call-' || i, 1, 'key-' || i, 'tool-' || (i % 20),
              CASE WHEN i % 10 = 0 THEN 'failed' ELSE 'succeeded' END, CASE WHEN i % 10 = 0 THEN 'INVARIANT_VIOLATION' END,
              repeat('a', 64), repeat('b', 64), repeat('c', 64), repeat('d', 64), repeat('e', 64), '{}', '{}', $1::timestamptz - ((i / 20) % 90) * interval '1 day' - (i % 86400) * interval '1 second'
         FROM generate_series(1, $2::int) AS i`,
        [end, ATTEMPTS],
      );
      await client.query(
        `INSERT INTO ttc_audit_facts (audit_id, tool, error_code, accepted, warnings, recorded_at)
       SELECT audit_id, tool, error_code, error_code IS NULL, CASE WHEN audit_id LIKE '%7' THEN ARRAY['STALE_DATA'] ELSE ARRAY[]::text[] END, recorded_at
         FROM ttc_audit`,
      );
      await client.query(
        `INSERT INTO ttc_audit_layers (audit_id, tool, layer, outcome, rule_version, accepted, recorded_at)
       SELECT a.audit_id, a.tool, l.layer, CASE WHEN l.layer = 'semantics' AND a.error_code IS NOT NULL THEN 'failed' ELSE 'passed' END,
              CASE l.layer WHEN 'semantics' THEN 'invariant:totals@' || (1 + (substr(a.audit_id, 5)::int % 3)) ELSE l.layer || '@1' END, a.error_code IS NULL, a.recorded_at
         FROM ttc_audit a CROSS JOIN (VALUES ('input'), ('schema'), ('semantics')) AS l(layer)`,
      );
    });
    await owner.query('ANALYZE ttc_audit_facts, ttc_audit_layers, ttc_outcome_labels');
    process.stdout.write(
      `# generated ${ATTEMPTS} attempts (${ATTEMPTS * 3} layer rows) in ${Date.now() - started} ms\n`,
    );
  },
  { timeout: 600_000 },
);
after(async () => db?.close());

/** How each metrics query reads the copies: the indexes it scans, and `seq:<table>` for a table it reads whole. */
async function metricsAccessPaths(window: { since?: string; tool?: string }): Promise<string[]> {
  const paths: string[] = [];
  for (const query of metricsQueries(poolQueryable({ pool: db.pool, schema: db.schema }), window)) {
    const read = await accessPaths(db.pool, query.sql, query.params);
    paths.push(...read.filter((path) => /^(seq:)?ttc_audit_(facts|layers)/.test(path)));
  }
  return paths;
}

describe('metrics indexes (real Postgres, 100,000 attempts)', () => {
  it('one tool over one week reads the (tool, time) indexes', async () => {
    const since = new Date(end.getTime() - 7 * DAY_MS).toISOString();
    assert.deepEqual(await metricsAccessPaths({ tool: 'tool-7', since }), [
      'ttc_audit_facts_tool_idx',
      'ttc_audit_facts_tool_idx',
      'ttc_audit_layers_tool_idx',
    ]);
  });

  it('every tool over one day reads an index of each copy, never the whole table', async () => {
    const since = new Date(end.getTime() - DAY_MS).toISOString();
    const paths = await metricsAccessPaths({ since });
    // The planner may read the layers through the (tool, time) index too: Postgres 18 skips across the 20 tools.
    assert.deepEqual(
      paths.map((path) => path.replace(/_(time|tool)_idx$/, '_idx')),
      ['ttc_audit_facts_idx', 'ttc_audit_facts_idx', 'ttc_audit_layers_idx'],
    );
  });

  it('the store answers those windows from the generated rows', async () => {
    const store = db.store();
    const timed = async (window: { since?: string; tool?: string }) => {
      const started = performance.now();
      const metrics = await store.contractMetrics(window);
      return { metrics, ms: Math.round(performance.now() - started) };
    };
    const week = await timed({ tool: 'tool-7', since: new Date(end.getTime() - 7 * DAY_MS).toISOString() });
    const all = await timed({});
    process.stdout.write(`# contractMetrics: one tool, one week ${week.ms} ms; everything ${all.ms} ms\n`);
    assert.equal(all.metrics.attempts, ATTEMPTS);
    assert.equal(all.metrics.byTool.length, 20);
    assert.deepEqual(
      all.metrics.byRule.filter((r) => r.tool === 'tool-0' && r.layer === 'semantics').map((r) => r.ruleVersion),
      ['invariant:totals@1', 'invariant:totals@2', 'invariant:totals@3'],
    );
    assert.ok(week.metrics.attempts > 0 && week.metrics.attempts < ATTEMPTS / 20);
  });

  it('the copies and the labels are append-only, like the audit: refused to the owner by trigger, to the application by privilege', async () => {
    for (const statement of [
      "UPDATE ttc_audit_facts SET tool = 'x' WHERE audit_id = 'aud_1'",
      "DELETE FROM ttc_audit_layers WHERE audit_id = 'aud_1'",
      "UPDATE ttc_outcome_labels SET label = 'false_reject' WHERE false",
      'TRUNCATE ttc_outcome_labels',
    ]) {
      await assert.rejects(
        db.ownerPool.query(statement),
        (error: { code?: string }) => error.code === APPEND_ONLY_SQLSTATE,
        statement,
      );
      await assert.rejects(
        db.pool.query(statement),
        (error: { code?: string }) => error.code === INSUFFICIENT_PRIVILEGE,
        statement,
      );
    }
  });
});
