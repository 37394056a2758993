// Public entry `temporal-tool-contract/adapters/openai`: model results and tool definitions for the OpenAI
// Responses and Chat Completions APIs. Named explicitly; test/unit/adapters/surface.test.ts pins this list.
export { toResponsesOutput, type ResponsesFunctionCallOutput } from './openai-responses.js';
export { toChatToolMessage, type ChatToolMessage } from './openai-chat.js';
export {
  toResponsesTool,
  toChatTool,
  OPENAI_NAME_MAX,
  type OpenAIToolOptions,
  type ResponsesFunctionTool,
  type ChatFunctionTool,
} from './tool-definitions/openai.js';
export { toStrictJsonSchema, fromStrictArguments } from './tool-definitions/strict-schema.js';
export { toProviderToolName, fromProviderToolName } from './tool-definitions/tool-name.js';
export { AdapterError, ADAPTER_ERROR_CODES, type AdapterErrorCode } from './adapter-error.js';
