// Streamed Chat Completions answers (`stream: true`), written by hand in the documented shape of
// `chat.completion.chunk` Server-Sent Events: content deltas, tool-call argument deltas keyed by `index` (id and name
// in a call's first delta only), the final chunk's `finish_reason`, an optional usage chunk, and `data: [DONE]`.

/** One SSE event per chunk; `[DONE]` unless `done` is false (a cut stream). */
export function sse(chunks: readonly unknown[], done = true): string {
  return [...chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), ...(done ? ['data: [DONE]\n\n'] : [])].join(
    '',
  );
}

const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-stream-1',
  object: 'chat.completion.chunk',
  created: 1764460800,
  model: 'fake-model-1',
  choices,
  ...extra,
});

/** A text answer in three content deltas, then its usage. */
export const TEXT_STREAM = sse([
  chunk([{ index: 0, delta: { role: 'assistant', content: 'The order ' } }]),
  chunk([{ index: 0, delta: { content: 'ord_1001 ' } }]),
  chunk([{ index: 0, delta: { content: 'shipped.' }, finish_reason: 'stop' }]),
  chunk([], { usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 } }),
]);

/**
 * Two parallel tool calls whose argument deltas interleave and split their JSON mid-token (after `{"order_`, inside a
 * number): index 0 opens `call_a`, index 1 opens `call_b`, then their fragments alternate.
 */
export const PARALLEL_TOOL_STREAM = sse([
  chunk([
    {
      index: 0,
      delta: {
        role: 'assistant',
        tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'orders__get', arguments: '' } }],
      },
    },
  ]),
  chunk([
    {
      index: 0,
      delta: {
        tool_calls: [
          { index: 1, id: 'call_b', type: 'function', function: { name: 'payments__refund', arguments: '{"order_' } },
        ],
      },
    },
  ]),
  chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"order_id":"ord_1' } }] } }]),
  chunk([
    { index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: 'id":"ord_1001","amount_cents":35' } }] } },
  ]),
  chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '001"}' } }] } }]),
  chunk([
    { index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: '00}' } }] }, finish_reason: 'tool_calls' },
  ]),
]);

/** The same calls, cut before the last argument fragments and without `[DONE]`. */
export const CUT_TOOL_STREAM = sse(
  [
    chunk([
      {
        index: 0,
        delta: {
          role: 'assistant',
          tool_calls: [
            { index: 0, id: 'call_a', type: 'function', function: { name: 'orders__get', arguments: '{"order_id":' } },
          ],
        },
      },
    ]),
  ],
  false,
);

/** An argument delta for an index no delta opened. */
export const ORPHAN_DELTA_STREAM = sse([
  chunk([
    {
      index: 0,
      delta: { tool_calls: [{ index: 3, function: { arguments: '{"x":1}' } }] },
      finish_reason: 'tool_calls',
    },
  ]),
]);

/** A second call id at an index another call holds: two calls folded into one. */
export const REUSED_INDEX_STREAM = sse([
  chunk([
    {
      index: 0,
      delta: {
        tool_calls: [
          {
            index: 0,
            id: 'call_a',
            type: 'function',
            function: { name: 'orders__get', arguments: '{"order_id":"ord_1"}' },
          },
        ],
      },
    },
  ]),
  chunk([
    {
      index: 0,
      delta: { tool_calls: [{ index: 0, id: 'call_evil', function: { arguments: '' } }] },
      finish_reason: 'tool_calls',
    },
  ]),
]);

/** Complete stream whose one call's arguments never close: a malformed call, refused without running. */
export const UNCLOSED_ARGUMENTS_STREAM = sse([
  chunk([
    {
      index: 0,
      delta: {
        tool_calls: [
          {
            index: 0,
            id: 'call_a',
            type: 'function',
            function: { name: 'orders__get', arguments: '{"order_id":"ord_1' },
          },
        ],
      },
      finish_reason: 'tool_calls',
    },
  ]),
]);
