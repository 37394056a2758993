import type { ModelResult } from '../contract/model-result.js';
import { isErrorResult } from './error-flag.js';
import { renderModelResult } from './render-model-result.js';
import { assertUniqueCallIds } from './unique-call-ids.js';

/** An Anthropic Messages `tool_result` content block (`ToolResultBlockParam`). */
export interface ToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly is_error: boolean;
  readonly content: string;
}

/** A plain text block, for text the user message carries after the tool results. */
export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
}

/** The user message that answers an assistant turn's `tool_use` blocks (`MessageParam`). */
export interface ToolResultsMessage {
  readonly role: 'user';
  readonly content: (ToolResultBlock | TextBlock)[];
}

/** One answered `tool_use`: the block id and the model result for it. */
export interface ToolUseAnswer {
  readonly toolUseId: string;
  readonly result: ModelResult;
}

/** The model result as a `tool_result` block; `is_error` as decided by {@link isErrorResult}. */
export function toToolResultBlock(toolUseId: string, result: ModelResult): ToolResultBlock {
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    is_error: isErrorResult(result),
    content: renderModelResult(result).text,
  };
}

/**
 * One user message answering a turn: every `tool_result` block first (the API rejects text before them), then
 * any text. Each `tool_use` id may be answered once.
 */
export function toToolResultsMessage(
  answers: readonly ToolUseAnswer[],
  trailingText: readonly string[] = [],
): ToolResultsMessage {
  assertUniqueCallIds(answers.map((answer) => answer.toolUseId));
  return {
    role: 'user',
    content: [
      ...answers.map(({ toolUseId, result }) => toToolResultBlock(toolUseId, result)),
      ...trailingText.map((text) => ({ type: 'text' as const, text })),
    ],
  };
}
