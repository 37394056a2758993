import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import { EXIT_CODES } from '../../src/cli/cli-error.js';
import { AesGcmPayloadCodec, parseCodecKeys } from '../../src/codec/index.js';
import { freePort } from '../../src/testing/free-port.js';
import { runCli, startCli } from '../support/cli-process.js';

// `tool-contract codec-server` as the Temporal UI calls it: CORS preflight from the UI's origin, then /decode of what
// a worker's codec encrypted, answered in the codec-server protocol's JSON.
const KEYS = `k2:${randomBytes(32).toString('base64')},k1:${randomBytes(32).toString('base64')}`;
const UI = 'http://localhost:8233';

const asJson = (payload: { metadata?: Record<string, Uint8Array | null> | null; data?: Uint8Array | null }) => ({
  metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([name, value]) => [name, Buffer.from(value ?? new Uint8Array()).toString('base64')])),
  data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
});

test('codec-server decodes and encodes for the UI origin only, refuses bad bodies, and never prints a key', { timeout: 120_000 }, async () => {
  const port = await freePort();
  const server = startCli(['codec-server', '--json', '--port', String(port)], { env: { TTC_CODEC_KEYS: KEYS } });
  try {
    const ready = await server.waitForEvent('ready', 60_000);
    const url = String(ready['url']);
    assert.deepEqual(ready['keyIds'], ['k2', 'k1']);

    const preflight = await fetch(`${url}/decode`, { method: 'OPTIONS', headers: { Origin: UI, 'Access-Control-Request-Method': 'POST' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), UI);
    const stranger = await fetch(`${url}/decode`, { method: 'OPTIONS', headers: { Origin: 'http://evil.example' } });
    assert.equal(stranger.headers.get('access-control-allow-origin'), null, 'another origin gets no CORS grant');

    const [sealed] = await new AesGcmPayloadCodec(parseCodecKeys(KEYS).slice(1)).encode([defaultPayloadConverter.toPayload({ order: 'ord_0101' })]);
    const decoded = await fetch(`${url}/decode`, { method: 'POST', headers: { Origin: UI, 'Content-Type': 'application/json', 'X-Namespace': 'default' }, body: JSON.stringify({ payloads: [asJson(sealed!)] }) });
    assert.equal(decoded.status, 200);
    const [plain] = ((await decoded.json()) as { payloads: { metadata: Record<string, string>; data: string }[] }).payloads;
    assert.deepEqual(JSON.parse(Buffer.from(plain!.data, 'base64').toString('utf8')), { order: 'ord_0101' });

    const encoded = await fetch(`${url}/encode`, { method: 'POST', body: JSON.stringify({ payloads: [plain] }) });
    const [again] = ((await encoded.json()) as { payloads: { metadata: Record<string, string> }[] }).payloads;
    assert.equal(Buffer.from(again!.metadata['encryption-key-id']!, 'base64').toString(), 'k2', 'the first key encrypts');

    assert.equal((await fetch(`${url}/decode`, { method: 'POST', body: 'not json' })).status, 400);
    const foreign = await new AesGcmPayloadCodec([{ id: 'k9', key: new Uint8Array(randomBytes(32)) }]).encode([defaultPayloadConverter.toPayload('sealed elsewhere')]);
    assert.equal((await fetch(`${url}/decode`, { method: 'POST', body: JSON.stringify({ payloads: foreign.map(asJson) }) })).status, 422);
    assert.equal((await fetch(`${url}/other`, { method: 'POST', body: '{}' })).status, 404);

    server.child.kill('SIGTERM');
    assert.equal(await server.exited(30_000), 0, server.stderr());
    for (const secret of KEYS.split(',').map((entry) => entry.slice(3))) assert.ok(!server.stdout().includes(secret) && !server.stderr().includes(secret));
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  }
});

test('codec-server without keys, or with a malformed one, is bad input', { timeout: 60_000 }, async () => {
  assert.equal((await runCli(['codec-server'], { env: { TTC_CODEC_KEYS: undefined } })).code, EXIT_CODES.usage);
  assert.equal((await runCli(['codec-server'], { env: { TTC_CODEC_KEYS: 'k1:c2hvcnQ=' } })).code, EXIT_CODES.usage);
});
