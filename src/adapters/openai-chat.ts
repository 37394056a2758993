import type { ModelResult } from '../contract/model-result.js';
import { renderModelResult } from './render-model-result.js';

/** An OpenAI Chat Completions tool message (`ChatCompletionToolMessageParam`). */
export interface ChatToolMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string;
}

/** The model result as a Chat Completions `role: "tool"` message answering `tool_call_id`. */
export function toChatToolMessage(toolCallId: string, result: ModelResult): ChatToolMessage {
  return { role: 'tool', tool_call_id: toolCallId, content: renderModelResult(result).text };
}
