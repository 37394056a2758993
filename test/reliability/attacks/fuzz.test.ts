// Fuzzing the tool activity interceptor's input (what a handler returns or throws), seeded. Many runs go through
// the real interceptor in process (inside a real activity Context, with the in-memory store); a smaller sample of
// the same generator goes through a real worker, workflows and Postgres. Every result must be a valid model result
// with a catalogued code, no planted secret may reach a model or Temporal history, and the worker must survive.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asyncLocalStorage, Context, type Info } from '@temporalio/activity';
import { noopMetricMeter } from '@temporalio/common';
import type { ActivityExecuteInput } from '@temporalio/worker';
import fc from 'fast-check';
import { z } from 'zod';
import { ToolRegistry, type AnyToolImplementation, type ModelResult } from '../../../src/index.js';
import { isCatalogCode } from '../../../src/contract/error-catalog.js';
import { InMemoryToolStore } from '../../../src/store/in-memory/in-memory-tool-store.js';
import { toolActivityInterceptors } from '../../../activities/tool-activity-interceptor.js';
import {
  createToolActivities,
  type ToolActivityInput,
  type ToolCallResult,
} from '../../../activities/tool-activity.js';
import { TOOL_ACTIVITY_INPUT_KIND } from '../../../src/wire/message-kinds.js';
import { WORKFLOW_PROVIDER, type CorrelatedResult } from '../../../workflows/index.js';
import { TOOLS } from '../../../testkit/payment-tools.js';
import { orderTool, refundTool } from '../../support/tools.js';
import { behaviour, FUZZ_MARKERS, play, type Behaviour } from './hostile-values.js';
import { historyText } from '../../support/history-text.js';
import { adapterRenderings, assertAbsent, assertValidModelResult } from './stack.js';
import { useRuntimeHarness } from '../../support/use-runtime-harness.js';

const SEED = 20261130;
const IN_PROCESS_RUNS = 1500;
const WORKER_SAMPLES = 40;
const principal = { tenant: 'tenant-acme', subject: 'user-42' };

/** Behaviours by case number: the fuzz tools play the one their arguments name. */
const behaviours = new Map<number, Behaviour>();
const fuzzInput = z.strictObject({ order_id: z.string(), case: z.number().int() });
const playCase = (args: unknown) =>
  play(behaviours.get((args as { case: number }).case) ?? { kind: 'return', value: null });
const fuzzRead = { ...orderTool(playCase), name: 'fuzz.read', input: fuzzInput } as AnyToolImplementation;
const fuzzWrite = {
  ...refundTool(playCase),
  name: 'fuzz.write',
  input: fuzzInput,
  requiresApproval: false,
  reconcile: () => Promise.resolve({ state: 'not_committed' }),
} as AnyToolImplementation;
/** Business codes the fuzz tools declare (anything else must be a catalog code). */
const DECLARED = new Set(['ORDER_ARCHIVED', 'ORDER_NOT_REFUNDABLE']);

function checkResult(
  modelResult: unknown,
  label: string,
  forbidden: readonly string[],
  toolName: string,
): asserts modelResult is ModelResult {
  assertValidModelResult(modelResult, label);
  const code = modelResult.error?.code;
  assert.ok(code === undefined || isCatalogCode(code) || DECLARED.has(code), `${label}: uncatalogued code ${code}`);
  const renderings = Object.fromEntries(
    Object.entries(adapterRenderings('call_fuzz', toolName, modelResult)).map(([name, value]) => [
      name,
      JSON.stringify(value),
    ]),
  );
  assertAbsent({ modelResult: JSON.stringify(modelResult), ...renderings }, forbidden, label);
}

/** The real interceptor, in a real activity Context, around the real tool activity function. */
function inProcessInterceptor(): (tool: AnyToolImplementation, input: ToolActivityInput) => Promise<ToolCallResult> {
  const registry = new ToolRegistry([fuzzRead, fuzzWrite]);
  const factory = toolActivityInterceptors({
    registry,
    store: new InMemoryToolStore(),
    safeRetryTools: new Set(),
    decisions: { verification: { kind: 'none' }, forbidSelfApproval: false },
  });
  const activities = createToolActivities(registry.list());
  const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
  let attempt = 0;
  return (tool, input) => {
    attempt += 1;
    const info = {
      taskToken: new Uint8Array(),
      base64TaskToken: '',
      activityId: `fuzz-${attempt}`,
      activityType: tool.name,
      activityNamespace: 'default',
      attempt: 1,
      isLocal: false,
      workflowExecution: { workflowId: 'wf-fuzz', runId: 'run-fuzz' },
      workflowNamespace: 'default',
      workflowType: 'fuzz',
      scheduledTimestampMs: Date.now(),
      scheduleToCloseTimeoutMs: 30_000,
      startToCloseTimeoutMs: 30_000,
      currentAttemptScheduledTimestampMs: Date.now(),
      heartbeatDetails: undefined,
      taskQueue: 'fuzz',
      retryPolicy: { maximumAttempts: 1 },
    } as Info;
    const context = new Context(
      info,
      new Promise<never>(() => {}),
      new AbortController().signal,
      () => {},
      undefined,
      quiet,
      noopMetricMeter,
      {},
    );
    const { inbound } = factory(context);
    const execute = inbound?.execute;
    assert.ok(execute, 'the interceptor handles execute');
    const activity = activities[tool.name]!;
    const call: ActivityExecuteInput = { args: [input], headers: {} };
    return asyncLocalStorage.run(context, () =>
      execute.call(inbound, call, (next) => activity(...next.args)),
    ) as Promise<ToolCallResult>;
  };
}

test(
  `in process: ${IN_PROCESS_RUNS} seeded hostile behaviours through the real interceptor`,
  { timeout: 120_000 },
  async () => {
    const run = inProcessInterceptor();
    const started = Date.now();
    let n = 0;
    const codes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(behaviour, fc.boolean(), async (b, write) => {
        n += 1;
        const tool = write ? fuzzWrite : fuzzRead;
        behaviours.set(n, b);
        const key = `wf-fuzz:call-${n}`;
        const input: ToolActivityInput = {
          kind: TOOL_ACTIVITY_INPUT_KIND,
          args: { order_id: 'ord_1', case: n },
          callId: `call-${n}`,
          operationId: key,
          idempotencyKey: key,
          principal,
          provider: WORKFLOW_PROVIDER,
          dispatch: 'dispatch',
          revision: tool.facts.revision,
        };
        const { modelResult } = await run(tool, input);
        checkResult(modelResult, `run ${n}`, [...FUZZ_MARKERS, key, principal.subject], tool.name);
        const code = modelResult.error?.code ?? modelResult.status;
        codes.set(code, (codes.get(code) ?? 0) + 1);
        behaviours.delete(n);
      }),
      { seed: SEED, numRuns: IN_PROCESS_RUNS, endOnFailure: true },
    );
    process.stdout.write(
      `\nfuzz in process: ${IN_PROCESS_RUNS} runs in ${Date.now() - started} ms; outcomes ${JSON.stringify(Object.fromEntries([...codes].sort()))}\n`,
    );
  },
);

const stack = useRuntimeHarness('rel-fuzz', { extraTools: [fuzzRead, fuzzWrite] });
test(
  `real worker: ${WORKER_SAMPLES} seeded behaviours through workflows, Postgres and every adapter`,
  { timeout: 180_000 },
  async () => {
    const samples = fc.sample(behaviour, { seed: SEED + 1, numRuns: WORKER_SAMPLES });
    const offset = 1_000_000;
    samples.forEach((b, i) => behaviours.set(offset + i, b));
    const { client } = stack.temporal;
    const started = Date.now();
    const halves = [samples.slice(0, WORKER_SAMPLES / 2), samples.slice(WORKER_SAMPLES / 2)];
    const workflowIds = halves.map((_, i) => `fuzz-worker-${i}`);
    const batches = await Promise.all(
      halves.map(
        (half, h) =>
          client.workflow.execute('runToolCalls', {
            taskQueue: stack.taskQueue,
            workflowId: workflowIds[h]!,
            args: [
              half.map((_, j) => {
                const i = h * half.length + j;
                return {
                  name: i % 2 === 0 ? fuzzRead.name : fuzzWrite.name,
                  args: { order_id: 'ord_1', case: offset + i },
                  callId: `fuzz-${i}`,
                };
              }),
              { principal, readAttempts: 1, reconcile: { initialIntervalMs: 100, deadlineMs: 60_000 } },
            ],
          }) as Promise<CorrelatedResult[]>,
      ),
    );
    const results = batches.flat();
    assert.equal(results.length, WORKER_SAMPLES);
    for (const [i, { modelResult, callId }] of results.entries()) {
      const workflowId = workflowIds[Math.floor(i / (WORKER_SAMPLES / 2))]!;
      checkResult(
        modelResult,
        callId,
        [...FUZZ_MARKERS, `${workflowId}:${callId}`, principal.subject],
        i % 2 === 0 ? fuzzRead.name : fuzzWrite.name,
      );
    }
    const reconciliations: string[] = [];
    for await (const info of client.workflow.list({ query: `WorkflowType = 'reconcileToolCall'` }))
      reconciliations.push(info.workflowId);
    for (const workflowId of [...workflowIds, ...reconciliations]) {
      assertAbsent(
        { [`history of ${workflowId}`]: (await historyText(client, workflowId)).text },
        FUZZ_MARKERS,
        'history',
      );
    }
    assert.equal(stack.worker.worker.getState(), 'RUNNING');
    const healthy = (await client.workflow.execute('runToolCall', {
      taskQueue: stack.taskQueue,
      workflowId: 'fuzz-healthy',
      args: [TOOLS.customer, { customer_id: 'cus_1' }, { principal }],
    })) as { modelResult: ModelResult };
    assert.equal(healthy.modelResult.status, 'succeeded', 'the worker still serves an ordinary call');
    process.stdout.write(
      `\nfuzz through the worker: ${WORKER_SAMPLES} calls (+${reconciliations.length} reconciliations) in ${Date.now() - started} ms\n`,
    );
  },
);
