import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { isToolError, readHttpJson } from '../../src/index.js';
import { fetchPublic, type PublicFetchOptions } from '../../src/net/index.js';

/**
 * A local server standing in for the internet: `/ok` answers JSON, `/to?url=…` redirects (`&status=`, default 302),
 * `/big` sends 64 KiB, `/echo` answers the request's headers.
 */
let server: Server;
let port: number;
const requests: string[] = [];

before(async () => {
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/ok') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    if (url.pathname === '/to')
      return res
        .writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('url') ?? '/' })
        .end();
    if (url.pathname === '/echo')
      return res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ method: req.method, headers: req.headers }));
    if (url.pathname === '/loop') return res.writeHead(307, { location: '/loop' }).end();
    if (url.pathname === '/big')
      return res.writeHead(200, { 'content-type': 'application/json' }).end(`"${'x'.repeat(64 * 1024)}"`);
    return res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
after(() => server.close());

/** Names under `.test` resolve as the table says; only the test server's own address is allowed to be connected to. */
const names: Record<string, string> = {
  'shop.test': '127.0.0.1',
  'other.test': '127.0.0.1',
  'rebound.test': '127.0.0.1',
  'metadata.test': '169.254.169.254',
  'wireserver.test': '168.63.129.16',
};
const resolve = (hostname: string) =>
  Promise.resolve(names[hostname] === undefined ? [] : [{ address: names[hostname], family: 4 }]);
const testServerOnly: PublicFetchOptions = {
  resolve,
  allowAddress: (address) => address === '127.0.0.1' && names['shop.test'] === address,
};
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
    await assert.rejects(
      fetchPublic(via('http://[::ffff:169.254.169.254]/'), testServerOnly),
      code('SOURCE_NOT_ALLOWED'),
    );
    await assert.rejects(
      fetchPublic(via(`http://metadata.test:${port}/latest`), testServerOnly),
      code('SOURCE_NOT_ALLOWED'),
    );
    // Azure's WireServer sits at a public-looking address that only ever reaches the host.
    await assert.rejects(
      fetchPublic(via('http://168.63.129.16/machine?comp=goalstate'), testServerOnly),
      code('SOURCE_NOT_ALLOWED'),
    );
    await assert.rejects(
      fetchPublic('http://wireserver.test/machine?comp=goalstate', { resolve }),
      code('INVALID_ARGUMENTS'),
    );
    await assert.rejects(fetchPublic(via('file:///etc/passwd'), testServerOnly), code('SOURCE_NOT_ALLOWED'));
    const followed = await fetchPublic(via(`http://shop.test:${port}/ok`), testServerOnly);
    assert.deepEqual([followed.status, followed.url], [200, `http://shop.test:${port}/ok`]);
    await assert.rejects(
      fetchPublic(via(`http://shop.test:${port}/ok`), { ...testServerOnly, maxRedirects: 0 }),
      code('PROTOCOL_ERROR'),
    );
  });

  it('drops Authorization, Cookie and Proxy-Authorization on a redirect to another origin, and keeps them within one', async () => {
    const credentials = {
      Authorization: 'Bearer upstream-secret',
      cookie: 'session=s3cr3t',
      'Proxy-Authorization': 'Basic cHJveHk6cHc=',
      'x-trace': 't-1',
    };
    const echoed = async (target: string, status = 302) => {
      const response = await fetchPublic(
        `http://shop.test:${port}/to?status=${status}&url=${encodeURIComponent(target)}`,
        { ...testServerOnly, headers: credentials },
      );
      return (readHttpJson(response).json as { headers: Record<string, string> }).headers;
    };
    for (const status of [301, 302, 303, 307, 308]) {
      const elsewhere = await echoed(`http://other.test:${port}/echo`, status);
      assert.deepEqual(
        [elsewhere['authorization'], elsewhere['cookie'], elsewhere['proxy-authorization']],
        [undefined, undefined, undefined],
        `${status} to another host`,
      );
      assert.equal(elsewhere['x-trace'], 't-1', 'other headers go on');
    }
    // Once dropped, they stay dropped: a second redirect back to the first origin does not bring them back.
    const back = await echoed(
      `http://other.test:${port}/to?url=${encodeURIComponent(`http://shop.test:${port}/echo`)}`,
    );
    assert.equal(back['authorization'], undefined);
    // Control: a redirect within the origin keeps them.
    const same = await echoed(`http://shop.test:${port}/echo`);
    assert.deepEqual(
      [same['authorization'], same['cookie'], same['proxy-authorization']],
      [credentials.Authorization, credentials.cookie, credentials['Proxy-Authorization']],
    );
  });

  it('continues a POST redirected with 303 as a GET without its body headers', async () => {
    const response = await fetchPublic(`http://shop.test:${port}/to?status=303&url=${encodeURIComponent('/echo')}`, {
      ...testServerOnly,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '11' },
      body: '{"a":"one"}',
      timeoutMs: 5000,
    });
    const echoed = readHttpJson(response).json as { method: string; headers: Record<string, string> };
    assert.equal(echoed.method, 'GET');
    assert.deepEqual([echoed.headers['content-type'], echoed.headers['content-length']], [undefined, undefined]);
  });

  it('bounds redirects and body size (PROTOCOL_ERROR)', async () => {
    await assert.rejects(fetchPublic(`http://shop.test:${port}/loop`, testServerOnly), code('PROTOCOL_ERROR'));
    await assert.rejects(
      fetchPublic(`http://shop.test:${port}/big`, { ...testServerOnly, maxBodyBytes: 1024 }),
      code('PROTOCOL_ERROR'),
    );
  });
});
