// Imports shared by the executeTool tests (kept apart so each test file reads as behaviour only).
export { ToolError } from '../../src/index.js';
export { executeTool } from '../../src/contract/execute-tool.js';
export { defineTool } from '../../testkit/define-tool.js';
export { resolvePointer as resolvePointerForTest } from '../../src/contract/json-pointer.js';
