import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { NegotiatingServer } from '../adapters/mcp-negotiating-server.js';
import {
  allowedHostValues,
  bearerTokenOf,
  hasAllowedHost,
  hostName,
  isLoopbackName,
  MIN_BEARER_TOKEN_LENGTH,
  tokenMatcher,
} from '../net/endpoint-access.js';
import { BoundedEventStore } from './mcp-event-store.js';

/** Where and how the Streamable HTTP endpoint listens. */
export interface McpHttpOptions {
  readonly host: string;
  /** 0: any free port (see `url`). */
  readonly port: number;
  /** Host header values accepted besides the listening address (a reverse proxy's name). */
  readonly allowedHosts: readonly string[];
  /** A server for each new session (the SDK's `Server` serves one transport); it tells the revision it agreed on. */
  readonly newServer: () => NegotiatingServer;
  /** Open sessions at most (default {@link DEFAULT_MAX_MCP_SESSIONS}); an `initialize` beyond them is answered 503. */
  readonly maxSessions?: number;
  /** A session without a request for this long is closed (default {@link DEFAULT_MCP_SESSION_IDLE_MS}). */
  readonly sessionIdleMs?: number;
  /**
   * The token every request must carry as `Authorization: Bearer <token>` (else 401). Required when `host` is not a
   * loopback address, or an allowed host is not a loopback name (a reverse proxy forwards the network to loopback):
   * every client of the endpoint acts as its one principal, so the network must not be a client.
   */
  readonly bearerToken?: string;
}

/** The endpoint would be open to the network, or its token is too short: refused before anything listens. */
export class McpHttpAccessError extends Error {
  override readonly name = 'McpHttpAccessError';
}

/** Sessions one endpoint holds at most: each has a server, a transport and an event store in memory. */
export const DEFAULT_MAX_MCP_SESSIONS = 256;
/** A client that never sends DELETE does not hold its session forever; a later request gets 404 and initializes again. */
export const DEFAULT_MCP_SESSION_IDLE_MS = 30 * 60_000;

/** A listening endpoint. */
export interface RunningMcpHttp {
  readonly url: string;
  close(): Promise<void>;
}

/** The MCP endpoint's path. */
export const MCP_HTTP_PATH = '/mcp';
/** Suggested SSE reconnect delay: a client whose stream the server closed polls again after this long. */
const SSE_RETRY_MS = 1000;

/**
 * Streamable HTTP with sessions: an `initialize` POST opens a session (its own server and transport), later requests
 * name it in `Mcp-Session-Id`. DNS-rebinding protection: a request whose Host (or Origin, when sent) is not the
 * listening address — or an allowed host — is refused with 403 before it reaches MCP, so a web page cannot reach a
 * local server by rebinding a name to 127.0.0.1. SSE streams carry event ids kept in memory, so a client may resume
 * one (`Last-Event-ID`) after the server closes it (SSE polling).
 */
export async function serveMcpHttp(options: McpHttpOptions): Promise<RunningMcpHttp> {
  const authorized = bearerCheck(options);
  const sessions = new Map<
    string,
    { readonly transport: StreamableHTTPServerTransport; readonly server: NegotiatingServer; lastRequestAt: number }
  >();
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_MCP_SESSIONS;
  const idleMs = options.sessionIdleMs ?? DEFAULT_MCP_SESSION_IDLE_MS;
  const sweeper = setInterval(
    () => {
      const idleSince = Date.now() - idleMs;
      for (const [id, session] of sessions) {
        if (session.lastRequestAt >= idleSince) continue;
        sessions.delete(id);
        void session.transport.close().catch(() => undefined);
      }
    },
    Math.min(idleMs, 60_000),
  );
  sweeper.unref();
  let allowed: ReadonlySet<string> = new Set();
  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) res.end();
      else if (error instanceof BodyTooLargeError) reply(res, 413, 'Request body too large');
      else reply(res, 500, 'Internal error');
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isAllowedHostAndOrigin(req, allowed)) return reply(res, 403, 'Forbidden: Host or Origin not allowed');
    if (!authorized(req))
      return reply(res, 401, 'Unauthorized: a bearer token is required', { 'www-authenticate': 'Bearer' });
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== MCP_HTTP_PATH) return reply(res, 404, 'Not found');
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      if (session === undefined) return reply(res, 404, 'Session not found');
      session.lastRequestAt = Date.now();
      holdToNegotiatedVersion(req, session.server.protocolVersion);
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return reply(res, 400, 'Bad Request: no session');
    const body = await readJson(req);
    if (!isInitializeRequest(body)) return reply(res, 400, 'Bad Request: no session (initialize first)');
    if (sessions.size >= maxSessions) return reply(res, 503, 'Too many open sessions');
    const server = options.newServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // One store per session: a Last-Event-ID of one session never replays another session's events.
      eventStore: new BoundedEventStore(),
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, lastRequestAt: Date.now() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  allowed = allowedHostValues(options.host, port, options.allowedHosts);
  const urlHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${urlHost}:${port}${MCP_HTTP_PATH}`,
    close: async () => {
      clearInterval(sweeper);
      for (const { transport } of sessions.values()) await transport.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/**
 * The session's negotiated revision decides what its streams carry (SSE priming events and polling need
 * 2025-11-25): a request whose `MCP-Protocol-Version` header names an older supported revision than the session
 * negotiated is served as the session's revision, not downgraded — the SDK's transport reads the header alone.
 */
function holdToNegotiatedVersion(req: IncomingMessage, version: string | undefined): void {
  const header = req.headers['mcp-protocol-version'];
  if (
    version === undefined ||
    typeof header !== 'string' ||
    !SUPPORTED_PROTOCOL_VERSIONS.includes(header) ||
    header >= version
  )
    return;
  req.headers['mcp-protocol-version'] = version;
  // The SDK builds its request from the raw header list: the value is replaced there too.
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    if (req.rawHeaders[i]?.toLowerCase() === 'mcp-protocol-version') req.rawHeaders[i + 1] = version;
}

/**
 * Refuses (with {@link McpHttpAccessError}) an endpoint that would be open to more than this machine's own clients:
 * without a token, only loopback may listen, and only when no other name is allowed — a name in `allowedHosts` is a
 * reverse proxy's, which forwards whoever reaches it. A token must be long enough to withstand guessing.
 */
export function checkMcpHttpAccess(options: Pick<McpHttpOptions, 'host' | 'allowedHosts' | 'bearerToken'>): void {
  const { host, allowedHosts, bearerToken } = options;
  if (bearerToken !== undefined) {
    if (bearerToken.length < MIN_BEARER_TOKEN_LENGTH)
      throw new McpHttpAccessError(`the MCP bearer token must be at least ${MIN_BEARER_TOKEN_LENGTH} characters`);
    return;
  }
  if (!isLoopbackName(host))
    throw new McpHttpAccessError(
      `serving MCP on ${host} (not loopback) needs a bearer token: every client acts as the server's principal`,
    );
  const forwarded = allowedHosts.find((name) => !isLoopbackName(hostName(name)));
  if (forwarded !== undefined)
    throw new McpHttpAccessError(
      `allowing the host ${forwarded} (a reverse proxy's name) needs a bearer token: every client the proxy forwards acts as the server's principal`,
    );
}

/** Who may use the endpoint: with a token, requests that carry it; without one (see {@link checkMcpHttpAccess}), anyone on loopback. */
function bearerCheck(options: McpHttpOptions): (req: IncomingMessage) => boolean {
  checkMcpHttpAccess(options);
  if (options.bearerToken === undefined) return () => true;
  const matches = tokenMatcher(options.bearerToken);
  return (req) => matches(bearerTokenOf(req));
}

/** The Host, and the Origin when sent, are the endpoint's own (or an allowed host). */
function isAllowedHostAndOrigin(req: IncomingMessage, allowed: ReadonlySet<string>): boolean {
  if (!hasAllowedHost(req, allowed)) return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return allowed.has(new URL(origin).host.toLowerCase());
  } catch {
    return false;
  }
}

/** Bodies beyond this are refused: a tools/call is small, and the server is not a file upload. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** A body beyond `MAX_BODY_BYTES`: the client's fault (413), not the server's. */
class BodyTooLargeError extends Error {}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError();
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function reply(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
