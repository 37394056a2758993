import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { z } from 'zod';

import { reconcileWorkflowId, type ToolCallResult } from '../../workflows/index.js';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import { eventually } from '../support/eventually.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';
import { defineTool } from '../../testkit/define-tool.js';

// A workflow cancel reaches a running tool: the runtime heartbeats for the handler, the cancel comes back on a
// heartbeat, the handler's signal aborts, and the attempt is recorded as a catalogued CANCELLED result.
const HEARTBEAT_TIMEOUT_MS = 2_000;
const principal = { tenant: 'tenant-acme', subject: 'user-42' };

interface HangingCall {
  startedAt: number;
  abortedAt?: number;
}
const calls = new Map<string, HangingCall>();

/** A read that never answers on its own: it waits until its signal aborts, then throws the abort. */
const hangingRead = defineTool({
  name: 'ops.hangingRead',
  description: 'Looks up a report that never arrives; it only ends when the call is cancelled.',
  input: z.strictObject({ report_id: z.string() }),
  output: z.strictObject({ report_id: z.string() }),
  effect: 'read',
  source: { label: 'reports', type: 'http_api' },
  callDefaults: { heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS },
  handler: async ({ report_id }, ctx) => {
    const call: HangingCall = { startedAt: Date.now() };
    calls.set(report_id, call);
    return new Promise((_resolve, reject) => {
      ctx.signal?.addEventListener('abort', () => {
        call.abortedAt = Date.now();
        reject(new Error('aborted'));
      });
    });
  },
});

const h = useRuntimeHarness('it-cancellation', { extraTools: [hangingRead] });

test(
  'a workflow cancel aborts a running read within its heartbeat timeout, recorded as CANCELLED',
  { timeout: 120_000 },
  async () => {
    const handle = await h.temporal.client.workflow.start('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId: 'cancel-read',
      // A start-to-close far beyond the heartbeat timeout: only the heartbeat can bring the cancel in time.
      args: [hangingRead.name, { report_id: 'r-1' }, { principal, timeoutMs: 60_000 }],
    });
    const call = await eventually('the handler to start', () => Promise.resolve(calls.get('r-1')), 60_000);
    const cancelledAt = Date.now();
    await handle.cancel();
    await assert.rejects(
      handle.result(),
      (error: unknown) => error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure,
    );
    const abortedAt = await eventually('the handler to be aborted', () => Promise.resolve(call.abortedAt), 30_000);
    const abortMs = abortedAt - cancelledAt;
    console.log(`cancel → handler abort: ${abortMs} ms (heartbeat timeout ${HEARTBEAT_TIMEOUT_MS} ms)`);
    assert.ok(abortMs < HEARTBEAT_TIMEOUT_MS, `the handler was aborted ${abortMs} ms after the cancel`);

    const [audit] = await eventually('the attempt to be audited', async () => {
      const audits = await h.store.listAudits({ workflowId: 'cancel-read' });
      return audits.length > 0 ? audits : undefined;
    });
    assert.ok(audit !== undefined);
    assert.equal(audit.modelResult.status, 'failed');
    assert.equal(audit.modelResult.error?.code, 'CANCELLED');
    assert.equal(audit.modelResult.execution.outcome, 'none');

    const history = await handle.fetchHistory();
    const scheduled = (history.events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes] : [],
    );
    assert.equal(scheduled.length, 1);
    assert.equal(
      Number(scheduled[0]?.heartbeatTimeout?.seconds),
      HEARTBEAT_TIMEOUT_MS / 1000,
      "the tool's heartbeat timeout is the activity's",
    );
    assert.deepEqual(await h.replay(['cancel-read']), []);
  },
);

test(
  'a write cancelled after it committed is reconciled by a child that outlives the cancelled workflow: found by key, exactly one side effect',
  { timeout: 180_000 },
  async () => {
    const key = chargeKey(principal.tenant, 'pay_cancel_1');
    // The charge commits, then its answer never comes: only the cancel ends the attempt.
    h.payments.inject(key, 'commit_then_hang');
    const handle = await h.temporal.client.workflow.start('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId: 'cancel-write',
      args: [
        TOOLS.charge,
        { payment_id: 'pay_cancel_1', customer: 'cus_1', amount_cents: 500 },
        {
          principal,
          timeoutMs: 60_000,
          heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS,
          reconcile: { initialIntervalMs: 200, maximumIntervalMs: 800, deadlineMs: 30_000 },
        },
      ],
    });
    await eventually(
      'the charge to commit',
      () => Promise.resolve(h.payments.commits(key) === 1 ? true : undefined),
      60_000,
    );
    await handle.cancel();
    await assert.rejects(
      handle.result(),
      (error: unknown) => error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure,
    );

    const reconciliation = h.temporal.client.workflow.getHandle(reconcileWorkflowId(key));
    await eventually(
      'the reconciliation to start',
      () =>
        reconciliation.describe().then(
          () => true,
          () => undefined,
        ),
      30_000,
    );
    const { modelResult } = (await reconciliation.result()) as ToolCallResult;
    assert.equal(modelResult.status, 'succeeded');
    assert.equal(modelResult.execution.delivery, 'receipt_reconciled');
    assert.equal(h.payments.commits(key), 1, 'exactly one side effect');
    assert.equal(h.payments.dispatches(key), 1, 'never sent again');
    const record = await h.store.getReconciliation(key);
    assert.equal(record?.outcome, 'committed');
    assert.deepEqual(await h.replay(['cancel-write', reconcileWorkflowId(key)]), []);
  },
);

test(
  'a workflow cancelled while its write is being reconciled closes cancelled at once; the reconciliation goes on and settles the key',
  { timeout: 180_000 },
  async () => {
    const key = chargeKey(principal.tenant, 'pay_cancel_2');
    // The charge commits and never answers, so the attempt times out and a reconciliation child starts; its status
    // queries fail until the parent is cancelled, so the child is still running when the cancel comes.
    h.payments.inject(key, 'commit_then_hang');
    h.payments.setStatusFault(key, 'unavailable');
    const handle = await h.temporal.client.workflow.start('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId: 'cancel-reconciling',
      args: [
        TOOLS.charge,
        { payment_id: 'pay_cancel_2', customer: 'cus_1', amount_cents: 700 },
        {
          principal,
          timeoutMs: 1_000,
          reconcile: { initialIntervalMs: 200, maximumIntervalMs: 800, deadlineMs: 60_000 },
        },
      ],
    });
    const reconciliation = h.temporal.client.workflow.getHandle(reconcileWorkflowId(key));
    await eventually(
      'the reconciliation to start',
      () =>
        reconciliation.describe().then(
          () => true,
          () => undefined,
        ),
      60_000,
    );
    const cancelledAt = Date.now();
    await handle.cancel();
    await assert.rejects(
      handle.result(),
      (error: unknown) => error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure,
    );
    console.log(`cancel → parent closed while reconciling: ${Date.now() - cancelledAt} ms`);
    assert.equal((await reconciliation.describe()).status.name, 'RUNNING', 'the reconciliation outlives the cancel');

    h.payments.setStatusFault(key, 'truthful');
    const { modelResult } = (await reconciliation.result()) as ToolCallResult;
    assert.equal(modelResult.status, 'succeeded');
    assert.equal(modelResult.execution.delivery, 'receipt_reconciled');
    assert.equal(h.payments.commits(key), 1, 'exactly one side effect');
    assert.equal(h.payments.dispatches(key), 1, 'never sent again');
    assert.equal((await h.store.getReconciliation(key))?.outcome, 'committed');
    assert.deepEqual(await h.replay(['cancel-reconciling', reconcileWorkflowId(key)]), []);
  },
);
