// Issue 32, made deterministic: a write told "not committed" is never disputed afterwards, and "not committed" is not
// said while an attempt that may have sent its request is unaccounted for. The tool is the charge whose handler does
// not call `ctx.beforeDispatch()` and that may not be retried: "not committed" is the model's final answer. One
// in-process worker; its store answers chosen keys late (`slowStore`: a slow link to Postgres, decided per key so the
// order of events is fixed), and its tools reach the payments service through a fault proxy. Real dev server, real
// Postgres.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { unauthenticatedForDevelopment } from '../../../src/decisions/index.js';
import { ToolContractPlugin } from '../../../src/temporal/plugin.js';
import type { ToolCallResult } from '../../../workflows/index.js';
import { chargeKey, paymentTools, TOOLS } from '../../../testkit/payment-tools.js';
import { eventually } from '../../support/eventually.js';
import { integrationStore } from '../../support/integration-store.js';
import { startRuntimeHarness, type RuntimeHarness } from '../../support/runtime-harness.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';
import { slowStore, type SlowStore } from './support/slow-store.js';

const principal = { tenant: 'tenant-verdicts', subject: 'user-32' };
const TIMEOUT_MS = 2000;
const callOptions = {
  principal,
  timeoutMs: TIMEOUT_MS,
  reconcile: { initialIntervalMs: 200, maximumIntervalMs: 1000, deadlineMs: 600_000 },
};

let harness: RuntimeHarness;
let slow: SlowStore;
let provider: FaultProxy;

before(
  async () => {
    harness = await startRuntimeHarness(integrationStore('verdicts'), { decisions: unauthenticatedForDevelopment() });
    provider = await startFaultProxy(new URL(harness.payments.baseUrl).host);
    slow = slowStore(harness.store);
    await harness.startWorker({
      plugins: [
        new ToolContractPlugin({
          tools: paymentTools(`http://${provider.address}`),
          store: slow.store,
          decisions: unauthenticatedForDevelopment(),
        }),
      ],
    });
  },
  { timeout: 300_000 },
);

after(
  async () => {
    await harness?.stop();
    await provider?.stop();
  },
  { timeout: 120_000 },
);

/** The idempotency key of an unfenced charge. */
const keyOf = (paymentId: string) => chargeKey(principal.tenant, paymentId, TOOLS.chargeUnfenced);

/** Starts one unfenced charge (workflow `verdict-<paymentId>`). */
function startCharge(paymentId: string) {
  return harness.temporal.client.workflow.start('runToolCall', {
    taskQueue: harness.taskQueue,
    workflowId: `verdict-${paymentId}`,
    args: [
      TOOLS.chargeUnfenced,
      { payment_id: paymentId, customer: 'cus_verdict', amount_cents: 3200 },
      { ...callOptions, callId: 'c1' },
    ],
  });
}

/** The audit of the call's first dispatch, once its record reached Postgres. */
function dispatchAudit(paymentId: string) {
  return eventually(
    `the dispatch record of ${paymentId}`,
    async () => (await harness.store.listAudits({ workflowId: `verdict-${paymentId}` })).find((a) => a.attempt === 1),
    60_000,
    100,
  );
}

/** The model was told "not committed", nothing reached the provider, and ledger and reconciliation agree, for good. */
async function assertNotCommittedHolds(key: string, result: ToolCallResult): Promise<void> {
  const { modelResult } = result;
  assert.deepEqual(
    [modelResult.status, modelResult.execution.outcome, modelResult.error?.code],
    ['failed', 'not_started', 'NOT_COMMITTED'],
  );
  assert.deepEqual(
    [harness.payments.dispatches(key), harness.payments.commits(key)],
    [0, 0],
    'nothing reached the provider',
  );
  const ledger = await harness.store.getLedgerEntry(key);
  assert.deepEqual(
    [ledger?.status, ledger?.lateCommitAuditId],
    ['released', null],
    'the ledger agrees with what the model was told: not disputed',
  );
  const round = await harness.store.getReconciliation(key);
  assert.deepEqual(
    [round?.round, round?.state, round?.outcome],
    [1, 'settled', 'not_committed'],
    'no later round escalated the key',
  );
  assert.ok(
    !(await harness.store.listUnsettled()).some((r) => r.idempotencyKey === key),
    'nothing is left for a person to resolve',
  );
}

test(
  "the issue's sequence: the claim's answer arrives after the write's deadline, the provider says 404, then the attempt's record arrives: it never disputes the verdict",
  { timeout: 180_000 },
  async () => {
    const paymentId = 'pay_v_slow_claim';
    const key = keyOf(paymentId);
    slow.delayClaimReply(key, TIMEOUT_MS + 600);
    slow.holdRecords(key);
    const handle = await startCharge(paymentId);
    const result = (await handle.result()) as ToolCallResult;
    // The verdict is out; only now does the attempt's record reach Postgres.
    slow.releaseRecords(key);
    const attempt = await dispatchAudit(paymentId);
    await assertNotCommittedHolds(key, result);
    assert.deepEqual(
      [attempt.audit.status, attempt.modelResult.error?.code],
      ['failed', 'TIMEOUT_BEFORE_EXECUTE'],
      "the package's fence refused the handler: the write did not start",
    );
  },
);

test(
  'a handler that started and lost its request in a black hole: "not committed" waits until the attempt cannot be sending any more, and is never disputed',
  { timeout: 180_000 },
  async () => {
    const paymentId = 'pay_v_black_hole';
    const key = keyOf(paymentId);
    slow.holdRecords(key);
    provider.cutConnections();
    provider.startBlackHole();
    const handle = await startCharge(paymentId);
    // The attempt timed out (its handler gives up at the same deadline); the request held in the hole is lost.
    await eventually(
      'the reconciliation to open',
      async () => ((await harness.store.getReconciliation(key)) === null ? undefined : true),
      60_000,
      50,
    );
    provider.endBlackHole('drop');
    const result = (await handle.result()) as ToolCallResult;
    slow.releaseRecords(key);
    const attempt = await dispatchAudit(paymentId);
    await assertNotCommittedHolds(key, result);
    assert.equal(
      attempt.modelResult.execution.outcome,
      'unknown',
      'the handler could not tell whether its request left',
    );
    const round = await harness.store.getReconciliation(key);
    assert.equal(round?.dispatch?.dispatched, true, 'its handler had started: the attempt may have sent its request');
    assert.ok(
      Date.parse(round.settledAt ?? '') >= Date.parse(round.dispatch.quietAt ?? ''),
      `"not committed" waited for the lease's end (settled ${round.settledAt}, quiet ${round.dispatch.quietAt})`,
    );
  },
);

test(
  'a handler that gave up on a request stuck in the network, recorded "unknown", and whose request arrives after the provider first said 404: the commit is found and the model told so',
  { timeout: 180_000 },
  async () => {
    const paymentId = 'pay_v_stalled';
    const key = keyOf(paymentId);
    provider.cutConnections();
    provider.startBlackHole();
    const handle = await startCharge(paymentId);
    // The charge is on its way in; only its connection stays stuck, later ones (the status queries) pass.
    await eventually(
      'the charge request to enter the proxy',
      async () => (provider.bytesOnTheWayIn() > 0 ? true : undefined),
      60_000,
      20,
    );
    provider.stallOpenConnections();
    provider.endBlackHole('deliver');
    await eventually(
      'the provider to answer a status query',
      async () => {
        const round = await harness.store.getReconciliation(key);
        return round !== null && (round.state === 'settled' || round.attempts.length > 0) ? true : undefined;
      },
      60_000,
      50,
    );
    assert.equal(harness.payments.commits(key), 0, 'the provider had not seen the charge when it was first asked');
    provider.endStalls('deliver');
    const result = (await handle.result()) as ToolCallResult;
    // Its record (unknown) is usually in before its reconciliation opens; either way the wait covers the request.
    assert.equal((await dispatchAudit(paymentId)).modelResult.execution.outcome, 'unknown');
    const { modelResult } = result;
    assert.equal(harness.payments.commits(key), 1, 'the stuck request arrived and committed');
    assert.deepEqual(
      [modelResult.status, modelResult.execution.outcome, modelResult.execution.delivery],
      ['succeeded', 'committed', 'receipt_reconciled'],
      'told what happened',
    );
    assert.equal(modelResult.execution.receipt?.external_id, harness.payments.charge(key)?.charge_id);
    const ledger = await harness.store.getLedgerEntry(key);
    assert.deepEqual([ledger?.status, ledger?.lateCommitAuditId], ['completed', null]);
    const round = await harness.store.getReconciliation(key);
    assert.deepEqual([round?.state, round?.outcome, round?.dispatch?.dispatched], ['settled', 'committed', true]);
  },
);
