import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ToolEffect } from '../contract/tool-spec.js';
import type { CatalogCode } from '../contract/error-catalog.js';

/**
 * The catalog code for a `tools/call` to a remote MCP server that did not return a result. Only the server's own
 * refusals (`InvalidParams`, `MethodNotFound`) say the call did not run. A timeout, a cancellation or a lost
 * connection says nothing about a side effect: for a read that is a retryable `UPSTREAM_UNAVAILABLE`, for a write it
 * is `OUTCOME_UNKNOWN`, never a code that invites a blind retry. A malformed answer is `PROTOCOL_ERROR`.
 */
export function mcpCallFailureCode(error: unknown, effect: ToolEffect): CatalogCode {
  if (!(error instanceof McpError)) return 'PROTOCOL_ERROR';
  switch (error.code as ErrorCode) {
    case ErrorCode.InvalidParams:
      return 'INVALID_ARGUMENTS';
    case ErrorCode.MethodNotFound:
      return 'UNKNOWN_TOOL';
    case ErrorCode.RequestTimeout:
    case ErrorCode.ConnectionClosed:
      return effect === 'read' ? 'UPSTREAM_UNAVAILABLE' : 'OUTCOME_UNKNOWN';
    default:
      return 'TOOL_ERROR';
  }
}
