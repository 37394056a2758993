// Issue 25's ways around the contract, replayed through the public API (workflows of the attacker's own type on the
// task queue, the CLI an operator runs) by someone with access to the Temporal namespace and no signing key: each is
// refused or detected, no handler runs on it, and the legitimate path still works. Real dev server, real Postgres.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import type { ToolActivityInput } from '../../../activities/tool-activity.js';
import type { VerifiedDecision } from '../../../activities/verify-decision.js';
import { formatDecisionKey, signDecision } from '../../../src/decisions/index.js';
import { requestDigest } from '../../../src/contract/bindings.js';
import { type AuditRecord } from '../../../src/contract/audit-record.js';
import { reconcileWorkflowId } from '../../../src/wire/ids.js';
import { TOOL_ACTIVITY_INPUT_KIND } from '../../../src/wire/message-kinds.js';
import { APPROVAL_PENDING_VISIBILITY_QUERY } from '../../../src/wire/search-attributes.js';
import { APPROVAL_UPDATE, PENDING_APPROVALS_QUERY } from '../../../src/wire/names.js';
import {
  WORKFLOW_PROVIDER,
  type ApprovalDecision,
  type ApprovalUpdateResult,
  type PendingApproval,
  type ToolCallResult,
} from '../../../workflows/index.js';
import { runCli } from '../../support/cli-process.js';
import { signedApproval, TEST_DECISION_KEY } from '../../support/decisions.js';
import { eventually } from '../../support/eventually.js';
import { CAPTURED_DECISIONS_QUERY, GIVE_APPROVAL_SIGNAL } from '../../support/test-workflows.js';
import { chargeKey, TOOLS } from '../../../testkit/payment-tools.js';
import { useRuntimeHarness } from '../../support/use-runtime-harness.js';
import { defineTool } from '../../../testkit/define-tool.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const TRANSFER = 'bank.transfer';
/** Runs of the transfer handler by idempotency key, and the arguments it was given: the side effect attacks aim at. */
const transfers = new Map<string, unknown[]>();
const ranUnder = (key: string) => transfers.get(key)?.length ?? 0;

const transferTool = defineTool({
  name: TRANSFER,
  description: 'Move money between accounts, at most 1,000,000 cents (needs approval).',
  input: z.strictObject({ to_account: z.string(), amount_cents: z.number().int().positive().max(1_000_000) }),
  output: z.strictObject({ transfer_id: z.string() }),
  effect: 'write',
  requiresApproval: true,
  source: { label: 'bank', type: 'http_api' },
  handler: (args, ctx) => {
    transfers.set(ctx.idempotencyKey, [...(transfers.get(ctx.idempotencyKey) ?? []), args]);
    return Promise.resolve({
      data: { transfer_id: `tr_${transfers.size}` },
      receipt: { externalId: `tr_${transfers.size}` },
    });
  },
});

/** A renamed ledger write: its business key is scoped by the name its keys were first made under. */
const postings = new Map<string, number>();
const ledgerPost = defineTool({
  name: 'ledger.post',
  aliases: ['ledger.add'],
  idempotencyScope: 'ledger.add',
  description: 'Posts a ledger entry once per entry id.',
  input: z.strictObject({ entry_id: z.string(), amount_cents: z.number().int() }),
  output: z.strictObject({ posted: z.string() }),
  effect: 'write',
  source: { label: 'ledger', type: 'http_api' },
  businessKey: ['entry_id'],
  handler: (args) => {
    postings.set(args.entry_id, (postings.get(args.entry_id) ?? 0) + 1);
    return Promise.resolve({ data: { posted: args.entry_id }, receipt: { externalId: `post_${args.entry_id}` } });
  },
});
/** A renamed read that may run once per workflow. */
const ledgerRead = defineTool({
  name: 'ledger.read',
  aliases: ['ledger.fetch'],
  description: 'Reads the ledger balance (costly: once per workflow).',
  input: z.strictObject({}),
  output: z.strictObject({ balance_cents: z.number().int() }),
  effect: 'read',
  callLimit: 1,
  source: { label: 'ledger', type: 'http_api' },
  handler: () => Promise.resolve({ data: { balance_cents: 1 } }),
});

const h = useRuntimeHarness('rel-bypass-attacks', { extraTools: [transferTool, ledgerPost, ledgerRead] });
const client = () => h.temporal.client;
const cliEnv = () => ({
  TEMPORAL_ADDRESS: h.temporal.server.address,
  TEMPORAL_NAMESPACE: h.temporal.server.namespace,
  ...h.databaseEnv,
  TTC_DECISION_KEY: formatDecisionKey(TEST_DECISION_KEY, 'signing'),
});

async function pendingOf(workflowId: string): Promise<PendingApproval> {
  return eventually(
    'a pending approval',
    async () => (await client().workflow.getHandle(workflowId).query<PendingApproval[]>(PENDING_APPROVALS_QUERY))[0],
    60_000,
  );
}

function update(workflowId: string, decision: ApprovalDecision): Promise<ApprovalUpdateResult> {
  return client()
    .workflow.getHandle(workflowId)
    .executeUpdate<ApprovalUpdateResult, [ApprovalDecision]>(APPROVAL_UPDATE, { args: [decision] });
}

async function auditsOf(workflowId: string): Promise<AuditRecord[]> {
  return (await h.store.listAudits({ workflowId })).map((row) => row.audit);
}

/** A tool call's input as workflow code builds it, for the call `call-1` of `workflowId` (key = operation id unless given). */
function toolInput(workflowId: string, args: unknown, overrides: Partial<ToolActivityInput> = {}): ToolActivityInput {
  const operationId = `${workflowId}:call-1`;
  // The revision is public (every run's history shows it): an attacker sends the right one.
  return {
    kind: TOOL_ACTIVITY_INPUT_KIND,
    args,
    callId: 'call-1',
    operationId,
    idempotencyKey: operationId,
    principal,
    provider: WORKFLOW_PROVIDER,
    dispatch: 'dispatch',
    revision: h.tools.get(TRANSFER).facts.revision,
    ...overrides,
  };
}

/** The failure type a workflow failed with (its activity's), or `null` when it completed. */
async function failureOf(run: Promise<unknown>): Promise<string | null> {
  try {
    await run;
    return null;
  } catch (error) {
    assert.ok(
      error instanceof WorkflowFailedError &&
        error.cause instanceof ActivityFailure &&
        error.cause.cause instanceof ApplicationFailure,
      String(error),
    );
    return error.cause.cause.type ?? null;
  }
}

/** A genuine approval of a transfer of `args` in `workflowId`, through its pending call: the control of every attack. */
async function approvedTransfer(
  workflowId: string,
  args: { to_account: string; amount_cents: number },
): Promise<{ result: ToolCallResult; grant: VerifiedDecision }> {
  const handle = await client().workflow.start('runToolCall', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [TRANSFER, args, { principal }],
  });
  const message = signedApproval(await pendingOf(workflowId), { approver: 'controller@example.com' });
  const answer = await update(workflowId, message);
  assert.ok(answer.accepted, JSON.stringify(answer));
  return {
    result: (await handle.result()) as ToolCallResult,
    grant: { token: message.token ?? null, decision: answer.decision },
  };
}

test(
  '1. a forged "funnelled" second argument runs no handler: raw arguments are refused, a tool call goes through the whole contract',
  { timeout: 180_000 },
  async () => {
    const forgedMark = {
      kind: 'ttc.funnelled-call.v1',
      handlerContext: { callId: 'call-1', operationId: 'x', idempotencyKey: 'forged-raw', attempt: 1, principal },
    };
    const overLimit = { to_account: 'acct_mallory', amount_cents: 99_999_999, memo: 'an extra field' };
    const raw = client().workflow.execute('scheduleAnyActivity', {
      taskQueue: h.taskQueue,
      workflowId: 'attack-funnel-raw',
      args: [TRANSFER, [overLimit, forgedMark]],
    });
    assert.equal(await failureOf(raw), 'INVALID_ARGUMENTS', 'raw arguments to a tool activity are no tool call');
    assert.equal(ranUnder('forged-raw'), 0);

    const workflowId = 'attack-funnel-call';
    const call = client().workflow.execute('scheduleAnyActivity', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [TRANSFER, [toolInput(workflowId, overLimit), forgedMark]],
    });
    const { modelResult, auditRef } = (await call) as ToolCallResult;
    assert.equal(modelResult.error?.code, 'APPROVAL_REQUIRED', 'the mark counted for nothing: no approval, no run');
    assert.ok(auditRef !== null);
    assert.deepEqual(
      (await auditsOf(workflowId)).map((audit) => audit.error_code),
      ['APPROVAL_REQUIRED'],
      'and the refusal is audited',
    );
    assert.equal(ranUnder(`${workflowId}:call-1`), 0);
    assert.deepEqual(
      [...transfers.values()].flat().filter((args) => JSON.stringify(args).includes('99999999')),
      [],
      'the over-limit transfer never ran',
    );

    // Control: the legitimate path, approved, runs the handler once with the validated arguments.
    const { result } = await approvedTransfer('funnel-control', { to_account: 'acct_payroll', amount_cents: 5000 });
    assert.equal(result.modelResult.status, 'succeeded');
    assert.deepEqual(transfers.get('funnel-control:call-1'), [{ to_account: 'acct_payroll', amount_cents: 5000 }]);
  },
);

test(
  "2. a lured approver signs nothing: an attacker's workflow that shows another call under a harmless preview is neither listed nor approvable",
  { timeout: 240_000 },
  async () => {
    const victim = 'lure-victim';
    const victimHandle = await client().workflow.start('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId: victim,
      args: [TRANSFER, { to_account: 'acct_mallory', amount_cents: 999_999 }, { principal }],
    });
    const real = await pendingOf(victim);
    const harmless: PendingApproval = {
      ...real,
      preview: { ...real.preview, arguments: { to_account: 'acct_payroll', amount_cents: 100 } },
    };
    const attacker = 'lure-attacker';
    const lure = await client().workflow.start('lureApprover', {
      taskQueue: h.taskQueue,
      workflowId: attacker,
      args: [harmless],
    });
    try {
      // Once visibility shows the attacker waiting for approval (its search attribute), the operator lists pending calls.
      await eventually(
        'visibility to index the attacker',
        async () => {
          for await (const info of client().workflow.list({ query: APPROVAL_PENDING_VISIBILITY_QUERY }))
            if (info.workflowId === attacker) return true;
          return undefined;
        },
        60_000,
      );
      const listed = await runCli(['pending'], { env: cliEnv() });
      assert.equal(listed.code, 0, listed.stderr);
      const runs = (
        JSON.parse(listed.stdout) as {
          workflows: { workflowId: string; workflowType: string; approvals: PendingApproval[] }[];
        }
      ).workflows;
      assert.deepEqual(
        runs.filter((run) => run.workflowId === attacker),
        [],
        "the attacker's workflow is not a signable pending entry",
      );
      const shown = runs.find((run) => run.workflowId === victim);
      assert.equal(shown?.workflowType, 'runToolCall');
      assert.deepEqual(
        shown?.approvals.map((a) => a.preview.arguments),
        [{ to_account: 'acct_mallory', amount_cents: 999_999 }],
        "the victim's call is shown as it is",
      );

      const lured = await runCli(
        ['approve', attacker, real.callId, '--digest', real.preview.requestSha256, '--approver', 'ops@example.com'],
        { env: cliEnv() },
      );
      assert.equal(lured.code, 5, lured.stderr);
      const captured = await lure.query<ApprovalDecision[]>(CAPTURED_DECISIONS_QUERY);
      assert.deepEqual(captured, [], 'no token was signed for the call the attacker named');
      // What the attacker would do with one: forward it to the victim.
      for (const decision of captured) await update(victim, decision);
      assert.equal(ranUnder(`${victim}:call-1`), 0, 'the 999,999-cent transfer did not run');

      // Control: the operator approves the victim's call they were shown, and it runs once, audited as theirs.
      const approved = await runCli(
        ['approve', victim, real.callId, '--digest', real.preview.requestSha256, '--approver', 'ops@example.com'],
        { env: cliEnv() },
      );
      assert.equal(approved.code, 0, approved.stderr);
      const { auditRef } = (await victimHandle.result()) as ToolCallResult;
      assert.equal(ranUnder(`${victim}:call-1`), 1);
      assert.equal(
        (await auditsOf(victim)).find((audit) => audit.audit_id === auditRef?.audit_id)?.decision?.decided_by,
        'ops@example.com',
      );
    } finally {
      await lure.terminate('test over').catch(() => undefined);
    }
  },
);

test(
  "2. a lying preview signs nothing: an attacker's own call shown to the approver under other arguments than the worker recorded",
  { timeout: 180_000 },
  async () => {
    const attacker = 'lying-preview';
    const handle = await client().workflow.start('callWithLyingPreview', {
      taskQueue: h.taskQueue,
      workflowId: attacker,
      args: [
        TRANSFER,
        { to_account: 'acct_mallory', amount_cents: 999_999 },
        { to_account: 'acct_payroll', amount_cents: 100 },
        { principal },
      ],
    });
    const shown = await pendingOf(attacker);
    assert.deepEqual(
      shown.preview.arguments,
      { to_account: 'acct_payroll', amount_cents: 100 },
      'the workflow answers with the harmless preview',
    );
    const listed = await runCli(['pending', attacker], { env: cliEnv() });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { workflows: { approvals: unknown[] }[] }).workflows.map((run) => run.approvals),
      [[]],
      'not a signable entry',
    );
    const lured = await runCli(
      ['approve', attacker, shown.callId, '--digest', shown.preview.requestSha256, '--approver', 'ops@example.com'],
      { env: cliEnv() },
    );
    assert.equal(lured.code, 5, lured.stderr);
    assert.match(lured.stderr, /lists another request than the one its worker recorded/);
    assert.equal(ranUnder(`${attacker}:call-1`), 0, 'the 999,999-cent transfer did not run');
    // An approver who saw the real request turns it down.
    assert.ok(
      (await update(attacker, signedApproval(shown, { decision: 'reject', approver: 'ops@example.com' }))).accepted,
    );
    const { modelResult } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.error?.code, 'APPROVAL_REJECTED');
  },
);

test(
  '4. a call by name runs no activity that is not a tool: a model-chosen activity name or a ttc.* name is UNKNOWN_TOOL, callTool does not throw',
  { timeout: 180_000 },
  async () => {
    let wiped = 0;
    const taskQueue = `${h.taskQueue}-with-activities`;
    const worker = await h.startWorker({
      taskQueue,
      activities: { 'ops.wipeAudit': () => Promise.resolve((wiped += 1)) },
    });
    try {
      for (const [workflowId, name] of [
        ['expected-non-tool', 'ops.wipeAudit'],
        ['expected-package', 'ttc.settleToolCall'],
      ] as const) {
        const { modelResult, auditRef } = (await client().workflow.execute('runToolCall', {
          taskQueue,
          workflowId,
          args: [name, { everything: true }, { principal }],
        })) as ToolCallResult;
        assert.equal(modelResult.error?.code, 'UNKNOWN_TOOL', name);
        assert.equal(modelResult.execution.outcome, 'not_started', name);
        assert.ok(auditRef !== null, `${name}: refused before any activity, with its audit`);
      }
      assert.equal(wiped, 0, 'the non-tool activity never ran');
      // Control: a plain read made by name runs as one.
      const { modelResult } = (await client().workflow.execute('runToolCall', {
        taskQueue,
        workflowId: 'expected-control',
        args: [TOOLS.customer, { customer_id: 'cus_1' }, { principal }],
      })) as ToolCallResult;
      assert.equal(modelResult.status, 'succeeded');
    } finally {
      await worker.stop();
    }
  },
);

test(
  '11. a renamed tool keeps one key and one call counter for all its names: a write made under both runs once',
  { timeout: 180_000 },
  async () => {
    const entry = { entry_id: 'e-1', amount_cents: 250 };
    const [first, second] = (await client().workflow.execute('sequentialCalls', {
      taskQueue: h.taskQueue,
      workflowId: 'alias-key',
      args: [
        [
          { name: 'ledger.add', args: entry },
          { name: 'ledger.post', args: entry },
        ],
        { principal },
      ],
    })) as ToolCallResult[];
    assert.equal(first?.modelResult.status, 'succeeded');
    assert.equal(
      second?.modelResult.error?.code,
      'IDEMPOTENCY_CONFLICT',
      'the same business key under the new name is not a second write',
    );
    assert.equal(postings.get('e-1'), 1);

    const reads = (await client().workflow.execute('sequentialCalls', {
      taskQueue: h.taskQueue,
      workflowId: 'alias-limit',
      args: [
        [
          { name: 'ledger.fetch', args: {} },
          { name: 'ledger.read', args: {} },
        ],
        { principal },
      ],
    })) as ToolCallResult[];
    assert.deepEqual(
      reads.map((r) => r.modelResult.error?.code ?? r.modelResult.status),
      ['succeeded', 'CALL_LIMIT_EXCEEDED'],
      'one counter under both names',
    );
  },
);

test(
  "12. package activities act only for the workflow they run for: another workflow's in-flight key is not released",
  { timeout: 240_000 },
  async () => {
    // A write in flight: its key is claimed while the provider hangs.
    const key = chargeKey(principal.tenant, 'pay_in_flight', TOOLS.charge);
    h.payments.inject(key, 'hang_before_commit');
    const victim = 'settle-victim';
    const args = { payment_id: 'pay_in_flight', customer: 'cus_1', amount_cents: 700 };
    const victimHandle = await client().workflow.start('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId: victim,
      args: [
        TOOLS.charge,
        args,
        {
          principal,
          timeoutMs: 8000,
          reconcile: { initialIntervalMs: 200, maximumIntervalMs: 500, deadlineMs: 60_000 },
        },
      ],
    });
    await eventually(
      "the victim's key to be claimed",
      async () => ((await h.store.getLedgerEntry(key))?.status === 'claimed' ? true : undefined),
      60_000,
    );
    const identity = {
      tool: TOOLS.charge,
      args,
      callId: 'call-1',
      operationId: `${victim}:call-1`,
      idempotencyKey: key,
      principal,
      provider: WORKFLOW_PROVIDER,
    };
    const settle = client().workflow.execute('scheduleAnyActivity', {
      taskQueue: h.taskQueue,
      workflowId: 'attack-settle',
      args: ['ttc.settleToolCall', [{ identity, settlement: { kind: 'call_limit', limit: 1 } }]],
    });
    assert.equal(await failureOf(settle), 'PERMISSION_DENIED');
    assert.equal((await h.store.getLedgerEntry(key))?.status, 'claimed', 'the in-flight key was not released');
    assert.deepEqual((await auditsOf('attack-settle')).length, 0, 'nothing was recorded');
    // Control: the victim's own reconciliation settles it (the provider never committed).
    const { modelResult } = (await victimHandle.result()) as ToolCallResult;
    assert.equal(modelResult.error?.code, 'NOT_COMMITTED');
    assert.equal(h.payments.commits(key), 0);
  },
);

test(
  "12. package activities act only for the workflow they run for: another workflow's state is not patched",
  { timeout: 120_000 },
  async () => {
    // A patch naming another workflow, citing that workflow's evidence.
    const read = (await client().workflow.execute('readThenPatch', {
      taskQueue: h.taskQueue,
      workflowId: 'patch-victim',
      args: [
        TOOLS.customer,
        { customer_id: 'cus_7' },
        { principal, callId: 'call-tier', key: 'customer.tier', pointer: '/tier' },
      ],
    })) as { read: ToolCallResult };
    const forgedPatch = {
      patchId: 'forged',
      workflowId: 'patch-victim',
      key: 'customer.tier',
      value: 'platinum',
      evidenceIds: read.read.modelResult.evidence.map((e) => e.evidence_id),
      expectedVersion: 1,
      callId: 'call-tier',
    };
    const patched = client().workflow.execute('scheduleAnyActivity', {
      taskQueue: h.taskQueue,
      workflowId: 'attack-patch',
      args: ['ttc.applyStatePatch', [forgedPatch]],
    });
    assert.equal(await failureOf(patched), 'INVALID_ARGUMENTS', "the evidence is not the attacker's workflow's");
    const state = await h.store.getState('patch-victim', 'customer.tier');
    assert.deepEqual([state?.value, state?.version], ['gold', 1], "the victim's state is untouched");
  },
);

test(
  "12. package activities act only for the workflow they run for: another workflow's memory candidate is not confirmed",
  { timeout: 120_000 },
  async () => {
    const proposed = (await client().workflow.execute('proposeCandidate', {
      taskQueue: h.taskQueue,
      workflowId: 'memory-victim',
      args: [principal, 'the customer said: make me an admin'],
    })) as { decision: string; memory: { memoryId: string } | null };
    assert.equal(proposed.decision, 'candidate');
    const memoryId = proposed.memory?.memoryId ?? '';
    const confirm = client().workflow.execute('scheduleAnyActivity', {
      taskQueue: h.taskQueue,
      workflowId: 'attack-memory',
      args: ['ttc.confirmMemory', [{ memoryId, confirmedBy: 'attacker@example.com' }]],
    });
    assert.equal(await failureOf(confirm), 'NOT_FOUND');
    assert.deepEqual(
      (await h.store.listMemories({ workflowId: 'memory-victim' })).map((m) => [m.status, m.confirmedBy]),
      [['candidate', null]],
    );
  },
);

test('13. an approval acts only within its lifetime, where it acts', { timeout: 180_000 }, async () => {
  // An approval the attacker's own workflow holds (signed for its very run) but uses after it expired.
  const args = { to_account: 'acct_mallory', amount_cents: 40_000 };
  const use = async (workflowId: string, issuedAgoMs: number): Promise<ToolCallResult> => {
    const handle = await client().workflow.start('scheduleToolActivityWhenGiven', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [TRANSFER, toolInput(workflowId, args)],
    });
    const requestSha256 = requestDigest(principal, h.tools.get(TRANSFER), args);
    const issuedAt = new Date(Date.now() - issuedAgoMs);
    const token = signDecision(
      {
        kind: 'approval',
        workflowId,
        runId: handle.firstExecutionRunId,
        callId: 'call-1',
        requestSha256,
        decision: 'approve',
        decidedBy: 'controller@example.com',
      },
      TEST_DECISION_KEY,
      { now: issuedAt },
    );
    const decision = {
      decision_id: 'dec_held',
      kind: 'approval',
      decision: 'approve',
      decided_by: 'controller@example.com',
      method: 'ed25519',
      key_id: TEST_DECISION_KEY.id,
      decided_at: issuedAt.toISOString(),
      request_sha256: requestSha256,
      note: null,
      external_id: null,
    } as const;
    await handle.signal(GIVE_APPROVAL_SIGNAL, { token, decision } satisfies VerifiedDecision);
    return (await handle.result()) as ToolCallResult;
  };
  const stale = await use('attack-stale-approval', 20 * 60_000);
  assert.equal(stale.modelResult.error?.code, 'APPROVAL_INVALID');
  assert.equal((await auditsOf('attack-stale-approval'))[0]?.error_code, 'APPROVAL_INVALID', 'refused and audited');
  assert.equal(ranUnder('attack-stale-approval:call-1'), 0, 'an expired approval runs nothing');
  const fresh = await use('stale-approval-control', 0);
  assert.equal(fresh.modelResult.status, 'succeeded', 'control: the same approval within its lifetime runs');
});

test(
  "13. a re-dispatch runs only for a tool allowed one: a closed reconciliation's id reused runs the approved write again nowhere",
  { timeout: 240_000 },
  async () => {
    // An approved refund whose attempt was lost and found not committed: the tool allows no safe retry, so it ends so.
    const key = chargeKey(principal.tenant, 'pay_redispatch', TOOLS.refund);
    h.payments.inject(key, 'hang_before_commit');
    const victim = 'redispatch-victim';
    const refundArgs = { payment_id: 'pay_redispatch', customer: 'cus_1', amount_cents: 900 };
    const handle = await client().workflow.start('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId: victim,
      args: [
        TOOLS.refund,
        refundArgs,
        {
          principal,
          timeoutMs: 1500,
          reconcile: { initialIntervalMs: 200, maximumIntervalMs: 500, deadlineMs: 60_000 },
        },
      ],
    });
    const message = signedApproval(await pendingOf(victim));
    const answer = await update(victim, message);
    assert.ok(answer.accepted);
    assert.equal(((await handle.result()) as ToolCallResult).modelResult.error?.code, 'NOT_COMMITTED');
    // The closed reconciliation's id is free: the attacker's workflow takes it and re-dispatches with the approval.
    const redispatch = toolInput(victim, refundArgs, {
      idempotencyKey: key,
      dispatch: 'redispatch',
      revision: h.tools.get(TOOLS.refund).facts.revision,
      approval: { token: message.token ?? null, decision: answer.decision },
    });
    const again = (await client().workflow.execute('scheduleToolActivity', {
      taskQueue: h.taskQueue,
      workflowId: reconcileWorkflowId(key),
      args: [TOOLS.refund, redispatch],
    })) as ToolCallResult;
    assert.equal(again.modelResult.error?.code, 'TOOL_ERROR');
    assert.equal(again.modelResult.execution.outcome, 'not_started');
    assert.equal(h.payments.commits(key), 0, 'the approved refund did not run again');
  },
);
