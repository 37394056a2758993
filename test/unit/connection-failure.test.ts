import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EXIT_CODES } from '../../src/cli/cli-error.js';
import {
  connectionError,
  failureOfStatus,
  grpcStatusOf,
  type ConnectionFailure,
} from '../../src/cli/connection-failure.js';
import { hostAndPort } from '../../src/cli/connection-probe.js';
import type { TemporalProfile } from '../../src/cli/temporal-profile.js';

const local: TemporalProfile = {
  address: '127.0.0.1:7233',
  namespace: 'default',
  connection: { address: '127.0.0.1:7233' },
};
const cloud: TemporalProfile = {
  address: 'my-ns.a1b2c.tmprl.cloud:7233',
  namespace: 'my-ns.a1b2c',
  connection: { address: 'my-ns.a1b2c.tmprl.cloud:7233', apiKey: 'k' },
};

test("the gRPC status is found under the client's wrappers, and a system error carries none", () => {
  const wrapped = Object.assign(new Error('Failed to connect to Temporal server'), {
    cause: Object.assign(new Error('16 UNAUTHENTICATED: bad key'), { code: 16, details: 'bad key' }),
  });
  assert.deepEqual(grpcStatusOf(wrapped), { code: 16, message: 'bad key' });
  assert.equal(grpcStatusOf(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })), null);
  assert.equal(grpcStatusOf('not an error'), null);
});

test('statuses map to their causes; NOT_FOUND alone is no connection failure (a workflow may be missing)', () => {
  assert.equal(failureOfStatus({ code: 16, message: '' })?.kind, 'credentials');
  assert.equal(failureOfStatus({ code: 7, message: '' })?.kind, 'credentials');
  assert.equal(failureOfStatus({ code: 14, message: '' })?.kind, 'unreachable');
  assert.equal(failureOfStatus({ code: 12, message: '' })?.kind, 'wrong_service');
  assert.equal(failureOfStatus({ code: 5, message: '' }), null);
});

test('each cause has its own exit code, and only an unreachable local server is told to start one', () => {
  const failures: ConnectionFailure[] = [
    { kind: 'unreachable', reason: 'ECONNREFUSED' },
    { kind: 'tls', problem: 'untrusted_certificate', reason: 'self-signed certificate' },
    { kind: 'wrong_service', reason: 'HTTP/1.1 404' },
    { kind: 'credentials', reason: 'UNAUTHENTICATED: bad key' },
    { kind: 'namespace', reason: 'not found' },
  ];
  const codes = failures.map((failure) => connectionError(cloud, failure, null).exitCode);
  assert.deepEqual(codes, [
    EXIT_CODES.unavailable,
    EXIT_CODES.tlsFailed,
    EXIT_CODES.wrongService,
    EXIT_CODES.credentialsRejected,
    EXIT_CODES.namespaceNotFound,
  ]);
  assert.equal(new Set(codes).size, codes.length);
  assert.match(connectionError(local, { kind: 'unreachable', reason: 'ECONNREFUSED' }, null).message, /`dev` command/);
  for (const failure of failures)
    assert.doesNotMatch(connectionError(cloud, failure, null).message, /`dev` command/, failure.kind);
  for (const failure of failures.slice(1))
    assert.doesNotMatch(connectionError(local, failure, null).message, /`dev` command/, failure.kind);
});

test("the server's reason is printed without control characters and cut to a line", () => {
  const { message } = connectionError(
    cloud,
    { kind: 'credentials', reason: `bad key\u001b]0;owned\u0007\u009b2J${'x'.repeat(1000)}` },
    null,
  );
  assert.ok(
    ![...message].some(
      (char) => char.charCodeAt(0) < 0x20 || (char.charCodeAt(0) >= 0x7f && char.charCodeAt(0) <= 0x9f),
    ),
  );
  assert.match(message, /bad key\?\]0;owned\?\?2J/);
  assert.ok(message.length < 700);
});

test('addresses are read as the SDK reads them (the port defaults to 7233)', () => {
  assert.deepEqual(hostAndPort('127.0.0.1:7234'), { host: '127.0.0.1', port: 7234 });
  assert.deepEqual(hostAndPort('[::1]:7233'), { host: '::1', port: 7233 });
  assert.deepEqual(hostAndPort('temporal.internal'), { host: 'temporal.internal', port: 7233 });
});
