// Which field names are secret: the decision table for the token rules, their allowlist, and the exact control fields.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldNameTokens, Redactor } from '../../../src/contract/redaction.js';
import { BENIGN_FIELD_NAMES, SECRET_FIELD_NAMES } from '../../../testkit/security/secret-corpus.js';

const redactor = new Redactor({ sensitiveFields: ['ssn'], protectedSubstrings: [], protectedExact: [] });

describe('secret field names', () => {
  it('splits names into words at separators, case changes and acronyms', () => {
    assert.deepEqual(fieldNameTokens('dbPassword'), ['db', 'password']);
    assert.deepEqual(fieldNameTokens('aws_secret_access_key'), ['aws', 'secret', 'access', 'key']);
    assert.deepEqual(fieldNameTokens('x-auth-token'), ['x', 'auth', 'token']);
    assert.deepEqual(fieldNameTokens('APIKey'), ['api', 'key']);
    assert.deepEqual(fieldNameTokens('oauth2Token'), ['oauth2', 'token']);
    assert.deepEqual(fieldNameTokens('X-Amz-Security-Token'), ['x', 'amz', 'security', 'token']);
    assert.deepEqual(fieldNameTokens('config.db.password'), ['config', 'db', 'password']);
  });

  for (const name of SECRET_FIELD_NAMES) {
    it(`'${name}' is secret`, () => assert.equal(redactor.isSensitiveName(name), true));
  }

  for (const name of BENIGN_FIELD_NAMES) {
    it(`'${name}' is not`, () => assert.equal(redactor.isSensitiveName(name), false));
  }

  it('reports the false-positive rate of the name rules over the benign names', (t) => {
    const flagged = BENIGN_FIELD_NAMES.filter((name) => redactor.isSensitiveName(name));
    t.diagnostic(`benign field names flagged: ${flagged.length}/${BENIGN_FIELD_NAMES.length}`);
    assert.deepEqual(flagged, []);
  });

  it('removes secret-named fields at any depth and keeps the metadata fields beside them', () => {
    const log: { path: string; reason: string }[] = [];
    const out = redactor.value(
      {
        usage: { input_tokens: 10, max_tokens: 64 },
        db: { password: 'x', password_updated_at: '2026-11-30', sort_key: 'a' },
        'X-Auth-Token': 't',
      },
      '/data',
      log,
    );
    assert.deepEqual(out, {
      usage: { input_tokens: 10, max_tokens: 64 },
      db: { password_updated_at: '2026-11-30', sort_key: 'a' },
    });
    assert.deepEqual(log.map((entry) => entry.path).sort(), ['/data/X-Auth-Token', '/data/db/password']);
  });
});
