import type { Principal } from '../src/contract/tool-handler.js';
import { MCP_CALL_ID } from '../src/wire/mcp.js';
import { installApprovalHandlers } from './approvals.js';
import { callTool, type CallToolOptions, type ToolCallResult } from './call/call-tool.js';

/** What the server's operator may set for every MCP call: time limits, and reconciliation's pace. */
export type McpCallOptions = Pick<CallToolOptions, 'timeoutMs' | 'approvalTimeoutMs' | 'reconcile'>;

/** What the MCP server starts one `tools/call` with: the tool, its arguments and the server's trusted principal. */
export interface McpToolCallInput {
  readonly tool: string;
  readonly args: unknown;
  readonly principal: Principal;
  /** Set by the server's operator, never by the MCP client (defaults: the tool's `callDefaults`, else `callTool`'s). */
  readonly options?: McpCallOptions;
}

/**
 * One MCP `tools/call` as a workflow: the call goes through `callTool`, so the ledger, approvals, reconciliation and
 * audit apply to MCP clients as to any workflow. The workflow id is the call's identity (derived from the MCP request
 * by the server), and the call id is fixed, so the write's idempotency key is `<workflow id>:<call id>`: the same
 * MCP request always names the same side effect.
 */
export async function mcpToolCall(input: McpToolCallInput): Promise<ToolCallResult> {
  // Installed first, so a decision that arrives before the call asks for it is kept rather than lost.
  installApprovalHandlers();
  return callTool(input.tool, input.args, { ...input.options, principal: input.principal, callId: MCP_CALL_ID });
}
