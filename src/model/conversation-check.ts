import { ToolError } from '../contract/tool-error.js';
import type { ModelMessage } from './model-turn.js';

/**
 * Checks that tool calls and their results pair up: every `tool` message answers a call of the assistant turn just
 * before it, exactly once, and every call is answered before the conversation goes on. Providers reject anything
 * else (or, worse, mis-correlate results), so a violation is the caller's defect: `INVALID_ARGUMENTS`, with the
 * offending message index and reason (`tool_result_without_call`, `unanswered_tool_call`) in the details.
 */
export function checkConversation(messages: readonly ModelMessage[]): void {
  let open = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') {
      if (!open.delete(message.callId)) throw conversationError('tool_result_without_call', index);
      continue;
    }
    if (open.size > 0) throw conversationError('unanswered_tool_call', index);
    if (message.role === 'assistant') open = new Set(message.calls.map((call) => call.callId));
  }
  if (open.size > 0) throw conversationError('unanswered_tool_call', messages.length);
}

function conversationError(reason: string, index: number): ToolError {
  return new ToolError('INVALID_ARGUMENTS', { reason, message_index: index });
}
