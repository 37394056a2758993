// `temporal-tool-contract/temporal/mcp`: a tool registry served to MCP clients, each call a workflow, MCP tasks backed
// by those workflows. Its own entry point because it needs the optional peer `@modelcontextprotocol/sdk`, which a
// worker (`temporal-tool-contract/temporal`) does not load. Named explicitly.
export { createDurableMcpServer, type DurableMcpServerOptions } from './durable-mcp-server.js';
export { TemporalTaskStore, DEFAULT_TASK_TTL, type TaskTtlPolicy } from './temporal-task-store.js';
export { McpWorkflowCalls, type McpWorkflowCallsOptions, type McpCallState } from './mcp-workflow-calls.js';
export { MCP_IDEMPOTENCY_META_KEY } from '../../wire/mcp.js';
