import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PgToolStore } from '../../../src/store/pg/pg-tool-store.js';
import type { StatePatchInput } from '../../../src/store/state-patch.js';
import { isStoreError } from '../../../src/store/store-error.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { eventually } from '../../support/eventually.js';
import { rejectsWith } from './assert-store-error.js';
import { ordersGet, runCall } from '../../../testkit/store-tools.js';

let db: TestDatabase;
let store: PgToolStore;
let evidenceId: string;
let foreignEvidenceId: string;

before(async () => {
  db = await openTestDatabase('state');
  store = db.store();
  const own = await runCall(ordersGet, { orderId: 'o-1' }, { workflowId: 'wf-state', callId: 'c1' });
  await store.recordExecution({ execution: own, workflowId: 'wf-state', runId: 'run-1' });
  evidenceId = own.modelResult.evidence[0]!.evidence_id;
  const foreign = await runCall(ordersGet, { orderId: 'o-other' }, { workflowId: 'wf-other', callId: 'c1' });
  await store.recordExecution({ execution: foreign, workflowId: 'wf-other', runId: 'run-1' });
  foreignEvidenceId = foreign.modelResult.evidence[0]!.evidence_id;
});
after(async () => db?.close());

const patch = (overrides: Partial<StatePatchInput> = {}): StatePatchInput => ({
  patchId: 'p-1',
  workflowId: 'wf-state',
  key: 'order_lookup',
  value: { order_id: 'o-1', status: 'shipped' },
  evidenceIds: [evidenceId],
  source: 'orders-db',
  observedAt: '2026-11-30T11:59:00.000Z',
  retrievedAt: '2026-11-30T12:00:00.000Z',
  expectedVersion: 0,
  callId: 'c1',
  ...overrides,
});

async function patchCount(workflowId: string, key: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>(
    'SELECT count(*) AS n FROM ttc_state_patches WHERE workflow_id = $1 AND key = $2',
    [workflowId, key],
  );
  return Number(rows[0]!.n);
}

describe('state patches (real Postgres)', () => {
  it('applies a first version and reads it back with its evidence', async () => {
    const result = await store.applyStatePatch(patch());
    assert.equal(result.applied, true);
    assert.equal(result.version, 1);
    const state = await store.getState('wf-state', 'order_lookup');
    assert.deepEqual(state?.value, { order_id: 'o-1', status: 'shipped' });
    assert.equal(state?.version, 1);
    assert.deepEqual(state?.evidenceIds, [evidenceId]);
    assert.equal(state?.observedAt, '2026-11-30T11:59:00.000Z');
    assert.equal(state?.retrievedAt, '2026-11-30T12:00:00.000Z');
    assert.equal(state?.callId, 'c1');
  });

  it('treats a retried patch (same id, same content) as a no-op', async () => {
    const retry = await store.applyStatePatch(patch());
    assert.equal(retry.applied, false);
    assert.equal(retry.version, 1);
    assert.equal(await patchCount('wf-state', 'order_lookup'), 1);
    assert.equal((await store.getState('wf-state', 'order_lookup'))?.version, 1);
  });

  it('refuses a patch id reused for different content', async () => {
    await rejectsWith(
      store.applyStatePatch(patch({ value: { order_id: 'o-1', status: 'lost' } })),
      'IDEMPOTENCY_CONFLICT',
      'patch_id_reused',
    );
    assert.deepEqual((await store.getState('wf-state', 'order_lookup'))?.value, { order_id: 'o-1', status: 'shipped' });
  });

  it('advances on the current version and refuses a stale one without overwriting', async () => {
    const second = await store.applyStatePatch(
      patch({ patchId: 'p-2', value: { order_id: 'o-1', status: 'delivered' }, expectedVersion: 1 }),
    );
    assert.equal(second.version, 2);
    await rejectsWith(
      store.applyStatePatch(patch({ patchId: 'p-stale', value: { status: 'cancelled' }, expectedVersion: 1 })),
      'STATUS_CONFLICT',
      'version_conflict',
    );
    await rejectsWith(
      store.applyStatePatch(patch({ patchId: 'p-future', value: { status: 'cancelled' }, expectedVersion: 7 })),
      'STATUS_CONFLICT',
      'version_conflict',
    );
    await rejectsWith(
      store.applyStatePatch(patch({ patchId: 'p-again', value: { status: 'cancelled' }, expectedVersion: 0 })),
      'STATUS_CONFLICT',
      'version_conflict',
    );
    const state = await store.getState('wf-state', 'order_lookup');
    assert.deepEqual(state?.value, { order_id: 'o-1', status: 'delivered' });
    assert.equal(state?.version, 2);
    assert.deepEqual(
      (await store.listStatePatches({ workflowId: 'wf-state', key: 'order_lookup' })).map((p) => p.patchId),
      ['p-1', 'p-2'],
    );
  });

  it('reports the expected and current version on a conflict', async () => {
    await assert.rejects(
      store.applyStatePatch(patch({ patchId: 'p-stale-2', expectedVersion: 1 })),
      (error: unknown) => {
        assert.ok(isStoreError(error));
        assert.equal(error.details['expectedVersion'], 1);
        assert.equal(error.details['currentVersion'], 2);
        return true;
      },
    );
  });

  it('rejects a patch citing an evidence id that does not exist', async () => {
    await rejectsWith(
      store.applyStatePatch(patch({ patchId: 'p-ghost', key: 'k-ghost', evidenceIds: ['ev_0000000000000000'] })),
      'INVALID_ARGUMENTS',
      'evidence_not_found',
    );
    assert.equal(await store.getState('wf-state', 'k-ghost'), null);
  });

  it("rejects a patch citing another workflow's evidence", async () => {
    await rejectsWith(
      store.applyStatePatch(
        patch({ patchId: 'p-foreign', key: 'k-foreign', evidenceIds: [evidenceId, foreignEvidenceId] }),
      ),
      'INVALID_ARGUMENTS',
      'evidence_not_found',
    );
    assert.equal(await store.getState('wf-state', 'k-foreign'), null);
    // The same evidence is fine in its own workflow.
    const own = await store.applyStatePatch(
      patch({ patchId: 'p-own-foreign', workflowId: 'wf-other', key: 'k-foreign', evidenceIds: [foreignEvidenceId] }),
    );
    assert.equal(own.applied, true);
  });

  it('rejects a patch without evidence, and malformed versions and timestamps', async () => {
    await rejectsWith(
      store.applyStatePatch(patch({ patchId: 'p-none', key: 'k-none', evidenceIds: [] })),
      'INVALID_ARGUMENTS',
      'evidence_required',
    );
    await rejectsWith(
      store.applyStatePatch(patch({ patchId: 'p-neg', key: 'k-neg', expectedVersion: -1 })),
      'INVALID_ARGUMENTS',
      'invalid_input',
    );
    await rejectsWith(
      store.applyStatePatch(patch({ patchId: 'p-ts', key: 'k-ts', retrievedAt: 'yesterday' })),
      'INVALID_ARGUMENTS',
      'invalid_input',
    );
    await rejectsWith(
      store.applyStatePatch(patch({ patchId: 'p-nan', key: 'k-nan', value: { total: Number.NaN } })),
      'INVALID_ARGUMENTS',
      'invalid_input',
    );
  });

  it('lets exactly one of 10 concurrent writers of the same version win', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        store.applyStatePatch(patch({ patchId: `p-race-${i}`, key: 'k-race', value: { writer: i } })),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    assert.equal(won.length, 1);
    for (const r of results)
      if (r.status === 'rejected')
        assert.ok(isStoreError(r.reason) && r.reason.code === 'STATUS_CONFLICT', String(r.reason));
    assert.equal(await patchCount('wf-state', 'k-race'), 1);
    const state = await store.getState('wf-state', 'k-race');
    assert.deepEqual(state?.value, (won[0] as PromiseFulfilledResult<{ patch: { value: unknown } }>).value.patch.value);
  });

  it('applies 10 concurrent retries of one patch exactly once', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () => store.applyStatePatch(patch({ patchId: 'p-retry-race', key: 'k-retry-race' }))),
    );
    assert.equal(results.filter((r) => r.applied).length, 1);
    assert.ok(results.every((r) => r.version === 1));
    assert.equal(await patchCount('wf-state', 'k-retry-race'), 1);
  });

  it('lets exactly one of 10 concurrent writers of a later version win, and tells the others the version it left', async () => {
    await store.applyStatePatch(patch({ patchId: 'p-later-race-base', key: 'k-later-race' }));
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        store.applyStatePatch(
          patch({ patchId: `p-later-race-${i}`, key: 'k-later-race', value: { writer: i }, expectedVersion: 1 }),
        ),
      ),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of results) {
      if (r.status === 'fulfilled') continue;
      assert.ok(isStoreError(r.reason) && r.reason.reason === 'version_conflict', String(r.reason));
      assert.equal(r.reason.details['currentVersion'], 2);
    }
    assert.equal(await patchCount('wf-state', 'k-later-race'), 2);
    assert.equal((await store.getState('wf-state', 'k-later-race'))?.version, 2);
  });

  it('makes writers that waited for the key answer from the version its holder committed', async () => {
    await store.applyStatePatch(patch({ patchId: 'p-held-base', key: 'k-held' }));
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query("SELECT 1 FROM ttc_state WHERE workflow_id = 'wf-state' AND key = 'k-held' FOR UPDATE");
      const writers = Promise.allSettled(
        Array.from({ length: 3 }, (_, i) =>
          store.applyStatePatch(
            patch({ patchId: `p-held-${i}`, key: 'k-held', value: { writer: i }, expectedVersion: 1 }),
          ),
        ),
      );
      await eventually(
        'the writers to wait for the key',
        async () => {
          const { rows } = await db.ownerPool.query(
            "SELECT 1 FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock'",
            [db.appRole],
          );
          return rows.length >= 3 ? true : undefined;
        },
        20_000,
        10,
      );
      // The holder moves the key to version 2, as a writer that got there first would.
      await holder.query(
        `INSERT INTO ttc_state_patches (patch_id, workflow_id, key, value_json, evidence_ids, source, retrieved_at, expected_version, version, call_id, patch_sha256, applied_at)
         VALUES ('p-held-holder', 'wf-state', 'k-held', '{}', $1, 'orders-db', now(), 1, 2, 'c1', $2, now())`,
        [[evidenceId], '0'.repeat(64)],
      );
      await holder.query(
        "UPDATE ttc_state SET version = 2, patch_id = 'p-held-holder' WHERE workflow_id = 'wf-state' AND key = 'k-held'",
      );
      await holder.query('COMMIT');
      for (const result of await writers) {
        assert.equal(result.status, 'rejected');
        assert.ok(isStoreError(result.reason) && result.reason.reason === 'version_conflict', String(result.reason));
        assert.equal(result.reason.details['currentVersion'], 2);
      }
      assert.equal(await patchCount('wf-state', 'k-held'), 2);
      assert.equal((await store.getState('wf-state', 'k-held'))?.patchId, 'p-held-holder');
    } finally {
      // Destroyed, not returned: a failure above may leave its transaction open.
      holder.release(true);
    }
  });

  it('applies 10 concurrent retries of a later version exactly once', async () => {
    await store.applyStatePatch(patch({ patchId: 'p-later-retry-base', key: 'k-later-retry' }));
    const retry = () =>
      store.applyStatePatch(
        patch({ patchId: 'p-later-retry', key: 'k-later-retry', value: { status: 'delivered' }, expectedVersion: 1 }),
      );
    const results = await Promise.all(Array.from({ length: 10 }, retry));
    assert.equal(results.filter((r) => r.applied).length, 1);
    assert.ok(results.every((r) => r.version === 2 && r.patch.patchId === 'p-later-retry'));
    assert.equal(await patchCount('wf-state', 'k-later-retry'), 2);
  });

  it('scopes a patch id to its workflow: the same id in another workflow (a re-run for the same order) is its own patch, and retries as a replay', async () => {
    const rerun = patch({ workflowId: 'wf-other', evidenceIds: [foreignEvidenceId] });
    assert.equal(rerun.patchId, patch().patchId, "wf-state's first patch id, again");
    const first = await store.applyStatePatch(rerun);
    assert.deepEqual(
      [first.applied, first.version, first.patch.patchId, first.patch.workflowId],
      [true, 1, 'p-1', 'wf-other'],
    );
    const retried = await store.applyStatePatch(rerun);
    assert.deepEqual([retried.applied, retried.version], [false, 1]);
    assert.equal((await store.getState('wf-other', 'order_lookup'))?.patchId, 'p-1');
    await rejectsWith(
      store.applyStatePatch({ ...rerun, value: { status: 'lost' } }),
      'IDEMPOTENCY_CONFLICT',
      'patch_id_reused',
    );
    // wf-state's own patch of that id is untouched.
    assert.deepEqual(
      (await store.listStatePatches({ workflowId: 'wf-state', key: 'order_lookup' }))
        .map((p) => [p.patchId, p.version])
        .slice(0, 1),
      [['p-1', 1]],
    );
    assert.equal(await patchCount('wf-other', 'order_lookup'), 1);
  });

  it('enforces unique versions in the database even for a writer that skips the store', async () => {
    await assert.rejects(
      db.pool.query(
        `INSERT INTO ttc_state_patches (patch_id, workflow_id, key, value_json, evidence_ids, source, retrieved_at, expected_version, version, call_id, patch_sha256, applied_at)
         VALUES ('p-rogue', 'wf-state', 'order_lookup', '{}', ARRAY['ev_x'], 's', now(), 0, 1, 'c1', $1, now())`,
        ['0'.repeat(64)],
      ),
      (error: { code?: unknown; constraint?: unknown }) =>
        error.code === '23505' && error.constraint === 'ttc_state_patches_version_key',
    );
  });
});
