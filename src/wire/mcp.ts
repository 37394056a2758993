/**
 * What the MCP server and its workflow agree on, and what an MCP client may send. Stored in history (the call id,
 * memo keys) or part of the public protocol (the `_meta` key): never renamed.
 */

/** The call id of the one tool call an MCP workflow makes: with the workflow id it forms the write's idempotency key. */
export const MCP_CALL_ID = 'mcp-call';

/**
 * The `_meta` key of a `tools/call` request under which a client supplies its own idempotency key: the same key (for
 * the same tool and arguments) always means the same call, across reconnects and restarts of client and server.
 */
export const MCP_IDEMPOTENCY_META_KEY = 'io.temporal-tool-contract/idempotency-key';

/** Prefix of the workflow id of an MCP `tools/call`; the rest is a digest of where the call's identity came from. */
export const MCP_WORKFLOW_ID_PREFIX = 'ttc-mcp:';

/** Memo keys of an MCP call's workflow: what the server needs to answer `tasks/*` from Temporal alone. */
export const MCP_MEMO = {
  /** SHA-256 of the canonical `{ tool, arguments }`: a key reused for another request is refused, not run. */
  requestSha256: 'ttcMcpRequestSha256',
  /** SHA-256 of the principal the server runs calls as: `tasks/get` and `tasks/list` show a principal its own calls only. */
  principalSha256: 'ttcMcpPrincipalSha256',
  /** The task's time to live in ms, or null (unlimited), counted from the workflow's start. */
  ttlMs: 'ttcMcpTtlMs',
} as const;
