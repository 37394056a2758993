import { z } from 'zod';
import { ToolError } from '../contract/tool-error.js';
import { readChatCompletion } from './chat-completions-response.js';
import type { ModelResponse } from './model-turn.js';

/**
 * A streamed Chat Completions answer (`stream: true`, Server-Sent Events of `chat.completion.chunk`) assembled into
 * the same turn a whole response gives (seed 001: raw stream events, argument deltas, the provider's final state and
 * call ids are part of the provider contract). What a stream can get wrong, it is refused for, as `PROTOCOL_ERROR`
 * with the reason only (provider text never reaches the details):
 * - it ends before `data: [DONE]` or before a choice says why it finished (a cut stream is never a turn);
 * - a tool call's argument deltas arrive for an index no delta opened with an id and a name, or a later delta at
 *   that index names another call id (two calls interleaved into one);
 * - a chunk is not JSON, or not a chunk (another response id mid-stream included).
 * Argument text is concatenated per index in arrival order; whether the whole is JSON is judged afterwards like any
 * call's arguments (a malformed call is refused without running, never guessed).
 */

const chunkSchema = z.object({
  id: z.string().min(1),
  object: z.literal('chat.completion.chunk').optional(),
  choices: z.array(
    z.object({
      index: z.number().int().nonnegative().optional(),
      finish_reason: z.string().nullable().optional(),
      delta: z
        .object({
          role: z.literal('assistant').optional(),
          content: z.string().nullable().optional(),
          refusal: z.string().nullable().optional(),
          tool_calls: z
            .array(
              z.object({
                index: z.number().int().nonnegative(),
                id: z.string().min(1).optional(),
                type: z.literal('function').optional(),
                function: z.object({ name: z.string().min(1).optional(), arguments: z.string().optional() }).optional(),
              }),
            )
            .optional(),
        })
        .optional(),
    }),
  ),
  usage: z.unknown().optional(),
});

/** Most tool calls one streamed turn may open (a hostile stream cannot make the assembly unbounded). */
const MAX_STREAMED_CALLS = 128;

interface OpenCall {
  readonly id: string;
  readonly name: string;
  argumentParts: string[];
}

/** The `data:` payloads of an SSE text, in order (comments, `event:` and other fields ignored). */
export function sseData(text: string): string[] {
  const payloads: string[] = [];
  for (const event of text.replace(/\r\n?/g, '\n').split('\n\n')) {
    const lines = event
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''));
    if (lines.length > 0) payloads.push(lines.join('\n'));
  }
  return payloads;
}

/** Assembles the SSE text of a streamed Chat Completions answer into a turn (see the module comment). */
export function readChatCompletionStream(text: string): ModelResponse {
  const refuse = (reason: string, details: Record<string, unknown> = {}): never => {
    throw new ToolError('PROTOCOL_ERROR', { reason, ...details });
  };
  let responseId: string | null = null;
  let done = false;
  let finishReason: string | null = null;
  let content: string | null = null;
  let refusal: string | null = null;
  let usage: unknown = null;
  const calls = new Map<number, OpenCall>();
  for (const payload of sseData(text)) {
    if (done) refuse('stream_continues_after_done');
    if (payload.trim() === '[DONE]') {
      done = true;
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(payload);
    } catch {
      refuse('stream_chunk_not_json');
    }
    const parsed = chunkSchema.safeParse(json);
    if (!parsed.success) refuse('not_a_chat_completion_chunk');
    const chunk = parsed.data!;
    if (responseId !== null && chunk.id !== responseId) refuse('stream_changes_response_id');
    responseId = chunk.id;
    if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage;
    // No `n` is ever requested: only the first choice is read.
    const choice = chunk.choices.find((candidate) => (candidate.index ?? 0) === 0);
    if (choice === undefined) continue;
    if (choice.finish_reason !== undefined && choice.finish_reason !== null) finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string') content = (content ?? '') + delta.content;
    if (typeof delta.refusal === 'string') refusal = (refusal ?? '') + delta.refusal;
    for (const part of delta.tool_calls ?? []) {
      const open = calls.get(part.index);
      if (open === undefined) {
        if (part.id === undefined || part.function?.name === undefined)
          refuse('tool_call_delta_before_its_call', { index: part.index });
        if (calls.size >= MAX_STREAMED_CALLS) refuse('too_many_streamed_calls', { limit: MAX_STREAMED_CALLS });
        calls.set(part.index, {
          id: part.id!,
          name: part.function!.name!,
          argumentParts: [part.function?.arguments ?? ''],
        });
        continue;
      }
      if (part.id !== undefined && part.id !== open.id) refuse('tool_call_index_reused', { index: part.index });
      if (part.function?.name !== undefined && part.function.name !== open.name)
        refuse('tool_call_renamed', { index: part.index });
      if (part.function?.arguments !== undefined) open.argumentParts.push(part.function.arguments);
    }
  }
  if (!done) refuse('stream_ended_before_done');
  if (responseId === null) refuse('stream_without_chunks');
  if (finishReason === null) refuse('stream_without_finish_reason');
  const toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.argumentParts.join('') },
    }));
  return readChatCompletion({
    id: responseId,
    choices: [
      {
        index: 0,
        finish_reason: finishReason,
        message: { role: 'assistant', content, refusal, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
      },
    ],
    usage,
  });
}
