// Arguments that make the Temporal side's own parsing throw, on the real stack (dev server, Postgres, worker): a
// schema transform that throws on the model's value, one that throws only after the call was prepared, a lone
// surrogate, and business idempotency keys that throw, run unbounded or split a surrogate pair. Each call ends as
// its catalogued result, recorded in Postgres, and the workflow — a batch of calls, and the agent loop — goes on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';

import { AGENT_LOOP_WORKFLOW_TYPE, AGENT_TRANSCRIPT_QUERY } from '../../../src/wire/names.js';
import type {
  AgentLoopInput,
  AgentLoopResult,
  BatchCallRequest,
  CorrelatedResult,
  ModelMessage,
} from '../../../workflows/index.js';
import { TOOLS } from '../../../testkit/payment-tools.js';
import { historyText } from '../../support/history-text.js';
import { useRuntimeHarness } from '../../support/use-runtime-harness.js';
import { assertValidModelResult } from './stack.js';
import { defineTool } from '../../../testkit/define-tool.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };

/** The tool: its input schema normalises a URL with `new URL`, which throws on anything else. */
const normalize = defineTool({
  name: 'urls.normalize',
  description: 'Normalise a URL.',
  input: z.strictObject({ url: z.string().transform((url) => new URL(url).href) }),
  output: z.strictObject({ href: z.string() }),
  effect: 'read',
  source: { label: 'urls', type: 'computed' },
  handler: (args) => Promise.resolve({ data: { href: args.url } }),
});

/** A schema that accepts the call when it is prepared and throws every time after (an intermittent lookup). */
let flakyParses = 0;
const flaky = defineTool({
  name: 'urls.flaky',
  description: 'Resolve a short link.',
  input: z.strictObject({
    url: z.string().transform((url) => {
      flakyParses += 1;
      if (flakyParses > 1) throw new TypeError('resolver unavailable');
      return url;
    }),
  }),
  output: z.strictObject({ href: z.string() }),
  effect: 'read',
  source: { label: 'urls', type: 'computed' },
  handler: (args) => Promise.resolve({ data: { href: args.url } }),
});

/** A write whose business key is an argument: as the model sent it, unbounded or not even text. */
const place = defineTool({
  name: 'orders.place',
  description: 'Place an order.',
  input: z.strictObject({ ref: z.string(), scope: z.string().optional() }),
  output: z.strictObject({ order_id: z.string() }),
  effect: 'write',
  source: { label: 'orders', type: 'http_api' },
  businessKey: ['ref'],
  handler: (args) => Promise.resolve({ data: { order_id: `o-${args.ref}` }, receipt: { externalId: `o-${args.ref}` } }),
});

const stack = useRuntimeHarness('rel-arguments', { extraTools: [normalize, flaky, place] });

/**
 * What each call should end with, and how far it got: refused in workflow code (its business key cannot be read from
 * its arguments), refused by its tool activity before the handler, or run.
 */
const BATCH: readonly (BatchCallRequest & {
  readonly expect: { code: string | null; ran: boolean; reached: 'workflow' | 'activity' };
})[] = [
  {
    callId: 'bad-url',
    name: normalize.name,
    args: { url: 'not a url' },
    expect: { code: 'INVALID_ARGUMENTS', ran: false, reached: 'activity' },
  },
  {
    callId: 'good-url',
    name: normalize.name,
    args: { url: 'HTTPS://Example.com' },
    expect: { code: null, ran: true, reached: 'activity' },
  },
  // The interceptor's request digest and the funnel meet the throwing schema.
  {
    callId: 'flaky',
    name: flaky.name,
    args: { url: 'https://t.example/x' },
    expect: { code: 'INVALID_ARGUMENTS', ran: true, reached: 'activity' },
  },
  {
    callId: 'lone-surrogate',
    name: TOOLS.customer,
    args: { customer_id: 'cus_\ud800' },
    expect: { code: 'INVALID_ARGUMENTS', ran: false, reached: 'activity' },
  },
  {
    callId: 'key-not-text',
    name: place.name,
    args: { ref: 'a\ud800' },
    expect: { code: 'INVALID_ARGUMENTS', ran: false, reached: 'workflow' },
  },
  {
    callId: 'key-unbounded',
    name: place.name,
    args: { ref: 'r'.repeat(5_000) },
    expect: { code: 'TOOL_ERROR', ran: false, reached: 'activity' },
  },
  {
    callId: 'healthy-read',
    name: TOOLS.customer,
    args: { customer_id: 'cus_1' },
    expect: { code: null, ran: true, reached: 'activity' },
  },
  {
    callId: 'healthy-write',
    name: place.name,
    args: { ref: 'ok-1' },
    expect: { code: null, ran: true, reached: 'activity' },
  },
];

test(
  'a batch of calls whose arguments, schemas or keys throw: every call catalogued and audited, the workflow completes',
  { timeout: 180_000 },
  async () => {
    const { client } = stack.temporal;
    const calls = BATCH.map(({ expect: _expect, ...call }) => call);
    const results = (await client.workflow.execute('runToolCalls', {
      taskQueue: stack.taskQueue,
      workflowId: 'arguments-batch',
      args: [calls, { principal, readAttempts: 1 }],
    })) as CorrelatedResult[];
    assert.deepEqual(
      results.map((result) => result.callId),
      BATCH.map((call) => call.callId),
    );
    for (const [i, call] of BATCH.entries()) {
      const { modelResult, auditRef } = results[i]!;
      assertValidModelResult(modelResult, call.callId!);
      assert.equal(
        modelResult.error?.code ?? null,
        call.expect.code,
        `${call.callId}: ${JSON.stringify(modelResult.error)}`,
      );
      if (call.expect.code !== null)
        assert.equal(modelResult.execution.outcome, 'not_started', `${call.callId}: nothing ran`);
      assert.ok(auditRef !== null, `${call.callId}: audited`);
      const stored = await stack.store.getAudit(auditRef.audit_id);
      assert.deepEqual(stored?.modelResult, modelResult, `${call.callId}: the workflow got exactly the audited result`);
    }
    assert.equal((results[1]!.modelResult.data as { href: string }).href, 'https://example.com/');

    // A call whose key cannot be read never reaches a tool activity; every other call does, and its activity refuses
    // what must not run before the handler.
    const history = await client.workflow.getHandle('arguments-batch').fetchHistory();
    const scheduled = (history.events ?? []).flatMap((event) => {
      const type = event.activityTaskScheduledEventAttributes?.activityType?.name;
      return type === undefined || type === null ? [] : [type];
    });
    const reached = BATCH.filter((call) => call.expect.reached === 'activity').map((call) => call.name);
    assert.deepEqual(scheduled.filter((type) => !type.startsWith('ttc.')).sort(), [...reached].sort());
    const { text } = await historyText(client, 'arguments-batch');
    assert.ok(text.includes('INVALID_ARGUMENTS'), 'the history holds the results');
    assert.deepEqual(await stack.replay(['arguments-batch']), []);
  },
);

test(
  'the agent loop goes on after a call whose schema throws on the model’s argument',
  { timeout: 180_000 },
  async () => {
    const input: AgentLoopInput = {
      goal: 'Normalise the link the customer sent.',
      allowedTools: [normalize.name],
      model: {
        kind: 'scripted',
        script: {
          scriptId: 'arguments',
          turns: [
            { kind: 'tool_calls', calls: [{ name: normalize.name, arguments: { url: 'not a url' } }] },
            { kind: 'tool_calls', calls: [{ name: normalize.name, arguments: { url: 'https://example.com/a' } }] },
            { kind: 'final', text: 'The link is https://example.com/a.' },
          ],
        },
      },
      maxTurns: 5,
      principal,
    };
    const handle = await stack.temporal.client.workflow.start(AGENT_LOOP_WORKFLOW_TYPE, {
      taskQueue: stack.taskQueue,
      workflowId: 'arguments-agent',
      args: [input],
    });
    const result = (await handle.result()) as AgentLoopResult;
    assert.equal(result.status, 'final');
    assert.equal(result.toolCalls, 2);
    const transcript = await handle.query<ModelMessage[]>(AGENT_TRANSCRIPT_QUERY);
    const toolResults = transcript.flatMap((message) => (message.role === 'tool' ? [message.result] : []));
    assert.deepEqual(
      toolResults.map((r) => r.error?.code ?? r.status),
      ['INVALID_ARGUMENTS', 'succeeded'],
    );
    assert.equal(toolResults[0]!.error?.recovery, 'correct_input', 'the model is told to correct its input');
    assert.deepEqual(await stack.replay(['arguments-agent']), []);
  },
);
