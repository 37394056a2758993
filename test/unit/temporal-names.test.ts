import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as names from '../../src/temporal/names.js';
import { reconcileToolCall } from '../../workflows/reconcile-tool-call.js';

test('the reconciliation workflow type constant is the exported workflow function name', () => {
  assert.equal(names.RECONCILE_WORKFLOW_TYPE, reconcileToolCall.name);
});

test('names stored in history are unique, and package activity types use the reserved prefix', () => {
  const values = Object.entries(names)
    .filter(([, value]) => typeof value === 'string')
    .map(([, value]) => value as string);
  assert.equal(new Set(values).size, values.length);
  const activities = Object.entries(names).filter(([key]) => key.endsWith('_ACTIVITY')).map(([, value]) => value as string);
  assert.ok(activities.length >= 5);
  for (const activity of activities) assert.ok(activity.startsWith(names.RESERVED_ACTIVITY_PREFIX), activity);
  const attributes = names.SEARCH_ATTRIBUTE_KEYS.map((key) => key.name);
  assert.deepEqual(attributes, [names.APPROVAL_PENDING_SA.name, names.RECONCILE_STATE_SA.name, names.IDEMPOTENCY_KEY_SA.name]);
  for (const name of attributes) assert.match(name, /^Ttc[A-Z][A-Za-z]+$/);
});
