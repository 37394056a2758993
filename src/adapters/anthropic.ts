// Public entry `temporal-tool-contract/adapters/anthropic`: model results and tool definitions for the Anthropic
// Messages API. Named explicitly; test/unit/adapters/surface.test.ts pins this list.
export {
  toToolResultBlock,
  toToolResultsMessage,
  type ToolResultBlock,
  type ToolResultsMessage,
  type ToolUseAnswer,
  type TextBlock,
} from './anthropic-messages.js';
export { toAnthropicTool, ANTHROPIC_NAME_MAX, type AnthropicTool } from './tool-definitions/anthropic.js';
export { toProviderToolName, fromProviderToolName } from './tool-definitions/tool-name.js';
export { isErrorResult } from './error-flag.js';
export { AdapterError, ADAPTER_ERROR_CODES, type AdapterErrorCode } from './adapter-error.js';
