// Imports shared by the executeTool tests (kept apart so each test file reads as behaviour only).
export { defineTool, executeTool, ToolError } from '../../src/index.js';
export { resolvePointer as resolvePointerForTest } from '../../src/contract/json-pointer.js';
