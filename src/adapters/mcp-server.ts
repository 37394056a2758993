import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type Implementation,
  type ListToolsResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { AnyToolImplementation } from '../contract/tool-spec.js';
import { catalogFailure } from '../contract/call-failure.js';
import { executeTool, failedExecution, type ToolExecution } from '../contract/execute-tool.js';
import { verifyExecution } from '../contract/execution-check.js';
import type { ExecutionContext } from '../contract/execution-context.js';
import type { ToolRegistry } from '../contract/tool-registry.js';
import { toCallToolResult } from './mcp-call-tool-result.js';
import { NegotiatingServer } from './mcp-negotiating-server.js';
import { DEFAULT_MCP_SERVER_INFO, guardedMcp, LOOSE_CALL_TOOL_REQUEST } from './mcp-server-common.js';
import { toMcpTool } from './tool-definitions/mcp.js';

/** What the SDK hands a request handler besides the request (abort signal, request id, auth info). */
export type McpRequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  readonly registry: ToolRegistry;
  /**
   * The trusted context of one call, built by the host from its own state (principal from `extra.authInfo`, ids
   * from `extra.requestId`, …) — never from the request's arguments.
   */
  readonly context: (request: CallToolRequest, extra: McpRequestExtra) => ExecutionContext | Promise<ExecutionContext>;
  /**
   * Runs a call. A host routes calls through its durable runtime here (approvals, reconciliation). The default runs
   * the tool directly and answers a tool that requires approval with `APPROVAL_REQUIRED` without running it: this
   * server has no way to ask a human, and exposing a tool over MCP must not bypass its approval.
   */
  readonly execute?: (tool: AnyToolImplementation, args: unknown, ctx: ExecutionContext) => Promise<ToolExecution>;
  /** Receives every execution (audit record, artifacts) before the result is returned; if it fails, no result is. */
  readonly onExecution?: (execution: ToolExecution, request: CallToolRequest) => void | Promise<void>;
  readonly serverInfo?: Implementation;
}

/**
 * An MCP server (the SDK's low-level `Server`) offering the registry's tools: `tools/list` returns each tool with
 * its input schema, result schema and annotations; `tools/call` runs the tool through the contract and returns the
 * model result only — once its audit verifies against the server's own trusted inputs (`verifyExecution`). A name that
 * is not registered is a protocol error (`InvalidParams`), not a result. Failures of the host's hooks, and a result
 * that does not verify, surface as a generic `InternalError`: their messages never reach the client.
 */
export function createMcpServer(options: McpServerOptions): NegotiatingServer {
  const { registry } = options;
  const listed = new WeakMap<AnyToolImplementation, Tool>();
  const describe = (tool: AnyToolImplementation): Tool => {
    let entry = listed.get(tool);
    if (!entry) {
      entry = toMcpTool(tool);
      listed.set(tool, entry);
    }
    return entry;
  };
  // Fail at construction, not at the first tools/list, when a tool cannot be described.
  registry.list().forEach(describe);

  const server = new NegotiatingServer(options.serverInfo ?? DEFAULT_MCP_SERVER_INFO, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, (): ListToolsResult => ({ tools: registry.list().map(describe) }));
  server.setRequestHandler(LOOSE_CALL_TOOL_REQUEST, async (loose, extra): Promise<CallToolResult> => {
    // The SDK has validated the request against CallToolRequestSchema before calling this handler.
    const request = CallToolRequestSchema.parse(loose);
    const { name } = request.params;
    if (!registry.has(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 128)}`);
    const tool = registry.get(name);
    const args = request.params.arguments ?? {};
    const { ctx, execution } = await guardedMcp(async () => {
      const trusted = await options.context(request, extra);
      return { ctx: trusted, execution: await (options.execute ?? executeUnlessApprovalRequired)(tool, args, trusted) };
    }, 'execution');
    // Seed 001: the last hop recomputes the bindings from what it trusts before it serializes anything; a result
    // that does not verify (another call's, edited, bound to a provider revision not accepted) is not sent.
    const verified = verifyExecution(tool, args, ctx, execution);
    if (!verified.ok)
      throw new McpError(
        ErrorCode.InternalError,
        `The tool result could not be verified (${verified.failed.join(', ')}).`,
      );
    if (options.onExecution) await guardedMcp(async () => options.onExecution?.(execution, request), 'record');
    return toCallToolResult(execution.modelResult, { protocolVersion: server.protocolVersion });
  });
  return server;
}

/** The default executor: the contract funnel, except that approval-gated tools are refused before they run. */
function executeUnlessApprovalRequired(
  tool: AnyToolImplementation,
  args: unknown,
  ctx: ExecutionContext,
): Promise<ToolExecution> {
  if (!tool.requiresApproval) return executeTool(tool, args, ctx);
  return Promise.resolve(
    failedExecution(
      tool,
      ctx,
      catalogFailure('APPROVAL_REQUIRED', 'approval', { reason: 'no approval channel on the MCP server' }),
      args,
    ),
  );
}
