import { renderModelResult } from '../adapters/render-model-result.js';
import type { ModelResult } from '../contract/model-result.js';
import { ToolError } from '../contract/tool-error.js';
import { checkConversation } from './conversation-check.js';
import type { JsonObject, ModelMessage, ModelRequest, ModelToolCall, ToolChoice } from './model-turn.js';

/** Renders a tool's model result as the text of a Chat Completions `role: "tool"` message. */
export type ToolResultRenderer = (result: ModelResult) => string;

/**
 * The default rendering of a tool result: the adapters' one rendering of a model result, with every untrusted text
 * fenced and defanged so it cannot close its fence or pose as system text.
 */
export const fencedModelResultRenderer: ToolResultRenderer = (result) => renderModelResult(result).text;

/** Which request field carries the output token limit (`max_tokens` for servers that predate `max_completion_tokens`). */
export type MaxTokensField = 'max_completion_tokens' | 'max_tokens';

/** A Chat Completions request body, limited to the fields this client sends. */
export interface ChatCompletionsRequestBody {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  tool_choice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
  parallel_tool_calls?: boolean;
  temperature?: number;
  max_completion_tokens?: number;
  max_tokens?: number;
  seed?: number;
}

/** A Chat Completions message, limited to the shapes this client sends. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool call replayed in an assistant message. */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A function tool definition. */
export interface ChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: JsonObject; strict?: boolean };
}

/** How to build the body. */
export interface ChatRequestOptions {
  readonly model: string;
  readonly maxTokensField: MaxTokensField;
  readonly renderToolResult: ToolResultRenderer;
}

/** Builds the Chat Completions body for `request`, after checking the conversation's call/result pairing. */
export function toChatCompletionsRequest(
  request: ModelRequest,
  options: ChatRequestOptions,
): ChatCompletionsRequestBody {
  checkConversation(request.messages);
  const settings = request.settings ?? {};
  const body: ChatCompletionsRequestBody = {
    model: settings.model ?? options.model,
    messages: request.messages.map((message, index) => toChatMessage(message, index, options.renderToolResult)),
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        ...(tool.strict === undefined ? {} : { strict: tool.strict }),
      },
    }));
    // Providers refuse `parallel_tool_calls` on a request without tools.
    if (settings.parallelToolCalls !== undefined) body.parallel_tool_calls = settings.parallelToolCalls;
  }
  if (settings.toolChoice !== undefined) body.tool_choice = toChatToolChoice(settings.toolChoice);
  if (settings.temperature !== undefined) body.temperature = settings.temperature;
  if (settings.maxOutputTokens !== undefined) body[options.maxTokensField] = settings.maxOutputTokens;
  if (settings.seed !== undefined) body.seed = settings.seed;
  return body;
}

function toChatMessage(message: ModelMessage, index: number, render: ToolResultRenderer): ChatMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.text };
    case 'user':
      return { role: 'user', content: message.text };
    case 'assistant':
      return message.calls.length === 0
        ? { role: 'assistant', content: message.text }
        : { role: 'assistant', content: message.text, tool_calls: message.calls.map(toChatToolCall) };
    case 'tool':
      return { role: 'tool', tool_call_id: message.callId, content: rendered(message.result, index, render) };
  }
}

/** A result that cannot be rendered (not plain JSON) is the caller's defect, like any other malformed request. */
function rendered(result: ModelResult, index: number, render: ToolResultRenderer): string {
  try {
    return render(result);
  } catch {
    throw new ToolError('INVALID_ARGUMENTS', { reason: 'unrenderable_tool_result', message_index: index });
  }
}

/** Replays a call exactly as the model produced it, malformed arguments included, so the transcript stays true. */
function toChatToolCall(call: ModelToolCall): ChatToolCall {
  return { id: call.callId, type: 'function', function: { name: call.name, arguments: call.rawArguments } };
}

function toChatToolChoice(choice: ToolChoice): NonNullable<ChatCompletionsRequestBody['tool_choice']> {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}
