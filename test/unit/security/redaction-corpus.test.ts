// Redactor tier of the security corpus: every fake secret is hidden in every string placement, every benign
// look-alike survives, and the false-positive rate is reported.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Redactor, type Redaction } from '../../../src/contract/redaction.js';
import { BENIGN_LOOKALIKES, FAKE_SECRETS, type FakeSecret } from '../../../testkit/security/secret-corpus.js';
import { assertHidden } from './hidden.js';

const redactor = new Redactor({ sensitiveFields: [], protectedSubstrings: [], protectedExact: [] });

function redactValue(value: unknown): { out: string; log: Redaction[] } {
  const log: Redaction[] = [];
  return { out: JSON.stringify(redactor.value(value, '/data', log)), log };
}

/** Where a string from a tool can sit in a result, and how each secret is put there. */
const PLACEMENTS: readonly { name: string; place: (s: FakeSecret) => unknown; applies?: (s: FakeSecret) => boolean }[] =
  [
    { name: 'a whole string', place: (s) => s.secret, applies: (s) => s.standalone },
    { name: 'free text', place: (s) => `Note from the on-call engineer: ${s.carrier} (rotated since).` },
    { name: 'a nested field', place: (s) => ({ order: { lines: [{ note: s.carrier }] } }) },
    { name: 'an array item', place: (s) => ['first', s.carrier, 'last'] },
    {
      name: 'a multi-line log',
      place: (s) =>
        `2026-11-30T12:00:00Z INFO start\n2026-11-30T12:00:01Z DEBUG ${s.carrier}\n2026-11-30T12:00:02Z INFO done`,
    },
    { name: 'an object key', place: (s) => ({ [s.secret]: true, kept: 1 }), applies: (s) => s.standalone },
    { name: 'a key inside a sentence', place: (s) => ({ [`see ${s.carrier}`]: 1 }) },
    { name: 'a name/value pair', place: (s) => [{ name: s.fieldName, value: s.secret }] },
    { name: 'a Key/Value pair', place: (s) => [{ Key: s.fieldName, Value: s.secret }] },
    {
      name: 'a [name, value] header tuple',
      place: (s) => [
        ['Accept', 'application/json'],
        [s.fieldName, s.secret],
      ],
    },
    { name: 'a field named after it', place: (s) => ({ [s.fieldName]: s.secret, id: 'ord_1001' }) },
  ];

describe('security corpus, redactor tier', () => {
  it('has at least 150 fake secrets across at least 40 families, and at least 100 benign look-alikes', () => {
    assert.ok(FAKE_SECRETS.length >= 150, `${FAKE_SECRETS.length} secrets`);
    assert.ok(new Set(FAKE_SECRETS.map((s) => s.family)).size >= 40);
    assert.ok(BENIGN_LOOKALIKES.length >= 100, `${BENIGN_LOOKALIKES.length} look-alikes`);
  });

  it('gives every secret known only by its context a field name the rules recognise', () => {
    const unnamed = FAKE_SECRETS.filter((s) => !s.standalone && !redactor.isSensitiveName(s.fieldName)).map(
      (s) => s.fieldName,
    );
    assert.deepEqual(unnamed, []);
  });

  for (const placement of PLACEMENTS) {
    it(`hides every secret placed in ${placement.name}, and records the redaction`, () => {
      for (const secret of FAKE_SECRETS.filter((s) => placement.applies?.(s) ?? true)) {
        const { out, log } = redactValue(placement.place(secret));
        assertHidden(out, secret, placement.name);
        assert.ok(log.length > 0, `${secret.family} in ${placement.name}: no redaction recorded`);
      }
    });
  }

  it('leaves every benign look-alike unchanged, as text and as data', (t) => {
    const changed = BENIGN_LOOKALIKES.filter(
      ({ text }) => redactor.text(text, '/t', []) !== text || redactValue({ note: text }).log.length > 0,
    );
    t.diagnostic(`false positives: ${changed.length}/${BENIGN_LOOKALIKES.length} benign look-alikes changed`);
    assert.deepEqual(changed, []);
  });

  it('names the catalog rule of each text redaction in the audit reason', () => {
    const log: Redaction[] = [];
    redactor.text('key ghp_FAKE0123456789abcdefghijklmnopqrstuv and https://u:pw-FAKE-1@db/x', '/note', log);
    assert.deepEqual(log.map((entry) => entry.reason).sort(), [
      'secret_pattern:github_token',
      'secret_pattern:url_password',
    ]);
    assert.ok(log.every((entry) => entry.path === '/note'));
  });
});
