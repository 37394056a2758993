import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { InMemoryToolStore } from '../../../src/store/in-memory/in-memory-tool-store.js';
import type { StatePatchInput } from '../../../src/store/state-patch.js';
import type { ToolStore } from '../../../src/store/tool-store.js';
import { openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { rejectsWith } from './assert-store-error.js';
import { ordersGet, runCall } from '../../../testkit/store-tools.js';
import { defineTool } from '../../../testkit/define-tool.js';

/** The same lookup on another source, so a patch can cite two sources (its evidence still names the originals, declared). */
const replica = defineTool({
  ...ordersGet,
  name: 'orders.replica',
  source: { label: 'orders-replica', type: 'database', allowlist: ['orders-db', 'billing-db'] },
});

let db: TestDatabase;
before(async () => {
  db = await openTestDatabase('patch-provenance');
});
after(async () => db?.close());

for (const [name, makeStore] of [
  ['Postgres', () => db.store()],
  ['in-memory', () => new InMemoryToolStore()],
] as const) {
  describe(`state patch provenance comes from the cited evidence (${name} store)`, () => {
    let store: ToolStore;
    let primary: string[];
    let mirrored: string;
    const patch = (patchId: string, overrides: Partial<StatePatchInput> = {}): StatePatchInput => ({
      patchId,
      workflowId: 'wf-prov',
      key: patchId,
      value: { status: 'shipped' },
      evidenceIds: primary,
      expectedVersion: 0,
      callId: 'c-1',
      ...overrides,
    });

    before(async () => {
      store = makeStore();
      // ordersGet reports source orders-db, observed 11:59, read at 12:00; its second evidence item is billing-db's.
      const read = await runCall(ordersGet, { orderId: 'o-1' }, { workflowId: 'wf-prov', callId: 'c-1' });
      const copy = await runCall(replica, { orderId: 'o-2' }, { workflowId: 'wf-prov', callId: 'c-2' });
      for (const execution of [read, copy])
        await store.recordExecution({ execution, workflowId: 'wf-prov', runId: null });
      primary = read.modelResult.evidence.map((e) => e.evidence_id);
      mirrored = copy.modelResult.evidence[1]!.evidence_id;
    });

    it('takes source and times from the evidence when the writer leaves them out', async () => {
      const { patch: applied } = await store.applyStatePatch(patch('p-derived'));
      assert.deepEqual(
        [applied.source, applied.observedAt, applied.retrievedAt],
        ['orders-db', '2026-11-30T11:59:00.000Z', '2026-11-30T12:00:00.000Z'],
      );
    });

    it('accepts what the evidence says: a source of an evidence item or of its call, its times, or an unknown observation', async () => {
      const { patch: applied } = await store.applyStatePatch(
        patch('p-given', { source: 'billing-db', observedAt: null, retrievedAt: '2026-11-30T12:00:00Z' }),
      );
      assert.deepEqual(
        [applied.source, applied.observedAt, applied.retrievedAt],
        ['billing-db', null, '2026-11-30T12:00:00.000Z'],
      );
    });

    it('refuses a source, observation or read time the evidence does not have, and stores nothing', async () => {
      await rejectsWith(
        store.applyStatePatch(patch('p-src', { source: 'crm' })),
        'INVALID_ARGUMENTS',
        'provenance_mismatch',
      );
      await rejectsWith(
        store.applyStatePatch(patch('p-obs', { observedAt: '2026-11-30T12:00:00Z' })),
        'INVALID_ARGUMENTS',
        'provenance_mismatch',
      );
      await rejectsWith(
        store.applyStatePatch(patch('p-read', { retrievedAt: '2026-12-01T00:00:00Z' })),
        'INVALID_ARGUMENTS',
        'provenance_mismatch',
      );
      assert.deepEqual((await store.listStatePatches({ workflowId: 'wf-prov' })).map((p) => p.patchId).sort(), [
        'p-derived',
        'p-given',
      ]);
    });

    it('makes the writer name the source when the evidence has several', async () => {
      const both = [...primary, mirrored];
      await rejectsWith(
        store.applyStatePatch(patch('p-two', { evidenceIds: both })),
        'INVALID_ARGUMENTS',
        'provenance_mismatch',
      );
      assert.equal(
        (await store.applyStatePatch(patch('p-two', { evidenceIds: both, source: 'orders-replica' }))).patch.source,
        'orders-replica',
      );
    });

    it('is idempotent whether the retry names the derived values or leaves them out', async () => {
      const again = await store.applyStatePatch(
        patch('p-derived', {
          source: 'orders-db',
          observedAt: '2026-11-30T11:59:00Z',
          retrievedAt: '2026-11-30T12:00:00Z',
        }),
      );
      assert.equal(again.applied, false);
    });
  });
}
