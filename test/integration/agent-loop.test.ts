import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AGENT_LOOP_WORKFLOW_TYPE,
  AGENT_TRANSCRIPT_QUERY,
  APPROVAL_SIGNAL,
  MODEL_CALL_ACTIVITY,
  PENDING_APPROVALS_QUERY,
} from '../../src/wire/names.js';
import { ToolContractPlugin } from '../../src/temporal/plugin.js';
import type { ModelClient, ModelRequest, ModelResponse } from '../../src/model/index.js';
import { modelResultSchema } from '../../src/contract/model-result.js';
import type { ScriptedModelConfig } from '../../src/model/scripted-model.js';
import {
  agentLoop,
  type AgentLoopInput,
  type AgentLoopResult,
  type ModelMessage,
  type PendingApproval,
} from '../../workflows/index.js';
import { signedApproval, testDecisions } from '../support/decisions.js';
import { eventually } from '../support/eventually.js';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
/** Writes time out after 1.5 s; reconciliation asks every 200–800 ms. */
const toolOptions = {
  timeoutMs: 1500,
  reconcile: { initialIntervalMs: 200, maximumIntervalMs: 800, deadlineMs: 10_000 },
};
const INVENTED = 'ev_0123456789abcdef';
const h = useRuntimeHarness('it-agent-loop', { safeRetryTools: [TOOLS.charge] });
const finished: string[] = [];

function start(
  workflowId: string,
  script: ScriptedModelConfig,
  input: Partial<AgentLoopInput> = {},
  taskQueue = h.taskQueue,
) {
  finished.push(workflowId);
  const args: AgentLoopInput = {
    goal: 'Help customer cus_agent.',
    allowedTools: [TOOLS.customer, TOOLS.refund, TOOLS.charge],
    model: { kind: 'scripted', script },
    maxTurns: 5,
    principal,
    toolOptions,
    ...input,
  };
  return h.temporal.client.workflow.start(AGENT_LOOP_WORKFLOW_TYPE, { taskQueue, workflowId, args: [args] });
}

type ToolMessage = Extract<ModelMessage, { role: 'tool' }>;
const toolMessages = (transcript: ModelMessage[]) => transcript.filter((m): m is ToolMessage => m.role === 'tool');

test('the workflow type constant is the exported workflow function name', () => {
  assert.equal(AGENT_LOOP_WORKFLOW_TYPE, agentLoop.name);
});

test(
  'one run: a read with evidence, a write approved by signal while the loop waits, a committed-then-timed-out write reconciled, and a final answer whose citations are checked',
  { timeout: 180_000 },
  async () => {
    const chargeKeyValue = chargeKey(principal.tenant, 'pay_agent_charge');
    const refundKey = chargeKey(principal.tenant, 'pay_agent_refund', TOOLS.refund);
    h.payments.inject(chargeKeyValue, 'commit_then_hang');
    const handle = await start(
      'agent-main',
      {
        scriptId: 'main',
        turns: [
          { kind: 'tool_calls', calls: [{ name: TOOLS.customer, arguments: { customer_id: 'cus_agent' } }] },
          {
            kind: 'tool_calls',
            text: 'Refunding and charging.',
            calls: [
              {
                name: TOOLS.refund,
                arguments: { payment_id: 'pay_agent_refund', customer: 'cus_agent', amount_cents: 700 },
              },
              {
                name: TOOLS.charge,
                arguments: {
                  payment_id: 'pay_agent_charge',
                  customer: { $result: { tool: TOOLS.customer, pointer: '/data/id' } },
                  amount_cents: 1200,
                },
              },
            ],
          },
          {
            kind: 'final',
            text: `The customer is gold {{evidence:${TOOLS.customer}}}; the charge went through [${INVENTED}].`,
          },
        ],
      },
      // Two turns per run: the final turn runs in a continued run, with the transcript and call counter carried. The
      // answer's invented citation is reported, not asked about: this run is about the calls.
      { turnsPerRun: 2, citationPolicy: 'report' },
    );

    const pending = await eventually(
      'the refund to wait for approval',
      async () => (await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY))[0],
      60_000,
    );
    assert.equal(pending.preview.tool, TOOLS.refund);
    assert.equal(pending.callId, 'agent-call-2', 'loop call ids, not the model call ids, identify the call');
    assert.equal(h.payments.dispatches(refundKey), 0, 'nothing runs before the decision');
    assert.equal(h.payments.dispatches(chargeKeyValue), 0, 'writes run one at a time, in order');
    const waiting = await handle.query<ModelMessage[]>(AGENT_TRANSCRIPT_QUERY);
    assert.deepEqual(
      waiting.map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant'],
    );

    await handle.signal(APPROVAL_SIGNAL, signedApproval(pending));
    const result = (await handle.result()) as AgentLoopResult;

    assert.equal(result.status, 'final');
    assert.equal(result.turns, 3);
    assert.equal(result.toolCalls, 3);
    assert.equal(result.runs, 2, 'the loop continued as new once');
    assert.equal(result.error, null);
    const transcript = await handle.query<ModelMessage[]>(AGENT_TRANSCRIPT_QUERY);
    assert.deepEqual(
      transcript.map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant', 'tool', 'tool', 'assistant'],
    );
    const [read, refund, charge] = toolMessages(transcript);
    assert.ok(read !== undefined && refund !== undefined && charge !== undefined);
    for (const message of [read, refund, charge]) {
      // Model results only: the strict model-result schema refuses any audit or control field.
      assert.ok(modelResultSchema.safeParse(message.result).success, `${message.name} carries a bare model result`);
    }
    assert.deepEqual(
      [read.callId, refund.callId, charge.callId],
      ['call_0_0', 'call_1_0', 'call_1_1'],
      'results are correlated to the model call ids',
    );
    assert.equal(read.result.status, 'succeeded');
    assert.equal(refund.result.status, 'succeeded');
    assert.equal(refund.result.execution.outcome, 'committed');
    assert.equal(charge.result.status, 'succeeded');
    assert.equal(charge.result.execution.delivery, 'receipt_reconciled');
    assert.equal(h.payments.commits(refundKey), 1);
    assert.equal(h.payments.commits(chargeKeyValue), 1);
    assert.equal(h.payments.dispatches(chargeKeyValue), 1, 'the timed-out write was reconciled, never re-dispatched');
    const firstRun = await h.temporal.client.workflow
      .getHandle('agent-main', handle.firstExecutionRunId)
      .fetchHistory();
    assert.ok(
      (firstRun.events ?? []).some((e) => e.activityTaskTimedOutEventAttributes),
      'the charge activity really timed out (in the first run)',
    );
    assert.ok(
      (firstRun.events ?? []).some((e) => e.workflowExecutionContinuedAsNewEventAttributes),
      'the first run continued as new',
    );
    const modelSummaries = (firstRun.events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes?.activityType?.name === MODEL_CALL_ACTIVITY &&
      e.userMetadata?.summary?.data
        ? [Buffer.from(e.userMetadata.summary.data).toString('utf8')]
        : [],
    );
    assert.ok(
      modelSummaries.length > 0 && modelSummaries.every((summary, i) => summary === `"model turn ${i + 1} (scripted)"`),
      `the UI names each model turn: ${modelSummaries.join(', ')}`,
    );

    const readEvidence = read.result.evidence.map((e) => e.evidence_id);
    assert.equal(readEvidence.length, 1);
    assert.ok(result.citations !== null);
    assert.deepEqual(result.citations.valid, readEvidence);
    assert.deepEqual(result.citations.unknown, [INVENTED]);
    assert.equal(result.citations.missing, false);
    const receiptEvidence = [...refund.result.evidence, ...charge.result.evidence].map((e) => e.evidence_id);
    assert.ok(receiptEvidence.length > 0);
    assert.deepEqual([...result.citations.uncited].sort(), [...new Set(receiptEvidence)].sort());
  },
);

test(
  'hostile model output: unknown and not-allowed tools are UNKNOWN_TOOL, bad JSON and non-object arguments are INVALID_ARGUMENTS, none runs; the turn budget ends the loop',
  { timeout: 120_000 },
  async () => {
    const handle = await start(
      'agent-hostile',
      {
        turns: [
          {
            kind: 'tool_calls',
            calls: [
              { name: 'payments.launder', arguments: { amount_cents: 1 } },
              { name: TOOLS.hostile, arguments: { mode: 'throws' } },
              { name: TOOLS.customer, rawArguments: '{"customer_id": ' },
              { name: TOOLS.charge, rawArguments: '["pay_agent_bad"]' },
              { name: TOOLS.customer, arguments: { customer_id: 'cus_ok' } },
            ],
          },
          { kind: 'tool_calls', calls: [{ name: TOOLS.customer, arguments: { customer_id: 'cus_again' } }] },
          { kind: 'final', text: 'never reached' },
        ],
      },
      { maxTurns: 2, allowedTools: [TOOLS.customer, TOOLS.charge] },
    );
    const result = (await handle.result()) as AgentLoopResult;
    assert.equal(result.status, 'turn_budget_exhausted');
    assert.equal(result.answer, null);
    assert.equal(result.citations, null);
    assert.equal(result.turns, 2);
    const results = toolMessages(await handle.query<ModelMessage[]>(AGENT_TRANSCRIPT_QUERY)).map((m) => m.result);
    assert.deepEqual(
      results.map((r) => r.error?.code ?? r.status),
      ['UNKNOWN_TOOL', 'UNKNOWN_TOOL', 'INVALID_ARGUMENTS', 'INVALID_ARGUMENTS', 'succeeded', 'succeeded'],
    );
    for (const refused of results.slice(0, 4)) assert.equal(refused.execution.outcome, 'not_started');
    assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_agent_bad')), 0);
  },
);

test(
  'hostile model output: 50 parallel calls in one response each get exactly one result, correlated by call id',
  { timeout: 180_000 },
  async () => {
    const ids = Array.from({ length: 50 }, (_, i) => `cus_par_${i}`);
    const handle = await start(
      'agent-fifty',
      {
        turns: [
          {
            kind: 'tool_calls',
            calls: ids.map((id, i) => ({
              name: TOOLS.customer,
              callId: `model-call-${i}`,
              arguments: { customer_id: id },
            })),
          },
          { kind: 'final', text: 'done' },
        ],
      },
      // The file's 1.5 s attempt timeout is for its writes; 50 reads at once on a busy machine may each take longer,
      // and this test is about correlation, not about a read timing out three times.
      { toolOptions: { ...toolOptions, timeoutMs: 30_000 } },
    );
    const result = (await handle.result()) as AgentLoopResult;
    assert.equal(result.status, 'final');
    assert.equal(result.toolCalls, 50);
    const messages = toolMessages(await handle.query<ModelMessage[]>(AGENT_TRANSCRIPT_QUERY));
    assert.deepEqual(
      messages.map((m) => m.callId).sort(),
      ids.map((_, i) => `model-call-${i}`).sort(),
      'the result set equals the call set',
    );
    for (const message of messages) {
      const index = Number(message.callId.slice('model-call-'.length));
      assert.equal(message.result.status, 'succeeded', `${message.callId}: ${JSON.stringify(message.result.error)}`);
      assert.equal(
        (message.result.data as { id: string }).id,
        ids[index],
        `result of ${message.callId} belongs to its call`,
      );
    }
  },
);

test(
  'hostile model output: duplicate call ids in one response end the loop as a model error before any tool runs',
  { timeout: 120_000 },
  async () => {
    const handle = await start('agent-duplicate-ids', {
      turns: [
        {
          kind: 'tool_calls',
          calls: [
            {
              name: TOOLS.charge,
              callId: 'same',
              arguments: { payment_id: 'pay_agent_dup', customer: 'cus_1', amount_cents: 100 },
            },
            {
              name: TOOLS.charge,
              callId: 'same',
              arguments: { payment_id: 'pay_agent_dup', customer: 'cus_1', amount_cents: 100 },
            },
          ],
        },
      ],
    });
    const result = (await handle.result()) as AgentLoopResult;
    assert.equal(result.status, 'model_error');
    assert.equal(result.error?.code, 'PROTOCOL_ERROR');
    assert.equal(result.toolCalls, 0);
    assert.deepEqual(
      (await handle.query<ModelMessage[]>(AGENT_TRANSCRIPT_QUERY)).map((m) => m.role),
      ['user'],
    );
    assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_agent_dup')), 0);
  },
);

test(
  'by default an answer stating a returned value without citing it is asked about once; a failed re-ask keeps the first answer',
  { timeout: 120_000 },
  async () => {
    const handle = await start('agent-uncited', {
      turns: [
        { kind: 'tool_calls', calls: [{ name: TOOLS.customer, arguments: { customer_id: 'cus_uncited' } }] },
        // "gold" is the customer's tier as the tool returned it: a claim about tool data, though it has no figure.
        { kind: 'final', text: 'The customer is gold.' },
      ],
    });
    const result = (await handle.result()) as AgentLoopResult;
    assert.equal(result.status, 'final');
    assert.equal(result.answer, 'The customer is gold.', 'the script had no second answer: the first stands');
    assert.equal(result.citations?.missing, true);
    assert.deepEqual(result.citations?.valid, []);
    assert.equal(result.citations?.uncited.length, 1);
    assert.deepEqual(result.citations?.uncitedClaims, [{ sentence: 'The customer is gold.', carries: ['value'] }]);
    const transcript = await handle.query<ModelMessage[]>(AGENT_TRANSCRIPT_QUERY);
    assert.deepEqual(
      transcript.map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant', 'user'],
      'the model was asked again',
    );
  },
);

test(
  "citationPolicy 'ask_again': an answer with an uncited figure goes back to the model once, and its second answer is checked",
  { timeout: 120_000 },
  async () => {
    const uncited = 'The customer cus_ask has spent 1200 cents.';
    const handle = await start(
      'agent-ask-again',
      {
        turns: [
          { kind: 'tool_calls', calls: [{ name: TOOLS.customer, arguments: { customer_id: 'cus_ask' } }] },
          { kind: 'final', text: uncited },
          { kind: 'final', text: `The customer is gold {{evidence:${TOOLS.customer}}}.` },
        ],
      },
      { citationPolicy: 'ask_again' },
    );
    const result = (await handle.result()) as AgentLoopResult;
    assert.equal(result.status, 'final');
    assert.equal(result.turns, 3);
    assert.match(result.answer ?? '', /^The customer is gold \[ev_[0-9a-f]{16}\]\.$/);
    assert.equal(result.citations?.clean, true);
    const transcript = await handle.query<ModelMessage[]>(AGENT_TRANSCRIPT_QUERY);
    assert.deepEqual(
      transcript.map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant', 'user', 'assistant'],
    );
    const followUp = transcript[4];
    assert.ok(
      followUp?.role === 'user' && followUp.text.includes(uncited),
      'the model is told which sentence lacked evidence',
    );
  },
);

test(
  "citationPolicy 'fail': an answer whose report is not clean ends the loop as citations_rejected, answer and report kept",
  { timeout: 120_000 },
  async () => {
    const handle = await start(
      'agent-citations-fail',
      {
        turns: [
          { kind: 'tool_calls', calls: [{ name: TOOLS.customer, arguments: { customer_id: 'cus_fail' } }] },
          { kind: 'final', text: `The customer is gold {{evidence:${TOOLS.customer}}}. They have spent 1200 cents.` },
        ],
      },
      { citationPolicy: 'fail' },
    );
    const result = (await handle.result()) as AgentLoopResult;
    assert.equal(result.status, 'citations_rejected');
    assert.equal(result.turns, 2);
    assert.match(result.answer ?? '', /1200 cents/);
    assert.deepEqual(result.citations?.uncitedClaims, [
      { sentence: 'They have spent 1200 cents.', carries: ['number'] },
    ]);
  },
);

test(
  'a named model registered on the worker sees provider-safe tool names, and its calls are mapped back to contract names',
  { timeout: 120_000 },
  async () => {
    const requests: ModelRequest[] = [];
    const model: ModelClient = {
      complete: async (request): Promise<ModelResponse> => {
        requests.push(request);
        if (requests.length === 1) {
          return {
            kind: 'tool_calls',
            responseId: 'fake-1',
            stopReason: 'tool_calls',
            usage: null,
            text: null,
            calls: [
              {
                callId: 'c1',
                name: 'customers__get',
                malformed: false,
                arguments: { customer_id: 'cus_named' },
                rawArguments: '{"customer_id":"cus_named"}',
              },
            ],
          };
        }
        return { kind: 'final', responseId: 'fake-2', stopReason: 'stop', usage: null, text: 'done', refusal: null };
      },
    };
    const taskQueue = `${h.taskQueue}-named`;
    const named = await h.startWorker({
      taskQueue,
      plugins: [
        new ToolContractPlugin({ tools: h.tools, store: h.store, decisions: testDecisions, models: { fake: model } }),
      ],
    });
    try {
      const handle = await start(
        'agent-named',
        { turns: [] },
        { model: { kind: 'named', name: 'fake' }, allowedTools: [TOOLS.customer] },
        taskQueue,
      );
      const result = (await handle.result()) as AgentLoopResult;
      assert.equal(result.status, 'final');
      assert.deepEqual(
        requests[0]?.tools.map((t) => t.name),
        ['customers__get'],
      );
      const second = requests[1]?.messages ?? [];
      assert.deepEqual(
        second.filter((m): m is ToolMessage => m.role === 'tool').map((m) => m.name),
        ['customers__get'],
        'the model sees its own tool name again',
      );
      const [read] = toolMessages(await handle.query<ModelMessage[]>(AGENT_TRANSCRIPT_QUERY));
      assert.equal(read?.name, TOOLS.customer);
      assert.equal(read?.result.status, 'succeeded');
    } finally {
      await named.stop();
    }
  },
);

test('an unknown named model is a non-retryable model error', { timeout: 120_000 }, async () => {
  const handle = await start('agent-unknown-model', { turns: [] }, { model: { kind: 'named', name: 'nope' } });
  const result = (await handle.result()) as AgentLoopResult;
  assert.equal(result.status, 'model_error');
  assert.equal(result.error?.code, 'INVALID_ARGUMENTS');
});

test('recorded agent-loop histories replay deterministically', { timeout: 120_000 }, async () => {
  assert.deepEqual(await h.replay(finished), []);
});
