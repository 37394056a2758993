import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Connection } from '@temporalio/client';
import { parseCommand } from '../../src/cli/argv.js';
import { configFromEnv } from '../../src/cli/cli-config.js';
import { CliError, EXIT_CODES } from '../../src/cli/cli-error.js';
import { TEMPORAL_DEFAULTS, temporalProfile } from '../../src/cli/temporal-profile.js';

// What `@temporalio/envconfig` makes of profiles and TEMPORAL_* variables, as the CLI's connections receive it; the
// API key also on the wire (its gRPC header). Mutual TLS end to end: test/integration/cli-profile.test.ts.
const folder = mkdtempSync(join(tmpdir(), 'ttc-profile-'));
after(() => rmSync(folder, { recursive: true, force: true }));

const CONFIG = `
[profile.mtls]
address = "ns.acct.tmprl.cloud:7233"
namespace = "ns.acct"
[profile.mtls.tls]
client_cert_data = "CLIENT CERT PEM"
client_key_data = "CLIENT KEY PEM"
server_ca_cert_data = "CA PEM"
server_name = "ns.acct.tmprl.cloud"

[profile.apikey]
address = "eu-west-1.aws.api.temporal.io:7233"
namespace = "ns.acct"
api_key = "the-api-key"

[profile.plain]
address = "127.0.0.1:7999"
namespace = "plain-ns"
[profile.plain.grpc_meta]
x-tenant = "acme"
`;
const configFile = join(folder, 'temporal.toml');
writeFileSync(configFile, CONFIG);

function usageError(run: () => unknown): void {
  assert.throws(run, (error: unknown) => error instanceof CliError && error.exitCode === EXIT_CODES.usage);
}

test('nothing configured is the local dev server, without TLS or a key', () => {
  const profile = temporalProfile({ TEMPORAL_CONFIG_FILE: join(folder, 'absent.toml') });
  assert.deepEqual(profile, { ...TEMPORAL_DEFAULTS, connection: { address: TEMPORAL_DEFAULTS.address } });
});

test('a TLS profile gives the client certificate pair, the server CA and the server name', () => {
  const { address, namespace, connection } = temporalProfile({}, { profile: 'mtls', configFile });
  assert.equal(address, 'ns.acct.tmprl.cloud:7233');
  assert.equal(namespace, 'ns.acct');
  assert.equal(connection.address, address);
  assert.ok(typeof connection.tls === 'object' && connection.tls !== null);
  assert.equal(connection.tls.serverNameOverride, 'ns.acct.tmprl.cloud');
  assert.equal(Buffer.from(connection.tls.serverRootCACertificate ?? []).toString(), 'CA PEM');
  assert.equal(Buffer.from(connection.tls.clientCertPair?.crt ?? []).toString(), 'CLIENT CERT PEM');
  assert.equal(Buffer.from(connection.tls.clientCertPair?.key ?? []).toString(), 'CLIENT KEY PEM');
  assert.equal(connection.apiKey, undefined);
});

test('an API key profile turns TLS on; TEMPORAL_* variables override the profile, empty ones do not', () => {
  const { connection } = temporalProfile({ TEMPORAL_PROFILE: 'apikey', TEMPORAL_CONFIG_FILE: configFile });
  assert.equal(connection.apiKey, 'the-api-key');
  assert.equal(connection.tls, true);
  const overridden = temporalProfile(
    { TEMPORAL_ADDRESS: '10.0.0.1:7233', TEMPORAL_NAMESPACE: '', TEMPORAL_API_KEY: 'env-key' },
    { profile: 'apikey', configFile },
  );
  assert.equal(overridden.address, '10.0.0.1:7233');
  assert.equal(overridden.namespace, 'ns.acct', 'an empty TEMPORAL_NAMESPACE is unset');
  assert.equal(overridden.connection.apiKey, 'env-key');
  const fromEnvOnly = temporalProfile({ TEMPORAL_TLS_CLIENT_CERT_DATA: 'C', TEMPORAL_TLS_CLIENT_KEY_DATA: 'K' });
  assert.ok(typeof fromEnvOnly.connection.tls === 'object' && fromEnvOnly.connection.tls !== null);
  assert.equal(Buffer.from(fromEnvOnly.connection.tls.clientCertPair?.crt ?? []).toString(), 'C');
});

test('a missing profile, a missing or malformed config file are usage errors', () => {
  usageError(() => temporalProfile({}, { profile: 'nope', configFile }));
  usageError(() => temporalProfile({}, { profile: 'mtls', configFile: join(folder, 'typo.toml') }));
  const broken = join(folder, 'broken.toml');
  writeFileSync(broken, '[profile.x\naddress = ');
  usageError(() => temporalProfile({}, { configFile: broken }));
  usageError(() => configFromEnv({ TEMPORAL_PROFILE: 'nope', TEMPORAL_CONFIG_FILE: configFile }));
});

test('--profile and --config-file are taken from any command line, before --', () => {
  const line = parseCommand(['pending', '--profile', 'plain', 'wf-1', `--config-file=${configFile}`]);
  assert.deepEqual(line.profile, { profile: 'plain', configFile });
  assert.deepEqual(line.input, { workflowId: 'wf-1' });
  assert.equal(configFromEnv({}, line.profile).temporal.namespace, 'plain-ns');
  assert.deepEqual(parseCommand(['pending']).profile, {});
  for (const argv of [
    ['pending', '--profile'],
    ['pending', '--profile', '--json'],
    ['pending', '--profile='],
    ['pending', '--profile', 'a', '--profile', 'b'],
  ]) {
    usageError(() => parseCommand(argv));
  }
});

test("the API key and the profile's gRPC metadata reach the server as request headers", async () => {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(200, { 'content-type': 'application/grpc' });
    response.addTrailers({ 'grpc-status': '12', 'grpc-message': 'unimplemented' });
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const { connection } = temporalProfile(
      { TEMPORAL_ADDRESS: `127.0.0.1:${port}`, TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'wire-key' },
      { profile: 'plain', configFile },
    );
    assert.equal(connection.tls, false, 'TEMPORAL_TLS=false disables the TLS an API key implies');
    const client = await Connection.connect({ ...connection, connectTimeout: '5s' }).catch(() => null);
    await client?.close();
    assert.ok(seen.length > 0, 'the connection made a request');
    assert.equal(seen[0]?.['authorization'], 'Bearer wire-key');
    assert.equal(seen[0]?.['x-tenant'], 'acme');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
