import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InMemoryToolStore } from '../../src/store/in-memory/in-memory-tool-store.js';

// The in-memory store counts what the Postgres one does (test/integration/store/reconciliation.test.ts, and the
// parity scenario): open and escalated rounds by tool, the latest round of a key only once.
test('the in-memory store counts open and escalated reconciliation rounds by tool, and no settled one', async () => {
  const store = new InMemoryToolStore();
  const open = (key: string, tool: string) =>
    store.openReconciliation({ idempotencyKey: key, workflowId: 'wf', callId: `call-${key}`, tool, auditId: null });
  const settle = (key: string, outcome: 'committed' | 'not_committed') =>
    store.settleReconciliation({
      idempotencyKey: key,
      outcome,
      via: 'human',
      receiptExternalId: null,
      resolvedBy: 'ops',
      note: null,
    });
  assert.deepEqual(await store.countUnsettledByTool(), {});
  await open('k-1', 'mail.send');
  await open('k-1', 'mail.send');
  await open('k-2', 'mail.send');
  await store.escalateReconciliation({ idempotencyKey: 'k-2', reason: 'deadline passed' });
  await open('k-3', 'payments.charge');
  assert.deepEqual(await store.countUnsettledByTool(), { 'mail.send': 2, 'payments.charge': 1 });
  await settle('k-3', 'not_committed');
  await settle('k-1', 'committed');
  assert.deepEqual(await store.countUnsettledByTool(), { 'mail.send': 1 });
  // A safe retry that is unknown again opens a second round of the key: counted once more, the settled round not.
  await open('k-3', 'payments.charge');
  assert.deepEqual(await store.countUnsettledByTool(), { 'mail.send': 1, 'payments.charge': 1 });
});
