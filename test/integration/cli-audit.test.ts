// The audit trail as an operator drives it (issue 30): a real Temporal dev server, a real Postgres, a `tool-contract
// worker` that encrypts its payloads, and `seal`, `verify`, `export`, `retention` and `erase` run as the CLI runs.
// The owner's tampering is found through the Temporal history (decoded with the codec keys), the published anchors
// and their signatures; a mixed run, a retention cut and an erasure verify.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@temporalio/client';
import { EXIT_CODES } from '../../src/cli/cli-error.js';
import { AesGcmPayloadCodec, parseCodecKeys } from '../../src/codec/index.js';
import { formatDecisionKey, generateDecisionKey } from '../../src/decisions/keys.js';
import { canonicalJson } from '../../src/contract/canonical-json.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { sha256Hex } from '../../src/contract/sha256.js';
import type { VerifyOutput } from '../../src/cli/audit-verify.js';
import type { ToolCallResult } from '../../workflows/index.js';
import { runCli, startCli, type CliProcess } from '../support/cli-process.js';
import { databaseEnv, openTestDatabase, type TestDatabase } from '../support/postgres.js';
import { startTestTemporal, type TestTemporal } from '../../testkit/temporal-server.js';
import { testContext } from '../../testkit/context.js';
import { catalogSearch, ordersGet } from '../../testkit/store-tools.js';

const CODEC_KEYS = `k1:${randomBytes(32).toString('base64')}`;
const PRINCIPAL_KEY = randomBytes(32).toString('base64');
const taskQueue = `cli-audit-${process.pid}`;
let temporal: TestTemporal;
let db: TestDatabase;
let env: Record<string, string | undefined>;
let worker: CliProcess;
let client: Client;
let dir: string;
let publishedFile: string;
let signingFile: string;
let verifyFile: string;
const workflowIds: string[] = [];

before(
  async () => {
    [temporal, db] = await Promise.all([
      startTestTemporal(),
      openTestDatabase('it-cli-audit', { privateServer: true }),
    ]); // a cluster of its own: see audit-trail.test.ts
    env = {
      TEMPORAL_ADDRESS: temporal.server.address,
      TEMPORAL_NAMESPACE: temporal.server.namespace,
      ...databaseEnv(db),
      TTC_CODEC_KEYS: CODEC_KEYS,
      TTC_PRINCIPAL_KEY: PRINCIPAL_KEY,
    };
    dir = mkdtempSync(join(tmpdir(), 'ttc-cli-audit-'));
    publishedFile = join(dir, 'published-anchors.jsonl');
    const key = generateDecisionKey('ed25519', 'sealer-1');
    signingFile = join(dir, 'sealer.key');
    verifyFile = join(dir, 'sealer.pub');
    writeFileSync(signingFile, `${formatDecisionKey(key, 'signing')}\n`, { mode: 0o600 });
    writeFileSync(verifyFile, `# the sealer's public key\n${formatDecisionKey(key, 'public')}\n`);
    worker = startCli(
      [
        'worker',
        '--json',
        '--tools',
        'test/support/cli-worker-tools.ts',
        '--workflows',
        'test/support/test-workflows.ts',
        '--task-queue',
        taskQueue,
      ],
      { env },
    );
    await worker.waitForEvent('ready', 240_000);
    client = new Client({
      connection: temporal.connection,
      namespace: temporal.server.namespace,
      dataConverter: { payloadCodecs: [new AesGcmPayloadCodec(parseCodecKeys(CODEC_KEYS))] },
    });
    for (let i = 0; i < 3; i++) {
      const workflowId = `cli-audit-${process.pid}-${i}`;
      const result = (await client.workflow.execute('runToolCall', {
        taskQueue,
        workflowId,
        args: ['orders.get', { order_id: 'ord_1001' }, { principal: { tenant: 't-1', subject: `u-${i}` } }],
      })) as ToolCallResult;
      assert.equal(result.modelResult.status, 'succeeded');
      workflowIds.push(workflowId);
    }
  },
  { timeout: 600_000 },
);

after(
  async () => {
    if (worker !== undefined) {
      worker.child.kill('SIGTERM');
      if ((await worker.exited(60_000).catch(() => null)) === null) worker.child.kill('SIGKILL');
    }
    await temporal?.stop();
    await db?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  },
  { timeout: 120_000 },
);

async function verify(args: readonly string[]): Promise<{ code: number | null; report: VerifyOutput; stderr: string }> {
  const ran = await runCli(['verify', '--json', ...args], { env });
  return { code: ran.code, report: JSON.parse(ran.stdout || 'null') as VerifyOutput, stderr: ran.stderr };
}

/** Runs statements as the owner with ordinary triggers off: what the database owner can always do. */
async function asOwnerBehindTriggers(statements: readonly [string, unknown[]][]): Promise<void> {
  const owner = await db.ownerPool.connect();
  try {
    await owner.query("SET session_replication_role = 'replica'");
    for (const [sql, params] of statements) await owner.query(sql, params);
  } finally {
    await owner.query("SET session_replication_role = 'origin'").catch(() => undefined);
    owner.release();
  }
}

describe(
  'tool-contract seal, verify, export, retention and erase (real Temporal, real Postgres)',
  { timeout: 900_000 },
  () => {
    it('seals a run, publishes and signs the anchors, and verifies rows, chain, signatures and Temporal history', async () => {
      const sealed = await runCli(['seal', '--publish', publishedFile, '--sign-with', signingFile], { env });
      assert.equal(sealed.code, EXIT_CODES.ok, sealed.stderr);
      const output = JSON.parse(sealed.stdout) as { sealed: number; rows: number; anchors: { signed: boolean }[] };
      assert.ok(output.sealed >= 1 && output.rows >= 3, sealed.stdout);
      assert.ok(output.anchors.every((anchor) => anchor.signed));
      assert.equal(
        readFileSync(publishedFile, 'utf8').trim().split('\n').length,
        output.sealed,
        'one published line per anchor',
      );

      const { code, report, stderr } = await verify([
        '--anchors',
        publishedFile,
        '--verify-keys',
        verifyFile,
        '--strict',
      ]);
      assert.equal(code, EXIT_CODES.ok, `${stderr}\n${JSON.stringify(report)}`);
      assert.equal(report.history, 'checked');
      assert.ok(report.counts.runs >= 3, 'each run compared with its (encrypted) history');
      assert.deepEqual(report.findings, []);
      const text = await runCli(['verify'], { env });
      assert.equal(text.code, EXIT_CODES.ok, text.stderr);
      assert.match(text.stdout, /^verified: the database, everything; Temporal history compared/);
    });

    it('an owner who rewrites a record with its digest and re-seals is named by history, the published anchors and the signatures', async () => {
      const { rows } = await db.ownerPool.query<{ audit_id: string; audit_json: string; audit_sha256: string }>(
        'SELECT audit_id, audit_json, audit_sha256 FROM ttc_audit WHERE workflow_id = $1',
        [workflowIds[0]],
      );
      const victim = rows[0]!;
      const anchors = (
        await db.ownerPool.query<Record<string, unknown>>('SELECT * FROM ttc_audit_anchors ORDER BY anchor_no')
      ).rows;
      const edited = canonicalJson({
        ...(JSON.parse(victim.audit_json) as object),
        error_detail: { note: 'rewritten by the owner' },
      });
      await asOwnerBehindTriggers([
        [
          'UPDATE ttc_audit SET audit_json = $1, audit_sha256 = $2 WHERE audit_id = $3',
          [edited, sha256Hex(edited), victim.audit_id],
        ],
        ['DELETE FROM ttc_audit_anchors', []],
      ]);
      try {
        const resealed = await runCli(['seal'], { env });
        assert.equal(resealed.code, EXIT_CODES.ok, resealed.stderr);
        const inside = await verify(['--no-history']);
        assert.equal(inside.code, EXIT_CODES.ok, 'the database alone cannot tell');

        const outside = await verify(['--anchors', publishedFile, '--verify-keys', verifyFile]);
        assert.equal(outside.code, EXIT_CODES.failure);
        const history = outside.report.findings.filter((finding) => finding.kind === 'history');
        assert.deepEqual(history, [
          {
            kind: 'history',
            workflow_id: workflowIds[0],
            run_id: history[0]?.run_id,
            audit_id: victim.audit_id,
            problem: 'differs',
            field: 'audit_sha256',
          },
        ]);
        assert.ok(
          outside.report.findings.some((finding) => finding.kind === 'published_anchor'),
          'the published anchors differ',
        );
        assert.ok(
          outside.report.findings.some((finding) => finding.kind === 'anchor_signature'),
          'and the owner could not sign',
        );
        const text = await runCli(['verify', '--anchors', publishedFile], { env });
        assert.equal(text.code, EXIT_CODES.failure);
        assert.match(text.stdout, /^NOT VERIFIED/);
        assert.ok(
          text.stdout.includes(
            `altered: ${victim.audit_id}'s audit_sha256 differ from the reference in the history of ${workflowIds[0]}`,
          ),
          text.stdout,
        );
      } finally {
        const columns = Object.keys(anchors[0]!);
        await asOwnerBehindTriggers([
          [
            'UPDATE ttc_audit SET audit_json = $1, audit_sha256 = $2 WHERE audit_id = $3',
            [victim.audit_json, victim.audit_sha256, victim.audit_id],
          ],
          ['DELETE FROM ttc_audit_anchors', []],
          ...anchors.map((anchor): [string, unknown[]] => [
            `INSERT INTO ttc_audit_anchors (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
            columns.map((c) => anchor[c]),
          ]),
        ]);
      }
      assert.equal(
        (await verify(['--anchors', publishedFile, '--verify-keys', verifyFile])).code,
        EXIT_CODES.ok,
        'restored',
      );
    });

    it('an owner who deletes a row is named twice: the sealed leaf without its row, and the history reference without its row', async () => {
      const { rows } = await db.ownerPool.query<Record<string, unknown>>(
        'SELECT * FROM ttc_audit WHERE workflow_id = $1',
        [workflowIds[1]],
      );
      const row = rows[0]!;
      await asOwnerBehindTriggers([['DELETE FROM ttc_audit WHERE audit_id = $1', [row['audit_id']]]]);
      try {
        const { code, report } = await verify([]);
        assert.equal(code, EXIT_CODES.failure);
        assert.deepEqual(report.findings.map((finding) => finding.kind).sort(), ['history', 'row_missing']);
        assert.ok(
          report.findings.some(
            (finding) =>
              finding.kind === 'history' && finding.problem === 'missing' && finding.audit_id === row['audit_id'],
          ),
        );
      } finally {
        const columns = Object.keys(row);
        await asOwnerBehindTriggers([
          [
            `INSERT INTO ttc_audit (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
            columns.map((c) => row[c]),
          ],
        ]);
      }
    });

    it('export writes a file that verify --file checks offline, and an edit of the file is reported', async () => {
      const file = join(dir, 'audit-export.jsonl');
      const exported = await runCli(['export', '--out', file, '--protected'], { env });
      assert.equal(exported.code, EXIT_CODES.ok, exported.stderr);
      const manifest = JSON.parse(exported.stdout) as { records: number; anchors: number; file: string };
      assert.equal(manifest.file, file);
      assert.ok(manifest.records >= 3);
      const again = await runCli(['export', '--out', file], { env });
      assert.equal(again.code, EXIT_CODES.usage, 'an existing file is never overwritten');

      // Offline: no database, no Temporal (neither is reachable at these addresses).
      const offline = {
        ...env,
        DATABASE_URL: 'postgres://nobody:x@127.0.0.1:1/none',
        DATABASE_OWNER_URL: undefined,
        TEMPORAL_ADDRESS: '127.0.0.1:1',
      };
      const checked = await runCli(
        ['verify', '--json', '--file', file, '--anchors', publishedFile, '--verify-keys', verifyFile],
        { env: offline },
      );
      assert.equal(checked.code, EXIT_CODES.ok, checked.stdout + checked.stderr);
      assert.equal((JSON.parse(checked.stdout) as VerifyOutput).checked, 'file');

      const lines = readFileSync(file, 'utf8').split('\n');
      const at = lines.findIndex((line) => line.includes('"type":"record"'));
      lines[at] = lines[at]!.replace('"status":"succeeded"', '"status":"failed"');
      const edited = join(dir, 'audit-export-edited.jsonl');
      writeFileSync(edited, lines.join('\n'));
      const refused = await runCli(['verify', '--json', '--file', edited], { env: offline });
      assert.equal(refused.code, EXIT_CODES.failure);
    });

    it('retention drops the months older than the age after writing the anchors out, and the chain still verifies', async () => {
      // Calls recorded three years ago (the store's clock), sealed with the rest.
      const old = db.store({ now: () => new Date(Date.now() - 3 * 366 * 86_400_000) });
      const oldRun = await executeTool(
        ordersGet,
        { orderId: 'o-old' },
        testContext({ callId: 'c-old', operationId: 'op-old', idempotencyKey: 'cli-audit-old/c1' }),
      );
      await old.recordExecution({ execution: oldRun, workflowId: 'cli-audit-old', runId: null });
      const anchorsOut = join(dir, 'anchors-before-cut.jsonl');
      const ran = await runCli(['retention', '--older-than', '2y', '--anchors-out', anchorsOut], { env });
      assert.equal(ran.code, EXIT_CODES.ok, ran.stderr);
      const output = JSON.parse(ran.stdout) as {
        retirement: { audit_rows: number; anchors: number } | null;
        anchorsSha256: string;
      };
      assert.equal(output.retirement?.audit_rows, 1);
      assert.equal(output.anchorsSha256, sha256Hex(readFileSync(anchorsOut, 'utf8')));
      assert.equal(
        (await db.ownerPool.query('SELECT 1 FROM ttc_audit WHERE workflow_id = $1', ['cli-audit-old'])).rowCount,
        0,
      );
      const { code, report } = await verify(['--anchors', anchorsOut, '--verify-keys', verifyFile]);
      // The anchors sealed by retention (the owner, unsigned) are reported as unsigned; everything else verifies.
      assert.deepEqual(
        [...new Set(report.findings.map((finding) => finding.kind))],
        ['anchor_signature'],
        JSON.stringify(report.findings),
      );
      assert.equal(code, EXIT_CODES.failure);
      const unsigned = await verify(['--anchors', anchorsOut]);
      assert.equal(unsigned.code, EXIT_CODES.ok, JSON.stringify(unsigned.report.findings));
      assert.ok(unsigned.report.notes.some((note) => note.kind === 'retired'));
      const appOnly = await runCli(['retention', '--older-than', '2y', '--anchors-out', join(dir, 'x.jsonl')], {
        env: { ...env, DATABASE_OWNER_URL: undefined },
      });
      assert.equal(appOnly.code, EXIT_CODES.usage, 'the application role may not remove audit data');
      assert.match(appOnly.stderr, /DATABASE_OWNER_URL/);
    });

    it('erase by principal removes the artifact bodies and memory, keeps the digests, and verify says what was erased', async () => {
      const principal = { tenant: 't-9', subject: 'u-erase' };
      const ctx = testContext({
        principal,
        principalKey: PRINCIPAL_KEY,
        callId: 'c1',
        operationId: 'op-erase',
        idempotencyKey: 'cli-audit-erase/c1',
      });
      const big = await executeTool(catalogSearch, { count: 80 }, ctx);
      await db.store().recordExecution({ execution: big, workflowId: 'cli-audit-erase', runId: null });
      const ran = await runCli(
        ['erase', '--principal', 't-9/u-erase', '--by', 'dpo@example.com', '--reason', 'erasure request'],
        { env },
      );
      assert.equal(ran.code, EXIT_CODES.ok, ran.stderr);
      const tombstone = JSON.parse(ran.stdout) as { artifacts: string[]; audit_ids: string[]; erased_by: string };
      assert.deepEqual(tombstone.artifacts, [big.artifacts[0]!.sha256]);
      assert.deepEqual(tombstone.audit_ids, [big.audit.audit_id], 'found by the keyed principal reference');
      assert.equal(
        (await db.ownerPool.query('SELECT 1 FROM ttc_artifacts WHERE sha256 = $1', [big.artifacts[0]!.sha256]))
          .rowCount,
        0,
      );
      const { code, report } = await verify(['--workflow', 'cli-audit-erase', '--no-history']);
      assert.equal(code, EXIT_CODES.ok, JSON.stringify(report.findings));
      assert.ok(report.notes.some((note) => note.kind === 'erased' && note.erased_by === 'dpo@example.com'));
      const neither = await runCli(['erase', '--by', 'dpo'], { env });
      assert.equal(neither.code, EXIT_CODES.usage);
    });
  },
);
