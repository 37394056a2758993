import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sha256Hex } from '../../../src/contract/sha256.js';
import type { PgToolStore } from '../../../src/store/pg/pg-tool-store.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { rejectsWith } from './assert-store-error.js';
import { catalogSearch, runCall } from '../../../testkit/store-tools.js';

let db: TestDatabase;
let store: PgToolStore;
before(async () => {
  db = await openTestDatabase('artifacts');
  store = db.store();
});
after(async () => db?.close());

describe('artifacts (real Postgres)', () => {
  it('stores an over-budget result as an artifact and reads it back byte for byte', async () => {
    const execution = await runCall(catalogSearch, { count: 400 }, { workflowId: 'wf-art', callId: 'c1' });
    assert.equal(execution.modelResult.completeness.state, 'truncated');
    const [artifact] = execution.artifacts;
    assert.ok(artifact);
    assert.equal(execution.modelResult.artifact?.artifact_id, `art_${artifact.sha256}`);
    await store.recordExecution({ execution, workflowId: 'wf-art', runId: 'run-1' });

    const stored = await store.getArtifact(artifact.sha256);
    assert.equal(stored.body, artifact.body);
    assert.equal(stored.bytes, artifact.bytes);
    assert.equal(stored.contentType, 'application/json');
    assert.equal(sha256Hex(stored.body), artifact.sha256);
    assert.equal((JSON.parse(stored.body) as { items: unknown[] }).items.length, 400);
  });

  it('stores an artifact once however often it is put', async () => {
    const body = JSON.stringify({ hello: 'wörld' });
    const payload = { sha256: sha256Hex(body), contentType: 'application/json', bytes: Buffer.byteLength(body), body };
    await store.putArtifact(payload);
    await store.putArtifact(payload);
    const { rows } = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM ttc_artifacts WHERE sha256 = $1', [
      payload.sha256,
    ]);
    assert.equal(Number(rows[0]!.n), 1);
  });

  it('detects a tampered artifact body on read', async () => {
    const body = JSON.stringify({ refund: 10 });
    const sha256 = sha256Hex(body);
    await store.putArtifact({ sha256, contentType: 'application/json', bytes: Buffer.byteLength(body), body });
    const client = await db.ownerPool.connect();
    try {
      // Artifacts are immutable by trigger; replica mode (superuser) bypasses it, as an attacker with disk or admin access could.
      await client.query("SET session_replication_role = 'replica'");
      await client.query('UPDATE ttc_artifacts SET body = $1 WHERE sha256 = $2', [
        Buffer.from(JSON.stringify({ refund: 10000 })),
        sha256,
      ]);
    } finally {
      await client.query("SET session_replication_role = 'origin'");
      client.release();
    }
    await rejectsWith(store.getArtifact(sha256), 'PROTOCOL_ERROR', 'digest_mismatch');
  });

  it('refuses UPDATE, DELETE and TRUNCATE of artifacts: the application has no such privilege, the owner meets the trigger', async () => {
    for (const sql of [
      "UPDATE ttc_artifacts SET content_type = 'text/html'",
      'DELETE FROM ttc_artifacts',
      'TRUNCATE ttc_artifacts',
    ]) {
      await assert.rejects(
        db.pool.query(sql),
        (error: { code?: unknown }) => error.code === '42501',
        `application role: ${sql}`,
      );
      await assert.rejects(
        db.ownerPool.query(sql),
        (error: { code?: unknown }) => error.code === 'TT001',
        `owner: ${sql}`,
      );
    }
  });

  it('refuses to store a body under a digest it does not have', async () => {
    const body = 'real body';
    await rejectsWith(
      store.putArtifact({ sha256: sha256Hex('other body'), contentType: 'text/plain', bytes: 9, body }),
      'PROTOCOL_ERROR',
      'digest_mismatch',
    );
    await rejectsWith(
      store.putArtifact({ sha256: sha256Hex(body), contentType: 'text/plain', bytes: 3, body }),
      'PROTOCOL_ERROR',
      'digest_mismatch',
    );
    await rejectsWith(store.getArtifact(sha256Hex('other body')), 'NOT_FOUND', 'artifact_not_found');
  });

  it('rejects a malformed digest', async () => {
    await rejectsWith(store.getArtifact("'; DROP TABLE ttc_artifacts; --"), 'INVALID_ARGUMENTS', 'invalid_input');
  });
});
