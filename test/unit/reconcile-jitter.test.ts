import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jitteredWaitMs } from '../../workflows/reconcile-policy.js';

test('a reconciliation wait is between half and all of its interval, the same on every replay', () => {
  for (let query = 1; query <= 20; query++) {
    const wait = jitteredWaitMs(1000, `tenant/pay_${query}`, query);
    assert.ok(wait >= 500 && wait <= 1000, `query ${query}: ${wait} ms`);
    assert.equal(jitteredWaitMs(1000, `tenant/pay_${query}`, query), wait);
  }
});

test('200 reconciliations opened together spread their first waits over the jitter window instead of querying in lock-step', () => {
  const waits = Array.from({ length: 200 }, (_, i) => jitteredWaitMs(1000, `tenant-faults/pay_${i}`, 1));
  // Ten 50 ms buckets across 500–1000 ms: every bucket is used, and none holds more than a quarter of the waits.
  const buckets = new Array<number>(10).fill(0);
  for (const wait of waits) buckets[Math.min(9, Math.floor((wait - 500) / 50))]! += 1;
  assert.ok(
    buckets.every((n) => n > 0 && n <= 50),
    `buckets ${buckets.join(', ')}`,
  );
  // One key's successive queries move too: a key does not keep the same phase.
  assert.ok(new Set(Array.from({ length: 10 }, (_, q) => jitteredWaitMs(1000, 'tenant-faults/pay_0', q + 1))).size > 5);
});
