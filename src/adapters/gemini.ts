// Public entry `temporal-tool-contract/adapters/gemini`: model results and function declarations for the Gemini
// API (`@google/genai`). Named explicitly; test/unit/adapters/surface.test.ts pins this list.
export {
  toFunctionResponse,
  toFunctionResponseContent,
  type GeminiFunctionResponse,
  type GeminiFunctionResponseContent,
  type FunctionCallAnswer,
} from './gemini-function-response.js';
export {
  toFunctionResult,
  toInteractionInput,
  type GeminiFunctionResult,
  type GeminiInteractionInput,
} from './gemini-function-result.js';
export {
  toGeminiFunctionDeclaration,
  GEMINI_NAME_MAX,
  type GeminiFunctionDeclaration,
} from './tool-definitions/gemini.js';
export { toProviderToolName, fromProviderToolName } from './tool-definitions/tool-name.js';
export { isErrorResult } from './error-flag.js';
export { AdapterError, ADAPTER_ERROR_CODES, type AdapterErrorCode } from './adapter-error.js';
