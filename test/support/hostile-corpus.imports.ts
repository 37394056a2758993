// Imports for the hostile corpus (kept apart so the corpus reads as a table of cases).
export { executeTool, readHttpJson, ToolError, ToolRegistry } from '../../src/index.js';
export { defineTool } from '../../testkit/define-tool.js';
export type { AnyToolImplementation, ExecutionContext, HandlerContext, HttpLikeResponse, ToolExecution } from '../../src/index.js';
export { utf8ByteLength as utf8Length } from '../../src/contract/truncation.js';
