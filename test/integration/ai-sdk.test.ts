// An AI SDK agent on Temporal whose tools are contract tools, end to end on the dev server: `generateText` runs in a
// workflow with a `temporalProvider` model (@temporalio/ai-sdk's model activity on the worker, answered by the AI
// SDK's own MockLanguageModelV4), its tool set comes from declarations (`contractToolSet`), and the refund is an
// existing AI SDK tool made a contract tool (`declareAiSdkTool` + `implementAiSdkTool`). A refund runs only once a
// person approves it, and once per payment however often the model asks.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import type { WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { customProvider } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { businessIdempotencyKey } from '../../src/contract/idempotency-key.js';
import { APPROVAL_SIGNAL, PENDING_APPROVALS_QUERY } from '../../src/wire/names.js';
import type { PendingApproval } from '../../workflows/index.js';
import { aiRefundDeclaration, aiRefundImplementation } from '../support/ai-sdk-refund.js';
import type { aiSdkRefundAgent } from '../support/ai-sdk-workflows.js';
import { signedApproval } from '../support/decisions.js';
import { eventually } from '../support/eventually.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';

const principal = { tenant: 'tenant-ai', subject: 'user-ai' };
const REFUND = 'payments__ai_refund';
const CUSTOMER = 'customers__get';
const h = useRuntimeHarness('it-ai-sdk');
const refundKey = (paymentId: string) =>
  businessIdempotencyKey(aiRefundDeclaration.facts.keyScope, principal.tenant, paymentId);

/** The model's tool calls per scenario (named in the prompt), then a final text listing what it was told. */
const SCRIPTS: Readonly<
  Record<string, readonly { readonly id: string; readonly tool: string; readonly input: unknown }[]>
> = {
  'refund two': [
    { id: 'tc-refund-1', tool: REFUND, input: { payment_id: 'pay_ai_1', amount_cents: 700 } },
    { id: 'tc-refund-2', tool: REFUND, input: { payment_id: 'pay_ai_2', amount_cents: 900 } },
    { id: 'tc-lookup', tool: CUSTOMER, input: { customer_id: 'cus_ai' } },
  ],
  'refund again': [
    { id: 'tc-again-1', tool: REFUND, input: { payment_id: 'pay_ai_1', amount_cents: 700 } },
    { id: 'tc-bad', tool: REFUND, input: { payment_id: 'pay_ai_3', amount_cents: -5 } },
  ],
};
/** Every prompt the model was sent (the worker runs the model activity in this process). */
const prompts: LanguageModelV4CallOptions['prompt'][] = [];

function usage(): LanguageModelV4GenerateResult['usage'] {
  return {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };
}

const model = new MockLanguageModelV4({
  doGenerate: (options) => {
    prompts.push(options.prompt);
    const toolTexts = options.prompt
      .flatMap((message) => (message.role === 'tool' ? message.content : []))
      .flatMap((part) => (part.type === 'tool-result' && part.output.type === 'text' ? [part.output.value] : []));
    if (toolTexts.length > 0) {
      const statuses = toolTexts.map((text) => JSON.parse(text) as { status: string; error: { code: string } | null });
      return Promise.resolve({
        content: [{ type: 'text', text: statuses.map((s) => s.error?.code ?? s.status).join(', ') }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: usage(),
        warnings: [],
      });
    }
    const user = options.prompt.find((message) => message.role === 'user');
    const asked = user?.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('') ?? '';
    const calls = SCRIPTS[asked] ?? [];
    return Promise.resolve({
      content: calls.map((call) => ({
        type: 'tool-call' as const,
        toolCallId: call.id,
        toolName: call.tool,
        input: JSON.stringify(call.input),
      })),
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: usage(),
      warnings: [],
    });
  },
});

const taskQueue = `ttc-it-ai-sdk-${process.pid}`;
let workflowBundle: { code: string } | undefined;
/** The file's worker: the contract plugin with the AI SDK refund, and the AI SDK plugin with the mock model. */
async function startAgentWorker(): Promise<void> {
  if (workflowBundle !== undefined) return;
  h.tools.register(aiRefundImplementation(h.payments.baseUrl));
  const aiSdk = new AiSdkPlugin({ modelProvider: customProvider({ languageModels: { 'refund-agent': model } }) });
  workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('../support/ai-sdk-workflows.ts', import.meta.url)),
    plugins: [aiSdk],
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
  });
  await h.worker.stop();
  await h.startWorker({ taskQueue, workflowBundle, extraPlugins: [aiSdk] });
}

/** Waits until the agent's workflow has the refund of `paymentId` pending approval (writes are asked one at a time). */
async function pendingRefund(handle: WorkflowHandle, paymentId: string): Promise<PendingApproval> {
  return eventually(
    `the refund of ${paymentId} pending approval`,
    async () => {
      const listed = await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY);
      return listed.find((entry) => (entry.preview.arguments as { payment_id?: unknown }).payment_id === paymentId);
    },
    120_000,
  );
}

test(
  'an AI SDK agent refunds through contract tools: approved once, rejected never, audited under the AI SDK call id',
  { timeout: 600_000 },
  async () => {
    await startAgentWorker();
    const handle = await h.temporal.client.workflow.start<typeof aiSdkRefundAgent>('aiSdkRefundAgent', {
      taskQueue,
      workflowId: 'ai-sdk-refund-two',
      args: [principal, 'refund two'],
    });
    // The model asked for both refunds at once; writes run one at a time, so the second is asked after the first ran.
    await handle.signal(APPROVAL_SIGNAL, signedApproval(await pendingRefund(handle, 'pay_ai_1')));
    await handle.signal(
      APPROVAL_SIGNAL,
      signedApproval(await pendingRefund(handle, 'pay_ai_2'), { decision: 'reject', approver: 'bob@example.com' }),
    );
    const outcome = await handle.result();

    const [approved, rejected, lookup] = outcome.results;
    assert.equal(approved?.toolName, REFUND);
    assert.equal(approved?.output.status, 'succeeded');
    assert.equal(approved?.output.execution.outcome, 'committed');
    assert.equal(rejected?.output.error?.code, 'APPROVAL_REJECTED');
    assert.equal(lookup?.toolName, CUSTOMER);
    assert.equal(lookup?.output.status, 'succeeded');
    assert.equal(h.payments.commits(refundKey('pay_ai_1')), 1);
    assert.equal(h.payments.dispatches(refundKey('pay_ai_2')), 0);
    // The model read the rendered model results (status first), in the order it asked.
    assert.equal(outcome.text, 'succeeded, APPROVAL_REJECTED, succeeded');

    const audits = (await h.store.listAudits({ workflowId: 'ai-sdk-refund-two' })).map((row) => row.audit);
    const ran = audits.find(
      (audit) => audit.provider.provider_call_id === 'tc-refund-1' && audit.decision?.decision === 'approve',
    );
    assert.ok(ran, 'the approved refund is audited under the AI SDK tool call id');
    assert.equal(ran.provider.api_family, 'ai-sdk.tool-call');
    assert.equal(ran.provider.provider, 'mock');
  },
);

test(
  'the model asking for the same refund again gets the recorded one, and bad arguments a catalogued refusal',
  { timeout: 600_000 },
  async () => {
    await startAgentWorker();
    const handle = await h.temporal.client.workflow.start<typeof aiSdkRefundAgent>('aiSdkRefundAgent', {
      taskQueue,
      workflowId: 'ai-sdk-refund-again',
      args: [principal, 'refund again'],
    });
    await handle.signal(APPROVAL_SIGNAL, signedApproval(await pendingRefund(handle, 'pay_ai_1')));
    const outcome = await handle.result();

    const [again, bad] = outcome.results;
    assert.equal(again?.output.status, 'succeeded');
    assert.equal(again?.output.execution.delivery, 'local_replay');
    assert.equal(bad?.output.error?.code, 'INVALID_ARGUMENTS');
    assert.equal(h.payments.commits(refundKey('pay_ai_1')), 1, 'one side effect per approved refund');
    assert.equal(h.payments.dispatches(refundKey('pay_ai_3')), 0);

    // Both agents' histories replay on the same code: the AI SDK's loop and the contract calls in it are deterministic.
    const histories = await Promise.all(
      ['ai-sdk-refund-two', 'ai-sdk-refund-again'].map(async (workflowId) => ({
        workflowId,
        history: await h.temporal.client.workflow.getHandle(workflowId).fetchHistory(),
      })),
    );
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: workflowBundle! }, histories))
      if (result.error !== undefined) failures.push(`${result.workflowId}: ${String(result.error)}`);
    assert.deepEqual(failures, []);
  },
);
