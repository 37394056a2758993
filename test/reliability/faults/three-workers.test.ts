import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { WorkflowHandle } from '@temporalio/client';
import { APPROVAL_SIGNAL, PENDING_APPROVALS_QUERY } from '../../../src/wire/names.js';
import type { ApprovalDecision, PendingApproval, ToolCallResult } from '../../../workflows/index.js';
import { eventually } from '../../support/eventually.js';
import { chargeKey, TOOLS } from '../../../testkit/payment-tools.js';
import { positiveIntFromEnv } from './support/env-number.js';
import { failureChain } from './support/failure-chain.js';
import { startFaultWorld, type FaultWorld } from './support/fault-world.js';
import { assertSettled, type TrackedCall } from './support/settled-calls.js';
import type { WorkerProcess } from './support/spawn-worker.js';

/**
 * Horizontal scale on the real stack: three worker processes poll one task queue and share one Postgres schema
 * while a mixed load runs (reads, writes, writes that need approval, writes that commit and never answer), and one
 * of them is SIGKILLed mid-run and not replaced. Every call must settle once, with one side effect per key.
 */
const ROUNDS = positiveIntFromEnv('TTC_SCALE_ROUNDS', 6);
/** The round after which a worker dies: with commit-then-hang writes in flight on the workers. */
const KILL_AFTER_ROUND = Math.floor(ROUNDS / 2);
const principal = { tenant: 'tenant-scale', subject: 'user-3' };
const callOptions = {
  principal,
  timeoutMs: 2000,
  reconcile: { initialIntervalMs: 200, maximumIntervalMs: 1000, deadlineMs: 600_000 },
};

let world: FaultWorld;
let workers: WorkerProcess[] = [];

before(
  async () => {
    world = await startFaultWorld('faults-three', { safeRetryTools: [TOOLS.charge] });
    workers = await Promise.all([world.spawnWorker(), world.spawnWorker(), world.spawnWorker()]);
  },
  { timeout: 180_000 },
);

after(async () => world?.stop(), { timeout: 120_000 });

interface Started {
  readonly handle: WorkflowHandle;
  /** The write's key, or `null` for a read. */
  readonly key: string | null;
  readonly tool: string;
}

function payment(paymentId: string) {
  return { payment_id: paymentId, customer: 'cus_scale', amount_cents: 900 };
}

async function start(workflowId: string, tool: string, args: unknown, key: string | null): Promise<Started> {
  const handle = await world.harness.temporal.client.workflow.start('runToolCall', {
    taskQueue: world.harness.taskQueue,
    workflowId,
    workflowTaskTimeout: '3s',
    args: [tool, args, { ...callOptions, callId: 'c1' }],
  });
  return { handle, key, tool };
}

/** One round of the mixed load; the approved refund is approved once it is pending. */
async function round(n: number): Promise<Started[]> {
  const { payments } = world.harness;
  const charge = (suffix: string, fault: 'ok' | 'slow' | 'commit_then_hang') => {
    const paymentId = `pay_scale_${n}_${suffix}`;
    const key = chargeKey(principal.tenant, paymentId);
    payments.inject(key, fault);
    return start(`scale-${n}-${suffix}`, TOOLS.charge, payment(paymentId), key);
  };
  const refundId = `pay_scale_${n}_refund`;
  const refund = await start(
    `scale-${n}-refund`,
    TOOLS.refund,
    payment(refundId),
    chargeKey(principal.tenant, refundId, TOOLS.refund),
  );
  const started = await Promise.all([
    start(`scale-${n}-read-a`, TOOLS.customer, { customer_id: 'cus_1' }, null),
    start(`scale-${n}-read-b`, TOOLS.customer, { customer_id: 'cus_2' }, null),
    charge('ok', 'ok'),
    charge('slow', 'slow'),
    charge('hang', 'commit_then_hang'),
  ]);
  const pending = await eventually(
    `${refund.handle.workflowId} pending`,
    async () => (await refund.handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY))[0],
    60_000,
  );
  // Unsigned, as the fault tier's workers take decisions (unauthenticated, recorded as such).
  const approval: ApprovalDecision = {
    callId: pending.callId,
    requestSha256: pending.preview.requestSha256,
    decision: 'approve',
    approver: 'ops@example.com',
  };
  await refund.handle.signal(APPROVAL_SIGNAL, approval);
  return [...started, refund];
}

test(
  `three worker processes on one task queue, one SIGKILLed mid-run (${ROUNDS} rounds of mixed load): every call settles once, one side effect per key`,
  { timeout: 600_000 },
  async () => {
    const started = Date.now();
    const all: Started[] = [];
    let killedAt = 0;
    for (let n = 0; n < ROUNDS; n++) {
      all.push(...(await round(n)));
      console.log(`three-workers: round ${n + 1}/${ROUNDS} started, ${Math.round((Date.now() - started) / 1000)} s`);
      if (n === KILL_AFTER_ROUND) {
        const hang = chargeKey(principal.tenant, `pay_scale_${n}_hang`);
        await eventually(
          `${hang} to commit`,
          async () => (world.harness.payments.commits(hang) === 1 ? true : undefined),
          60_000,
          20,
        );
        await workers[0]!.kill();
        killedAt = Date.now();
      }
    }
    const loadDone = Date.now();

    const writes: TrackedCall[] = [];
    let reads = 0;
    const open = new Set(all.map((s) => s.handle.workflowId));
    const watchdog = setInterval(() => {
      void Promise.all(
        all
          .filter((s) => open.has(s.handle.workflowId))
          .map(async (s) => {
            const described = await s.handle.describe().catch(() => null);
            const activities =
              described?.raw.pendingActivities
                ?.map((a) => `${a.activityType?.name ?? '?'} attempt ${a.attempt ?? 0} ${a.state ?? ''}`)
                .join(', ') ?? '?';
            return `${s.handle.workflowId} (${activities})`;
          }),
      ).then((lines) =>
        console.log(
          `three-workers: still open after ${Math.round((Date.now() - started) / 1000)} s: ${lines.join('; ')}`,
        ),
      );
    }, 60_000);
    await Promise.all(
      all.map(async ({ handle, key, tool }) => {
        const result = (await handle
          .result()
          .catch((error: unknown) =>
            assert.fail(`${handle.workflowId} did not complete: ${failureChain(error)}`),
          )) as ToolCallResult;
        open.delete(handle.workflowId);
        if (key === null) {
          assert.equal(result.modelResult.status, 'succeeded', `${handle.workflowId}: the read succeeded`);
          reads++;
        } else writes.push({ workflowId: handle.workflowId, tool, key, result });
      }),
    );
    clearInterval(watchdog);
    const settledMs = Date.now() - loadDone;
    // Nothing here may end "not started" — charges are safe to retry, and the refunds were approved — but a refund
    // whose dispatch died with the killed worker before its request left: reconciliation finds it not committed, and a
    // refund, not safe to retry, is not sent again blindly (seen once in ten full runs: the refund approved just
    // before the kill).
    const { payments } = world.harness;
    const summary = await assertSettled(
      { store: world.harness.store, payments, db: world.db },
      writes,
      (call, record) =>
        call.tool === TOOLS.refund && record?.outcome === 'not_committed' && payments.dispatches(call.key) === 0,
    );
    assert.ok(summary.reconciled >= ROUNDS, 'every commit-then-hang write went through reconciliation');
    assert.ok(killedAt > 0, 'a worker was killed');
    console.log(
      `three-workers summary: 3 worker processes, 1 SIGKILLed after round ${KILL_AFTER_ROUND + 1} of ${ROUNDS}; ${all.length} workflows: ` +
        `${reads} reads, ${summary.calls} writes (${ROUNDS} approved refunds, ${ROUNDS} commit-then-hang): ${summary.succeeded} succeeded, ` +
        `${summary.failed} not started, ${summary.reconciled} reconciled; ${summary.dispatches} provider requests, ${summary.sideEffects} side effects; ` +
        `load ${Math.round((loadDone - started) / 1000)} s, settled ${Math.round(settledMs / 1000)} s after the load, total ${Math.round((Date.now() - started) / 1000)} s`,
    );
  },
);
