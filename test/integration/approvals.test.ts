import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { APPROVAL_SIGNAL, APPROVAL_UPDATE, PENDING_APPROVALS_QUERY } from '../../src/wire/names.js';
import { APPROVAL_PENDING_SA } from '../../src/wire/search-attributes.js';
import type { ApprovalDecision, ApprovalUpdateResult, PendingApproval, ToolCallResult } from '../../workflows/index.js';
import { eventually } from '../support/eventually.js';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const h = useRuntimeHarness('it-approvals');
const finished: string[] = [];

/** Starts a refund that needs approval and waits until it is pending; returns the handle and the pending entry. */
async function startRefund(workflowId: string, paymentId: string, options: Record<string, unknown> = {}): Promise<{ handle: WorkflowHandle; pending: PendingApproval }> {
  const handle = await h.temporal.client.workflow.start('runToolCall', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [TOOLS.refund, { payment_id: paymentId, customer: 'cus_1', amount_cents: 700, api_key: undefined }, { principal, ...options }],
  });
  finished.push(workflowId);
  const pending = await eventually('a pending approval', async () => (await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY))[0]);
  return { handle, pending };
}

function decision(pending: PendingApproval, overrides: Partial<ApprovalDecision> = {}): ApprovalDecision {
  return { callId: pending.callId, requestSha256: pending.preview.requestSha256, decision: 'approve', approver: 'alice@example.com', ...overrides };
}

test('a call that requires approval waits, is listed with a secret-free preview and marked by a search attribute, and runs once approved', { timeout: 120_000 }, async () => {
  const { handle, pending } = await startRefund('approve-1', 'pay_appr_1');
  assert.equal(pending.preview.tool, TOOLS.refund);
  assert.equal(pending.preview.effect, 'write');
  assert.match(pending.preview.requestSha256, /^[0-9a-f]{64}$/);
  assert.deepEqual(pending.preview.arguments, { payment_id: 'pay_appr_1', customer: 'cus_1', amount_cents: 700 });
  assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_appr_1', TOOLS.refund)), 0, 'nothing runs before the decision');
  const described = await handle.describe();
  assert.equal(described.typedSearchAttributes.get(APPROVAL_PENDING_SA), true);
  const listed = await eventually('visibility to list the waiting workflow', async () => {
    const ids: string[] = [];
    for await (const wf of h.temporal.client.workflow.list({ query: `${APPROVAL_PENDING_SA.name} = true` })) ids.push(wf.workflowId);
    return ids.includes('approve-1') ? ids : undefined;
  });
  assert.ok(listed.includes('approve-1'));

  await handle.signal(APPROVAL_SIGNAL, decision(pending));
  const { modelResult } = (await handle.result()) as ToolCallResult;
  assert.equal(modelResult.status, 'succeeded');
  assert.equal(modelResult.execution.outcome, 'committed');
  assert.equal(h.payments.commits(chargeKey(principal.tenant, 'pay_appr_1', TOOLS.refund)), 1);
  assert.equal((await handle.describe()).typedSearchAttributes.get(APPROVAL_PENDING_SA), false);
});

test('a rejection ends the call as APPROVAL_REJECTED without running it', { timeout: 120_000 }, async () => {
  const { handle, pending } = await startRefund('reject-1', 'pay_rej_1');
  await handle.signal(APPROVAL_SIGNAL, decision(pending, { decision: 'reject', reason: 'amount too high' }));
  const { modelResult, auditRef } = (await handle.result()) as ToolCallResult;
  assert.equal(modelResult.status, 'failed');
  assert.equal(modelResult.error?.code, 'APPROVAL_REJECTED');
  assert.equal(modelResult.execution.outcome, 'not_started');
  assert.ok(auditRef !== null, 'the refusal is audited');
  assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_rej_1', TOOLS.refund)), 0);
});

test('a decision for a different request digest is recorded as invalid and the call stays pending', { timeout: 120_000 }, async () => {
  const { handle, pending } = await startRefund('mismatch-1', 'pay_mis_1');
  await handle.signal(APPROVAL_SIGNAL, decision(pending, { requestSha256: '0'.repeat(64), approver: 'mallory' }));
  const still = await eventually('the invalid decision to be recorded', async () => {
    const [entry] = await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY);
    return entry !== undefined && entry.invalidDecisions.length === 1 ? entry : undefined;
  });
  assert.equal(still.invalidDecisions[0]?.approver, 'mallory');
  assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_mis_1', TOOLS.refund)), 0);
  await handle.signal(APPROVAL_SIGNAL, decision(pending));
  const { modelResult } = (await handle.result()) as ToolCallResult;
  assert.equal(modelResult.status, 'succeeded');
  assert.equal(h.payments.commits(chargeKey(principal.tenant, 'pay_mis_1', TOOLS.refund)), 1);
});

test('no decision before the deadline fails closed with APPROVAL_INVALID', { timeout: 120_000 }, async () => {
  const { handle } = await startRefund('expire-1', 'pay_exp_1', { approvalTimeoutMs: 1500 });
  const { modelResult } = (await handle.result()) as ToolCallResult;
  assert.equal(modelResult.status, 'failed');
  assert.equal(modelResult.error?.code, 'APPROVAL_INVALID');
  assert.equal(modelResult.execution.outcome, 'not_started');
  assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_exp_1', TOOLS.refund)), 0);
});

test('duplicate decisions are idempotent: the first valid one wins, later ones change nothing', { timeout: 120_000 }, async () => {
  const { handle, pending } = await startRefund('dup-1', 'pay_dup_1');
  const first = await handle.executeUpdate<ApprovalUpdateResult, [ApprovalDecision]>(APPROVAL_UPDATE, { args: [decision(pending)] });
  assert.deepEqual(first, { accepted: true, duplicate: false });
  await handle.signal(APPROVAL_SIGNAL, decision(pending));
  await handle.signal(APPROVAL_SIGNAL, decision(pending, { decision: 'reject', approver: 'bob' }));
  const { modelResult } = (await handle.result()) as ToolCallResult;
  assert.equal(modelResult.status, 'succeeded');
  assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_dup_1', TOOLS.refund)), 1);
});

test('the approval update refuses a decision for other arguments with an immediate error, and leaves the call pending', { timeout: 120_000 }, async () => {
  const { handle, pending } = await startRefund('update-mismatch-1', 'pay_upd_1');
  await assert.rejects(handle.executeUpdate(APPROVAL_UPDATE, { args: [decision(pending, { requestSha256: 'f'.repeat(64) })] }), (error: unknown) => {
    assert.ok(error instanceof WorkflowUpdateFailedError);
    assert.ok(error.cause instanceof ApplicationFailure);
    assert.equal(error.cause.type, 'APPROVAL_INVALID');
    return true;
  });
  assert.equal((await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY)).length, 1);
  await handle.signal(APPROVAL_SIGNAL, decision(pending, { decision: 'reject' }));
  assert.equal(((await handle.result()) as ToolCallResult).modelResult.error?.code, 'APPROVAL_REJECTED');
});

test('malformed approval signals are dropped without breaking the workflow', { timeout: 120_000 }, async () => {
  const { handle, pending } = await startRefund('malformed-1', 'pay_mal_1');
  for (const junk of [null, 'approve', { callId: pending.callId }, { ...decision(pending), decision: 'maybe' }, { ...decision(pending), approver: '' }]) {
    await handle.signal(APPROVAL_SIGNAL, junk as never);
  }
  const [entry] = await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY);
  assert.equal(entry?.callId, pending.callId, 'still pending and still answering queries');
  assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_mal_1', TOOLS.refund)), 0);
  await handle.signal(APPROVAL_SIGNAL, decision(pending));
  assert.equal(((await handle.result()) as ToolCallResult).modelResult.status, 'succeeded');
  const history = await handle.fetchHistory();
  assert.equal((history.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes).length, 0, 'no workflow task failed');
});

test('recorded approval histories replay deterministically', { timeout: 120_000 }, async () => {
  assert.deepEqual(await h.replay(finished), []);
});
