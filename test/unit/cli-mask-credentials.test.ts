import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskCredentials, maskedJson } from '../../src/cli/mask-credentials.js';
import { cpuMs } from '../../testkit/security/cpu-time.js';

test('the password of a URL is masked and the user name kept; a userinfo without password is masked whole', () => {
  assert.equal(maskCredentials('postgres://admin:hunter2@db/x'), 'postgres://admin:***@db/x');
  assert.equal(
    maskCredentials('cannot connect to DATABASE_URL (postgresql://admin:hunter2@db:5432/x?sslmode=require): refused'),
    'cannot connect to DATABASE_URL (postgresql://admin:***@db:5432/x?sslmode=require): refused',
  );
  assert.equal(maskCredentials('https://ghp_token1234@github.com/o/r.git'), 'https://***@github.com/o/r.git');
  // pg accepts an unencoded `@` in the password: everything up to the last `@` of the authority goes.
  assert.equal(maskCredentials('postgres://admin:p@ss@word@db/x'), 'postgres://admin:***@db/x');
  assert.equal(
    maskCredentials('two: postgres://a:one@h1/x and postgres://b:two@h2/y'),
    'two: postgres://a:***@h1/x and postgres://b:***@h2/y',
  );
});

test('an address without scheme loses its password; secret query parameters and conninfo keywords are masked', () => {
  assert.equal(
    maskCredentials('cannot reach the Temporal server at ops:hunter2@temporal.example:7233'),
    'cannot reach the Temporal server at ops:***@temporal.example:7233',
  );
  assert.equal(
    maskCredentials('postgres://db/x?user=app&password=hunter2&sslpassword=k3y&application_name=ttc'),
    'postgres://db/x?user=app&password=***&sslpassword=***&application_name=ttc',
  );
  assert.equal(
    maskCredentials('https://api.example/v1?access_token=abc.def&page=2'),
    'https://api.example/v1?access_token=***&page=2',
  );
  assert.equal(
    maskCredentials("host=db user=app password='two words' dbname=x"),
    'host=db user=app password=*** dbname=x',
  );
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
  const event = {
    event: 'ready',
    databaseUrl: 'postgres://admin:hunter2@db/x',
    nested: [{ error: 'refused: postgres://admin:hunter2@db/x' }],
    port: 7233,
    ok: true,
    none: null,
  };
  const json = maskedJson(event);
  assert.doesNotMatch(json, /hunter2/);
  assert.deepEqual(JSON.parse(json), {
    ...event,
    databaseUrl: 'postgres://admin:***@db/x',
    nested: [{ error: 'refused: postgres://admin:***@db/x' }],
  });
});

test('masks in linear time: a 9,000-character `token.` argument at once, and 1 MB of each worst input within a small multiple of 64 KB', () => {
  // Regression: the regular expressions this replaced were cubic here; `pending` took 14 s on this argument, which an
  // injected model can put into an approval preview.
  const attack = 'token.'.repeat(1_500);
  maskCredentials(attack.slice(0, 600));
  const attackMs = cpuMs(() => maskCredentials(attack));
  assert.ok(attackMs < 50, `${attackMs.toFixed(1)} ms`);
  // Each the worst case of one pass before: key runs full of secret words, dotted schemes, delimiters inside one
  // password run, unclosed userinfos and quotes.
  const units = ['token.', 'password.', 'a.', '=a:b', ' a:b@c', 'a:b@', 'x://a@', "password='", 'password=', '@', '='];
  for (const unit of units) {
    const small = `${unit.repeat(Math.ceil((64 * 1024) / unit.length))}://`;
    const large = `${unit.repeat(Math.ceil((1024 * 1024) / unit.length))}://`;
    // The least of several runs: other work on a shared machine only adds to a run.
    const least = (text: string) => Math.min(...Array.from({ length: 5 }, () => cpuMs(() => maskCredentials(text))));
    const [smallMs, largeMs] = [least(small), least(large)];
    // 16 times the input: linear is about 16 times the time, quadratic 256.
    assert.ok(
      largeMs < 64 * Math.max(smallMs, 0.1),
      `${JSON.stringify(unit)}: 64 KB ${smallMs.toFixed(2)} ms, 1 MB ${largeMs.toFixed(2)} ms`,
    );
  }
});
