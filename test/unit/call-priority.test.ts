import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callPriority, MAX_FAIRNESS_KEY_BYTES } from '../../workflows/call-priority.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };

test("a call's fairness key is its principal's tenant", () => {
  assert.deepEqual(callPriority(principal, undefined), { fairnessKey: 'tenant-acme' });
});

test("the call's priority option wins field by field and keeps the tenant's key unless it names another", () => {
  assert.deepEqual(callPriority(principal, { priorityKey: 1 }), { fairnessKey: 'tenant-acme', priorityKey: 1 });
  assert.deepEqual(callPriority(principal, { fairnessKey: 'batch', fairnessWeight: 0.5 }), { fairnessKey: 'batch', fairnessWeight: 0.5 });
});

test('a tenant over 64 UTF-8 bytes gets no fairness key (never a cut one two tenants could share); nothing set means inherit', () => {
  const long = 'é'.repeat(MAX_FAIRNESS_KEY_BYTES / 2 + 1);
  assert.equal(callPriority({ ...principal, tenant: long }, undefined), undefined);
  assert.deepEqual(callPriority({ ...principal, tenant: 'é'.repeat(MAX_FAIRNESS_KEY_BYTES / 2) }, undefined), { fairnessKey: 'é'.repeat(MAX_FAIRNESS_KEY_BYTES / 2) });
  assert.equal(callPriority({ ...principal, tenant: '' }, undefined), undefined);
});
