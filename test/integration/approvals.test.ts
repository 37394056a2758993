import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  APPROVAL_DECISIONS_QUERY,
  APPROVAL_SIGNAL,
  APPROVAL_UPDATE,
  PENDING_APPROVALS_QUERY,
} from '../../src/wire/names.js';
import { APPROVAL_PENDING_SA } from '../../src/wire/search-attributes.js';
import type {
  ApprovalDecision,
  ApprovalDecisions,
  ApprovalUpdateResult,
  PendingApproval,
  ToolCallResult,
} from '../../workflows/index.js';
import { signedApproval, TEST_DECISION_KEY } from '../support/decisions.js';
import { eventually } from '../support/eventually.js';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const h = useRuntimeHarness('it-approvals');
const finished: string[] = [];

/** Starts a refund that needs approval and waits until it is pending; returns the handle and the pending entry. */
async function startRefund(
  workflowId: string,
  paymentId: string,
  options: Record<string, unknown> = {},
): Promise<{ handle: WorkflowHandle; pending: PendingApproval }> {
  const handle = await h.temporal.client.workflow.start('runToolCall', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [
      TOOLS.refund,
      { payment_id: paymentId, customer: 'cus_1', amount_cents: 700, api_key: undefined },
      { principal, ...options },
    ],
  });
  finished.push(workflowId);
  const pending = await eventually(
    'a pending approval',
    async () => (await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY))[0],
  );
  return { handle, pending };
}

/** The audit records of a workflow's calls (every attempt). */
async function audits(workflowId: string) {
  return (await h.store.listAudits({ workflowId })).map((row) => row.audit);
}

test(
  'a call that requires approval waits, is listed with its preview, runs once approved, and its audit names the approver',
  { timeout: 120_000 },
  async () => {
    const { handle, pending } = await startRefund('approve-2', 'pay_appr_1');
    assert.equal(pending.preview.tool, TOOLS.refund);
    assert.equal(pending.preview.effect, 'write');
    assert.match(pending.preview.requestSha256, /^[0-9a-f]{64}$/);
    assert.deepEqual(pending.preview.arguments, { payment_id: 'pay_appr_1', customer: 'cus_1', amount_cents: 700 });
    assert.deepEqual(pending.preview.hidden, []);
    assert.equal(pending.workflowId, 'approve-2');
    assert.equal(pending.runId, (await handle.describe()).runId);
    assert.equal(
      h.payments.dispatches(chargeKey(principal.tenant, 'pay_appr_1', TOOLS.refund)),
      0,
      'nothing runs before the decision',
    );
    const described = await handle.describe();
    assert.equal(described.typedSearchAttributes.get(APPROVAL_PENDING_SA), true);
    const listed = await eventually('visibility to list the waiting workflow', async () => {
      const ids: string[] = [];
      for await (const wf of h.temporal.client.workflow.list({ query: `${APPROVAL_PENDING_SA.name} = true` }))
        ids.push(wf.workflowId);
      return ids.includes('approve-2') ? ids : undefined;
    });
    assert.ok(listed.includes('approve-2'));

    await handle.signal(APPROVAL_SIGNAL, signedApproval(pending, { reason: 'customer verified' }));
    const { modelResult, auditRef } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.status, 'succeeded');
    assert.equal(modelResult.execution.outcome, 'committed');
    assert.equal(h.payments.commits(chargeKey(principal.tenant, 'pay_appr_1', TOOLS.refund)), 1);
    assert.equal((await handle.describe()).typedSearchAttributes.get(APPROVAL_PENDING_SA), false);

    const ran = (await audits('approve-2')).find((audit) => audit.audit_id === auditRef?.audit_id);
    assert.equal(ran?.decision?.kind, 'approval');
    assert.equal(ran?.decision?.decision, 'approve');
    assert.equal(ran?.decision?.decided_by, 'alice@example.com');
    assert.equal(ran?.decision?.method, 'ed25519');
    assert.equal(ran?.decision?.key_id, TEST_DECISION_KEY.id);
    assert.equal(ran?.decision?.request_sha256, pending.preview.requestSha256);
    assert.equal(ran?.decision?.note, 'customer verified');
    const { decided } = await handle.query<ApprovalDecisions>(APPROVAL_DECISIONS_QUERY);
    assert.deepEqual(
      decided.map((d) => [d.callId, d.decision.decision_id]),
      [[pending.callId, ran?.decision?.decision_id]],
    );
  },
);

test(
  'a rejection ends the call as APPROVAL_REJECTED without running it, and its audit names who rejected',
  { timeout: 120_000 },
  async () => {
    const { handle, pending } = await startRefund('reject-2', 'pay_rej_1');
    await handle.signal(
      APPROVAL_SIGNAL,
      signedApproval(pending, { decision: 'reject', approver: 'bob@example.com', reason: 'amount too high' }),
    );
    const { modelResult, auditRef } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.status, 'failed');
    assert.equal(modelResult.error?.code, 'APPROVAL_REJECTED');
    assert.equal(modelResult.execution.outcome, 'not_started');
    assert.ok(auditRef !== null, 'the refusal is audited');
    const [audit] = await audits('reject-2');
    assert.equal(audit?.decision?.decision, 'reject');
    assert.equal(audit?.decision?.decided_by, 'bob@example.com');
    assert.equal(audit?.decision?.note, 'amount too high');
    assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_rej_1', TOOLS.refund)), 0);
  },
);

test(
  'a decision for a different request digest is recorded as refused and the call stays pending',
  { timeout: 120_000 },
  async () => {
    const { handle, pending } = await startRefund('mismatch-2', 'pay_mis_1');
    await handle.signal(APPROVAL_SIGNAL, {
      ...signedApproval(pending, { approver: 'mallory' }),
      requestSha256: '0'.repeat(64),
    });
    const still = await eventually('the refused decision to be recorded', async () => {
      const [entry] = await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY);
      return entry !== undefined && entry.invalidDecisions.length === 1 ? entry : undefined;
    });
    assert.equal(still.invalidDecisions[0]?.reason, 'digest_mismatch');
    assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_mis_1', TOOLS.refund)), 0);
    await handle.signal(APPROVAL_SIGNAL, signedApproval(pending));
    const { modelResult } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.status, 'succeeded');
    assert.equal(h.payments.commits(chargeKey(principal.tenant, 'pay_mis_1', TOOLS.refund)), 1);
  },
);

test('no decision before the deadline fails closed with APPROVAL_INVALID', { timeout: 120_000 }, async () => {
  const { handle } = await startRefund('expire-2', 'pay_exp_1', { approvalTimeoutMs: 1500 });
  const { modelResult } = (await handle.result()) as ToolCallResult;
  assert.equal(modelResult.status, 'failed');
  assert.equal(modelResult.error?.code, 'APPROVAL_INVALID');
  assert.equal(modelResult.execution.outcome, 'not_started');
  assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_exp_1', TOOLS.refund)), 0);
});

test('the first valid decision wins; a later one is told it lost, and who won', { timeout: 120_000 }, async () => {
  const { handle, pending } = await startRefund('dup-2', 'pay_dup_1');
  // A slow refund, so the late signal below mostly reaches the call still running (and is ignored there); on a busy
  // machine the call may end first, and Temporal refuses the signal: either way the late decision does not count.
  h.payments.inject(chargeKey(principal.tenant, 'pay_dup_1', TOOLS.refund), 'slow');
  const first = await handle.executeUpdate<ApprovalUpdateResult, [ApprovalDecision]>(APPROVAL_UPDATE, {
    args: [signedApproval(pending)],
  });
  assert.ok(first.accepted);
  assert.equal(first.decision.decided_by, 'alice@example.com');
  const late = await handle.executeUpdate<ApprovalUpdateResult, [ApprovalDecision]>(APPROVAL_UPDATE, {
    args: [signedApproval(pending, { decision: 'reject', approver: 'bob' })],
  });
  assert.deepEqual(late, { accepted: false, reason: 'already_decided', winner: first.decision });
  await handle
    .signal(APPROVAL_SIGNAL, signedApproval(pending, { decision: 'reject', approver: 'bob' }))
    .catch((error: unknown) => {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    });
  const { modelResult } = (await handle.result()) as ToolCallResult;
  assert.equal(modelResult.status, 'succeeded');
  assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_dup_1', TOOLS.refund)), 1);
});

test(
  'the approval update answers a decision for other arguments with why it did not count, and leaves the call pending',
  { timeout: 120_000 },
  async () => {
    const { handle, pending } = await startRefund('update-mismatch-2', 'pay_upd_1');
    const wrongMessage = await handle.executeUpdate<ApprovalUpdateResult, [ApprovalDecision]>(APPROVAL_UPDATE, {
      args: [{ ...signedApproval(pending), requestSha256: 'f'.repeat(64) }],
    });
    assert.deepEqual(wrongMessage, { accepted: false, reason: 'digest_mismatch', winner: null });
    // The message names the pending digest, but the token was signed for other arguments.
    const wrongToken = await handle.executeUpdate<ApprovalUpdateResult, [ApprovalDecision]>(APPROVAL_UPDATE, {
      args: [signedApproval(pending, { signFor: { requestSha256: 'f'.repeat(64) } })],
    });
    assert.deepEqual(wrongToken, { accepted: false, reason: 'digest_mismatch', winner: null });
    await assert.rejects(
      handle.executeUpdate(APPROVAL_UPDATE, { args: [{ callId: pending.callId }] }),
      (error: unknown) => {
        assert.ok(error instanceof WorkflowUpdateFailedError);
        assert.ok(error.cause instanceof ApplicationFailure);
        assert.equal(error.cause.type, 'APPROVAL_INVALID', 'a malformed decision is refused by the validator');
        return true;
      },
    );
    assert.equal((await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY)).length, 1);
    await handle.signal(APPROVAL_SIGNAL, signedApproval(pending, { decision: 'reject' }));
    assert.equal(((await handle.result()) as ToolCallResult).modelResult.error?.code, 'APPROVAL_REJECTED');
  },
);

test('malformed approval signals are refused without breaking the workflow', { timeout: 120_000 }, async () => {
  const { handle, pending } = await startRefund('malformed-2', 'pay_mal_1');
  const valid = signedApproval(pending);
  for (const junk of [
    null,
    'approve',
    { callId: pending.callId },
    { ...valid, decision: 'maybe' },
    { ...valid, token: '' },
    { ...valid, token: 'not.a-token' },
  ]) {
    await handle.signal(APPROVAL_SIGNAL, junk as never);
  }
  const refused = await eventually('every junk signal to be refused', async () => {
    const { refused: log } = await handle.query<ApprovalDecisions>(APPROVAL_DECISIONS_QUERY);
    return log.length === 6 ? log : undefined;
  });
  assert.deepEqual(
    refused.map((r) => r.reason),
    ['malformed', 'malformed', 'malformed', 'malformed', 'malformed', 'bad_token'],
  );
  const [entry] = await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY);
  assert.equal(entry?.callId, pending.callId, 'still pending and still answering queries');
  assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_mal_1', TOOLS.refund)), 0);
  await handle.signal(APPROVAL_SIGNAL, valid);
  assert.equal(((await handle.result()) as ToolCallResult).modelResult.status, 'succeeded');
  const history = await handle.fetchHistory();
  assert.equal(
    (history.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes).length,
    0,
    'no workflow task failed',
  );
});

test('recorded approval histories replay deterministically', { timeout: 120_000 }, async () => {
  assert.deepEqual(await h.replay(finished), []);
});
