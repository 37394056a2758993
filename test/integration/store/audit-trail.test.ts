// The audit trail on a real Postgres (issue 30): sealing beside live writers, verify finding every kind of tampering —
// by the application role and by the owner — export checked offline, retention that keeps the chain verifiable, and
// erasure that leaves digests and no bytes. Attacks connect as the store does (db.pool) or, on purpose, as the owner.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { canonicalJson } from '../../../src/contract/canonical-json.js';
import { executeTool, type ToolExecution } from '../../../src/contract/execute-tool.js';
import { principalRef } from '../../../src/contract/principal-ref.js';
import { sha256Hex } from '../../../src/contract/sha256.js';
import { PgAuditTrail } from '../../../src/store/pg/pg-audit-trail.js';
import type { PgToolStore } from '../../../src/store/pg/pg-tool-store.js';
import type { TrailFinding } from '../../../src/store/audit-trail/trail-findings.js';
import type { TrailReport } from '../../../src/store/audit-trail/trail-report.js';
import { verifyExportLines } from '../../../src/store/audit-trail/verify-file.js';
import { parsePublishedAnchors, publishedAnchorLine } from '../../../src/store/audit-trail/published-anchors.js';
import { testContext } from '../../../testkit/context.js';
import { catalogSearch, ordersGet, paymentsCharge, runCall } from '../../../testkit/store-tools.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { rejectsWith } from './assert-store-error.js';

const INSUFFICIENT_PRIVILEGE = '42501';

let db: TestDatabase;
let store: PgToolStore;
/** The trail as the application role sees it (seal, verify, export). */
let trail: PgAuditTrail;
/** The trail on the owner's pool (retention, erasure). */
let ownerTrail: PgAuditTrail;

before(async () => {
  // A cluster of its own: a seal covers only rows older than every transaction open anywhere in the cluster
  // (docs/audit.md), and the run's shared cluster has other files' long transactions open.
  db = await openTestDatabase('audit-trail', { privateServer: true });
  store = db.store();
  trail = new PgAuditTrail(db.pool, { schema: db.schema });
  ownerTrail = new PgAuditTrail(db.ownerPool, { schema: db.schema });
});
after(async () => db?.close());

/** Records a mixed run of one workflow: reads with evidence, a committed write, and a read over budget (an artifact). */
async function mixedRun(workflowId: string, onStore: PgToolStore = store): Promise<ToolExecution[]> {
  const executions = [
    await runCall(ordersGet, { orderId: `o-${workflowId}` }, { workflowId, callId: 'c1' }),
    await runCall(paymentsCharge, { amount: 25, mode: 'commit' }, { workflowId, callId: 'c2' }),
    await runCall(catalogSearch, { count: 40 }, { workflowId, callId: 'c3' }),
    await runCall(ordersGet, { orderId: `o-${workflowId}-2` }, { workflowId, callId: 'c4' }),
  ];
  for (const execution of executions) await onStore.recordExecution({ execution, workflowId, runId: 'run-1' });
  return executions;
}

async function sqlState(pool: pg.Pool, sql: string, params: unknown[] = []): Promise<string> {
  try {
    await pool.query(sql, params);
  } catch (error) {
    return (error as { code: string }).code;
  }
  assert.fail(`expected the database to refuse: ${sql}`);
}

/** Runs statements as the owner with ordinary triggers off (replica mode): what an owner or superuser can always do. */
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

/** An audit row exactly as stored (every column), to put it back after a tampering test. */
async function storedRow(auditId: string): Promise<Record<string, unknown>> {
  const { rows } = await db.ownerPool.query<Record<string, unknown>>('SELECT * FROM ttc_audit WHERE audit_id = $1', [
    auditId,
  ]);
  assert.equal(rows.length, 1);
  return rows[0]!;
}

function reinsertStatement(row: Record<string, unknown>): [string, unknown[]] {
  const columns = Object.keys(row);
  return [
    `INSERT INTO ttc_audit (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
    columns.map((column) => row[column]),
  ];
}

/** The columns of an audit row that come from its execution (what the store writes for it). */
function auditColumnsOf(execution: ToolExecution): Record<string, unknown> {
  const { audit } = execution;
  const auditJson = canonicalJson(audit);
  return {
    audit_id: audit.audit_id,
    call_id: audit.call_id,
    attempt: audit.attempt,
    idempotency_key: audit.idempotency_key,
    tool: audit.tool,
    status: audit.status,
    error_code: audit.error_code,
    request_sha256: audit.bindings.request_sha256,
    result_sha256: audit.bindings.result_sha256,
    call_binding_sha256: audit.bindings.call_binding_sha256,
    audit_sha256: sha256Hex(auditJson),
    principal_ref: audit.principal_ref,
    audit_json: auditJson,
    model_result_json: canonicalJson(execution.modelResult),
  };
}

function kinds(report: TrailReport): string[] {
  return report.findings.map((finding) => finding.kind);
}

function assertVerified(report: TrailReport, label: string): void {
  assert.deepEqual(report.findings, [], `${label}: ${JSON.stringify(report.findings)}`);
  assert.equal(report.verified, true, label);
}

describe('sealing (real Postgres)', () => {
  it('seals a mixed run into chained anchors that verify, and a second seal finds nothing new', async () => {
    await mixedRun('wf-mixed');
    const sealed = await trail.seal();
    assert.ok(sealed.sealed.length >= 1);
    assert.equal(sealed.sealed[0]!.anchor_no, 1);
    assert.equal(sealed.sealed[0]!.prev_anchor_sha256, '0'.repeat(64), 'the first anchor chains to the genesis digest');
    assert.equal(
      sealed.sealed.reduce((sum, anchor) => sum + anchor.row_count, 0),
      4,
    );
    assert.deepEqual((await trail.seal()).sealed, [], 'nothing new to seal');
    const report = await trail.verify();
    assertVerified(report, 'after the first seal');
    assert.equal(report.counts.rows, 4);
    assert.equal(report.counts.unsealed_rows, 0);
    assert.deepEqual(report.head, { anchor_no: sealed.head!.anchor_no, anchor_sha256: sealed.head!.anchor_sha256 });
  });

  it('rows recorded after the last seal are reported unsealed, then sealed into the next anchor of the chain', async () => {
    const head = (await trail.anchors()).at(-1)!;
    await mixedRun('wf-later');
    const before = await trail.verify();
    assertVerified(before, 'unsealed rows are not a finding');
    assert.equal(before.notes.find((note) => note.kind === 'unsealed')?.kind, 'unsealed');
    assert.equal(before.counts.unsealed_rows, 4);
    const next = await trail.seal();
    assert.equal(next.sealed[0]!.anchor_no, head.anchor_no + 1);
    assert.equal(next.sealed[0]!.prev_anchor_sha256, head.anchor_sha256);
    assert.equal(next.sealed[0]!.xact_from, head.xact_to, 'the next range starts where the last one ended');
    const after = await trail.verify();
    assertVerified(after, 'after the second seal');
    assert.equal(after.counts.unsealed_rows, 0);
  });

  it('does not wait for a writer: a transaction still open when the seal runs is sealed by a later seal', async () => {
    const execution = await runCall(ordersGet, { orderId: 'o-open' }, { workflowId: 'wf-open', callId: 'c1' });
    const writer = await db.pool.connect();
    try {
      await writer.query('BEGIN');
      const auditJson = canonicalJson(execution.audit);
      const { audit } = execution;
      await writer.query(
        `INSERT INTO ttc_audit (audit_id, workflow_id, run_id, call_id, attempt, idempotency_key, tool, status, error_code, request_sha256, result_sha256,
           call_binding_sha256, audit_sha256, principal_ref, audit_json, model_result_json, recorded_at)
         VALUES ($1, 'wf-open', 'run-1', $2, 1, $3, $4, $5, NULL, $6, $7, $8, $9, $10, $11, $12, now())`,
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
          audit.principal_ref,
          auditJson,
          canonicalJson(execution.modelResult),
        ],
      );
      // Meanwhile other writers commit, and a seal runs: it neither waits for the open transaction nor seals past it.
      await mixedRun('wf-beside');
      const started = performance.now();
      const sealed = await trail.seal();
      assert.ok(performance.now() - started < 10_000, 'the seal did not wait for the open writer');
      assert.ok(
        BigInt(sealed.horizon) <=
          BigInt((await writer.query<{ xact: string }>('SELECT pg_current_xact_id()::text AS xact')).rows[0]!.xact),
        'the horizon stops before the open transaction',
      );
      await writer.query('COMMIT');
    } finally {
      writer.release();
    }
    const unsealed = await trail.verify({ workflowId: 'wf-open' });
    assert.equal(unsealed.counts.unsealed_rows, 1, 'the late writer is not sealed yet');
    assertVerified(unsealed, 'its row is only unsealed');
    await trail.seal();
    const sealed = await trail.verify();
    assertVerified(sealed, 'sealed by the next seal');
    assert.equal(sealed.counts.unsealed_rows, 0);
  });

  it('concurrent writers and sealers: every row ends up in exactly one anchor and the chain verifies', async () => {
    const writers = Array.from({ length: 6 }, (_, w) =>
      (async () => {
        for (let i = 0; i < 5; i++) {
          const execution = await runCall(
            ordersGet,
            { orderId: `o-${w}-${i}` },
            { workflowId: `wf-race-${w}`, callId: `c${i}` },
          );
          await store.recordExecution({ execution, workflowId: `wf-race-${w}`, runId: 'run-1' });
        }
      })(),
    );
    const sealers = Array.from({ length: 3 }, async () => {
      for (let i = 0; i < 4; i++) await trail.seal();
    });
    await Promise.all([...writers, ...sealers]);
    await trail.seal();
    const report = await trail.verify();
    assertVerified(report, 'after racing writers and sealers');
    const { rows } = await db.pool.query<{ rows: number; anchored: number }>(
      'SELECT (SELECT count(*) FROM ttc_audit)::int AS rows, (SELECT sum(row_count) FROM ttc_audit_anchors)::int AS anchored',
    );
    assert.equal(rows[0]!.anchored, rows[0]!.rows, 'each row is in one anchor');
  });
});

describe('verify names what was tampered with (real Postgres)', () => {
  let target: ToolExecution;

  before(async () => {
    target = (await mixedRun('wf-tamper'))[0]!;
    await trail.seal();
    assertVerified(await trail.verify(), 'before tampering');
  });

  it('an owner edits a record behind the trigger: the row digest no longer holds', async () => {
    const row = await storedRow(target.audit.audit_id);
    const edited = canonicalJson({
      ...target.audit,
      downstream: { ...target.audit.downstream, receipt_external_id: 'forged' },
    });
    await asOwnerBehindTriggers([
      ['UPDATE ttc_audit SET audit_json = $1 WHERE audit_id = $2', [edited, target.audit.audit_id]],
    ]);
    const report = await trail.verify();
    assert.deepEqual(report.findings, [
      { kind: 'row_altered', audit_id: target.audit.audit_id, field: 'audit_sha256' },
    ]);
    await asOwnerBehindTriggers([
      ['UPDATE ttc_audit SET audit_json = $1 WHERE audit_id = $2', [row['audit_json'], target.audit.audit_id]],
    ]);
    assertVerified(await trail.verify(), 'restored');
  });

  it('an owner rewrites a record together with its digest: the row is no longer what its anchor sealed', async () => {
    const row = await storedRow(target.audit.audit_id);
    const edited = canonicalJson({
      ...target.audit,
      downstream: { ...target.audit.downstream, receipt_external_id: 'forged' },
    });
    await asOwnerBehindTriggers([
      [
        'UPDATE ttc_audit SET audit_json = $1, audit_sha256 = $2 WHERE audit_id = $3',
        [edited, sha256Hex(edited), target.audit.audit_id],
      ],
    ]);
    const findings = (await trail.verify()).findings;
    assert.deepEqual(
      findings.map((finding) => [
        finding.kind,
        (finding as { audit_id?: string }).audit_id,
        (finding as { how?: string }).how,
      ]),
      [['row_not_as_sealed', target.audit.audit_id, 'changed']],
    );
    await asOwnerBehindTriggers([
      [
        'UPDATE ttc_audit SET audit_json = $1, audit_sha256 = $2 WHERE audit_id = $3',
        [row['audit_json'], row['audit_sha256'], target.audit.audit_id],
      ],
    ]);
    assertVerified(await trail.verify(), 'restored');
  });

  it('an owner deletes a sealed row: the missing leaf is named between its neighbours', async () => {
    const row = await storedRow(target.audit.audit_id);
    await asOwnerBehindTriggers([['DELETE FROM ttc_audit WHERE audit_id = $1', [target.audit.audit_id]]]);
    const findings = (await trail.verify()).findings;
    assert.equal(findings.length, 1, JSON.stringify(findings));
    const [missing] = findings as [Extract<TrailFinding, { kind: 'row_missing' }>];
    assert.equal(missing.kind, 'row_missing');
    assert.ok(missing.after !== target.audit.audit_id && missing.before !== target.audit.audit_id);
    await asOwnerBehindTriggers([reinsertStatement(row)]);
    assertVerified(await trail.verify(), 'restored');
  });

  it('an owner inserts a row into a sealed range: it is named, whether it joins a segment or not', async () => {
    // A well-formed record of a call that never ran, given the stamps of a sealed transaction.
    const forgedRun = await runCall(
      ordersGet,
      { orderId: 'o-forged' },
      { workflowId: 'wf-tamper', callId: 'c-forged' },
    );
    const forged = { ...(await storedRow(target.audit.audit_id)), ...auditColumnsOf(forgedRun), seq: 999_999_999 };
    const forgedId = forgedRun.audit.audit_id;
    await asOwnerBehindTriggers([reinsertStatement(forged)]);
    assert.deepEqual(
      (await trail.verify()).findings.map((finding) => [
        finding.kind,
        (finding as { audit_id?: string }).audit_id,
        (finding as { how?: string }).how,
      ]),
      [['row_not_as_sealed', forgedId, 'added']],
    );
    // Dated in a month whose range holds no anchor: no segment selects it, the month's count exposes it.
    await asOwnerBehindTriggers([
      ['DELETE FROM ttc_audit WHERE audit_id = $1', [forgedId]],
      ['SELECT ttc_ensure_partitions($1)', ['2026-03-15T00:00:00Z']],
      reinsertStatement({ ...forged, recorded_at: new Date('2026-03-15T00:00:00Z') }),
    ]);
    assert.deepEqual(
      (await trail.verify()).findings.map((finding) => [finding.kind, (finding as { audit_id?: string }).audit_id]),
      [['row_unanchored', forgedId]],
    );
    await asOwnerBehindTriggers([['DELETE FROM ttc_audit WHERE audit_id = $1', [forgedId]]]);
    assertVerified(await trail.verify(), 'restored');
  });

  it('an owner reorders rows (renumbers or re-dates them): both rows are named', async () => {
    const [first, second] = (await store.listAudits({ workflowId: 'wf-tamper' })).slice(0, 2);
    const a = await storedRow(first!.auditId);
    const b = await storedRow(second!.auditId);
    await asOwnerBehindTriggers([
      ['UPDATE ttc_audit SET seq = $1 WHERE audit_id = $2', [b['seq'], a['audit_id']]],
      ['UPDATE ttc_audit SET seq = $1 WHERE audit_id = $2', [a['seq'], b['audit_id']]],
    ]);
    const renumbered = (await trail.verify()).findings;
    assert.deepEqual(
      renumbered.map((finding) => (finding as { audit_id: string }).audit_id).sort(),
      [a['audit_id'], b['audit_id']].sort(),
    );
    assert.ok(renumbered.every((finding) => finding.kind === 'row_not_as_sealed'));
    await asOwnerBehindTriggers([
      ['UPDATE ttc_audit SET seq = $1 WHERE audit_id = $2', [a['seq'], a['audit_id']]],
      ['UPDATE ttc_audit SET seq = $1 WHERE audit_id = $2', [b['seq'], b['audit_id']]],
      ["UPDATE ttc_audit SET recorded_at = recorded_at - interval '1 second' WHERE audit_id = $1", [a['audit_id']]],
    ]);
    assert.deepEqual(kinds(await trail.verify()), ['row_not_as_sealed'], 're-dated by a second');
    await asOwnerBehindTriggers([
      ['UPDATE ttc_audit SET recorded_at = $1 WHERE audit_id = $2', [a['recorded_at'], a['audit_id']]],
    ]);
    assertVerified(await trail.verify(), 'restored');
  });

  it('an owner removes or rewrites an anchor: the chain breaks there', async () => {
    const anchors = await trail.anchors();
    const middle = anchors[1]!;
    const { rows } = await db.ownerPool.query<Record<string, unknown>>(
      'SELECT * FROM ttc_audit_anchors WHERE anchor_no = $1',
      [middle.anchor_no],
    );
    await asOwnerBehindTriggers([['DELETE FROM ttc_audit_anchors WHERE anchor_no = $1', [middle.anchor_no]]]);
    const broken = kinds(await trail.verify());
    assert.ok(broken.includes('chain_broken') && broken.includes('anchor_sequence'), broken.join());
    const original = rows[0]!;
    const columns = Object.keys(original);
    await asOwnerBehindTriggers([
      [
        `INSERT INTO ttc_audit_anchors (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
        columns.map((c) => original[c]),
      ],
    ]);
    await asOwnerBehindTriggers([
      ["UPDATE ttc_audit_anchors SET sealed_by = 'someone else' WHERE anchor_no = $1", [middle.anchor_no]],
    ]);
    assert.deepEqual(kinds(await trail.verify()), ['anchor_digest']);
    await asOwnerBehindTriggers([
      ['UPDATE ttc_audit_anchors SET sealed_by = $1 WHERE anchor_no = $2', [original['sealed_by'], middle.anchor_no]],
    ]);
    assertVerified(await trail.verify(), 'restored');
  });

  it('an owner who rewrites a row and re-seals the whole chain gets past the database, not past anchors published outside it nor their signatures', async () => {
    // The sealer signs (a key the database never holds) and publishes its anchors to a file.
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    await mixedRun('wf-published');
    await trail.seal({ signingKey: { keyId: 'sealer-1', privateKey } });
    const published = parsePublishedAnchors((await trail.anchors()).map(publishedAnchorLine).join(''));
    const signed = published.filter((anchor) => anchor.key_id === 'sealer-1');
    assert.ok(signed.length > 0);
    const keys = new Map([['sealer-1', publicKey]]);
    assertVerified(await trail.verify({ publishedAnchors: published }), 'as published');

    // The owner rewrites a sealed record with its digest, then recomputes every leaf, root and anchor from there on.
    const victim = (await store.listAudits({ workflowId: 'wf-published' }))[0]!;
    const edited = canonicalJson({
      ...victim.audit,
      downstream: { ...victim.audit.downstream, receipt_external_id: 'forged' },
    });
    const before = await snapshotForResealing();
    await asOwnerBehindTriggers([
      [
        'UPDATE ttc_audit SET audit_json = $1, audit_sha256 = $2 WHERE audit_id = $3',
        [edited, sha256Hex(edited), victim.auditId],
      ],
    ]);
    await resealEverything();
    const inside = await trail.verify();
    assertVerified(inside, 'the database alone cannot tell');
    const outside = await trail.verify({ publishedAnchors: published, verifyKeys: keys });
    const signatureOf = new Set(
      outside.findings.filter((finding) => finding.kind === 'anchor_signature').map((finding) => finding.anchor_no),
    );
    assert.ok(
      outside.findings.some((finding) => finding.kind === 'published_anchor' && finding.problem === 'differs'),
      'the published anchors expose it',
    );
    assert.ok(signatureOf.size > 0, 'and so do the signatures the owner could not make');
    await restoreFromSnapshot(before);
    assertVerified(await trail.verify({ publishedAnchors: published }), 'restored');
  });

  it("every monthly partition keeps its table's append-only rules: refused to the application by privilege, to the owner by trigger", async () => {
    const { rows } = await db.ownerPool.query<{ name: string; parent: string }>(
      `SELECT c.relname AS name, p.relname AS parent FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
        WHERE c.relnamespace = to_regnamespace($1) AND c.relkind = 'r' ORDER BY c.relname`,
      [db.schema],
    );
    assert.deepEqual([...new Set(rows.map((row) => row.parent))].sort(), [
      'ttc_artifacts',
      'ttc_audit',
      'ttc_audit_facts',
      'ttc_audit_layers',
      'ttc_evidence',
    ]);
    for (const { name, parent } of rows) {
      const column = parent === 'ttc_artifacts' ? 'content_type' : 'tool';
      const statements = [
        `UPDATE ${name} SET ${parent === 'ttc_evidence' ? 'source' : column} = 'x'`,
        `DELETE FROM ${name}`,
        `TRUNCATE ${name}`,
      ];
      for (const sql of statements) {
        assert.equal(await sqlState(db.pool, sql), INSUFFICIENT_PRIVILEGE, `application: ${sql}`);
        // An audit partition is referenced by its month's copies and evidence: TRUNCATE stops at the foreign keys first.
        const refusal = parent === 'ttc_audit' && sql.startsWith('TRUNCATE') ? '0A000' : 'TT001';
        assert.equal(await sqlState(db.ownerPool, sql), refusal, `owner: ${sql}`);
      }
    }
  });

  it('the application role cannot change anchors or stamps, and an anchor it forges is reported', async () => {
    for (const sql of [
      "UPDATE ttc_audit_anchors SET sealed_by = 'x'",
      'DELETE FROM ttc_audit_anchors',
      'TRUNCATE ttc_audit_anchors',
      'UPDATE ttc_audit SET seq = 1',
    ]) {
      assert.equal(await sqlState(db.pool, sql), INSUFFICIENT_PRIVILEGE, sql);
    }
    const head = (await trail.anchors()).at(-1)!;
    // A forged anchor claiming transactions that have not even started (to make later rows look unanchored).
    await db.pool.query(
      `INSERT INTO ttc_audit_anchors (anchor_no, period, xact_from, xact_to, row_count, leaves, merkle_root, prev_anchor_sha256, anchor_sha256, sealed_at, sealed_by)
       VALUES ($1, date_trunc('month', now())::date, $2::bigint, 9000000000000, 1, decode(repeat('00', 32), 'hex'), repeat('0', 64), $3, repeat('f', 64), now(), 'app')`,
      [head.anchor_no + 1, head.xact_to, head.anchor_sha256],
    );
    try {
      assert.deepEqual(kinds(await trail.verify()), ['anchor_digest', 'anchor_unfinished', 'row_missing']);
    } finally {
      await asOwnerBehindTriggers([['DELETE FROM ttc_audit_anchors WHERE anchor_no = $1', [head.anchor_no + 1]]]);
    }
    assertVerified(await trail.verify(), 'removed again by the owner');
  });
});

/** Every anchor and audit row as stored, to undo a re-sealing. */
async function snapshotForResealing(): Promise<{
  anchors: Record<string, unknown>[];
  audits: Record<string, unknown>[];
}> {
  return {
    anchors: (await db.ownerPool.query<Record<string, unknown>>('SELECT * FROM ttc_audit_anchors ORDER BY anchor_no'))
      .rows,
    audits: (
      await db.ownerPool.query<Record<string, unknown>>('SELECT audit_id, audit_json, audit_sha256 FROM ttc_audit')
    ).rows,
  };
}

/** What an owner can do: drop every anchor and seal again from scratch (the same code, unsigned, in the owner's name). */
async function resealEverything(): Promise<void> {
  await asOwnerBehindTriggers([['DELETE FROM ttc_audit_anchors', []]]);
  await ownerTrail.seal();
}

async function restoreFromSnapshot(snapshot: {
  anchors: Record<string, unknown>[];
  audits: Record<string, unknown>[];
}): Promise<void> {
  const columns = Object.keys(snapshot.anchors[0]!);
  await asOwnerBehindTriggers([
    ['DELETE FROM ttc_audit_anchors', []],
    ...snapshot.anchors.map((anchor): [string, unknown[]] => [
      `INSERT INTO ttc_audit_anchors (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
      columns.map((c) => anchor[c]),
    ]),
    ...snapshot.audits.map((audit): [string, unknown[]] => [
      'UPDATE ttc_audit SET audit_json = $1, audit_sha256 = $2 WHERE audit_id = $3',
      [audit['audit_json'], audit['audit_sha256'], audit['audit_id']],
    ]),
  ]);
}

describe('export, verified offline (real Postgres, then the file alone)', () => {
  async function exported(options: { protectedFields: boolean; workflowId?: string }): Promise<string[]> {
    await trail.seal();
    const lines: string[] = [];
    await trail.export(options, async (text) => {
      lines.push(text);
    });
    return lines
      .join('')
      .split('\n')
      .filter((line) => line !== '');
  }

  it('an export with the protected fields verifies without the database: every record, leaf, root and link', async () => {
    const lines = await exported({ protectedFields: true });
    const report = await verifyExportLines(lines);
    assertVerified(report, 'the whole export');
    assert.equal(report.checked, 'file');
    const inDatabase = await trail.verify();
    assert.equal(report.counts.rows, inDatabase.counts.rows);
    assert.deepEqual(report.head, inDatabase.head);
  });

  it('without the protected fields no record carries them, and the export still proves its rows were sealed', async () => {
    const lines = await exported({ protectedFields: false });
    assert.ok(!lines.join('\n').includes('"principal_ref"'), 'no principal reference');
    assert.ok(!lines.join('\n').includes('"idempotency_key"'), 'no idempotency key');
    assertVerified(await verifyExportLines(lines), 'without protected fields');
  });

  it('one workflow: its records and the segments that hold them, verified as a part', async () => {
    const lines = await exported({ protectedFields: true, workflowId: 'wf-mixed' });
    const records = lines.filter((line) => line.includes('"type":"record"'));
    assert.equal(records.length, 4);
    assertVerified(await verifyExportLines(lines), 'one workflow');
  });

  it('an edited, removed or reordered line of the file, or a file cut short, is reported', async () => {
    const lines = await exported({ protectedFields: true });
    const recordAt = lines.findIndex(
      (line) => line.includes('"type":"record"') && line.includes('"status":"succeeded"'),
    );
    const edited = [...lines];
    edited[recordAt] = edited[recordAt]!.replace('"status":"shipped"', '"status":"refunded"');
    assert.notEqual(edited[recordAt], lines[recordAt], 'the fixture edits a business field');
    assert.ok(kinds(await verifyExportLines(edited)).includes('row_altered'));

    const removed = lines.filter((_, index) => index !== recordAt);
    const removedKinds = kinds(await verifyExportLines(removed));
    assert.ok(removedKinds.includes('row_missing') && removedKinds.includes('export_file'), removedKinds.join());

    const reordered = [...lines];
    [reordered[recordAt], reordered[recordAt + 1]] = [reordered[recordAt + 1]!, reordered[recordAt]!];
    assert.ok(kinds(await verifyExportLines(reordered)).includes('rows_reordered'));

    assert.ok(kinds(await verifyExportLines(lines.slice(0, -3))).includes('export_file'), 'cut short');
  });
});

describe('retention: whole months go, the chain stays verifiable (real Postgres)', () => {
  const oldStore = () => db.store({ now: () => new Date('2020-01-15T10:00:00Z') });

  it('refuses while rows of the months are unsealed or a side effect recorded in them is unsettled', async () => {
    await mixedRun('wf-2020-01', oldStore());
    await rejectsWith(ownerTrail.retire('2020-03-01', 'a'.repeat(64)), 'STATUS_CONFLICT', 'retention_refused');
    await trail.seal();
    const unknown = await runCall(
      paymentsCharge,
      { amount: 5, mode: 'no_receipt' },
      { workflowId: 'wf-2020-02', callId: 'c1' },
    );
    await db
      .store({ now: () => new Date('2020-02-10T10:00:00Z') })
      .recordExecution({ execution: unknown, workflowId: 'wf-2020-02', runId: 'run-1' });
    await trail.seal();
    await rejectsWith(ownerTrail.retire('2020-03-01', 'a'.repeat(64)), 'STATUS_CONFLICT', 'retention_refused');
    // The application role may not retire at all.
    await rejectsWith(trail.retire('2020-02-01', 'a'.repeat(64)), 'TOOL_ERROR', 'internal');
  });

  it('drops the months before the cut, records the run, refuses new rows dated in them, and the remaining chain verifies', async () => {
    const anchors = await trail.anchors();
    const anchorsFile = anchors.map(publishedAnchorLine).join('');
    const retired = await ownerTrail.retire('2020-02-01', sha256Hex(anchorsFile));
    assert.ok(retired);
    assert.deepEqual(retired.periods, ['2020-01-01']);
    assert.equal(retired.audit_rows, 4);
    assert.equal(retired.anchors, anchors.filter((anchor) => anchor.period === '2020-01-01').length);
    const { rows } = await db.ownerPool.query<{ name: string }>(
      `SELECT relname AS name FROM pg_class WHERE relname LIKE 'ttc_%_y2020m01' AND relnamespace = to_regnamespace($1)`,
      [db.schema],
    );
    assert.deepEqual(rows, [], 'the partitions of January 2020 are dropped');
    assert.deepEqual(await store.listAudits({ workflowId: 'wf-2020-01' }), []);
    assert.ok((await store.listAudits({ workflowId: 'wf-2020-02' })).length > 0, 'February stays');

    const report = await trail.verify({ publishedAnchors: parsePublishedAnchors(anchorsFile) });
    assertVerified(report, 'after the cut');
    assert.equal(report.counts.retired_anchors, retired.anchors);
    assert.equal(report.notes.find((note) => note.kind === 'retired')?.kind, 'retired');
    const late = await runCall(ordersGet, { orderId: 'o-late' }, { workflowId: 'wf-2020-01', callId: 'late' });
    await rejectsWith(
      oldStore().recordExecution({ execution: late, workflowId: 'wf-2020-01', runId: 'run-1' }),
      'TOOL_ERROR',
      'period_retired',
    );
    assert.equal(await ownerTrail.retire('2020-02-01', sha256Hex(anchorsFile)), null, 'nothing left to retire');
  });
});

describe('erasure: the bytes go, the digests stay and say so (real Postgres)', () => {
  const erasedPrincipal = { tenant: 'tenant-erase', subject: 'user-gone' };

  it('by principal: artifact bodies and memory rows are removed, a tombstone is recorded, and the audit still verifies', async () => {
    const ctx = testContext({
      principal: erasedPrincipal,
      callId: 'c1',
      operationId: 'op-erase-1',
      idempotencyKey: 'wf-erase/c1',
      temporal: { workflowId: 'wf-erase', runId: 'run-1', activityId: '1', attempt: 1 },
    });
    const big = await executeTool(catalogSearch, { count: 60 }, ctx);
    assert.equal(big.artifacts.length, 1);
    await store.recordExecution({ execution: big, workflowId: 'wf-erase', runId: 'run-1' });
    const subjectRef = principalRef(erasedPrincipal);
    await store.proposeMemory({
      memoryId: 'mem-erase',
      subjectRef,
      workflowId: 'wf-erase',
      fact: 'prefers email',
      kind: 'user_explicit_statement',
      evidenceIds: [],
      observedAt: null,
      confidence: null,
    });
    await trail.seal();
    const sha256 = big.artifacts[0]!.sha256;
    assert.equal((await store.getArtifact(sha256)).sha256, sha256);

    const tombstone = await ownerTrail.erase({
      scope: 'principal',
      scopeRef: subjectRef,
      erasedBy: 'dpo@example.com',
      reason: 'erasure request 42',
    });
    assert.deepEqual(tombstone.artifacts, [sha256]);
    assert.deepEqual(tombstone.memory_ids, ['mem-erase']);
    assert.deepEqual(tombstone.audit_ids, [big.audit.audit_id]);
    assert.equal(tombstone.erased_by, 'dpo@example.com');
    const bytes = await db.ownerPool.query('SELECT 1 FROM ttc_artifacts WHERE sha256 = $1', [sha256]);
    assert.equal(bytes.rowCount, 0, 'no raw bytes left');
    await rejectsWith(store.getArtifact(sha256), 'NOT_FOUND', 'artifact_not_found');
    assert.deepEqual(await store.listMemories({ subjectRef }), []);

    const report = await trail.verify({ workflowId: 'wf-erase' });
    assertVerified(report, 'after the erasure');
    const erased = report.notes.find((note) => note.kind === 'erased');
    assert.ok(
      erased?.kind === 'erased' && erased.erasure_id === tombstone.erasure_id && erased.erased_by === 'dpo@example.com',
    );
    assert.equal(
      (await store.getAudit(big.audit.audit_id))?.auditSha256,
      sha256Hex(canonicalJson(big.audit)),
      'the audit row and its digest stay',
    );
    assert.equal(await sqlState(db.ownerPool, 'DELETE FROM ttc_erasures'), 'TT001', 'the tombstones are append-only');
  });

  it("an artifact body deleted behind the triggers, by nobody's erasure, is a finding", async () => {
    const run = await runCall(catalogSearch, { count: 70 }, { workflowId: 'wf-vanish', callId: 'c1' });
    await store.recordExecution({ execution: run, workflowId: 'wf-vanish', runId: 'run-1' });
    await asOwnerBehindTriggers([['DELETE FROM ttc_artifacts WHERE sha256 = $1', [run.artifacts[0]!.sha256]]]);
    assert.deepEqual((await trail.verify({ workflowId: 'wf-vanish' })).findings, [
      { kind: 'artifact', audit_id: run.audit.audit_id, sha256: run.artifacts[0]!.sha256, problem: 'missing' },
    ]);
  });
});
