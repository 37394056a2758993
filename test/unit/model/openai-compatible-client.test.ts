import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { gzipSync } from 'node:zlib';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { modelResultSchema, type ModelResult } from '../../../src/index.js';
import { toChatCompletionsRequest } from '../../../src/model/chat-completions-request.js';
import {
  OpenAICompatibleClient,
  toAssistantMessage,
  type ModelRequest,
  type ModelToolCall,
  type OpenAICompatibleConfig,
  type OpenAICompatibleDeps,
} from '../../../src/model/index.js';
import { completion, FakeChatServer, json, sendJson } from './fake-chat-server.js';
import { invalidArgumentsResult, orderResult } from './model-results.js';
import { assertHides, toolErrorOf } from './rejections.js';
import { renderModelResult } from '../../../src/adapters/render-model-result.js';

const API_KEY = 'sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0';

const lookupTool = {
  name: 'orders_get',
  description: 'Look up one order by id.',
  parameters: {
    type: 'object',
    properties: { order_id: { type: 'string' } },
    required: ['order_id'],
    additionalProperties: false,
  },
} as const;

const ask = (text = 'What is the total of ord_1001?'): ModelRequest => ({
  messages: [
    { role: 'system', text: 'You answer questions about orders.' },
    { role: 'user', text },
  ],
  tools: [lookupTool],
});

describe('OpenAICompatibleClient against a fake Chat Completions server', () => {
  let server: FakeChatServer;
  let order: ModelResult;
  let invalid: ModelResult;
  const client = (config: Partial<OpenAICompatibleConfig> = {}, deps: OpenAICompatibleDeps = {}) =>
    new OpenAICompatibleClient(
      { baseUrl: server.baseUrl, model: 'fake-model-1', apiKey: API_KEY, timeoutMs: 5_000, ...config },
      deps,
    );

  before(async () => {
    server = await FakeChatServer.start();
    order = await orderResult();
    invalid = await invalidArgumentsResult();
    assert.equal(invalid.error?.code, 'INVALID_ARGUMENTS');
  });
  after(() => server.close());
  beforeEach(() => server.reset());

  describe('answers', () => {
    it('returns a final answer with the response id, usage and stop reason', async () => {
      server.respond(json(completion({ content: 'The total is 35.00.' })));
      const response = await client().complete(ask());
      assert.deepEqual(response, {
        kind: 'final',
        responseId: 'chatcmpl-fake-1',
        stopReason: 'stop',
        usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
        text: 'The total is 35.00.',
        refusal: null,
      });
    });

    it('posts to {baseUrl}/chat/completions with the key as a bearer token and the exact body', async () => {
      server.respond(json(completion({ content: 'ok' })));
      await client().complete(ask());
      const [request] = server.requests;
      assert.equal(request?.method, 'POST');
      assert.equal(request?.path, '/v1/chat/completions');
      assert.equal(request?.headers.authorization, `Bearer ${API_KEY}`);
      assert.match(request?.headers['content-type'] ?? '', /^application\/json/);
      assert.deepEqual(server.lastBody(), {
        model: 'fake-model-1',
        messages: [
          { role: 'system', content: 'You answer questions about orders.' },
          { role: 'user', content: 'What is the total of ord_1001?' },
        ],
        tools: [{ type: 'function', function: lookupTool }],
      });
    });

    it('sends the whole conversation: assistant tool calls verbatim, then role "tool" messages with tool_call_id', async () => {
      const calls: ModelToolCall[] = [
        {
          callId: 'call_a',
          name: 'orders_get',
          malformed: false,
          arguments: { order_id: 'ord_1001' },
          rawArguments: '{"order_id": "ord_1001"}',
        },
        {
          callId: 'call_b',
          name: 'orders_get',
          malformed: true,
          reason: 'invalid_json',
          rawArguments: '{"order_id": ',
        },
      ];
      const request: ModelRequest = {
        messages: [
          ...ask().messages,
          { role: 'assistant', text: 'Looking it up.', calls },
          { role: 'tool', callId: 'call_a', name: 'orders_get', result: order },
          { role: 'tool', callId: 'call_b', name: 'orders_get', result: invalid },
        ],
        tools: [{ ...lookupTool, strict: true }],
        settings: {
          temperature: 0,
          maxOutputTokens: 256,
          toolChoice: { name: 'orders_get' },
          parallelToolCalls: true,
          seed: 7,
        },
      };
      server.respond(json(completion({ content: 'ok' })));
      await client().complete(request);
      assert.deepEqual(server.lastBody(), {
        model: 'fake-model-1',
        messages: [
          { role: 'system', content: 'You answer questions about orders.' },
          { role: 'user', content: 'What is the total of ord_1001?' },
          {
            role: 'assistant',
            content: 'Looking it up.',
            tool_calls: [
              {
                id: 'call_a',
                type: 'function',
                function: { name: 'orders_get', arguments: '{"order_id": "ord_1001"}' },
              },
              { id: 'call_b', type: 'function', function: { name: 'orders_get', arguments: '{"order_id": ' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_a', content: renderModelResult(order).text },
          { role: 'tool', tool_call_id: 'call_b', content: renderModelResult(invalid).text },
        ],
        tools: [{ type: 'function', function: { ...lookupTool, strict: true } }],
        parallel_tool_calls: true,
        tool_choice: { type: 'function', function: { name: 'orders_get' } },
        temperature: 0,
        max_completion_tokens: 256,
        seed: 7,
      });
      // Only the model projection travels: the tool message is the model result, nothing else.
      const toolMessage = (server.lastBody() as { messages: { content: string }[] }).messages[3];
      assert.ok(modelResultSchema.safeParse(JSON.parse(toolMessage?.content ?? 'null')).success);
    });

    it('uses the injected tool-result renderer, the max_tokens field and a per-request model when configured', async () => {
      const rendered: ModelResult[] = [];
      const renderToolResult = (result: ModelResult) => {
        rendered.push(result);
        return `rendered:${result.tool}`;
      };
      server.respond(json(completion({ content: 'ok' })));
      await client({ maxTokensField: 'max_tokens' }, { renderToolResult }).complete({
        messages: [
          { role: 'user', text: 'hi' },
          {
            role: 'assistant',
            text: null,
            calls: [{ callId: 'c1', name: 'orders_get', malformed: false, arguments: {}, rawArguments: '{}' }],
          },
          { role: 'tool', callId: 'c1', name: 'orders_get', result: order },
        ],
        tools: [],
        settings: { model: 'other-model', maxOutputTokens: 64, parallelToolCalls: false },
      });
      assert.deepEqual(rendered, [order]);
      assert.deepEqual(server.lastBody(), {
        model: 'other-model',
        messages: [
          { role: 'user', content: 'hi' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'orders_get', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'rendered:orders.get' },
        ],
        // No tools: no `tools` and no `parallel_tool_calls`, which providers refuse without tools.
        max_tokens: 64,
      });
    });

    it('keeps a query string of the base URL and sends extra headers, the key still in Authorization', async () => {
      server.respond(json(completion({ content: 'ok' })));
      await client({
        baseUrl: `${server.baseUrl}/?api-version=2025-01-01`,
        headers: { 'x-gateway-route': 'eu', Authorization: 'Bearer not-this-one' },
      }).complete(ask());
      const [request] = server.requests;
      assert.equal(request?.path, '/v1/chat/completions?api-version=2025-01-01');
      assert.equal(request?.headers['x-gateway-route'], 'eu');
      assert.equal(request?.headers.authorization, `Bearer ${API_KEY}`);
    });

    it('sends no Authorization header when no key is configured (local servers)', async () => {
      server.respond(json(completion({ content: 'ok' })));
      await new OpenAICompatibleClient({ baseUrl: server.baseUrl, model: 'local' }).complete(ask());
      assert.equal(server.requests[0]?.headers.authorization, undefined);
    });

    it('returns parallel tool calls with parsed arguments and the raw text kept for the transcript', async () => {
      server.respond(
        json(
          completion({
            calls: [
              { id: 'call_1', name: 'orders_get', arguments: '{"order_id":"ord_1001"}' },
              { id: 'call_2', name: 'orders_get', arguments: '{ "order_id": "ord_1002" }' },
            ],
          }),
        ),
      );
      const response = await client().complete(ask());
      assert.equal(response.kind, 'tool_calls');
      assert.equal(response.stopReason, 'tool_calls');
      assert.deepEqual(response.kind === 'tool_calls' ? response.calls : null, [
        {
          callId: 'call_1',
          name: 'orders_get',
          malformed: false,
          arguments: { order_id: 'ord_1001' },
          rawArguments: '{"order_id":"ord_1001"}',
        },
        {
          callId: 'call_2',
          name: 'orders_get',
          malformed: false,
          arguments: { order_id: 'ord_1002' },
          rawArguments: '{ "order_id": "ord_1002" }',
        },
      ]);
      assert.deepEqual(toAssistantMessage(response), {
        role: 'assistant',
        text: null,
        calls: response.kind === 'tool_calls' ? response.calls : [],
      });
    });

    it('reads 50 parallel calls in order, unknown tool names included (the registry, not the client, refuses those)', async () => {
      const calls = Array.from({ length: 50 }, (_, i) => ({
        id: `call_${i}`,
        name: i === 49 ? 'no_such_tool' : 'orders_get',
        arguments: `{"order_id":"ord_${i}"}`,
      }));
      server.respond(json(completion({ calls })));
      const response = await client().complete(ask());
      assert.ok(response.kind === 'tool_calls');
      assert.deepEqual(
        response.calls.map((call) => [call.callId, call.name, call.malformed ? null : call.arguments.order_id]),
        calls.map((call, i) => [call.id, call.name, `ord_${i}`]),
      );
      // The turn is plain JSON: it survives Temporal's payload conversion unchanged.
      assert.deepEqual(JSON.parse(JSON.stringify(response)), response);
    });

    it('treats an unreadable usage block as unknown rather than failing the turn', async () => {
      server.respond(json({ ...completion({ content: 'ok' }), usage: { prompt_tokens: 'many' } }));
      const response = await client().complete(ask());
      assert.deepEqual([response.kind, response.usage], ['final', null]);
    });

    it('marks malformed tool-call arguments as malformed, with no arguments a tool could run with', async () => {
      const raw = [
        '{"order_id": "ord_1',
        '["ord_1001"]',
        '"ord_1001"',
        'null',
        '{"__proto__": {"admin": true}}',
        '{"a":"\\ud800"}',
      ];
      server.respond(
        json(
          completion({
            calls: [
              ...raw.map((args, i) => ({ id: `bad_${i}`, name: 'orders_get', arguments: args })),
              { id: 'good', name: 'orders_get', arguments: '{"order_id":"ord_1001"}' },
            ],
          }),
        ),
      );
      const response = await client().complete(ask());
      assert.ok(response.kind === 'tool_calls');
      const bad = response.calls.slice(0, raw.length);
      assert.deepEqual(
        bad.map((call) => (call.malformed ? call.reason : 'parsed')),
        ['invalid_json', 'not_an_object', 'not_an_object', 'not_an_object', 'unsafe_json', 'unsafe_json'],
      );
      assert.deepEqual(
        bad.map((call) => call.rawArguments),
        raw,
      );
      for (const call of bad)
        assert.ok(!('arguments' in call), `malformed call ${call.callId} must carry no arguments`);
      assert.equal(response.calls[raw.length]?.malformed, false);
    });

    it('reports a cut-off answer (finish_reason length) and a refusal', async () => {
      server.respond(
        json(completion({ content: 'The total is', finishReason: 'length' })),
        json(completion({ content: null, refusal: 'I cannot help with that.' })),
      );
      const cut = await client().complete(ask());
      assert.equal(cut.stopReason, 'length');
      const refused = await client().complete(ask());
      assert.deepEqual(refused.kind === 'final' ? [refused.text, refused.refusal] : null, [
        '',
        'I cannot help with that.',
      ]);
    });

    it('maps finish reasons it does not know, or none, to "other"', async () => {
      const base = completion({ content: 'ok' });
      const withReason = (finish: unknown) => ({ ...base, choices: [{ ...base.choices[0], finish_reason: finish }] });
      server.respond(json(withReason('content_filter')), json(withReason('eos_token')), json(withReason(null)));
      const reasons = [];
      for (let i = 0; i < 3; i++) reasons.push((await client().complete(ask())).stopReason);
      assert.deepEqual(reasons, ['content_filter', 'other', 'other']);
    });

    it('treats tool calls as tool calls even when a local server says finish_reason "stop"', async () => {
      server.respond(
        json(completion({ calls: [{ id: 'c', name: 'orders_get', arguments: '{}' }], finishReason: 'stop' })),
      );
      assert.equal((await client().complete(ask())).kind, 'tool_calls');
    });

    it('accepts a compressed body whose Content-Length describes the compressed bytes', async () => {
      server.respond((_req, res) => {
        const bytes = gzipSync(Buffer.from(JSON.stringify(completion({ content: 'compressed' }))));
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'content-length': String(bytes.byteLength),
        });
        res.end(bytes);
      });
      const response = await client().complete(ask());
      assert.equal(response.kind === 'final' ? response.text : null, 'compressed');
    });
  });

  describe('catalogued errors', () => {
    it('refuses duplicate call ids in one response (PROTOCOL_ERROR)', async () => {
      server.respond(
        json(
          completion({
            calls: [
              { id: 'call_1', name: 'orders_get', arguments: '{"order_id":"ord_1001"}' },
              { id: 'call_1', name: 'payments_refund', arguments: '{"order_id":"ord_1001"}' },
            ],
          }),
        ),
      );
      const error = await toolErrorOf(client().complete(ask()));
      assert.equal(error.code, 'PROTOCOL_ERROR');
      assert.equal(error.details.reason, 'duplicate_call_id');
    });

    it('maps 401 and 403 to PERMISSION_DENIED, and never repeats the key even when the provider echoes it', async () => {
      const echo = {
        error: { message: `Incorrect API key provided: ${API_KEY}`, type: 'invalid_request_error', code: API_KEY },
      };
      const partial = { error: { type: 'invalid_request_error', code: API_KEY.slice(8, 30) } };
      const shaped = { error: { type: 'invalid_request_error', code: 'sk-proj-abcdefghijklmnopqrstuvwxyz012345' } };
      server.respond(json(echo, 401), json(echo, 403), json(partial, 401), json(shaped, 401));
      for (let i = 0; i < 4; i++) {
        const error = await toolErrorOf(client().complete(ask()));
        assert.equal(error.code, 'PERMISSION_DENIED');
        assert.equal(error.details.provider_error_type, 'invalid_request_error');
        assert.equal(error.details.provider_error_code, undefined);
        assertHides(error, API_KEY);
        assertHides(error, API_KEY.slice(8, 30));
        assertHides(error, 'sk-proj-abcdefghijklmnopqrstuvwxyz012345');
      }
      assert.equal(server.requests.length, 4);
    });

    it('maps 429 to RATE_LIMITED with the wait from Retry-After, retry-after-ms or an HTTP date', async () => {
      const now = Date.parse('2026-11-30T12:00:00.000Z');
      server.respond(
        json({ error: { type: 'rate_limit_error', code: 'rate_limit_exceeded' } }, 429, { 'retry-after': '7' }),
        json({ error: { type: 'rate_limit_error' } }, 429, { 'retry-after-ms': '1500', 'retry-after': '2' }),
        json({ error: { type: 'rate_limit_error' } }, 429, { 'retry-after': 'Mon, 30 Nov 2026 12:00:30 GMT' }),
      );
      const errors = [];
      for (let i = 0; i < 3; i++) errors.push(await toolErrorOf(client({}, { now: () => now }).complete(ask())));
      assert.deepEqual(
        errors.map((e) => [e.code, e.retryAfterMs]),
        [
          ['RATE_LIMITED', 7_000],
          ['RATE_LIMITED', 1_500],
          ['RATE_LIMITED', 30_000],
        ],
      );
      assert.equal(errors[0]?.details.provider_error_code, 'rate_limit_exceeded');
    });

    it('maps 500, 502, 503, 504, 408 and 409 to UPSTREAM_UNAVAILABLE (retryable: a completion has no side effect)', async () => {
      const statuses = [500, 502, 503, 504, 408, 409];
      server.respond(
        ...statuses.map((status) =>
          json({ error: { type: 'server_error' } }, status, status === 503 ? { 'retry-after': '3' } : {}),
        ),
      );
      const errors = [];
      for (let i = 0; i < statuses.length; i++) errors.push(await toolErrorOf(client().complete(ask())));
      assert.deepEqual(
        errors.map((e) => [e.code, e.details.http_status]),
        statuses.map((status) => ['UPSTREAM_UNAVAILABLE', status]),
      );
      assert.equal(errors[2]?.retryAfterMs, 3_000);
    });

    it('keeps the protocol layer mapping for other statuses (400 → INVALID_ARGUMENTS, 404 → NOT_FOUND)', async () => {
      server.respond(
        json({ error: { type: 'invalid_request_error', code: 'context_length_exceeded' } }, 400),
        json({ error: { code: 'model_not_found' } }, 404),
      );
      const badRequest = await toolErrorOf(client().complete(ask()));
      assert.deepEqual(
        [badRequest.code, badRequest.details.provider_error_code],
        ['INVALID_ARGUMENTS', 'context_length_exceeded'],
      );
      assert.equal((await toolErrorOf(client().complete(ask()))).code, 'NOT_FOUND');
    });

    it('gives up on a slow response at the deadline (UPSTREAM_UNAVAILABLE, reason timeout)', async () => {
      server.respond((_req, res) => {
        setTimeout(() => sendJson(res, 200, completion({ content: 'too late' })), 3_000).unref();
      });
      const started = performance.now();
      const error = await toolErrorOf(client({ timeoutMs: 200 }).complete(ask()));
      assert.deepEqual([error.code, error.details.reason], ['UPSTREAM_UNAVAILABLE', 'timeout']);
      assert.ok(performance.now() - started < 2_000, 'the client waited for the slow server');
      assertHides(error, API_KEY);
    });

    it('applies the deadline to a body that stalls after the headers', async () => {
      server.respond((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"id":"chatcmpl-1",');
      });
      const error = await toolErrorOf(client({ timeoutMs: 200 }).complete(ask()));
      assert.deepEqual([error.code, error.details.reason], ['UPSTREAM_UNAVAILABLE', 'timeout']);
    });

    it("passes the caller's cancellation through unchanged", async () => {
      server.respond((_req, res) => {
        setTimeout(() => sendJson(res, 200, completion({ content: 'too late' })), 3_000).unref();
      });
      const controller = new AbortController();
      const reason = new Error('activity cancelled');
      setTimeout(() => controller.abort(reason), 100);
      await assert.rejects(client().complete(ask(), { signal: controller.signal }), (error) => error === reason);
    });

    it('refuses an HTML page served with 200 (PROTOCOL_ERROR)', async () => {
      server.respond((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<html><body>Please sign in</body></html>');
      });
      assert.equal((await toolErrorOf(client().complete(ask()))).code, 'PROTOCOL_ERROR');
    });

    it('refuses a body cut off in transit (UPSTREAM_UNAVAILABLE, retryable) and half a document sent as complete (PROTOCOL_ERROR)', async () => {
      const text = JSON.stringify(completion({ content: 'The total is 35.00.' }));
      server.respond(
        (_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
          res.write(text.slice(0, 40));
          setTimeout(() => res.socket?.destroy(), 20);
        },
        (_req, res) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(text.slice(0, 40));
        },
      );
      const cut = await toolErrorOf(client().complete(ask()));
      assert.deepEqual([cut.code, cut.details.reason], ['UPSTREAM_UNAVAILABLE', 'body_interrupted']);
      assert.equal((await toolErrorOf(client().complete(ask()))).code, 'PROTOCOL_ERROR');
    });

    it('refuses JSON that is not a Chat Completion, or calls that are not function calls (PROTOCOL_ERROR)', async () => {
      const customCall = completion({ content: null });
      const hostile = {
        ...customCall,
        choices: [
          {
            ...customCall.choices[0],
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'c', type: 'custom', custom: { name: 'x', input: 'y' } }],
            },
          },
        ],
      };
      server.respond(
        json({ error: { message: 'quota' } }),
        json({ id: 'x', choices: [] }),
        json(hostile),
        json(['not', 'an', 'object']),
      );
      for (let i = 0; i < 4; i++) assert.equal((await toolErrorOf(client().complete(ask()))).code, 'PROTOCOL_ERROR');
    });

    it('refuses a body over the size limit (PROTOCOL_ERROR)', async () => {
      server.respond(json(completion({ content: 'x'.repeat(10_000) })));
      assert.equal((await toolErrorOf(client({ maxResponseBytes: 2_048 }).complete(ask()))).code, 'PROTOCOL_ERROR');
    });

    it('never follows a redirect, so the key cannot travel to another origin (PROTOCOL_ERROR)', async () => {
      const elsewhere: string[] = [];
      const other = createServer((req, res) => {
        elsewhere.push(req.headers.authorization ?? '');
        sendJson(res, 200, completion({ content: 'hijacked' }));
      });
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      try {
        const target = `http://127.0.0.1:${(other.address() as AddressInfo).port}/v1/chat/completions`;
        server.respond((_req, res) => {
          res.writeHead(307, { location: target });
          res.end();
        });
        assert.equal((await toolErrorOf(client().complete(ask()))).code, 'PROTOCOL_ERROR');
        assert.deepEqual(elsewhere, []);
      } finally {
        other.closeAllConnections();
        await new Promise<void>((resolve) => other.close(() => resolve()));
      }
    });

    it('maps a refused connection to UPSTREAM_UNAVAILABLE without the key in any error text', async () => {
      const closed = await FakeChatServer.start();
      const baseUrl = closed.baseUrl;
      await closed.close();
      const error = await toolErrorOf(client({ baseUrl }).complete(ask()));
      assert.deepEqual([error.code, error.details.reason], ['UPSTREAM_UNAVAILABLE', 'connection_failed']);
      assertHides(error, API_KEY);
    });

    it('refuses a tool result that cannot be rendered, before sending anything (INVALID_ARGUMENTS)', async () => {
      const notJson = { ...order, data: { amount: Number.NaN } } as ModelResult;
      const request: ModelRequest = {
        messages: [
          { role: 'user', text: 'hi' },
          {
            role: 'assistant',
            text: null,
            calls: [{ callId: 'c1', name: 'orders_get', malformed: false, arguments: {}, rawArguments: '{}' }],
          },
          { role: 'tool', callId: 'c1', name: 'orders_get', result: notJson },
        ],
        tools: [],
      };
      const error = await toolErrorOf(client().complete(request));
      assert.deepEqual([error.code, error.details.reason], ['INVALID_ARGUMENTS', 'unrenderable_tool_result']);
      assert.equal(server.requests.length, 0);
    });

    it('refuses a conversation whose tool results do not pair with calls, before sending anything (INVALID_ARGUMENTS)', async () => {
      const unanswered: ModelRequest = {
        messages: [
          { role: 'user', text: 'hi' },
          {
            role: 'assistant',
            text: null,
            calls: [{ callId: 'c1', name: 'orders_get', malformed: false, arguments: {}, rawArguments: '{}' }],
          },
          { role: 'user', text: 'and?' },
        ],
        tools: [],
      };
      const orphan: ModelRequest = {
        messages: [
          { role: 'user', text: 'hi' },
          { role: 'tool', callId: 'c9', name: 'orders_get', result: order },
        ],
        tools: [],
      };
      for (const request of [unanswered, orphan])
        assert.equal((await toolErrorOf(client().complete(request))).code, 'INVALID_ARGUMENTS');
      assert.equal(server.requests.length, 0);
    });
  });

  describe('configuration', () => {
    it('refuses a bad configuration with INVALID_ARGUMENTS and without echoing the key', () => {
      const bad: unknown[] = [
        { baseUrl: 'ftp://example.com', model: 'm', apiKey: API_KEY },
        { baseUrl: 'not a url', model: 'm', apiKey: API_KEY },
        { baseUrl: 'http://user:pw@127.0.0.1/v1', model: 'm', apiKey: API_KEY },
        { baseUrl: 'http://127.0.0.1/v1', model: '', apiKey: API_KEY },
        { baseUrl: 'http://127.0.0.1/v1', model: 'm', apiKey: API_KEY, timeoutMs: -1 },
        { baseUrl: 'http://127.0.0.1/v1', model: 'm', apiKey: API_KEY, extra: API_KEY },
      ];
      for (const config of bad) {
        let caught: unknown;
        try {
          new OpenAICompatibleClient(config as OpenAICompatibleConfig);
        } catch (error) {
          caught = error;
        }
        assert.equal(
          (caught as { code?: unknown } | undefined)?.code,
          'INVALID_ARGUMENTS',
          JSON.stringify(config).replace(API_KEY, '<key>'),
        );
        assertHides(caught, API_KEY);
      }
    });

    it('keeps the key out of the client object itself', () => {
      const c = client({ headers: { 'x-secret-header': 'hdr-secret-123456' } });
      for (const text of [JSON.stringify(c), inspect(c, { depth: 10, showHidden: true })]) {
        assert.ok(!text.includes(API_KEY));
        assert.ok(!text.includes('hdr-secret-123456'));
      }
    });
  });
});

describe('Chat Completions wire types', () => {
  it('builds a request body the official openai SDK types accept', async () => {
    const result = await orderResult();
    const body = toChatCompletionsRequest(
      {
        messages: [
          { role: 'system', text: 's' },
          { role: 'user', text: 'u' },
          {
            role: 'assistant',
            text: null,
            calls: [{ callId: 'c', name: 'orders_get', malformed: true, reason: 'invalid_json', rawArguments: '{' }],
          },
          { role: 'tool', callId: 'c', name: 'orders_get', result },
        ],
        tools: [lookupTool],
        settings: { toolChoice: 'required', maxOutputTokens: 10 },
      },
      { model: 'm', maxTokensField: 'max_completion_tokens', renderToolResult: () => 'rendered' },
    );
    // Compile-time check: the body is assignable to the SDK's request type.
    const typed: ChatCompletionCreateParamsNonStreaming = body;
    assert.equal(typed.tool_choice, 'required');
    assert.deepEqual(typed.messages[3], { role: 'tool', tool_call_id: 'c', content: 'rendered' });
  });
});
