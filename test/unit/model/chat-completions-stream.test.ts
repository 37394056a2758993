import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readChatCompletionStream } from '../../../src/model/chat-completions-stream.js';
import { OpenAICompatibleClient } from '../../../src/model/openai-compatible-client.js';
import { isToolError } from '../../../src/index.js';
import { FakeChatServer, type Responder } from './fake-chat-server.js';
import {
  CUT_TOOL_STREAM,
  ORPHAN_DELTA_STREAM,
  PARALLEL_TOOL_STREAM,
  REUSED_INDEX_STREAM,
  TEXT_STREAM,
  UNCLOSED_ARGUMENTS_STREAM,
} from './stream-fixtures.js';

const refusedFor = (reason: string) => (error: unknown) =>
  isToolError(error) && error.code === 'PROTOCOL_ERROR' && error.details['reason'] === reason;

describe('a streamed Chat Completions answer is assembled into a turn, or refused (seed 001: stream events, argument deltas)', () => {
  it('content deltas make the final text; the usage chunk is read', () => {
    const turn = readChatCompletionStream(TEXT_STREAM);
    assert.deepEqual(turn, {
      kind: 'final',
      responseId: 'chatcmpl-stream-1',
      stopReason: 'stop',
      usage: { inputTokens: 12, outputTokens: 5, totalTokens: 17 },
      text: 'The order ord_1001 shipped.',
      refusal: null,
    });
  });

  it('interleaved argument deltas are joined per call index, in order, each call keeping its own id', () => {
    const turn = readChatCompletionStream(PARALLEL_TOOL_STREAM);
    assert.equal(turn.kind, 'tool_calls');
    if (turn.kind !== 'tool_calls') return;
    assert.deepEqual(
      turn.calls.map((call) => [call.callId, call.name, call.malformed ? null : call.arguments]),
      [
        ['call_a', 'orders__get', { order_id: 'ord_1001' }],
        ['call_b', 'payments__refund', { order_id: 'ord_1001', amount_cents: 3500 }],
      ],
    );
  });

  it('a stream cut before [DONE], an orphan delta and a reused index are refused; unclosed arguments make a malformed call', () => {
    assert.throws(() => readChatCompletionStream(CUT_TOOL_STREAM), refusedFor('stream_ended_before_done'));
    assert.throws(() => readChatCompletionStream(ORPHAN_DELTA_STREAM), refusedFor('tool_call_delta_before_its_call'));
    assert.throws(() => readChatCompletionStream(REUSED_INDEX_STREAM), refusedFor('tool_call_index_reused'));
    const turn = readChatCompletionStream(UNCLOSED_ARGUMENTS_STREAM);
    assert.ok(turn.kind === 'tool_calls' && turn.calls[0]?.malformed === true, 'never guessed into arguments');
  });
});

describe('the OpenAI-compatible client with stream: true', () => {
  let server: FakeChatServer;
  before(async () => {
    server = await FakeChatServer.start();
  });
  after(() => server.close());
  const client = () =>
    new OpenAICompatibleClient({ baseUrl: server.baseUrl, model: 'fake-model-1', timeoutMs: 5_000, stream: true });
  const ask = { messages: [{ role: 'user' as const, text: 'Refund order ord_1001.' }], tools: [] };
  const streaming =
    (text: string): Responder =>
    (_request, res) =>
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(text);

  it('asks for a stream and assembles the argument deltas', async () => {
    server.respond(streaming(PARALLEL_TOOL_STREAM));
    const turn = await client().complete(ask);
    assert.equal((server.lastBody() as { stream?: unknown }).stream, true);
    assert.ok(turn.kind === 'tool_calls' && turn.calls.length === 2);
  });

  it('a stream cut in transit is a retryable upstream failure, never a turn', async () => {
    server.respond(streaming(CUT_TOOL_STREAM));
    await assert.rejects(
      client().complete(ask),
      (error: unknown) => isToolError(error) && error.code === 'UPSTREAM_UNAVAILABLE',
    );
  });
});
