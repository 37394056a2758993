import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { context, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { Client, type WorkflowHandle } from '@temporalio/client';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { temporal } from '@temporalio/proto';
import { bundleWorkflowCode } from '@temporalio/worker';
import { z } from 'zod';
import { tenantRef } from '../../src/contract/tenant-ref.js';
import { type HandlerContext } from '../../src/index.js';
import { openTelemetryTracing, SPAN_ATTRIBUTES } from '../../src/otel/index.js';
import {
  APPROVAL_SIGNAL,
  PENDING_APPROVALS_QUERY,
  RECONCILE_STATE_QUERY,
  RESOLVE_OUTCOME_SIGNAL,
} from '../../src/wire/names.js';
import {
  reconcileWorkflowId,
  type PendingApproval,
  type ReconcileStatus,
  type ToolCallResult,
} from '../../workflows/index.js';
import { signedApproval, signedResolution } from '../support/decisions.js';
import { eventually } from '../support/eventually.js';
import { integrationStore } from '../support/integration-store.js';
import { startRuntimeHarness, type RuntimeHarness } from '../support/runtime-harness.js';
import type { RunningWorker } from '../../testkit/running-worker.js';
import { defineTool } from '../../testkit/define-tool.js';

// Spans of tool calls on the real stack, set up as docs/deployment.md says: the plugin's OpenTelemetry telemetry next
// to Temporal's own interceptors (workflow interceptors in the bundle, its workflow span exporter sink, its activity
// interceptors, its client interceptor on the client that starts the runs) and an in-memory exporter. One read, writes
// whose outcome is unknown until reconciliation finds it or a person resolves it, and a run with an approval and a
// reconciliation whose tenant, subject and arguments must reach no span.
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
    return entry === undefined
      ? { state: 'not_committed' }
      : { state: 'committed', output: { data: { entry_id: entry }, receipt: { externalId: `entry-${entry}` } } };
  },
});
/** No way to ask the ledger: the call escalates at once and a person resolves it. */
const postEntryByHand = defineTool({ ...entrySpec, name: 'ops.postEntryByHand' });

/** What the fake bank booked, by idempotency key (the call's own: workflow id and call id, no argument in it). */
const transfers = new Map<string, string>();
/** A transfer a person must approve, whose answer is lost after it took effect; the bank answers by key. */
const postTransfer = defineTool({
  name: 'ops.postTransfer',
  description: 'Transfers money between accounts.',
  input: z.strictObject({ from: z.string(), to: z.string(), memo: z.string() }),
  output: z.strictObject({ to: z.string() }),
  effect: 'write',
  requiresApproval: true,
  source: { label: 'bank', type: 'http_api' },
  handler: async ({ to }, ctx): Promise<never> => {
    await ctx.beforeDispatch();
    transfers.set(ctx.idempotencyKey, to);
    throw new Error('connection reset after the request was sent');
  },
  reconcile: async (key) => {
    const to = transfers.get(key);
    return to === undefined
      ? { state: 'not_committed' }
      : { state: 'committed', output: { data: { to }, receipt: { externalId: 'transfer-receipt-1' } } };
  },
});

/** The test workflows, bundled with Temporal's OpenTelemetry workflow interceptors (a worker given a bundle takes its interceptors from it). */
const TEST_WORKFLOWS = fileURLToPath(new URL('../support/test-workflows.ts', import.meta.url));
const OTEL_WORKFLOW_INTERCEPTORS = createRequire(import.meta.url).resolve(
  '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors',
);
const quietLogger = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

const exporter = new InMemorySpanExporter();
const spanProcessor = new SimpleSpanProcessor(exporter);
const provider = new BasicTracerProvider({ spanProcessors: [spanProcessor] });
const contextManager = new AsyncLocalStorageContextManager();
let h: RuntimeHarness;
let worker: RunningWorker;
/** Starts, queries and signals the runs, through Temporal's client interceptor (so the runs join the test's traces). */
let client: Client;

before(
  async () => {
    context.setGlobalContextManager(contextManager.enable());
    const tracer: Tracer = provider.getTracer('telemetry-test');
    h = await startRuntimeHarness(integrationStore('it-telemetry-spans'), {
      telemetry: openTelemetryTracing({ tracer }),
    });
    h.tools.register(lookupNote);
    h.tools.register(postEntry);
    h.tools.register(postEntryByHand);
    h.tools.register(postTransfer);
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: TEST_WORKFLOWS,
      workflowInterceptorModules: [OTEL_WORKFLOW_INTERCEPTORS],
      logger: quietLogger,
    });
    // Temporal's own activity interceptor runs outside the plugin's (the user's interceptors come first), so the
    // RunActivity span is the active context when the tool call's span starts.
    worker = await h.startWorker({
      workflowBundle,
      sinks: { exporter: makeWorkflowExporter(spanProcessor, new Resource({ 'service.name': 'ttc-telemetry-test' })) },
      interceptors: {
        activity: [
          (ctx) => ({
            inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
            outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
      },
    });
    client = new Client({
      connection: h.temporal.connection,
      namespace: h.temporal.server.namespace,
      interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer })] },
    });
  },
  { timeout: 300_000 },
);

after(
  async () => {
    await worker?.stop();
    await h?.stop();
    contextManager.disable();
    context.disable();
    trace.disable();
  },
  { timeout: 300_000 },
);

function run(workflowId: string, tool: string, args: unknown): Promise<ToolCallResult> {
  return client.workflow.execute('runToolCall', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [
      tool,
      args,
      { principal, reconcile: { initialIntervalMs: 200, maximumIntervalMs: 500, deadlineMs: 30_000 } },
    ],
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
  return JSON.stringify(
    exporter.getFinishedSpans().map((span) => ({
      name: span.name,
      attributes: span.attributes,
      events: span.events,
      status: span.status,
      links: span.links,
    })),
  );
}

test(
  'a read produces one tool_call span under RunActivity with the call attributes and none of its secrets',
  { timeout: 120_000 },
  async () => {
    const result = await run('telemetry-read', lookupNote.name, {
      account: 'acct-1',
      query: `why was ${ARGUMENT_SECRET} used`,
    });
    assert.equal(result.modelResult.status, 'succeeded');
    assert.ok(
      !JSON.stringify(result.modelResult).includes(RESULT_SECRET),
      'the funnel hid the secret from the model (positive control of the redaction)',
    );

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
    const parent = exporter
      .getFinishedSpans()
      .find((candidate) => candidate.spanContext().spanId === span.parentSpanId);
    assert.equal(
      parent?.name,
      `RunActivity:${lookupNote.name}`,
      'the span nests under the activity span of the Temporal OTel interceptor',
    );
    assert.deepEqual(result.callSpan, refOf(span), 'the result carries the span for links');

    const text = exportedText();
    for (const secret of [ARGUMENT_SECRET, RESULT_SECRET, 'acct-1'])
      assert.ok(!text.includes(secret), 'no argument or result value reaches a span');

    // Fairness by tenant reference: the dev server keeps the key on the scheduled task (balancing by it is its setting).
    const history = await h.temporal.client.workflow.getHandle('telemetry-read').fetchHistory();
    const scheduled = (history.events ?? []).flatMap((event) =>
      event.activityTaskScheduledEventAttributes ? [event.activityTaskScheduledEventAttributes] : [],
    );
    assert.deepEqual(
      scheduled.map((attributes) => attributes.priority?.fairnessKey),
      [tenantRef(principal.tenant)],
    );
  },
);

test(
  'a write whose answer was lost: its span says OUTCOME_UNKNOWN, and the reconciliation that finds it links to it',
  { timeout: 180_000 },
  async () => {
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
  },
);

test(
  "a person's resolution of an escalated write is a tool_call.resolve span linked to the call it settles",
  { timeout: 180_000 },
  async () => {
    const handle = await client.workflow.start('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId: 'telemetry-resolve',
      args: [postEntryByHand.name, { entry_id: 'e-2', memo: 'm' }, { principal }],
    });
    const key = await eventually(
      'the entry to commit',
      () => Promise.resolve([...committed].find(([, entry]) => entry === 'e-2')?.[0]),
      60_000,
    );
    const reconciler = client.workflow.getHandle(reconcileWorkflowId(key));
    const escalated = await eventually(
      'the escalation',
      async () => {
        const status = await reconciler.query<ReconcileStatus>(RECONCILE_STATE_QUERY).catch(() => undefined);
        return status?.state === 'escalated' ? status : undefined;
      },
      60_000,
    );
    await reconciler.signal(
      RESOLVE_OUTCOME_SIGNAL,
      signedResolution(escalated, { outcome: 'committed', externalId: 'entry-e-2', resolvedBy: 'ops@example.com' }),
    );
    const { modelResult } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.execution.delivery, 'human_resolved');

    const [call] = spansNamed(`tool_call ${postEntryByHand.name}`);
    const [resolution, ...more] = spansNamed(`tool_call.resolve ${postEntryByHand.name}`);
    assert.ok(call !== undefined && resolution !== undefined);
    assert.equal(more.length, 0);
    assert.equal(resolution.attributes[SPAN_ATTRIBUTES.finding], 'committed');
    assert.deepEqual(
      resolution.links.map((link) => ({ traceId: link.context.traceId, spanId: link.context.spanId })),
      [refOf(call)],
      'the resolution links to the call it settles',
    );
    assert.ok(!exportedText().includes('ops@example.com'), 'the resolver is not put on a span');
  },
);

/** Every value under `value` as text (keys too): strings, numbers, dates, and bytes read as UTF-8. */
function leafTexts(
  value: unknown,
  skip: (node: object, path: readonly string[]) => boolean = () => false,
  path: readonly string[] = [],
  seen = new Set<object>(),
): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return [String(value)];
  if (value instanceof Date) return [value.toISOString()];
  if (value instanceof Uint8Array) return [Buffer.from(value).toString('utf8')];
  if (typeof value !== 'object' || value === null || seen.has(value) || skip(value, path)) return [];
  seen.add(value);
  const entries: [string, unknown][] =
    value instanceof Map ? [...value.entries()].map(([k, v]) => [String(k), v]) : Object.entries(value);
  return entries.flatMap(([key, child]) => [key, ...leafTexts(child, skip, [...path, key], seen)]);
}

/** What an exporter ships of a span: its name, status, attributes, events, links and resource, down to the leaves. */
function shippedTexts(span: ReadableSpan): string[] {
  return leafTexts({
    name: span.name,
    status: span.status,
    attributes: span.attributes,
    events: span.events,
    links: span.links,
    resource: span.resource.attributes,
  });
}

/**
 * What the server keeps readable in a history, whatever the payload codec: every event attribute and the payloads it
 * never encodes (search attributes, headers). Other payloads (inputs, results, memos, summaries) are the codec's to
 * hide (docs/deployment.md), so they are left out.
 */
function readableInHistory(history: temporal.api.history.v1.IHistory): string[] {
  const isPayload = (node: object) => 'data' in node && 'metadata' in node;
  return leafTexts(
    history.events ?? [],
    (node, path) =>
      isPayload(node) && !path.some((key) => key === 'searchAttributes' || key === 'indexedFields' || key === 'header'),
  );
}

/** The fairness keys a history's scheduled activities and started children carry. */
function fairnessKeys(history: temporal.api.history.v1.IHistory): (string | null | undefined)[] {
  return (history.events ?? []).flatMap((event) => {
    const priority =
      event.activityTaskScheduledEventAttributes?.priority ??
      event.startChildWorkflowExecutionInitiatedEventAttributes?.priority;
    return priority === undefined ? [] : [priority?.fairnessKey];
  });
}

test(
  'a run with an approval and a reconciliation puts no tenant, subject, argument, approver or reason on any span, nor readable in history',
  { timeout: 240_000 },
  async () => {
    const owner = { tenant: 'tenant-umbrella-7f3a', subject: 'subject-carol-9c2e' };
    const args = { from: 'acct-from-5511', to: 'acct-to-8842', memo: 'memo-omega-6620' };
    const approval = { approver: 'approver-dave-3141@example.com', reason: 'reason-kappa-2718' };
    const forbidden = [owner.tenant, owner.subject, ...Object.values(args), approval.approver, approval.reason];

    const handle: WorkflowHandle = await client.workflow.start('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId: 'telemetry-private',
      args: [
        postTransfer.name,
        args,
        { principal: owner, reconcile: { initialIntervalMs: 200, maximumIntervalMs: 500, deadlineMs: 30_000 } },
      ],
    });
    const pending = await eventually(
      'the pending approval',
      async () => (await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY))[0],
      60_000,
    );
    await handle.signal(APPROVAL_SIGNAL, signedApproval(pending, approval));
    const { modelResult } = (await handle.result()) as ToolCallResult;
    assert.equal(
      modelResult.execution.delivery,
      'receipt_reconciled',
      'approved, dispatched, its answer lost, found by the reconciliation',
    );
    const [key, ...others] = [...transfers.keys()];
    assert.ok(key !== undefined && others.length === 0, 'exactly one transfer');
    const childId = reconcileWorkflowId(key);

    // Positive controls: the documented setup exported the run, the approval and the reconciliation, and Temporal's
    // workflow exporter copied the reconciliation's workflow info — its fairness key included — onto its spans.
    const childRuns = await eventually(
      'the reconciliation run span',
      () => {
        const found = spansNamed('RunWorkflow:reconcileToolCall').filter(
          (span) => span.attributes['workflowId'] === childId,
        );
        return Promise.resolve(found.length > 0 ? found : undefined);
      },
      30_000,
    );
    for (const span of childRuns)
      assert.equal(
        (span.attributes['priority'] as { fairnessKey?: unknown } | undefined)?.fairnessKey,
        tenantRef(owner.tenant),
        'the fairness key on the span is the tenant reference',
      );
    assert.ok(
      spansNamed(`HandleSignal:${APPROVAL_SIGNAL}`).some(
        (span) => span.attributes['workflowId'] === 'telemetry-private',
      ),
      'the approval signal was traced',
    );
    assert.ok(
      spansNamed(`tool_call.reconcile ${postTransfer.name}`).some(
        (span) => span.attributes[SPAN_ATTRIBUTES.finding] === 'committed',
      ),
      'the reconciliation query was traced',
    );
    assert.ok(
      spansNamed(`RunActivity:${postTransfer.name}`).length > 0 &&
        spansNamed(`StartActivity:${postTransfer.name}`).length > 0,
      'the tool activity was traced on both sides',
    );

    for (const span of exporter.getFinishedSpans()) {
      const texts = shippedTexts(span);
      for (const value of forbidden)
        assert.ok(!texts.some((text) => text.includes(value)), `span '${span.name}' carries '${value}'`);
    }

    for (const workflowId of ['telemetry-private', childId]) {
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      const texts = readableInHistory(history);
      assert.ok(
        texts.includes(tenantRef(owner.tenant)),
        `${workflowId}: the history carries the tenant reference (positive control of the walk)`,
      );
      for (const value of forbidden)
        assert.ok(
          !texts.some((text) => text.includes(value)),
          `${workflowId}: '${value}' is readable in history outside the payloads`,
        );
      for (const fairnessKey of fairnessKeys(history)) assert.equal(fairnessKey, tenantRef(owner.tenant));
    }
  },
);
