import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskCredentials, maskedJson } from '../../src/cli/mask-credentials.js';

test('the password of a URL is masked and the user name kept; a userinfo without password is masked whole', () => {
  assert.equal(maskCredentials('postgres://admin:hunter2@db/x'), 'postgres://admin:***@db/x');
  assert.equal(maskCredentials('cannot connect to DATABASE_URL (postgresql://admin:hunter2@db:5432/x?sslmode=require): refused'), 'cannot connect to DATABASE_URL (postgresql://admin:***@db:5432/x?sslmode=require): refused');
  assert.equal(maskCredentials('https://ghp_token1234@github.com/o/r.git'), 'https://***@github.com/o/r.git');
  // pg accepts an unencoded `@` in the password: everything up to the last `@` of the authority goes.
  assert.equal(maskCredentials('postgres://admin:p@ss@word@db/x'), 'postgres://admin:***@db/x');
  assert.equal(maskCredentials('two: postgres://a:one@h1/x and postgres://b:two@h2/y'), 'two: postgres://a:***@h1/x and postgres://b:***@h2/y');
});

test('an address without scheme loses its password; secret query parameters and conninfo keywords are masked', () => {
  assert.equal(maskCredentials('cannot reach the Temporal server at ops:hunter2@temporal.example:7233'), 'cannot reach the Temporal server at ops:***@temporal.example:7233');
  assert.equal(
    maskCredentials('postgres://db/x?user=app&password=hunter2&sslpassword=k3y&application_name=ttc'),
    'postgres://db/x?user=app&password=***&sslpassword=***&application_name=ttc',
  );
  assert.equal(maskCredentials('https://api.example/v1?access_token=abc.def&page=2'), 'https://api.example/v1?access_token=***&page=2');
  assert.equal(maskCredentials("host=db user=app password='two words' dbname=x"), 'host=db user=app password=*** dbname=x');
});

test('text without credentials is unchanged, and masking is idempotent', () => {
  for (const text of [
    'connecting to Temporal at 127.0.0.1:7233 (namespace default)',
    'Temporal UI          http://127.0.0.1:8233',
    'approved by ops@example.com at 2026-11-30T12:00:00Z',
    'postgres://127.0.0.1:5432/postgres',
  ]) {
    assert.equal(maskCredentials(text), text);
  }
  const once = maskCredentials('postgres://admin:hunter2@db/x?password=hunter2 and ops:hunter2@h:1');
  assert.doesNotMatch(once, /hunter2/);
  assert.equal(maskCredentials(once), once);
});

test('maskedJson masks every string of a value, however deep, and keeps the rest', () => {
  const event = { event: 'ready', databaseUrl: 'postgres://admin:hunter2@db/x', nested: [{ error: 'refused: postgres://admin:hunter2@db/x' }], port: 7233, ok: true, none: null };
  const json = maskedJson(event);
  assert.doesNotMatch(json, /hunter2/);
  assert.deepEqual(JSON.parse(json), { ...event, databaseUrl: 'postgres://admin:***@db/x', nested: [{ error: 'refused: postgres://admin:***@db/x' }] });
});
