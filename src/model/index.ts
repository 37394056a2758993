// The model clients' entry point (intended subpath `temporal-tool-contract/model`): named explicitly, kept small.
export type { JsonValue } from '../contract/json-value.js';
export type {
  JsonObject,
  SystemMessage,
  UserMessage,
  AssistantMessage,
  ToolResultMessage,
  ModelMessage,
  ModelToolDefinition,
  ToolChoice,
  ModelSettings,
  ModelRequest,
  WellFormedToolCall,
  MalformedToolCall,
  MalformedReason,
  ModelToolCall,
  StopReason,
  ModelUsage,
  FinalResponse,
  ToolCallsResponse,
  ModelResponse,
  ModelCallOptions,
  ModelClient,
} from './model-turn.js';
export { toAssistantMessage } from './model-turn.js';
export { readToolCalls, type RawToolCall } from './model-tool-calls.js';
export { checkConversation } from './conversation-check.js';
export { ScriptedModel, scriptedModelConfigSchema, type ScriptedModelConfig } from './scripted-model.js';
export {
  OpenAICompatibleClient,
  openAICompatibleConfigSchema,
  type OpenAICompatibleConfig,
  type OpenAICompatibleDeps,
  type FetchLike,
} from './openai-compatible-client.js';
export { fencedModelResultRenderer, type ToolResultRenderer, type MaxTokensField } from './chat-completions-request.js';
