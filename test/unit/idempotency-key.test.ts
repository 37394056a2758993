import assert from 'node:assert/strict';
import { it } from 'node:test';
import { businessIdempotencyKey } from '../../src/contract/idempotency-key.js';
import { tenantRef } from '../../src/contract/tenant-ref.js';

it('a business key is scoped by tenant: the same business key of two tenants gives two idempotency keys', () => {
  const acme = businessIdempotencyKey('payments.charge', 'tenant-acme', 'pay_1');
  const globex = businessIdempotencyKey('payments.charge', 'tenant-globex', 'pay_1');
  assert.notEqual(acme, globex);
  assert.equal(
    acme,
    `payments.charge:${tenantRef('tenant-acme')}:pay_1`,
    'documented shape: <tool>:<tenant ref>:<business key>',
  );
  assert.match(tenantRef('tenant-acme'), /^[0-9a-f]{32}$/);
  assert.ok(!acme.includes('tenant-acme'), 'the tenant name is not in the key');
});

it('is stable (the same inputs always give the same key) and unambiguous where names contain the separator', () => {
  assert.equal(businessIdempotencyKey('t', 'a', 'b'), businessIdempotencyKey('t', 'a', 'b'));
  assert.notEqual(businessIdempotencyKey('t', 'a:b', 'c'), businessIdempotencyKey('t', 'a', 'b:c'));
});
