import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InMemoryToolStore } from '../../../src/store/in-memory/in-memory-tool-store.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { storeScenario } from './store-scenario.js';

let db: TestDatabase;
before(async () => {
  db = await openTestDatabase('parity');
});
after(async () => db?.close());

describe('InMemoryToolStore (parity with the Postgres store)', () => {
  it('behaves like the Postgres store on the same scenario', async () => {
    const fromPostgres = await storeScenario(db.store());
    const fromMemory = await storeScenario(new InMemoryToolStore());
    assert.deepEqual(fromMemory, fromPostgres);
    // The scenario exercised every outcome kind, not just the happy path.
    const flat = JSON.stringify(fromPostgres);
    for (const expected of [
      'replay',
      'conflict',
      'outcome_unknown',
      'IDEMPOTENCY_CONFLICT/patch_id_reused',
      'STATUS_CONFLICT/version_conflict',
      'INVALID_ARGUMENTS/evidence_not_found',
      'INVALID_ARGUMENTS/provenance_mismatch',
      'refused',
      'candidate',
      'untrusted_evidence_only',
      'NOT_FOUND/artifact_not_found',
      'password=[REDACTED] and [REDACTED]',
      'INVALID_ARGUMENTS/invalid_input',
      'NOT_FOUND/memory_not_found',
      'IDEMPOTENCY_CONFLICT/approval_request_reused',
    ]) {
      assert.ok(flat.includes(expected), `scenario lacks ${expected}`);
    }
  });
});
