import { randomUUID } from 'node:crypto';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Implementation,
  type ListToolsResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { CreateTaskResult } from '@modelcontextprotocol/sdk/experimental/tasks/types.js';
import { toCallToolResult } from '../../adapters/mcp-call-tool-result.js';
import { NegotiatingServer } from '../../adapters/mcp-negotiating-server.js';
import { DEFAULT_MCP_SERVER_INFO, guardedMcp, LOOSE_CALL_TOOL_REQUEST } from '../../adapters/mcp-server-common.js';
import { toMcpTool } from '../../adapters/tool-definitions/mcp.js';
import type { ToolRegistry } from '../../contract/tool-registry.js';
import { McpWorkflowCalls, type McpWorkflowCallsOptions } from './mcp-workflow-calls.js';
import { TemporalTaskStore, type TaskTtlPolicy } from './temporal-task-store.js';

/** Options of {@link createDurableMcpServer}. */
export interface DurableMcpServerOptions extends McpWorkflowCallsOptions {
  /** The tools offered (`tools/list`); a worker on `taskQueue` must serve the same registry. */
  readonly registry: ToolRegistry;
  readonly taskTtl?: TaskTtlPolicy;
  readonly serverInfo?: Implementation;
}

/**
 * An MCP server whose every `tools/call` runs as a Temporal workflow through `callTool` (`mcpToolCall`), so the
 * ledger, approvals, reconciliation and audit apply to MCP clients. A plain call waits for the workflow's result; a
 * task-augmented call (MCP Tasks) answers at once with the task, which is the workflow (see `TemporalTaskStore`).
 * The same request — same client key in `_meta`, else same session and request id — attaches to the same workflow
 * instead of running again. One server per connection (the SDK's `Server` serves one transport); all may share
 * one Temporal client.
 */
export function createDurableMcpServer(options: DurableMcpServerOptions): NegotiatingServer {
  const { registry } = options;
  const tools: Tool[] = registry.list().map((tool) => ({ ...toMcpTool(tool), execution: { taskSupport: 'optional' } }));
  const calls = new McpWorkflowCalls(options);
  const connectionId = randomUUID();
  // The store reads the revision per request: it is agreed in `initialize`, after the server was built.
  const protocolVersion = (): string | undefined => server.protocolVersion;
  const server = new NegotiatingServer(options.serverInfo ?? DEFAULT_MCP_SERVER_INFO, {
    capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    taskStore: new TemporalTaskStore(calls, connectionId, { ttl: options.taskTtl, protocolVersion }),
  });
  server.setRequestHandler(ListToolsRequestSchema, (): ListToolsResult => ({ tools }));
  server.setRequestHandler(
    LOOSE_CALL_TOOL_REQUEST,
    async (loose, extra): Promise<CallToolResult | CreateTaskResult> => {
      // The SDK has validated the request against CallToolRequestSchema before calling this handler.
      const request = CallToolRequestSchema.parse(loose);
      const { name } = request.params;
      if (!registry.has(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 128)}`);
      const { taskStore } = extra;
      const task = request.params.task;
      if (task !== undefined && taskStore !== undefined)
        return guardedMcp(async () => ({ task: await taskStore.createTask({ ttl: task.ttl ?? null }) }));
      return guardedMcp(async () => {
        const workflowId = await calls.start(
          request,
          { sessionId: extra.sessionId, connectionId, requestId: extra.requestId },
          null,
        );
        // A client that gives up waiting leaves the call running (it is durable); the same request attaches to it again.
        const result = calls.result(workflowId);
        const closeStream = extra.closeSSEStream;
        if (closeStream !== undefined && !(await settlesWithin(result, SSE_POLLING_AFTER_MS))) closeStream();
        return toCallToolResult((await result).modelResult, { protocolVersion: protocolVersion() });
      });
    },
  );
  return server;
}

/**
 * How long a call's SSE stream stays open (Streamable HTTP, resumable sessions): a call still running then — an
 * approval, a reconciliation — has its stream closed, and the client polls (reconnects with `Last-Event-ID` after
 * the retry interval) until the result is there; no HTTP request is held open for the length of a durable call.
 */
export const SSE_POLLING_AFTER_MS = 1000;

async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
