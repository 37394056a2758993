import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { APPROVAL_SIGNAL, PENDING_APPROVALS_QUERY } from '../../../src/wire/names.js';
import type { ApprovalDecision, CorrelatedResult, PendingApproval, ToolCallResult } from '../../../workflows/index.js';
import { eventually } from '../../support/eventually.js';
import { chargeKey, TOOLS } from '../../../testkit/payment-tools.js';
import type { PaymentsService } from '../../../testkit/payments-service.js';
import type { TestDatabase } from '../../support/postgres.js';
import type { WorkerProcessConfig } from '../../support/worker-process.js';
import { openRestartableStack, type RestartableStack } from './support/restartable-stack.js';
import type { RestartableTemporal } from './support/restartable-temporal.js';
import { prepareWorker, type WorkerProcess } from './support/spawn-worker.js';
import { failureChain } from './support/failure-chain.js';
import { assertSettled, type TrackedCall } from './support/settled-calls.js';

const principal = { tenant: 'tenant-faults', subject: 'user-9' };
const callOptions = {
  principal,
  timeoutMs: 3000,
  reconcile: { initialIntervalMs: 300, maximumIntervalMs: 1000, deadlineMs: 600_000 },
};
const APPROVALS = 3;
const RECONCILING = 3;
const TURNS = 4;
const CHARGES_PER_TURN = 3;
const DOWN_MS = 1000;
const STATUS_503S = 10;

let stack: RestartableStack;
let db: TestDatabase;
let temporal: RestartableTemporal;
let payments: PaymentsService;
let client: Client;
let config: WorkerProcessConfig;
let workers: WorkerProcess[];

before(
  async () => {
    // Slow charges (1.5 s) are still in flight when the server dies.
    stack = await openRestartableStack('temporal', { chargeDelayMs: 1500 });
    ({ db, temporal, payments, client, config, workers } = stack);
  },
  { timeout: 240_000 },
);

after(() => stack?.close(), { timeout: 120_000 });

function charge(paymentId: string) {
  return { payment_id: paymentId, customer: 'cus_tmp', amount_cents: 400 };
}

function start(workflowType: string, workflowId: string, args: unknown[]): Promise<WorkflowHandle> {
  return client.workflow.start(workflowType, { taskQueue: config.taskQueue, workflowId, args });
}

test(
  'the Temporal dev server SIGKILLed and restarted on its database file: waiting, reconciling and writing workflows all complete, no duplicates',
  { timeout: 600_000 },
  async () => {
    const begun = Date.now();
    const refunds = await Promise.all(
      Array.from({ length: APPROVALS }, (_, a) =>
        start('runToolCall', `tmp-approve-${a}`, [TOOLS.refund, charge(`pay_tmp_refund_${a}`), callOptions]),
      ),
    );
    const reconciling = await Promise.all(
      Array.from({ length: RECONCILING }, (_, r) => {
        const key = chargeKey(principal.tenant, `pay_tmp_rec_${r}`);
        // Committed, never answered; the provider's status endpoint answers 503 several times: the reconciliation
        // child sits in its backoff timers when the server dies.
        payments.inject(key, 'commit_then_hang');
        payments.injectStatus(key, ...Array.from({ length: STATUS_503S }, () => 'unavailable' as const));
        return start('runToolCall', `tmp-rec-${r}`, [TOOLS.charge, charge(`pay_tmp_rec_${r}`), callOptions]);
      }),
    );
    for (const handle of refunds)
      await eventually(
        `${handle.workflowId} to wait for approval`,
        async () => ((await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY)).length === 1 ? true : undefined),
        60_000,
      );
    for (let r = 0; r < RECONCILING; r++)
      await eventually(
        `pay_tmp_rec_${r} to be reconciling`,
        async () => (payments.statusQueries(chargeKey(principal.tenant, `pay_tmp_rec_${r}`)) >= 1 ? true : undefined),
        60_000,
        50,
      );
    const turnKeys = (t: number) =>
      Array.from({ length: CHARGES_PER_TURN }, (_, i) => chargeKey(principal.tenant, `pay_tmp_${t}_${i}`));
    const turns = await Promise.all(
      Array.from({ length: TURNS }, (_, t) => {
        const ids = Array.from({ length: CHARGES_PER_TURN }, (_, i) => `pay_tmp_${t}_${i}`);
        for (const id of ids) payments.inject(chargeKey(principal.tenant, id), 'slow');
        return start('runToolCalls', `tmp-turn-${t}`, [
          ids.map((id, i) => ({ name: TOOLS.charge, args: charge(id), callId: `c${i + 1}` })),
          callOptions,
        ]);
      }),
    );
    // Mid-write: charge requests have arrived and are not answered yet (slow: committed only after 1.5 s).
    const unanswered = () =>
      Array.from({ length: TURNS }, (_, t) => turnKeys(t))
        .flat()
        .filter((key) => payments.dispatches(key) === 1 && payments.commits(key) === 0).length;
    await eventually('charges in flight', async () => (unanswered() >= 2 ? true : undefined), 60_000, 10);
    const inFlight = unanswered();
    for (let r = 0; r < RECONCILING; r++)
      assert.ok(
        payments.statusQueries(chargeKey(principal.tenant, `pay_tmp_rec_${r}`)) <= STATUS_503S,
        `pay_tmp_rec_${r} is still reconciling at the kill`,
      );

    const killedAt = Date.now();
    await temporal.killAndRestart(DOWN_MS);
    const restartMs = Date.now() - killedAt;
    // The worker keeps polling through the outage; if it gave up and exited, a new one takes over.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const survived = !workers[0]!.exited;
    if (!survived) workers.push(await prepareWorker(config).start());

    for (const handle of refunds) {
      const [pending] = await eventually(
        `${handle.workflowId} still pending after the restart`,
        async () => {
          const list = await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY);
          return list.length === 1 ? list : undefined;
        },
        60_000,
      );
      const decision: ApprovalDecision = {
        callId: pending!.callId,
        requestSha256: pending!.preview.requestSha256,
        decision: 'approve',
        approver: 'ops@example.com',
      };
      await handle.signal(APPROVAL_SIGNAL, decision);
    }

    const calls: TrackedCall[] = [];
    const outcome = async (handle: WorkflowHandle) =>
      handle
        .result()
        .catch((error: unknown) =>
          assert.fail(`${handle.workflowId} did not complete: ${failureChain(error)}`),
        ) as Promise<unknown>;
    for (const [a, handle] of refunds.entries())
      calls.push({
        workflowId: handle.workflowId,
        tool: TOOLS.refund,
        key: chargeKey(principal.tenant, `pay_tmp_refund_${a}`, TOOLS.refund),
        result: (await outcome(handle)) as ToolCallResult,
      });
    for (const [r, handle] of reconciling.entries())
      calls.push({
        workflowId: handle.workflowId,
        tool: TOOLS.charge,
        key: chargeKey(principal.tenant, `pay_tmp_rec_${r}`),
        result: (await outcome(handle)) as ToolCallResult,
      });
    for (const [t, handle] of turns.entries()) {
      const results = (await outcome(handle)) as CorrelatedResult[];
      for (let i = 0; i < CHARGES_PER_TURN; i++)
        calls.push({
          workflowId: handle.workflowId,
          tool: TOOLS.charge,
          key: chargeKey(principal.tenant, `pay_tmp_${t}_${i}`),
          result: results[i]!,
        });
    }
    const summary = await assertSettled({ store: db.store(), payments, db }, calls, () => false);
    assert.equal(
      summary.succeeded,
      APPROVALS + RECONCILING + TURNS * CHARGES_PER_TURN,
      'every call happened, exactly once',
    );
    for (let r = 0; r < RECONCILING; r++) {
      const call = calls.find((c) => c.key === chargeKey(principal.tenant, `pay_tmp_rec_${r}`))!;
      assert.equal(
        call.result.modelResult.execution.delivery,
        'receipt_reconciled',
        `${call.key}: settled by its reconciliation`,
      );
      assert.equal(payments.dispatches(call.key), 1, `${call.key}: never re-dispatched`);
    }
    console.log(
      `temporal-restart summary: ${APPROVALS} awaiting approval, ${RECONCILING} reconciling, ${TURNS} turns x ${CHARGES_PER_TURN} charges (${inFlight} charge requests in flight at the kill); ` +
        `dev server SIGKILLed and back in ${Math.round(restartMs / 100) / 10} s on the same port and SQLite file; worker ${survived ? 'survived the outage' : 'exited and was replaced'}; ` +
        `${summary.calls} calls succeeded ${summary.succeeded}, ${summary.reconciled} reconciled, ${summary.dispatches} requests, ${summary.sideEffects} side effects; total ${Math.round((Date.now() - begun) / 1000)} s`,
    );
  },
);
