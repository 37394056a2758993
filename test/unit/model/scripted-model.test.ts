import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../../testkit/project-root.js';
import type { ModelResult } from '../../../src/index.js';
import {
  ScriptedModel,
  toAssistantMessage,
  type ModelMessage,
  type ModelRequest,
  type ModelResponse,
  type ScriptedModelConfig,
} from '../../../src/model/index.js';
import { orderResult } from './model-results.js';
import { thrownToolError, toolErrorOf } from './rejections.js';

const tools: ModelRequest['tools'] = [
  { name: 'orders_get', description: 'Look up one order.', parameters: { type: 'object' } },
];

/** Look an order up, refund what the lookup returned, then answer citing the evidence. */
const script: ScriptedModelConfig = {
  scriptId: 'refund-demo',
  turns: [
    {
      kind: 'tool_calls',
      text: 'Looking it up.',
      calls: [{ name: 'orders_get', arguments: { order_id: 'ord_1001' } }],
    },
    {
      kind: 'tool_calls',
      calls: [
        {
          name: 'payments_refund',
          callId: 'refund-1',
          arguments: {
            order_id: { $result: { tool: 'orders_get', pointer: '/data/id' } },
            amount_cents: { $result: { tool: 'orders_get', pointer: '/data/total_cents' } },
          },
        },
      ],
    },
    { kind: 'final', text: 'Refunded the order {{evidence:orders_get}}. All evidence: {{evidence}}' },
  ],
};

const start: ModelMessage[] = [{ role: 'user', text: 'Refund ord_1001.' }];

/** Answers every call of `response` with `result`. */
function answer(response: ModelResponse, result: ModelResult): ModelMessage[] {
  assert.equal(response.kind, 'tool_calls');
  const calls = response.kind === 'tool_calls' ? response.calls : [];
  return [
    toAssistantMessage(response),
    ...calls.map((call) => ({ role: 'tool' as const, callId: call.callId, name: call.name, result })),
  ];
}

describe('ScriptedModel', () => {
  let order: ModelResult;
  before(async () => {
    order = await orderResult();
  });

  it('plays the script turn by turn, resolving references to earlier results and citing their evidence', async () => {
    const model = new ScriptedModel(script);
    const first = await model.complete({ messages: start, tools });
    assert.deepEqual(first, {
      kind: 'tool_calls',
      responseId: 'refund-demo-turn-0',
      stopReason: 'tool_calls',
      usage: null,
      text: 'Looking it up.',
      calls: [
        {
          callId: 'call_0_0',
          name: 'orders_get',
          malformed: false,
          arguments: { order_id: 'ord_1001' },
          rawArguments: '{"order_id":"ord_1001"}',
        },
      ],
    });
    const afterLookup = [...start, ...answer(first, { ...order, tool: 'orders_get' })];
    const second = await model.complete({ messages: afterLookup, tools });
    assert.deepEqual(second.kind === 'tool_calls' ? second.calls : null, [
      {
        callId: 'refund-1',
        name: 'payments_refund',
        malformed: false,
        arguments: { order_id: 'ord_1001', amount_cents: 3500 },
        rawArguments: '{"order_id":"ord_1001","amount_cents":3500}',
      },
    ]);
    const evidenceId = order.evidence[0]?.evidence_id ?? '';
    assert.match(evidenceId, /^ev_[0-9a-f]{16}$/);
    const refundResult: ModelResult = { ...order, tool: 'payments_refund', evidence: [] };
    const third = await model.complete({ messages: [...afterLookup, ...answer(second, refundResult)], tools });
    assert.deepEqual(third, {
      kind: 'final',
      responseId: 'refund-demo-turn-2',
      stopReason: 'stop',
      usage: null,
      text: `Refunded the order [${evidenceId}]. All evidence: [${evidenceId}]`,
      refusal: null,
    });
  });

  it('plays the script documented in docs/temporal-runtime.md as the text there says', async () => {
    const doc = readFileSync(join(PROJECT_ROOT, 'docs', 'temporal-runtime.md'), 'utf8');
    const block = /### The scripted model's script[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)?.[1];
    assert.ok(block !== undefined, 'the documented script');
    const model = new ScriptedModel(JSON.parse(block) as ScriptedModelConfig);
    const first = await model.complete({ messages: start, tools });
    assert.equal(first.responseId, 'refund-demo-turn-0');
    const afterLookup = [...start, ...answer(first, { ...order, tool: 'orders.get' })];
    const second = await model.complete({ messages: afterLookup, tools });
    assert.deepEqual(
      second.kind === 'tool_calls'
        ? second.calls.map((call): unknown[] => [call.callId, call.name, call.malformed ? null : call.arguments])
        : null,
      [['refund-1', 'refunds.create', { order_id: 'ord_0101', amount_cents: 3500 }]],
    );
    const third = await model.complete({
      messages: [...afterLookup, ...answer(second, { ...order, tool: 'refunds.create', evidence: [] })],
      tools,
    });
    assert.equal(
      third.kind === 'final' ? third.text : null,
      `Your order was refunded [${order.evidence[0]?.evidence_id ?? ''}].`,
    );
  });

  it('cites each evidence id once, in conversation order, and only those of the named tool', async () => {
    const model = new ScriptedModel({
      turns: [
        {
          kind: 'tool_calls',
          calls: [
            { name: 'a', arguments: {} },
            { name: 'b', arguments: {} },
          ],
        },
        { kind: 'final', text: 'all={{evidence}} a={{evidence:a}} c={{evidence:c}}' },
      ],
    });
    const first = await model.complete({ messages: start, tools });
    const calls = first.kind === 'tool_calls' ? first.calls : [];
    const evA = { ...order.evidence[0]!, evidence_id: 'ev_aaaaaaaaaaaaaaaa' };
    const evB = { ...order.evidence[0]!, evidence_id: 'ev_bbbbbbbbbbbbbbbb' };
    const messages: ModelMessage[] = [
      ...start,
      toAssistantMessage(first),
      { role: 'tool', callId: calls[0]!.callId, name: 'a', result: { ...order, tool: 'a', evidence: [evA, evB] } },
      { role: 'tool', callId: calls[1]!.callId, name: 'b', result: { ...order, tool: 'b', evidence: [evB] } },
    ];
    const final = await model.complete({ messages, tools });
    assert.equal(
      final.kind === 'final' ? final.text : null,
      'all=[ev_aaaaaaaaaaaaaaaa] [ev_bbbbbbbbbbbbbbbb] a=[ev_aaaaaaaaaaaaaaaa] [ev_bbbbbbbbbbbbbbbb] c=',
    );
  });

  it('is deterministic: the same conversation gives the same turn, from the same instance or a fresh one built from the JSON config', async () => {
    const fresh = () => new ScriptedModel(JSON.parse(JSON.stringify(script)) as ScriptedModelConfig);
    const model = new ScriptedModel(script);
    const request: ModelRequest = { messages: start, tools };
    const runs = [await model.complete(request), await model.complete(request), await fresh().complete(request)];
    assert.deepEqual(runs[1], runs[0]);
    assert.deepEqual(runs[2], runs[0]);
    // The turn comes from the conversation, not from how often the model was called: a retry replays the same turn.
    const afterLookup = [...start, ...answer(runs[0]!, { ...order, tool: 'orders_get' })];
    assert.deepEqual(
      await fresh().complete({ messages: afterLookup, tools }),
      await model.complete({ messages: afterLookup, tools }),
    );
  });

  it('fails past the end of the script with PROTOCOL_ERROR (script_exhausted)', async () => {
    const model = new ScriptedModel({ turns: [{ kind: 'final', text: 'done' }] });
    const messages: ModelMessage[] = [
      ...start,
      { role: 'assistant', text: 'done', calls: [] },
      { role: 'user', text: 'more?' },
    ];
    const error = await toolErrorOf(model.complete({ messages, tools }));
    assert.equal(error.code, 'PROTOCOL_ERROR');
    assert.deepEqual(error.details, { reason: 'script_exhausted', turn: 1, turns: 1 });
    assert.equal(
      (await toolErrorOf(new ScriptedModel({ turns: [] }).complete({ messages: start, tools }))).code,
      'PROTOCOL_ERROR',
    );
  });

  it('fails on a reference that does not resolve (PROTOCOL_ERROR)', async () => {
    const model = new ScriptedModel({
      turns: [
        {
          kind: 'tool_calls',
          calls: [{ name: 'x', arguments: { id: { $result: { tool: 'orders_get', pointer: '/data/id' } } } }],
        },
      ],
    });
    const error = await toolErrorOf(model.complete({ messages: start, tools }));
    assert.deepEqual([error.code, error.details.reason], ['PROTOCOL_ERROR', 'script_reference_unresolved']);
  });

  it('reads scripted calls like a provider’s: malformed arguments stay malformed, duplicate ids are refused', async () => {
    const model = new ScriptedModel({
      turns: [
        {
          kind: 'tool_calls',
          calls: [
            { name: 'orders_get', rawArguments: '{"order_id": ' },
            { name: 'orders_get', rawArguments: '[1]' },
          ],
        },
      ],
    });
    const response = await model.complete({ messages: start, tools });
    assert.deepEqual(
      response.kind === 'tool_calls'
        ? response.calls.map((call) => [call.malformed, call.malformed ? call.reason : null, 'arguments' in call])
        : null,
      [
        [true, 'invalid_json', false],
        [true, 'not_an_object', false],
      ],
    );
    const duplicates = new ScriptedModel({
      turns: [
        {
          kind: 'tool_calls',
          calls: [
            { name: 'a', callId: 'same', arguments: {} },
            { name: 'b', callId: 'same', arguments: {} },
          ],
        },
      ],
    });
    const error = await toolErrorOf(duplicates.complete({ messages: start, tools }));
    assert.deepEqual([error.code, error.details.reason], ['PROTOCOL_ERROR', 'duplicate_call_id']);
  });

  it('refuses a configuration that is not a valid JSON script (INVALID_ARGUMENTS)', () => {
    const bad: unknown[] = [
      { turns: [{ kind: 'final' }] },
      { turns: [{ kind: 'tool_calls', calls: [] }] },
      { turns: [{ kind: 'tool_calls', calls: [{ name: 'a', arguments: {}, rawArguments: '{}' }] }] },
      { turns: [{ kind: 'final', text: 'x', extra: true }] },
      { turns: [{ kind: 'final', text: () => 'not JSON' }] },
      { turns: [], scriptId: 'has spaces' },
    ];
    for (const config of bad)
      assert.equal(thrownToolError(() => new ScriptedModel(config as ScriptedModelConfig)).code, 'INVALID_ARGUMENTS');
  });

  it('refuses a conversation whose tool results do not pair with calls (INVALID_ARGUMENTS)', async () => {
    const messages: ModelMessage[] = [...start, { role: 'tool', callId: 'nope', name: 'orders_get', result: order }];
    assert.equal(
      (await toolErrorOf(new ScriptedModel(script).complete({ messages, tools }))).code,
      'INVALID_ARGUMENTS',
    );
  });

  it("rejects with the caller's abort reason when already cancelled", async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled');
    controller.abort(reason);
    await assert.rejects(
      new ScriptedModel(script).complete({ messages: start, tools }, { signal: controller.signal }),
      (error) => error === reason,
    );
  });
});
