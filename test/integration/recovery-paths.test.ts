import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TOOLS } from '../../testkit/payment-tools.js';
import type { CorrelatedResult, ToolCallResult } from '../../workflows/index.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';

// The opt-in recovery paths on the real stack: fallback tools and the one re-query of a read, decided in workflow
// code from recorded results (so they replay), each attempt its own call with its own audit.
const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const h = useRuntimeHarness('it-recovery-paths');
const finished: string[] = [];

async function run(
  workflowId: string,
  name: string,
  args: unknown,
  options: Record<string, unknown>,
): Promise<ToolCallResult> {
  const result: unknown = await h.temporal.client.workflow.execute('runToolCall', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [name, args, { principal, ...options }],
  });
  finished.push(workflowId);
  return result as ToolCallResult;
}

test(
  'a read still rate limited after its retries falls back: a fallback that refuses the arguments is skipped, the replica answers',
  { timeout: 120_000 },
  async () => {
    const fallbackTools = { [TOOLS.customer]: [TOOLS.slowRead, TOOLS.customerReplica] };
    const result = await run(
      'fallback-1',
      TOOLS.customer,
      { customer_id: 'cus_throttled' },
      { readAttempts: 2, fallbackTools },
    );
    assert.equal(result.modelResult.status, 'succeeded');
    assert.equal(result.modelResult.tool, TOOLS.customerReplica, 'the result says which tool answered');
    assert.equal(result.modelResult.provenance.source_label, 'crm-replica');
    assert.deepEqual(
      result.attempts?.map((a) => [a.tool, a.callId, a.code]),
      [
        [TOOLS.customer, 'call-1', 'RATE_LIMITED'],
        [TOOLS.slowRead, 'call-1.fallback-1', 'INVALID_ARGUMENTS'],
      ],
    );
    for (const attempt of result.attempts ?? [])
      assert.ok(
        attempt.auditId !== null && (await h.store.getAudit(attempt.auditId)) !== null,
        `${attempt.callId} is audited`,
      );
    const history = await h.temporal.client.workflow.getHandle('fallback-1').fetchHistory();
    const scheduled = (history.events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.activityType?.name] : [],
    );
    // The fallback that refuses the arguments is refused by its own activity's input layer: its handler never runs.
    assert.deepEqual(scheduled, [TOOLS.customer, TOOLS.slowRead, TOOLS.customerReplica]);
  },
);

test('without fallbackTools the same failure is the answer', { timeout: 120_000 }, async () => {
  const result = await run('fallback-none', TOOLS.customer, { customer_id: 'cus_throttled' }, { readAttempts: 1 });
  assert.equal(result.modelResult.error?.code, 'RATE_LIMITED');
  assert.equal(result.attempts, undefined);
});

test(
  'a read whose answer broke its output contract is asked once more when requery is on; the second answer is whole',
  { timeout: 120_000 },
  async () => {
    const result = await run('requery-1', TOOLS.flakyStock, { sku: 'sku-requery' }, { requery: true });
    assert.equal(result.modelResult.status, 'succeeded');
    assert.deepEqual(result.modelResult.data, { sku: 'sku-requery', stock: 7 });
    assert.deepEqual(
      result.attempts?.map((a) => [a.callId, a.code]),
      [['call-1', 'OUTPUT_CONTRACT_VIOLATION']],
    );
  },
);

test('without requery the contract failure is the answer, never a guess', { timeout: 120_000 }, async () => {
  const result = await run('requery-off', TOOLS.flakyStock, { sku: 'sku-once' }, {});
  assert.equal(result.modelResult.error?.code, 'OUTPUT_CONTRACT_VIOLATION');
  assert.equal(result.modelResult.data, null);
});

test('in a batch, each call keeps its own recovery paths and its call id', { timeout: 120_000 }, async () => {
  const results = (await h.temporal.client.workflow.execute('runToolCalls', {
    taskQueue: h.taskQueue,
    workflowId: 'recovery-batch',
    args: [
      [
        { name: TOOLS.flakyStock, args: { sku: 'sku-batch' }, callId: 'stock' },
        { name: TOOLS.customer, args: { customer_id: 'cus_throttled' }, callId: 'customer' },
      ],
      { principal, readAttempts: 1, requery: true, fallbackTools: { [TOOLS.customer]: [TOOLS.customerReplica] } },
    ],
  })) as CorrelatedResult[];
  finished.push('recovery-batch');
  assert.deepEqual(
    results.map((r) => [r.callId, r.modelResult.tool, r.modelResult.status]),
    [
      ['stock', TOOLS.flakyStock, 'succeeded'],
      ['customer', TOOLS.customerReplica, 'succeeded'],
    ],
  );
  assert.deepEqual(
    results.map((r) => r.attempts?.map((a) => a.callId)),
    [['stock'], ['customer']],
  );
});

test('recorded histories of these workflows replay deterministically', { timeout: 120_000 }, async () => {
  assert.deepEqual(await h.replay(finished), []);
});
