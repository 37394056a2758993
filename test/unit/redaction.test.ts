import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Redactor, REDACTED_MARKER, type Redaction } from '../../src/contract/redaction.js';

const redactor = new Redactor({ sensitiveFields: ['ssn'], protectedSubstrings: ['idem-0123456789'], protectedExact: ['tenant-acme'] });

describe('Redactor', () => {
  it('removes sensitive fields at any depth, whatever their spelling, and records each path', () => {
    const log: Redaction[] = [];
    const out = redactor.value(
      { user: { name: 'Ann', apiKey: 'k', 'X-Api-Key': 'k', SSN: '1', sessions: [{ access_token: 't', id: 1 }] }, password: 'p' },
      '/data',
      log,
    );
    assert.deepEqual(out, { user: { name: 'Ann', sessions: [{ id: 1 }] } });
    assert.deepEqual(log.map((r) => r.path).sort(), ['/data/password', '/data/user/SSN', '/data/user/X-Api-Key', '/data/user/apiKey', '/data/user/sessions/0/access_token']);
  });

  it('scrubs secret-shaped substrings and protected values out of text', () => {
    const log: Redaction[] = [];
    assert.equal(redactor.text('key sk_live_abcdefghijklmnop1234 end', '/t', log), `key ${REDACTED_MARKER} end`);
    assert.equal(redactor.text('Authorization: Bearer abcdefghijkl.mnop', '/t', log), `Authorization: ${REDACTED_MARKER}`);
    assert.equal(redactor.text('ref idem-0123456789 here', '/t', log), `ref ${REDACTED_MARKER} here`);
    assert.equal(redactor.text('tenant-acme', '/t', log), REDACTED_MARKER);
    assert.equal(redactor.text('tenant-acme-lookalike', '/t', log), 'tenant-acme-lookalike', 'identities match whole strings only');
    assert.equal(log.length, 4);
  });

  it('leaves ordinary data alone and does not mutate its input', () => {
    const input = { orders: [{ id: 'ord_1', note: 'skip the bell' }] };
    const log: Redaction[] = [];
    assert.deepEqual(redactor.value(input, '', log), input);
    assert.equal(log.length, 0);
  });
});
