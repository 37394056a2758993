import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { readFetchJson, readHttpJson } from '../../src/index.js';
import { defineTool } from '../../testkit/define-tool.js';
import { executeTool } from '../../src/contract/execute-tool.js';
import { sha256Hex, type LayerOutcome } from '../../src/audit/index.js';
import { testContext } from '../../testkit/context.js';

/**
 * Seed 004's protocol layer against a real HTTP server read through Node's `fetch`, exactly as the README's handler
 * does: most APIs compress, and `fetch` hands the body over decoded while `Content-Length` still counts the coded
 * bytes. `/gzip` and `/br` answer a compressed order with its Content-Length; `/cut` promises more bytes than it
 * sends and closes the connection; `/digest?good=0|1` answers with a `Content-Digest`; `/gzip-cut` is a gzip stream
 * cut in the middle.
 */
const ORDER = { id: 'ord_1', status: 'paid', total_cents: 1250 };
const ORDER_JSON = JSON.stringify(ORDER);
let server: Server;
let base: string;

before(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = { 'content-type': 'application/json' };
    if (url.pathname === '/gzip' || url.pathname === '/br') {
      const coded = url.pathname === '/gzip' ? gzipSync(ORDER_JSON) : brotliCompressSync(ORDER_JSON);
      return res
        .writeHead(200, {
          ...json,
          'content-encoding': url.pathname.slice(1),
          'content-length': String(coded.byteLength),
        })
        .end(coded);
    }
    if (url.pathname === '/cut') {
      res.writeHead(200, { ...json, 'content-length': String(ORDER_JSON.length + 100) });
      res.write(ORDER_JSON.slice(0, 12));
      return setTimeout(() => res.socket?.destroy(), 20);
    }
    if (url.pathname === '/gzip-cut') {
      const coded = gzipSync(ORDER_JSON.repeat(50));
      res.writeHead(200, { ...json, 'content-encoding': 'gzip', 'content-length': String(coded.byteLength) });
      res.write(coded.subarray(0, coded.byteLength >> 1));
      return setTimeout(() => res.socket?.destroy(), 20);
    }
    if (url.pathname === '/digest') {
      const digest = createHash('sha256')
        .update(url.searchParams.get('good') === '1' ? ORDER_JSON : '{}')
        .digest('base64');
      return res.writeHead(200, { ...json, 'content-digest': `sha-256=:${digest}:` }).end(ORDER_JSON);
    }
    return res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

const order = z.strictObject({ id: z.string(), status: z.enum(['paid', 'refunded']), total_cents: z.number().int() });

/** The README's `orders.get`, reading through `readFetchJson`. */
const getOrder = defineTool({
  name: 'orders.get',
  description: 'Look up one order by its path on the test server.',
  input: z.strictObject({ path: z.string() }),
  output: order,
  effect: 'read',
  source: { label: 'orders-api', type: 'http_api' },
  async handler({ path }) {
    const response = await fetch(`${base}${path}`);
    const { json, rawResponse } = await readFetchJson(response);
    return { data: json as z.infer<typeof order>, rawResponse };
  },
});

/** The same read written the way the README used to: bytes first, then `readHttpJson`. */
const getOrderFromBytes = defineTool({
  name: 'orders.get_bytes',
  description: 'Look up one order by its path on the test server, reading the whole body first.',
  input: z.strictObject({ path: z.string() }),
  output: order,
  effect: 'read',
  source: { label: 'orders-api', type: 'http_api' },
  async handler({ path }) {
    const response = await fetch(`${base}${path}`);
    const { json, rawResponse } = readHttpJson({
      status: response.status,
      headers: response.headers,
      body: new Uint8Array(await response.arrayBuffer()),
    });
    return { data: json as z.infer<typeof order>, rawResponse };
  },
});

/** A write answered with a compressed receipt. */
const createRefund = defineTool({
  name: 'refunds.create',
  description: 'Refund an order; the test server answers with a compressed body.',
  input: z.strictObject({ path: z.string() }),
  output: order,
  effect: 'write',
  source: { label: 'orders-api', type: 'http_api' },
  async handler({ path }) {
    const response = await fetch(`${base}${path}`, { method: 'POST' });
    const { json } = await readFetchJson(response);
    const refunded = json as z.infer<typeof order>;
    return { data: refunded, receipt: { externalId: refunded.id } };
  },
});

const protocolLayer = (validation: readonly LayerOutcome[]) => validation.find((layer) => layer.layer === 'protocol');

describe('compressed and broken HTTP bodies through fetch', () => {
  for (const coding of ['gzip', 'br']) {
    it(`a ${coding} JSON body with its coded Content-Length is read, decoded, as the data`, async () => {
      for (const tool of [getOrder, getOrderFromBytes]) {
        const { modelResult, audit } = await executeTool(tool, { path: `/${coding}` }, testContext());
        assert.equal(modelResult.status, 'succeeded', `${tool.name}: ${JSON.stringify(modelResult.error)}`);
        assert.deepEqual(modelResult.data, ORDER);
        assert.equal(
          audit.raw_response_sha256,
          sha256Hex(ORDER_JSON),
          'the audit digests the decoded body the tool read',
        );
      }
    });
  }

  it('a write whose receipt arrives gzip-compressed commits; it does not become OUTCOME_UNKNOWN', async () => {
    const { modelResult } = await executeTool(createRefund, { path: '/gzip' }, testContext());
    assert.equal(modelResult.status, 'succeeded');
    assert.equal(modelResult.execution.outcome, 'committed');
    assert.equal(modelResult.execution.receipt?.external_id, 'ord_1');
  });

  it('a body cut mid-stream is PROTOCOL_ERROR at the protocol layer, with the bytes that arrived digested', async () => {
    const { modelResult, audit } = await executeTool(getOrder, { path: '/cut' }, testContext());
    assert.equal(modelResult.error?.code, 'PROTOCOL_ERROR');
    assert.equal(modelResult.error?.layer, 'protocol');
    assert.equal(protocolLayer(audit.validation)?.outcome, 'failed');
    assert.equal(audit.raw_response_sha256, sha256Hex(ORDER_JSON.slice(0, 12)));
    assert.equal(audit.raw_response_bytes, 12);
    const detail = (audit.error_detail as { detail: { details: Record<string, unknown> } }).detail.details;
    assert.equal(detail['received_bytes'], 12);
    assert.equal(detail['declared_bytes'], String(ORDER_JSON.length + 100));
  });

  it('a gzip stream cut in the middle is PROTOCOL_ERROR, never TOOL_ERROR; for a write it stays unknown, not failed', async () => {
    const read = await executeTool(getOrder, { path: '/gzip-cut' }, testContext());
    assert.equal(read.modelResult.error?.code, 'PROTOCOL_ERROR');
    assert.equal(
      (read.audit.error_detail as { detail: { details: Record<string, unknown> } }).detail.details['content_coded'],
      true,
    );
    const write = await executeTool(createRefund, { path: '/gzip-cut' }, testContext());
    assert.equal(write.modelResult.status, 'unknown');
    assert.equal((write.audit.error_detail as { replaced_code?: string }).replaced_code, 'PROTOCOL_ERROR');
  });

  it('a body unlike its Content-Digest is PROTOCOL_ERROR; a matching one records what was verified', async () => {
    const bad = await executeTool(getOrder, { path: '/digest?good=0' }, testContext());
    assert.equal(bad.modelResult.error?.code, 'PROTOCOL_ERROR');
    assert.equal(protocolLayer(bad.audit.validation)?.reason, 'body does not match its content-digest');
    const good = await executeTool(getOrder, { path: '/digest?good=1' }, testContext());
    assert.equal(good.modelResult.status, 'succeeded');
    const response = await fetch(`${base}/digest?good=1`);
    assert.deepEqual((await readFetchJson(response)).verified, ['content-digest:sha-256']);
  });
});
