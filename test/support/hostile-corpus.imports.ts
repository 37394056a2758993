// Imports for the hostile corpus (kept apart so the corpus reads as a table of cases).
export { readHttpJson, ToolError, ToolRegistry } from '../../src/index.js';
export { executeTool } from '../../src/contract/execute-tool.js';
export { defineTool } from '../../testkit/define-tool.js';
export type { AnyToolImplementation, HandlerContext } from '../../src/index.js';
export type { HttpLikeResponse } from '../../src/contract/http-response.js';
export type { ExecutionContext } from '../../src/contract/execution-context.js';
export type { ToolExecution } from '../../src/contract/execute-tool.js';
export { utf8ByteLength as utf8Length } from '../../src/contract/truncation.js';
