// The Streamable HTTP endpoint's limits, over real HTTP, with the plain (non-durable) MCP server behind it.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createMcpServer } from '../../src/adapters/mcp.js';
import { McpHttpAccessError, serveMcpHttp, type McpHttpOptions, type RunningMcpHttp } from '../../src/cli/mcp-http.js';
import { ToolRegistry } from '../../src/index.js';
import { testContext } from '../../testkit/context.js';
import { rawRequest } from '../support/raw-http.js';
import { goodOrderOutput, orderTool, returning } from '../support/tools.js';

const endpoints: RunningMcpHttp[] = [];
after(async () => {
  for (const endpoint of endpoints) await endpoint.close();
});

async function endpoint(limits: Pick<McpHttpOptions, 'maxSessions' | 'sessionIdleMs'> = {}): Promise<RunningMcpHttp> {
  const newServer = () =>
    createMcpServer({
      registry: new ToolRegistry([orderTool(returning(goodOrderOutput()))]),
      context: () => testContext(),
    });
  const running = await serveMcpHttp({ host: '127.0.0.1', port: 0, allowedHosts: [], newServer, ...limits });
  endpoints.push(running);
  return running;
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** Opens a session; its id, or the status the endpoint refused it with. */
async function initialize(url: string): Promise<{ status: number; sessionId: string | null }> {
  const response = await fetch(url, { method: 'POST', headers: HEADERS, body: INITIALIZE });
  await response.arrayBuffer();
  return { status: response.status, sessionId: response.headers.get('mcp-session-id') };
}

test('an over-size request body is answered 413', async () => {
  const { url } = await endpoint();
  const response = await fetch(url, { method: 'POST', headers: HEADERS, body: 'x'.repeat(4 * 1024 * 1024 + 1) });
  await response.arrayBuffer();
  assert.equal(response.status, 413);
});

test('an initialize beyond the session cap is answered 503; the open sessions keep working', async () => {
  const { url } = await endpoint({ maxSessions: 1 });
  const first = await initialize(url);
  assert.equal(first.status, 200);
  assert.equal((await initialize(url)).status, 503);
  const ping = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': first.sessionId ?? '', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  });
  await ping.arrayBuffer();
  assert.equal(ping.status, 200);
});

test('an idle session expires: its id is not found, and its place is free for a new one', async () => {
  const { url } = await endpoint({ maxSessions: 1, sessionIdleMs: 100 });
  const { sessionId } = await initialize(url);
  await new Promise((resolve) => setTimeout(resolve, 400));
  const late = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': sessionId ?? '', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  });
  await late.arrayBuffer();
  assert.equal(late.status, 404);
  assert.equal((await initialize(url)).status, 200);
});

/** The text a response streams within `ms` (an SSE stream stays open; it is cut off then). */
async function textWithin(response: Response, ms: number): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const decoder = new TextDecoder();
  let text = '';
  const deadline = setTimeout(() => void reader.cancel(), ms);
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      text += decoder.decode(chunk.value as Uint8Array, { stream: true });
  } catch {
    // Cancelled at the deadline.
  } finally {
    clearTimeout(deadline);
  }
  return text;
}

test('a Last-Event-ID of one session is never replayed in another', async () => {
  const { url } = await endpoint();
  const sessionHeaders = (sessionId: string | null) => ({
    ...HEADERS,
    'mcp-session-id': sessionId ?? '',
    'mcp-protocol-version': '2025-11-25',
  });
  const a = await initialize(url);
  const b = await initialize(url);
  const answered = await fetch(url, {
    method: 'POST',
    headers: sessionHeaders(a.sessionId),
    body: JSON.stringify({ jsonrpc: '2.0', id: 'secret-of-a', method: 'ping' }),
  });
  const stream = await textWithin(answered, 1000);
  const firstEventId = /^id: ?(.+)$/m.exec(stream)?.[1];
  assert.ok(firstEventId !== undefined && stream.includes('secret-of-a'), 'session A answered over SSE with event ids');
  const resumed = await fetch(url, {
    headers: { ...sessionHeaders(b.sessionId), accept: 'text/event-stream', 'last-event-id': firstEventId },
  });
  assert.equal((await textWithin(resumed, 500)).includes('secret-of-a'), false);
});

test('with a bearer token, a request without it or with another one is answered 401 before MCP; with it, it is served', async () => {
  const token = 'a-token-of-enough-length';
  const newServer = () =>
    createMcpServer({
      registry: new ToolRegistry([orderTool(returning(goodOrderOutput()))]),
      context: () => testContext(),
    });
  const running = await serveMcpHttp({ host: '127.0.0.1', port: 0, allowedHosts: [], newServer, bearerToken: token });
  endpoints.push(running);
  for (const authorization of [
    undefined,
    'Bearer wrong-token-of-enough-length',
    `Basic ${token}`,
    `Bearer ${token}x`,
    'Bearer ',
  ]) {
    const response = await fetch(running.url, {
      method: 'POST',
      headers: { ...HEADERS, ...(authorization === undefined ? {} : { authorization }) },
      body: INITIALIZE,
    });
    await response.arrayBuffer();
    assert.equal(response.status, 401, `authorization ${authorization ?? '(none)'}`);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer');
  }
  for (const authorization of [`Bearer ${token}`, `bearer ${token}`]) {
    const served = await fetch(running.url, {
      method: 'POST',
      headers: { ...HEADERS, authorization },
      body: INITIALIZE,
    });
    await served.arrayBuffer();
    assert.equal(served.status, 200, authorization.split(' ')[0]);
    assert.ok(served.headers.get('mcp-session-id'), 'a session was opened');
  }
});

test('an endpoint off loopback without a bearer token, or with a short one, is refused before it listens', async () => {
  const newServer = () => createMcpServer({ registry: new ToolRegistry([]), context: () => testContext() });
  await assert.rejects(serveMcpHttp({ host: '0.0.0.0', port: 0, allowedHosts: [], newServer }), McpHttpAccessError);
  await assert.rejects(
    serveMcpHttp({ host: '127.0.0.1', port: 0, allowedHosts: [], newServer, bearerToken: 'short' }),
    McpHttpAccessError,
  );
  const open = await serveMcpHttp({
    host: '0.0.0.0',
    port: 0,
    allowedHosts: [],
    newServer,
    bearerToken: 'a-token-of-enough-length',
  });
  await open.close();
});

test('on loopback behind a reverse proxy (--allowed-host of another name), a token is required, and a forwarded request without it is 401', async () => {
  const newServer = () => createMcpServer({ registry: new ToolRegistry([]), context: () => testContext() });
  for (const proxy of ['mcp.example.com', 'mcp.example.com:443', '10.0.0.5', '[fd00::5]:8443']) {
    await assert.rejects(
      serveMcpHttp({ host: '127.0.0.1', port: 0, allowedHosts: [proxy], newServer }),
      McpHttpAccessError,
      proxy,
    );
  }
  const token = 'a-token-of-enough-length';
  const proxied = await serveMcpHttp({
    host: '127.0.0.1',
    port: 0,
    allowedHosts: ['mcp.example.com'],
    newServer,
    bearerToken: token,
  });
  endpoints.push(proxied);
  // What the proxy forwards: its own name in Host, the client's Authorization (or none).
  const forwarded = (host: string, authorization?: string) =>
    rawRequest(proxied.url, {
      headers: { ...HEADERS, host, ...(authorization === undefined ? {} : { authorization }) },
      body: INITIALIZE,
    });
  assert.equal((await forwarded('mcp.example.com')).status, 401);
  assert.equal((await forwarded('rebound.example', `Bearer ${token}`)).status, 403, 'the Host header is the one sent');
  assert.equal((await forwarded('mcp.example.com', `Bearer ${token}`)).status, 200);
  // Control: an allowed host that is a loopback name needs no token, as plain loopback does not.
  const local = await serveMcpHttp({ host: '127.0.0.1', port: 0, allowedHosts: ['localhost:3000'], newServer });
  endpoints.push(local);
  const served = await fetch(local.url, { method: 'POST', headers: HEADERS, body: INITIALIZE });
  await served.arrayBuffer();
  assert.equal(served.status, 200);
});
