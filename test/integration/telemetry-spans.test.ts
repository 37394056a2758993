import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { context, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryActivityInboundInterceptor } from '@temporalio/interceptors-opentelemetry';
import { z } from 'zod';
import { defineTool, type HandlerContext } from '../../src/index.js';
import { openTelemetryTracing, SPAN_ATTRIBUTES } from '../../src/otel/index.js';
import { RECONCILE_STATE_QUERY, RESOLVE_OUTCOME_SIGNAL } from '../../src/wire/names.js';
import { reconcileWorkflowId, type ReconcileStatus, type ToolCallResult } from '../../workflows/index.js';
import { signedResolution } from '../support/decisions.js';
import { eventually } from '../support/eventually.js';
import { integrationStore } from '../support/integration-store.js';
import { startRuntimeHarness, type RuntimeHarness } from '../support/runtime-harness.js';
import type { RunningWorker } from '../../testkit/running-worker.js';

// Spans of tool calls on the real stack: the plugin's OpenTelemetry telemetry next to Temporal's own activity
// interceptor, an in-memory exporter, one read and one write whose outcome is unknown until reconciliation finds it.
const principal = { tenant: 'tenant-acme', subject: 'user-42' };
/** Fake secrets: one in the read's arguments, one in its result, one in the write's arguments. */
const ARGUMENT_SECRET = 'sk_live_ARGUMENTSECRETFAKE0000000001';
const RESULT_SECRET = 'ghp_RESULTSECRETFAKE000000000000000000001';
const WRITE_SECRET = 'password=WRITESECRETFAKE0001';

const lookupNote = defineTool({
  name: 'ops.lookupNote',
  description: 'Looks up an account note.',
  input: z.strictObject({ account: z.string(), query: z.string() }),
  output: z.strictObject({ account: z.string(), note: z.string() }),
  effect: 'read',
  source: { label: 'notes', type: 'http_api' },
  handler: async ({ account }) => ({ data: { account, note: `rotate the key ${RESULT_SECRET} today` } }),
});

/** What the fake ledger committed, by idempotency key. */
const committed = new Map<string, string>();
/** A write whose request takes effect and whose answer is lost: the handler commits, then the connection fails. */
const entrySpec = {
  description: 'Posts a ledger entry once per entry id.',
  input: z.strictObject({ entry_id: z.string(), memo: z.string() }),
  output: z.strictObject({ entry_id: z.string() }),
  effect: 'write' as const,
  source: { label: 'ledger', type: 'http_api' },
  idempotencyKey: (args: { entry_id: string }) => args.entry_id,
  handler: async ({ entry_id }: { entry_id: string }, ctx: HandlerContext): Promise<never> => {
    await ctx.beforeDispatch();
    committed.set(ctx.idempotencyKey, entry_id);
    throw new Error('connection reset after the request was sent');
  },
};
/** The ledger answers by key: reconciliation finds the entry. */
const postEntry = defineTool({
  ...entrySpec,
  name: 'ops.postEntry',
  reconcile: async (key) => {
    const entry = committed.get(key);
    return entry === undefined ? { state: 'not_committed' } : { state: 'committed', output: { data: { entry_id: entry }, receipt: { externalId: `entry-${entry}` } } };
  },
});
/** No way to ask the ledger: the call escalates at once and a person resolves it. */
const postEntryByHand = defineTool({ ...entrySpec, name: 'ops.postEntryByHand' });

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();
let h: RuntimeHarness;
let worker: RunningWorker;

before(async () => {
  context.setGlobalContextManager(contextManager.enable());
  const tracer: Tracer = provider.getTracer('telemetry-test');
  h = await startRuntimeHarness(integrationStore('it-telemetry-spans'), { telemetry: openTelemetryTracing({ tracer }) });
  h.tools.register(lookupNote);
  h.tools.register(postEntry);
  h.tools.register(postEntryByHand);
  // Temporal's own activity interceptor runs outside the plugin's (the user's interceptors come first), so the
  // RunActivity span is the active context when the tool call's span starts.
  worker = await h.startWorker({ interceptors: { activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }) })] } });
}, { timeout: 300_000 });

after(async () => {
  await worker?.stop();
  await h?.stop();
  contextManager.disable();
  context.disable();
  trace.disable();
}, { timeout: 300_000 });

function run(workflowId: string, tool: string, args: unknown): Promise<ToolCallResult> {
  return h.temporal.client.workflow.execute('runToolCall', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [tool, args, { principal, reconcile: { initialIntervalMs: 200, maximumIntervalMs: 500, deadlineMs: 30_000 } }],
  });
}

/** The span's reference as a link to it carries it. */
function refOf(span: ReadableSpan): { traceId: string; spanId: string } {
  return { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
}

function spansNamed(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

/** Every attribute value and event of every exported span, as text: what an exporter would ship. */
function exportedText(): string {
  return JSON.stringify(exporter.getFinishedSpans().map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status, links: span.links })));
}

test('a read produces one tool_call span under RunActivity with the call attributes and none of its secrets', { timeout: 120_000 }, async () => {
  const result = await run('telemetry-read', lookupNote.name, { account: 'acct-1', query: `why was ${ARGUMENT_SECRET} used` });
  assert.equal(result.modelResult.status, 'succeeded');
  assert.ok(!JSON.stringify(result.modelResult).includes(RESULT_SECRET), 'the funnel hid the secret from the model (positive control of the redaction)');

  const [span, ...more] = spansNamed(`tool_call ${lookupNote.name}`);
  assert.ok(span !== undefined);
  assert.equal(more.length, 0);
  assert.deepEqual(
    { ...span.attributes },
    {
      [SPAN_ATTRIBUTES.tool]: lookupNote.name,
      [SPAN_ATTRIBUTES.effect]: 'read',
      [SPAN_ATTRIBUTES.status]: 'succeeded',
      [SPAN_ATTRIBUTES.attempt]: 1,
      [SPAN_ATTRIBUTES.callId]: 'call-1',
      [SPAN_ATTRIBUTES.delivery]: 'fresh',
      [SPAN_ATTRIBUTES.outcome]: 'none',
    },
  );
  const parent = exporter.getFinishedSpans().find((candidate) => candidate.spanContext().spanId === span.parentSpanId);
  assert.equal(parent?.name, `RunActivity:${lookupNote.name}`, 'the span nests under the activity span of the Temporal OTel interceptor');
  assert.deepEqual(result.callSpan, refOf(span), 'the result carries the span for links');

  const text = exportedText();
  for (const secret of [ARGUMENT_SECRET, RESULT_SECRET, 'acct-1']) assert.ok(!text.includes(secret), 'no argument or result value reaches a span');

  // Fairness by tenant: the dev server keeps the key on the scheduled task (whether it balances by it is its setting).
  const history = await h.temporal.client.workflow.getHandle('telemetry-read').fetchHistory();
  const scheduled = (history.events ?? []).flatMap((event) => (event.activityTaskScheduledEventAttributes ? [event.activityTaskScheduledEventAttributes] : []));
  assert.deepEqual(scheduled.map((attributes) => attributes.priority?.fairnessKey), [principal.tenant]);
});

test('a write whose answer was lost: its span says OUTCOME_UNKNOWN, and the reconciliation that finds it links to it', { timeout: 180_000 }, async () => {
  const result = await run('telemetry-write', postEntry.name, { entry_id: 'e-1', memo: WRITE_SECRET });
  assert.equal(result.modelResult.status, 'succeeded');
  assert.equal(result.modelResult.execution.delivery, 'receipt_reconciled');
  assert.equal(committed.size, 1, 'exactly one side effect');

  const [call] = spansNamed(`tool_call ${postEntry.name}`);
  assert.ok(call !== undefined);
  assert.equal(call.attributes[SPAN_ATTRIBUTES.status], 'unknown');
  assert.equal(call.attributes[SPAN_ATTRIBUTES.errorCode], 'OUTCOME_UNKNOWN');
  assert.equal(call.attributes[SPAN_ATTRIBUTES.outcome], 'unknown');
  assert.equal(call.status.code, 2, 'an unknown outcome marks the span as an error');

  const queries = spansNamed(`tool_call.reconcile ${postEntry.name}`);
  const found = queries.find((span) => span.attributes[SPAN_ATTRIBUTES.finding] === 'committed');
  assert.ok(found !== undefined, 'a reconciliation query span found the write committed');
  assert.deepEqual(
    found.links.map((link) => ({ traceId: link.context.traceId, spanId: link.context.spanId })),
    [refOf(call)],
    'the reconciliation links to the call it settles',
  );
  assert.equal(found.attributes[SPAN_ATTRIBUTES.callId], call.attributes[SPAN_ATTRIBUTES.callId]);
  const child = await h.temporal.client.workflow.getHandle(reconcileWorkflowId([...committed.keys()][0]!)).describe();
  assert.equal(child.type, 'reconcileToolCall');
  assert.ok(!exportedText().includes('WRITESECRETFAKE0001'), 'the write argument never reaches a span');
  assert.deepEqual(await h.replay(['telemetry-read', 'telemetry-write']), []);
});

test("a person's resolution of an escalated write is a tool_call.resolve span linked to the call it settles", { timeout: 180_000 }, async () => {
  const handle = await h.temporal.client.workflow.start('runToolCall', { taskQueue: h.taskQueue, workflowId: 'telemetry-resolve', args: [postEntryByHand.name, { entry_id: 'e-2', memo: 'm' }, { principal }] });
  const key = await eventually('the entry to commit', () => Promise.resolve([...committed].find(([, entry]) => entry === 'e-2')?.[0]), 60_000);
  const reconciler = h.temporal.client.workflow.getHandle(reconcileWorkflowId(key));
  const escalated = await eventually('the escalation', async () => {
    const status = await reconciler.query<ReconcileStatus>(RECONCILE_STATE_QUERY).catch(() => undefined);
    return status?.state === 'escalated' ? status : undefined;
  }, 60_000);
  await reconciler.signal(RESOLVE_OUTCOME_SIGNAL, signedResolution(escalated, { outcome: 'committed', externalId: 'entry-e-2', resolvedBy: 'ops@example.com' }));
  const { modelResult } = (await handle.result()) as ToolCallResult;
  assert.equal(modelResult.execution.delivery, 'human_resolved');

  const [call] = spansNamed(`tool_call ${postEntryByHand.name}`);
  const [resolution, ...more] = spansNamed(`tool_call.resolve ${postEntryByHand.name}`);
  assert.ok(call !== undefined && resolution !== undefined);
  assert.equal(more.length, 0);
  assert.equal(resolution.attributes[SPAN_ATTRIBUTES.finding], 'committed');
  assert.deepEqual(resolution.links.map((link) => ({ traceId: link.context.traceId, spanId: link.context.spanId })), [refOf(call)], 'the resolution links to the call it settles');
  assert.ok(!exportedText().includes('ops@example.com'), 'the resolver is not put on a span');
});
