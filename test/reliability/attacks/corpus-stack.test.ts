// The hostile corpus through the whole stack: each case's behaviour is a real tool on a real worker (dev server +
// Postgres), called from a workflow with callTools, and its model result rendered by every provider adapter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnyToolImplementation, HandlerContext, ModelResult, ReconcileOutcome } from '../../../src/index.js';
import type { BatchCallRequest, CorrelatedResult } from '../../../workflows/index.js';
import { BEARER, HOSTILE_CASES, orderArgs, PASSWORD, SECRET, type HostileCase } from '../../support/hostile-corpus.js';
import { testContext } from '../../../testkit/context.js';
import { defineTool } from '../../../testkit/define-tool.js';
import { TOOLS } from '../../../testkit/payment-tools.js';
import { goodOrderOutput } from '../../support/tools.js';
import { historyText } from '../../support/history-text.js';
import { adapterRenderings, assertAbsent, assertValidModelResult, printMetrics } from './stack.js';
import { useRuntimeHarness } from '../../support/use-runtime-harness.js';

const PLANTED = [SECRET, BEARER, PASSWORD];
/** The caller of every call; the corpus checks that its identity never reaches a model. */
const { principal } = testContext();
/** Cases per workflow: enough to batch, few enough that one history stays readable in the UI. */
const BATCH = 16;

interface StackCase extends HostileCase {
  readonly index: number;
  readonly toolName: string;
}

const cases: StackCase[] = HOSTILE_CASES.filter((c) => c.transportable !== false).map((c, index) => ({
  ...c,
  index,
  toolName: `hostile.case_${String(index).padStart(2, '0')}`,
}));
const batches = Array.from({ length: Math.ceil(cases.length / BATCH) }, (_, i) =>
  cases.slice(i * BATCH, (i + 1) * BATCH),
);
const FRESH_INSTANT = goodOrderOutput().observedAt;
const notCommitted = (): Promise<ReconcileOutcome<never>> => Promise.resolve({ state: 'not_committed' });

/**
 * Each case's tool declared again under its own name (one activity type per case), so its facts and revision are the
 * renamed tool's own. Writes run without approval here (approvals have their own race test) and reconcile to "not
 * committed", so an unknown outcome settles without a human.
 */
function stackTool(c: StackCase): AnyToolImplementation {
  const write = c.tool.effect !== 'read';
  const handler = async (args: unknown, ctx: HandlerContext) => rebaseFreshInstant(await c.tool.handler(args, ctx));
  // What declareTool derives (facts, revisions) is derived again; the rest of the declaration is kept as it was.
  const derived = new Set(['facts', 'revisions', 'handler', 'reconcile']);
  const declared = Object.fromEntries(Object.entries(c.tool).filter(([key]) => !derived.has(key))) as Omit<
    AnyToolImplementation,
    'facts' | 'revisions' | 'handler' | 'reconcile'
  >;
  return defineTool({
    ...declared,
    name: c.toolName,
    requiresApproval: false,
    handler,
    ...(write ? { reconcile: notCommitted } : {}),
  } as Parameters<typeof defineTool>[0]);
}

/**
 * The corpus's "fresh" outputs were observed 30 s before the contract tier's fixed clock; the worker runs on the
 * real clock, so that instant moves to 30 s ago (stale and malformed instants stay as they are). Only a plain data
 * property is read: a hostile output with getters must reach the funnel untouched.
 */
function rebaseFreshInstant(output: unknown): unknown {
  if (
    typeof output !== 'object' ||
    output === null ||
    Object.getOwnPropertyDescriptor(output, 'observedAt')?.value !== FRESH_INSTANT
  )
    return output;
  return { ...output, observedAt: new Date(Date.now() - 30_000).toISOString() };
}

const stack = useRuntimeHarness('rel-hostile-corpus', { extraTools: cases.map(stackTool) });
const results = new Map<number, CorrelatedResult>();
const workflowIds = batches.map((_, i) => `hostile-corpus-${i}`);

test(
  `the corpus (${cases.length} transportable cases of ${HOSTILE_CASES.length}) runs through real workflows in ${batches.length} batches`,
  { timeout: 180_000 },
  async () => {
    assert.ok(cases.length >= 60, `only ${cases.length} whole-stack cases`);
    const { client } = stack.temporal;
    const started = Date.now();
    const outcomes = await Promise.all(
      batches.map((batch, i) => {
        const calls: BatchCallRequest[] = batch.map((c) => ({
          name: c.toolName,
          args: c.args === undefined ? orderArgs : c.args,
          callId: `case-${c.index}`,
        }));
        return client.workflow.execute('runToolCalls', {
          taskQueue: stack.taskQueue,
          workflowId: workflowIds[i]!,
          // The cases are independent: one case's invariant failure must not halt another's write.
          args: [
            calls,
            {
              principal,
              readAttempts: 1,
              onInvariantFailure: 'continue',
              reconcile: { initialIntervalMs: 100, deadlineMs: 60_000 },
            },
          ],
        }) as Promise<CorrelatedResult[]>;
      }),
    );
    for (const [i, batch] of batches.entries()) {
      const batchResults = outcomes[i]!;
      assert.deepEqual(
        batchResults.map((r) => r.callId),
        batch.map((c) => `case-${c.index}`),
        'one result per call, correlated by call id',
      );
      for (const [j, c] of batch.entries()) results.set(c.index, batchResults[j]!);
    }
    process.stdout.write(`whole-stack corpus: ${cases.length} cases in ${Date.now() - started} ms\n`);
  },
);

for (const c of cases) {
  test(`whole stack: ${c.name}`, async () => {
    const result = results.get(c.index);
    assert.ok(result !== undefined, 'the batch ran');
    const { modelResult, auditRef } = result;
    assertValidModelResult(modelResult, c.name);
    const workflowId = workflowIds[Math.floor(c.index / BATCH)]!;
    const audits = await stack.store.listAudits({ workflowId, callId: result.callId });
    assert.ok(audits.length > 0 && auditRef !== null, 'every call is audited');
    assert.equal(audits[0]!.audit.error_code, c.code, 'the first attempt carries the catalogued code');
    if (c.code === 'OUTCOME_UNKNOWN' && c.tool.effect !== 'read') {
      // Never re-dispatched: the reconciliation child asked the authoritative system, which said "not committed".
      assertReconciledNotCommitted(modelResult);
    } else {
      assert.equal(modelResult.error?.code ?? null, c.code);
      if (c.status) assert.equal(modelResult.status, c.status);
      if (c.code !== null) assert.equal(modelResult.data, null, 'no data travels with an error');
    }
    const stored = await stack.store.getAudit(auditRef.audit_id);
    assert.ok(stored !== null);
    assert.deepEqual(stored.modelResult, modelResult, 'the workflow got exactly the audited result');
    const identity = [
      `${workflowId}:${result.callId}`,
      principal.tenant,
      principal.subject,
      stored.audit.bindings.request_sha256,
      stored.audit.bindings.call_binding_sha256,
      stored.audit.principal_ref,
    ];
    const renderings = Object.fromEntries(
      Object.entries(adapterRenderings(result.callId, c.toolName, modelResult)).map(([name, value]) => [
        name,
        JSON.stringify(value),
      ]),
    );
    assertAbsent({ modelResult: JSON.stringify(modelResult), ...renderings }, [...PLANTED, ...identity], c.name);
  });
}

test(
  'no planted secret appears anywhere in the Temporal history of the corpus workflows or their reconciliations',
  { timeout: 60_000 },
  async () => {
    const { client } = stack.temporal;
    const reconciliations: string[] = [];
    for await (const info of client.workflow.list({ query: `WorkflowType = 'reconcileToolCall'` }))
      reconciliations.push(info.workflowId);
    const unknownWrites = cases.filter((c) => c.code === 'OUTCOME_UNKNOWN' && c.tool.effect !== 'read').length;
    assert.equal(reconciliations.length, unknownWrites, 'one reconciliation per unknown write');
    for (const workflowId of [...workflowIds, ...reconciliations]) {
      const { text } = await historyText(client, workflowId);
      // The search sees decoded payloads: the model results, and the caller's identity in the workflow's input.
      assert.ok(text.includes('tool-result.model.v1'), `${workflowId}: the decoded history carries model results`);
      if (!workflowId.startsWith('ttc-reconcile:'))
        assert.ok(text.includes(principal.subject), `${workflowId}: the decoded history carries the input`);
      assertAbsent({ [`history of ${workflowId}`]: text }, PLANTED, 'history');
    }
  },
);

test(
  'the worker survived the corpus: still running, and a healthy call afterwards succeeds',
  { timeout: 60_000 },
  async () => {
    assert.equal(stack.worker.worker.getState(), 'RUNNING');
    const healthy = (await stack.temporal.client.workflow.execute('runToolCall', {
      taskQueue: stack.taskQueue,
      workflowId: 'hostile-corpus-healthy',
      args: [TOOLS.customer, { customer_id: 'cus_1' }, { principal }],
    })) as { modelResult: ModelResult };
    assert.equal(healthy.modelResult.status, 'succeeded');
    printMetrics('Metrics after the whole-stack corpus', await stack.store.contractMetrics());
  },
);

function assertReconciledNotCommitted(modelResult: ModelResult): void {
  assert.equal(modelResult.status, 'failed');
  assert.equal(modelResult.error?.code, 'NOT_COMMITTED');
  assert.deepEqual(
    [modelResult.execution.outcome, modelResult.execution.delivery],
    ['not_started', 'confirmed_absent'],
  );
}
