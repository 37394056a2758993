import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { isToolError, readHttpJson } from '../../src/index.js';
import { fetchPublic, type PublicFetchOptions } from '../../src/net/index.js';

/** A local server standing in for the internet: `/ok` answers JSON, `/to?url=…` redirects, `/big` sends 64 KiB. */
let server: Server;
let port: number;
const requests: string[] = [];

before(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/ok') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    if (url.pathname === '/to') return res.writeHead(302, { location: url.searchParams.get('url') ?? '/' }).end();
    if (url.pathname === '/loop') return res.writeHead(307, { location: '/loop' }).end();
    if (url.pathname === '/big') return res.writeHead(200, { 'content-type': 'application/json' }).end(`"${'x'.repeat(64 * 1024)}"`);
    return res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());

/** Names under `.test` resolve as the table says; only the test server's own address is allowed to be connected to. */
const names: Record<string, string> = { 'shop.test': '127.0.0.1', 'rebound.test': '127.0.0.1', 'metadata.test': '169.254.169.254' };
const resolve = (hostname: string) => Promise.resolve(names[hostname] === undefined ? [] : [{ address: names[hostname], family: 4 }]);
const testServerOnly: PublicFetchOptions = { resolve, allowAddress: (address) => address === '127.0.0.1' && names['shop.test'] === address };
const code = (expected: string) => (error: unknown) => isToolError(error) && error.code === expected;

describe('fetchPublic', () => {
  it('fetches an allowed host and its answer reads as JSON', async () => {
    const response = await fetchPublic(`http://shop.test:${port}/ok`, testServerOnly);
    assert.equal(response.status, 200);
    assert.deepEqual(readHttpJson(response).json, { ok: true });
  });

  it('refuses a private IP literal before connecting (INVALID_ARGUMENTS)', async () => {
    const seen = requests.length;
    await assert.rejects(fetchPublic(`http://127.0.0.1:${port}/ok`), code('INVALID_ARGUMENTS'));
    await assert.rejects(fetchPublic(`http://2130706433:${port}/ok`), code('INVALID_ARGUMENTS'));
    assert.equal(requests.length, seen);
  });

  it('refuses a public-looking name that resolves to a private address, at connect time (DNS re-binding)', async () => {
    const seen = requests.length;
    await assert.rejects(fetchPublic(`http://rebound.test:${port}/ok`, { resolve }), code('INVALID_ARGUMENTS'));
    assert.equal(requests.length, seen, 'nothing was sent');
  });

  it('refuses redirects into private places (SOURCE_NOT_ALLOWED), by literal and by resolution; follows allowed ones', async () => {
    const via = (target: string) => `http://shop.test:${port}/to?url=${encodeURIComponent(target)}`;
    await assert.rejects(fetchPublic(via('http://10.0.0.7/admin'), testServerOnly), code('SOURCE_NOT_ALLOWED'));
    await assert.rejects(fetchPublic(via('http://[::ffff:169.254.169.254]/'), testServerOnly), code('SOURCE_NOT_ALLOWED'));
    await assert.rejects(fetchPublic(via(`http://metadata.test:${port}/latest`), testServerOnly), code('SOURCE_NOT_ALLOWED'));
    await assert.rejects(fetchPublic(via('file:///etc/passwd'), testServerOnly), code('SOURCE_NOT_ALLOWED'));
    const followed = await fetchPublic(via(`http://shop.test:${port}/ok`), testServerOnly);
    assert.deepEqual([followed.status, followed.url], [200, `http://shop.test:${port}/ok`]);
    await assert.rejects(fetchPublic(via(`http://shop.test:${port}/ok`), { ...testServerOnly, maxRedirects: 0 }), code('PROTOCOL_ERROR'));
  });

  it('bounds redirects and body size (PROTOCOL_ERROR)', async () => {
    await assert.rejects(fetchPublic(`http://shop.test:${port}/loop`, testServerOnly), code('PROTOCOL_ERROR'));
    await assert.rejects(fetchPublic(`http://shop.test:${port}/big`, { ...testServerOnly, maxBodyBytes: 1024 }), code('PROTOCOL_ERROR'));
  });
});
