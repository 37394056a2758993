import { McpError, ErrorCode, type CallToolRequest, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../contract/tool-handler.js';
import { digestJson } from '../../contract/sha256.js';
import { MCP_IDEMPOTENCY_META_KEY, MCP_WORKFLOW_ID_PREFIX } from '../../wire/mcp.js';

/** Longest client-supplied idempotency key (it is hashed; the bound only keeps a hostile request small). */
export const MAX_CLIENT_KEY_CHARS = 256;

/** Where one `tools/call` came from: what makes a request the same request again. */
export interface McpRequestOrigin {
  /** The Streamable HTTP session, if any (stdio has none). */
  readonly sessionId: string | undefined;
  /** Random per server connection: stands in for the session where the transport has none. */
  readonly connectionId: string;
  readonly requestId: RequestId;
}

/**
 * The workflow id of one MCP `tools/call`, which is the call's identity (the write's idempotency key is derived from
 * it). With a client key in `_meta` it is a digest of the principal and that key: the same key is the same call
 * across reconnects and restarts of client and server — the only way to exactly-once across a client restart.
 * Without one it is a digest of the session (or this connection) and the JSON-RPC request id: a request id alone is
 * not stable, since every client connection counts its ids from the start again, so two different calls would share
 * one id (and the second would get the first one's result). Such a call is deduplicated only within its session.
 */
export function mcpWorkflowId(request: CallToolRequest, principal: Principal, origin: McpRequestOrigin): string {
  const clientKey = clientIdempotencyKey(request);
  const source =
    clientKey === undefined
      ? { session: origin.sessionId ?? `connection:${origin.connectionId}`, requestId: origin.requestId }
      : { clientKey };
  return `${MCP_WORKFLOW_ID_PREFIX}${digestJson({ principal: { tenant: principal.tenant, subject: principal.subject }, ...source })}`;
}

/** What a key stands for: the same key with another tool or other arguments is a client error, never a second call. */
export function mcpRequestDigest(request: CallToolRequest): string {
  return digestJson({ tool: request.params.name, arguments: request.params.arguments ?? {} });
}

function clientIdempotencyKey(request: CallToolRequest): string | undefined {
  const value: unknown = request.params._meta?.[MCP_IDEMPOTENCY_META_KEY];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_CLIENT_KEY_CHARS) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `_meta["${MCP_IDEMPOTENCY_META_KEY}"] must be a string of 1 to ${MAX_CLIENT_KEY_CHARS} characters`,
    );
  }
  return value;
}
