import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { defaultPayloadConverter } from '@temporalio/common';
import { EXIT_CODES } from '../../src/cli/cli-error.js';
import { AesGcmPayloadCodec, parseCodecKeys } from '../../src/codec/index.js';
import { freePort } from '../../src/testing/free-port.js';
import { runCli, startCli } from '../support/cli-process.js';
import { rawRequest } from '../support/raw-http.js';

// `tool-contract codec-server` as the Temporal UI calls it: CORS preflight from the UI's origin, then /decode of what
// a worker's codec encrypted, answered in the codec-server protocol's JSON.
const KEYS = `k2:${randomBytes(32).toString('base64')},k1:${randomBytes(32).toString('base64')}`;
const UI = 'http://localhost:8233';

const asJson = (payload: { metadata?: Record<string, Uint8Array | null> | null; data?: Uint8Array | null }) => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([name, value]) => [
      name,
      Buffer.from(value ?? new Uint8Array()).toString('base64'),
    ]),
  ),
  data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
});

/** A payload sealed by a worker's codec (the older key), as the UI sends it to /decode. */
async function sealedOrder(): Promise<ReturnType<typeof asJson>> {
  const [sealed] = await new AesGcmPayloadCodec(parseCodecKeys(KEYS).slice(1)).encode([
    defaultPayloadConverter.toPayload({ order: 'ord_0101' }),
  ]);
  return asJson(sealed!);
}

test(
  'codec-server decodes and encodes for the UI origin and the token only, refuses bad bodies, and never prints a key',
  { timeout: 120_000 },
  async () => {
    const port = await freePort();
    const server = startCli(['codec-server', '--json', '--port', String(port)], {
      env: { TTC_CODEC_KEYS: KEYS, TTC_CODEC_TOKEN: undefined },
    });
    try {
      const ready = await server.waitForEvent('ready', 60_000);
      const url = String(ready['url']);
      assert.deepEqual(ready['keyIds'], ['k2', 'k1']);
      assert.equal(ready['token'], 'generated');
      // The endpoint to paste into the UI's codec setting: the UI calls <endpoint>/decode, so it carries the token.
      const uiEndpoint = String(ready['uiEndpoint']);
      const token = uiEndpoint.slice(url.length + 1);
      assert.ok(token.length >= 32, 'a generated token of 32 random bytes');

      const preflight = await fetch(`${uiEndpoint}/decode`, {
        method: 'OPTIONS',
        headers: { Origin: UI, 'Access-Control-Request-Method': 'POST' },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), UI);
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/);

      const decoded = await fetch(`${uiEndpoint}/decode`, {
        method: 'POST',
        headers: { Origin: UI, 'Content-Type': 'application/json', 'X-Namespace': 'default' },
        body: JSON.stringify({ payloads: [await sealedOrder()] }),
      });
      assert.equal(decoded.status, 200);
      assert.equal(decoded.headers.get('access-control-allow-origin'), UI);
      const [plain] = ((await decoded.json()) as { payloads: { metadata: Record<string, string>; data: string }[] })
        .payloads;
      assert.deepEqual(JSON.parse(Buffer.from(plain!.data, 'base64').toString('utf8')), { order: 'ord_0101' });

      // The Temporal CLI's way: --codec-endpoint <url> --codec-auth "Bearer <token>", no Origin.
      const bearer = { Authorization: `Bearer ${token}` };
      const encoded = await fetch(`${url}/encode`, {
        method: 'POST',
        headers: bearer,
        body: JSON.stringify({ payloads: [plain] }),
      });
      const [again] = ((await encoded.json()) as { payloads: { metadata: Record<string, string> }[] }).payloads;
      assert.equal(
        Buffer.from(again!.metadata['encryption-key-id']!, 'base64').toString(),
        'k2',
        'the first key encrypts',
      );

      assert.equal((await fetch(`${url}/decode`, { method: 'POST', headers: bearer, body: 'not json' })).status, 400);
      const foreign = await new AesGcmPayloadCodec([{ id: 'k9', key: new Uint8Array(randomBytes(32)) }]).encode([
        defaultPayloadConverter.toPayload('sealed elsewhere'),
      ]);
      assert.equal(
        (
          await fetch(`${url}/decode`, {
            method: 'POST',
            headers: bearer,
            body: JSON.stringify({ payloads: foreign.map(asJson) }),
          })
        ).status,
        422,
      );
      assert.equal((await fetch(`${url}/other`, { method: 'POST', headers: bearer, body: '{}' })).status, 404);

      server.child.kill('SIGTERM');
      assert.equal(await server.exited(30_000), 0, server.stderr());
      for (const secret of KEYS.split(',').map((entry) => entry.slice(3)))
        assert.ok(!server.stdout().includes(secret) && !server.stderr().includes(secret));
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  },
);

test(
  'codec-server is no decryption oracle: a DNS-rebinding page, another origin, and a caller without the token are refused',
  { timeout: 120_000 },
  async () => {
    const port = await freePort();
    const token = randomBytes(24).toString('base64url');
    const server = startCli(['codec-server', '--json', '--port', String(port)], {
      env: { TTC_CODEC_KEYS: KEYS, TTC_CODEC_TOKEN: token },
    });
    try {
      const ready = await server.waitForEvent('ready', 60_000);
      const url = String(ready['url']);
      const body = JSON.stringify({ payloads: [await sealedOrder()] });
      const decode = (headers: Record<string, string>, path = '/decode') =>
        rawRequest(`${url}${path}`, {
          headers: { host: `127.0.0.1:${port}`, 'content-type': 'application/json', ...headers },
          body,
        });

      // Another local user or process: no token, a wrong one, a wrong one in the path.
      assert.equal((await decode({})).status, 401);
      assert.equal((await decode({ authorization: `Bearer ${token}x` })).status, 401);
      assert.equal((await decode({}, `/${token.slice(1)}/decode`)).status, 401);
      assert.equal(
        (await rawRequest(`${url}/encode`, { headers: { host: `127.0.0.1:${port}` }, body: '{"payloads":[]}' })).status,
        401,
        'no forged payloads either',
      );
      // A page that rebound its own name to 127.0.0.1: its requests carry its name (and origin), token or not.
      const rebound = { host: `attacker.example:${port}`, origin: `http://attacker.example:${port}` };
      assert.equal((await decode(rebound)).status, 403);
      assert.equal((await decode({ ...rebound, authorization: `Bearer ${token}` })).status, 403);
      assert.equal((await decode({ host: `attacker.example:${port}` }, `/${token}/decode`)).status, 403);
      // Another origin in the operator's browser, even one that learnt the token: refused, not merely unreadable.
      assert.equal((await decode({ origin: 'http://evil.example', authorization: `Bearer ${token}` })).status, 403);
      assert.equal(
        (
          await rawRequest(`${url}/decode`, {
            method: 'OPTIONS',
            headers: { host: `127.0.0.1:${port}`, origin: 'http://evil.example' },
          })
        ).status,
        403,
      );

      // Control: the same request, as the UI and as the CLI send it.
      const viaUi = await decode({ origin: UI }, `/${token}/decode`);
      assert.equal(viaUi.status, 200, viaUi.body);
      assert.equal((await decode({ host: `localhost:${port}`, authorization: `Bearer ${token}` })).status, 200);
      assert.ok(!server.stdout().includes(token), 'a token the operator gave is not printed');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited(30_000);
    }
  },
);

test(
  'codec-server without keys, with a malformed one, or with a short token, is bad input',
  { timeout: 60_000 },
  async () => {
    assert.equal((await runCli(['codec-server'], { env: { TTC_CODEC_KEYS: undefined } })).code, EXIT_CODES.usage);
    assert.equal((await runCli(['codec-server'], { env: { TTC_CODEC_KEYS: 'k1:c2hvcnQ=' } })).code, EXIT_CODES.usage);
    assert.equal(
      (await runCli(['codec-server'], { env: { TTC_CODEC_KEYS: KEYS, TTC_CODEC_TOKEN: 'short' } })).code,
      EXIT_CODES.usage,
    );
  },
);
