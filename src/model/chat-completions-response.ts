import { z } from 'zod';
import { formatPointer } from '../contract/json-pointer.js';
import { ToolError } from '../contract/tool-error.js';
import { readToolCalls } from './model-tool-calls.js';
import type { ModelResponse, ModelUsage, StopReason } from './model-turn.js';

const count = z.number().int().nonnegative();

const toolCallSchema = z.object({
  id: z.string(),
  // Only function calls exist in a request that offers only function tools; anything else is not ours to run.
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

/**
 * The part of a Chat Completions response this client uses. Objects are not strict: providers and gateways add
 * fields (`system_fingerprint`, `logprobs`, `annotations`, …) that we ignore. What we read is checked exactly.
 */
export const chatCompletionSchema = z.object({
  id: z.string().min(1),
  object: z.literal('chat.completion').optional(),
  choices: z
    .array(
      z.object({
        index: count.optional(),
        finish_reason: z.string().nullable().optional(),
        message: z.object({
          role: z.literal('assistant'),
          content: z.string().nullable().optional(),
          refusal: z.string().nullable().optional(),
          tool_calls: z.array(toolCallSchema).nullable().optional(),
        }),
      }),
    )
    .min(1),
  // Token counts are informational: an unreadable `usage` becomes "unknown" (null) instead of failing the turn.
  usage: z
    .object({ prompt_tokens: count, completion_tokens: count, total_tokens: count })
    .nullable()
    .optional()
    .catch(null),
});

/**
 * Reads a Chat Completions response body (already through the protocol layer) into the turn format. A body that does
 * not match is `PROTOCOL_ERROR` with the failing paths and issue codes only: provider text never reaches the details.
 * The turn is `tool_calls` whenever tool calls are present, whatever `finish_reason` says (local servers often say
 * `stop`).
 */
export function readChatCompletion(json: unknown): ModelResponse {
  const parsed = chatCompletionSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 10)
      .map((issue) => ({ path: formatPointer(issue.path.map(pathToken)), code: issue.code }));
    throw new ToolError('PROTOCOL_ERROR', { reason: 'not_a_chat_completion', issues });
  }
  const { id, choices, usage } = parsed.data;
  // No `n` is ever requested, so the first choice is the answer (the schema guarantees there is one).
  const choice = choices[0];
  if (choice === undefined) throw new ToolError('PROTOCOL_ERROR', { reason: 'no_choices' });
  const { message } = choice;
  const common = { responseId: id, stopReason: stopReason(choice.finish_reason), usage: toUsage(usage) };
  const toolCalls = message.tool_calls ?? [];
  if (toolCalls.length > 0) {
    const calls = readToolCalls(
      toolCalls.map((call) => ({ callId: call.id, name: call.function.name, rawArguments: call.function.arguments })),
    );
    return { kind: 'tool_calls', ...common, text: message.content ?? null, calls };
  }
  return { kind: 'final', ...common, text: message.content ?? '', refusal: message.refusal ?? null };
}

function stopReason(finishReason: string | null | undefined): StopReason {
  switch (finishReason) {
    case 'stop':
    case 'tool_calls':
    case 'length':
    case 'content_filter':
      return finishReason;
    case 'function_call':
      return 'tool_calls';
    default:
      return 'other';
  }
}

function toUsage(usage: z.infer<typeof chatCompletionSchema>['usage']): ModelUsage | null {
  return usage
    ? { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens, totalTokens: usage.total_tokens }
    : null;
}

function pathToken(token: PropertyKey): string | number {
  return typeof token === 'symbol' ? String(token) : token;
}
