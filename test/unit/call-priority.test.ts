import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tenantRef } from '../../src/contract/tenant-ref.js';
import { callPriority } from '../../workflows/call/dispatch-step.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };

test("a call's fairness key is its tenant's reference, never the tenant's name", () => {
  const priority = callPriority(principal, undefined);
  assert.deepEqual(priority, { fairnessKey: tenantRef('tenant-acme') });
  assert.match(priority?.fairnessKey ?? '', /^[0-9a-f]{32}$/);
  assert.notEqual(
    callPriority({ ...principal, tenant: 'tenant-globex' }, undefined)?.fairnessKey,
    priority?.fairnessKey,
    'each tenant has its own key',
  );
});

test("the call's priority option wins field by field and keeps the tenant's key unless it names another", () => {
  assert.deepEqual(callPriority(principal, { priorityKey: 1 }), {
    fairnessKey: tenantRef('tenant-acme'),
    priorityKey: 1,
  });
  assert.deepEqual(callPriority(principal, { fairnessKey: 'batch', fairnessWeight: 0.5 }), {
    fairnessKey: 'batch',
    fairnessWeight: 0.5,
  });
});

test("any tenant gets a key within Temporal's 64-byte limit; no tenant and no option means inherit", () => {
  const long = 'é'.repeat(200);
  assert.deepEqual(callPriority({ ...principal, tenant: long }, undefined), { fairnessKey: tenantRef(long) });
  assert.ok(new TextEncoder().encode(tenantRef(long)).byteLength <= 64);
  assert.equal(callPriority({ ...principal, tenant: '' }, undefined), undefined);
});
