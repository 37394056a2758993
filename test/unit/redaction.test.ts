import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Redactor, REDACTED_MARKER, SECRET_CATALOG_VERSION, type Redaction } from '../../src/contract/redaction.js';

const redactor = new Redactor({
  sensitiveFields: ['ssn'],
  protectedSubstrings: ['idem-0123456789'],
  protectedExact: ['tenant-acme', 'ann'],
});

function text(input: string): { out: string; reasons: string[] } {
  const log: Redaction[] = [];
  return { out: redactor.text(input, '/t', log), reasons: log.map((entry) => entry.reason) };
}

describe('Redactor', () => {
  it('removes sensitive fields at any depth, whatever their spelling, and records each path', () => {
    const log: Redaction[] = [];
    const out = redactor.value(
      {
        user: { name: 'Ann', apiKey: 'k', 'X-Api-Key': 'k', SSN: '1', sessions: [{ access_token: 't', id: 1 }] },
        password: 'p',
      },
      '/data',
      log,
    );
    assert.deepEqual(out, { user: { name: 'Ann', sessions: [{ id: 1 }] } });
    assert.deepEqual(log.map((r) => r.path).sort(), [
      '/data/password',
      '/data/user/SSN',
      '/data/user/X-Api-Key',
      '/data/user/apiKey',
      '/data/user/sessions/0/access_token',
    ]);
  });

  it('scrubs secret-shaped substrings and protected values out of text, naming the rule', () => {
    assert.deepEqual(text('key sk_live_abcdefghijklmnop1234 end'), {
      out: `key ${REDACTED_MARKER} end`,
      reasons: ['secret_pattern:stripe_secret_key'],
    });
    assert.deepEqual(text('ref idem-0123456789 here'), {
      out: `ref ${REDACTED_MARKER} here`,
      reasons: ['protected_value'],
    });
    assert.equal(text('tenant-acme').out, REDACTED_MARKER);
  });

  it('keeps the scheme of an Authorization value and hides its credentials, in any case', () => {
    assert.equal(text('Authorization: Bearer abcdefghijkl.mnop').out, `Authorization: Bearer ${REDACTED_MARKER}`);
    assert.equal(text('authorization: bearer abcdefghijkl.mnop').out, `authorization: bearer ${REDACTED_MARKER}`);
    assert.equal(
      text('Proxy-Authorization: Basic dXNlcjpwYXNzd29yZA==').out,
      `Proxy-Authorization: Basic ${REDACTED_MARKER}`,
    );
  });

  it('keeps the readable parts of a URL and hides only its credentials', () => {
    assert.equal(text('postgres://admin:hunter2@db/x').out, `postgres://admin:${REDACTED_MARKER}@db/x`);
    assert.equal(
      text('https://api.example.com/v1?page=2&access_token=abc123&sort=asc').out,
      `https://api.example.com/v1?page=2&access_token=${REDACTED_MARKER}&sort=asc`,
    );
  });

  it('hides identities inside text only when long enough and standing alone; short ones only as a whole string', () => {
    assert.equal(text('billed to tenant-acme today').out, `billed to ${REDACTED_MARKER} today`);
    assert.equal(text('tenant-acme-eu').out, `${REDACTED_MARKER}-eu`, 'a dash is not part of an id');
    assert.equal(text('subtenant-acme').out, 'subtenant-acme', 'glued to letters it is another word');
    assert.equal(text('ann').out, REDACTED_MARKER);
    assert.equal(
      text("Ann's order for anna").out,
      "Ann's order for anna",
      'a three-letter subject would shred ordinary words',
    );
  });

  it('drops an entry whose key holds a secret, logging the key redacted', () => {
    const log: Redaction[] = [];
    const out = redactor.value(
      { ghp_FAKE0123456789abcdefghijklmnopqrstuv: 1, 'idem-0123456789': 2, ok: 3 },
      '/data',
      log,
    );
    assert.deepEqual(out, { ok: 3 });
    assert.deepEqual(log, [
      { path: `/data/${REDACTED_MARKER}`, reason: 'secret_in_key' },
      { path: `/data/${REDACTED_MARKER}`, reason: 'secret_in_key' },
    ]);
  });

  it('judges a key the same in every item that repeats it (sensitive names, secret keys, name/value entries)', () => {
    const log: Redaction[] = [];
    const item = (i: number) => ({
      id: i,
      password: 'p',
      ghp_FAKE0123456789abcdefghijklmnopqrstuv: 1,
      name: i === 1 ? 'X-Api-Key' : 'Accept',
      value: 'v',
    });
    const out = redactor.value([item(0), item(1), item(2)], '/data', log);
    assert.deepEqual(out, [
      { id: 0, name: 'Accept', value: 'v' },
      { id: 1, name: 'X-Api-Key' },
      { id: 2, name: 'Accept', value: 'v' },
    ]);
    assert.deepEqual(
      log,
      [0, 1, 2].flatMap((i) => [
        { path: `/data/${i}/password`, reason: 'sensitive_field' },
        { path: `/data/${i}/${REDACTED_MARKER}`, reason: 'secret_in_key' },
        ...(i === 1 ? [{ path: '/data/1/value', reason: 'sensitive_pair' }] : []),
      ]),
    );
  });

  it('does not take a lone two-item list for a [name, value] pair', () => {
    const log: Redaction[] = [];
    assert.deepEqual(
      redactor.value({ required: ['password', 'email'], context: ['operationId', 'idempotencyKey'] }, '/data', log),
      {
        required: ['password', 'email'],
        context: ['operationId', 'idempotencyKey'],
      },
    );
    assert.deepEqual(log, []);
  });

  it('hides the value of a name/value entry whose name is secret, in objects and in lists of [name, value] pairs', () => {
    const log: Redaction[] = [];
    const out = redactor.value(
      {
        headers: [
          { name: 'X-Api-Key', value: 'k-1' },
          { name: 'Accept', value: 'json' },
        ],
        tags: [{ Key: 'db_password', Value: 'p' }],
        env: [
          ['AUTH_TOKEN', 't'],
          ['PATH', '/bin'],
        ],
      },
      '/data',
      log,
    );
    assert.deepEqual(out, {
      headers: [{ name: 'X-Api-Key' }, { name: 'Accept', value: 'json' }],
      tags: [{ Key: 'db_password' }],
      env: [
        ['AUTH_TOKEN', REDACTED_MARKER],
        ['PATH', '/bin'],
      ],
    });
    assert.deepEqual(
      log.map((entry) => entry.reason),
      ['sensitive_pair', 'sensitive_pair', 'sensitive_pair'],
    );
  });

  it('hides a card number stored as a JSON number', () => {
    const log: Redaction[] = [];
    assert.deepEqual(redactor.value({ pan: 4111111111111111, order: 4111111111111112, total: 3500 }, '/data', log), {
      pan: REDACTED_MARKER,
      order: 4111111111111112,
      total: 3500,
    });
    assert.deepEqual(log, [{ path: '/data/pan', reason: 'secret_pattern:card_number' }]);
  });

  it('is idempotent: redacting its own output changes nothing and records nothing', () => {
    const once = redactor.value(
      { note: 'password=hunter2, Authorization: Bearer abcdefghijkl.mnop, postgres://a:b@c/d' },
      '/data',
      [],
    );
    const log: Redaction[] = [];
    assert.deepEqual(redactor.value(once, '/data', log), once);
    assert.deepEqual(log, []);
  });

  it('leaves ordinary data alone and does not mutate its input', () => {
    const input = { orders: [{ id: 'ord_1001', note: 'skip the bell', token_count: 3 }] };
    const log: Redaction[] = [];
    assert.deepEqual(redactor.value(input, '', log), input);
    assert.equal(log.length, 0);
  });

  it('exposes the catalog version the audit records', () => assert.match(SECRET_CATALOG_VERSION, /^secrets@\d+$/));
});
