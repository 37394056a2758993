// Public entry `temporal-tool-contract/adapters/mcp`: MCP both ways — results and tool definitions, a server for a
// registry, and remote tools wrapped as contract tools. Named explicitly; test/unit/adapters/surface.test.ts pins this list.
export { toCallToolResult, type ContractCallToolResult, type CallToolResultOptions } from './mcp-call-tool-result.js';
export { toMcpTool, mcpAnnotations, type McpTool, type McpToolAnnotations } from './tool-definitions/mcp.js';
export { createMcpServer, type McpServerOptions, type McpRequestExtra } from './mcp-server.js';
export {
  wrapMcpTools,
  type WrapMcpToolsOptions,
  type WrappedMcpTools,
  type McpToolPolicy,
} from './mcp-client-tools.js';
export { isErrorResult } from './error-flag.js';
export { AdapterError, ADAPTER_ERROR_CODES, type AdapterErrorCode } from './adapter-error.js';
