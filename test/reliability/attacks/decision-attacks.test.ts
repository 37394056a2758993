// Issue 12's attacks on approvals and resolutions, replayed through the public API (and the CLI) by someone with
// access to the Temporal namespace: each is refused or detected, nothing runs or settles on it, and the audit of
// every decided call names its decider. Real dev server, real Postgres.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { z } from 'zod';
import type { ToolActivityInput } from '../../../activities/tool-activity.js';
import { HIDDEN_FIELD_MARKER } from '../../../src/contract/approval-preview.js';
import { formatDecisionKey, generateDecisionKey, signDecision } from '../../../src/decisions/index.js';
import { requestDigest } from '../../../src/contract/bindings.js';
import { type AuditRecord } from '../../../src/contract/audit-record.js';
import { ToolContractPlugin } from '../../../src/temporal/plugin.js';
import { TOOL_ACTIVITY_INPUT_KIND } from '../../../src/wire/message-kinds.js';
import {
  APPROVAL_DECISIONS_QUERY,
  APPROVAL_SIGNAL,
  APPROVAL_UPDATE,
  PENDING_APPROVALS_QUERY,
  RECONCILE_STATE_QUERY,
  RESOLVE_OUTCOME_SIGNAL,
  RESOLVE_OUTCOME_UPDATE,
} from '../../../src/wire/names.js';
import {
  reconcileWorkflowId,
  WORKFLOW_PROVIDER,
  type ApprovalDecision,
  type ApprovalDecisions,
  type ApprovalUpdateResult,
  type PendingApproval,
  type ReconcileStatus,
  type ResolveOutcomeSignal,
  type ToolCallResult,
} from '../../../workflows/index.js';
import { runCli } from '../../support/cli-process.js';
import { signedApproval, signedResolution, TEST_DECISION_KEY, testDecisions } from '../../support/decisions.js';
import { eventually } from '../../support/eventually.js';
import { chargeKey, TOOLS } from '../../../testkit/payment-tools.js';
import { useRuntimeHarness } from '../../support/use-runtime-harness.js';
import { defineTool } from '../../../testkit/define-tool.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const TRANSFER = 'bank.transfer';
const TRANSFER_SHOWN = 'bank.transfer_shown';
/** How often each transfer's handler ran, by idempotency key: the side effect an attack must never reach. */
const transfers = new Map<string, number>();

const transferInput = z.strictObject({
  to_account: z.string(),
  amount_cents: z.number().int().positive(),
  credentials: z.strictObject({ act_as: z.string() }),
});
const transferTool = (name: string, visibleToApprovers: readonly string[]) =>
  defineTool({
    name,
    description: 'Move money between accounts (needs approval).',
    input: transferInput,
    output: z.strictObject({ transfer_id: z.string() }),
    effect: 'write',
    requiresApproval: true,
    visibleToApprovers,
    source: { label: 'bank', type: 'http_api' },
    handler: async (_args, ctx) => {
      const runs = (transfers.get(ctx.idempotencyKey) ?? 0) + 1;
      transfers.set(ctx.idempotencyKey, runs);
      return { data: { transfer_id: `tr_${transfers.size}` }, receipt: { externalId: `tr_${transfers.size}` } };
    },
  });
const bigTransfer = {
  to_account: 'acct_mallory',
  amount_cents: 999_999,
  credentials: { act_as: 'victim-account-owner' },
};

const h = useRuntimeHarness('rel-decision-attacks', {
  extraTools: [transferTool(TRANSFER, []), transferTool(TRANSFER_SHOWN, ['/credentials/act_as'])],
});
/** The CLI's environment: this file's server, and the approval service's signing key. */
const cliEnv = () => ({
  TEMPORAL_ADDRESS: h.temporal.server.address,
  TEMPORAL_NAMESPACE: h.temporal.server.namespace,
  ...h.databaseEnv,
  TTC_DECISION_KEY: formatDecisionKey(TEST_DECISION_KEY, 'signing'),
});

const client = () => h.temporal.client;
const ranUnder = (workflowId: string) => transfers.get(`${workflowId}:call-1`) ?? 0;

async function startTransfer(workflowId: string, tool = TRANSFER, options: Record<string, unknown> = {}) {
  return client().workflow.start('runToolCall', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [tool, bigTransfer, { principal, ...options }],
  });
}

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

test(
  'an approval given in advance and forged (signalWithStart, offline digest, a made-up approver) approves nothing; forged ones while pending neither',
  { timeout: 120_000 },
  async () => {
    const workflowId = 'attack-early-forged';
    const tool = h.tools.get(TRANSFER);
    // Everything an attacker needs is public: the digest function, the tool's revisions, the predictable call id.
    const forged: ApprovalDecision = {
      callId: 'call-1',
      requestSha256: requestDigest(principal, tool, bigTransfer),
      decision: 'approve',
      approver: 'ceo@example.com (forged)',
    };
    const handle = await client().workflow.signalWithStart('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [TRANSFER, bigTransfer, { principal, approvalTimeoutMs: 8000 }],
      signal: APPROVAL_SIGNAL,
      signalArgs: [forged],
    });
    const pending = await pendingOf(workflowId);
    assert.equal(
      pending.preview.requestSha256,
      forged.requestSha256,
      'the offline digest was right: the forgery was well aimed',
    );
    const { refused } = await handle.query<ApprovalDecisions>(APPROVAL_DECISIONS_QUERY);
    assert.deepEqual(
      refused.map((r) => [r.callId, r.reason, r.claimedBy]),
      [['call-1', 'not_pending', 'ceo@example.com (forged)']],
      'the early decision is on record, refused',
    );

    // While pending: unsigned, signed by an attacker's own key, or with a token edited to name someone else.
    assert.deepEqual(await update(workflowId, forged), { accepted: false, reason: 'unsigned', winner: null });
    assert.deepEqual(
      await update(workflowId, signedApproval(pending, { key: generateDecisionKey('ed25519', TEST_DECISION_KEY.id) })),
      { accepted: false, reason: 'bad_signature', winner: null },
    );
    assert.deepEqual(
      await update(workflowId, signedApproval(pending, { key: generateDecisionKey('hmac-sha256', 'attacker') })),
      { accepted: false, reason: 'unknown_key', winner: null },
    );
    const genuine = signedApproval(pending, { approver: 'intern@example.com' });
    const [payload, signature] = (genuine.token ?? '').split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const edited = `${Buffer.from(JSON.stringify({ ...claims, decidedBy: 'ceo@example.com' })).toString('base64url')}.${signature}`;
    assert.deepEqual(await update(workflowId, { ...genuine, token: edited }), {
      accepted: false,
      reason: 'bad_signature',
      winner: null,
    });

    const { modelResult } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.error?.code, 'APPROVAL_INVALID', 'no valid decision: the call failed closed');
    assert.equal(ranUnder(workflowId), 0, 'the 999,999-cent transfer never ran');
  },
);

test(
  'a decision for other arguments, or replayed from another run, is refused; the approver sees what they approve',
  { timeout: 120_000 },
  async () => {
    const victim = 'attack-replay-victim';
    const victimHandle = await startTransfer(victim);
    const victimPending = await pendingOf(victim);
    // The approver sees the hidden field as a marker at its path, and the list of what is hidden.
    assert.deepEqual(victimPending.preview.arguments, { ...bigTransfer, credentials: HIDDEN_FIELD_MARKER });
    assert.deepEqual(victimPending.preview.hidden, [{ path: '/credentials', reason: 'sensitive_field' }]);
    const smallTransfer = { ...bigTransfer, amount_cents: 100 };
    const otherArgs = signedApproval(victimPending, {
      signFor: { requestSha256: requestDigest(principal, h.tools.get(TRANSFER), smallTransfer) },
    });
    assert.deepEqual(await update(victim, otherArgs), { accepted: false, reason: 'digest_mismatch', winner: null });

    // A genuine approval of the very same request in another workflow is worth nothing here.
    const other = 'attack-replay-source';
    await startTransfer(other);
    const otherPending = await pendingOf(other);
    assert.equal(otherPending.preview.requestSha256, victimPending.preview.requestSha256, 'same request, same digest');
    const theirs = signedApproval(otherPending);
    assert.deepEqual(await update(victim, theirs), { accepted: false, reason: 'binding_mismatch', winner: null });
    assert.deepEqual(await update(victim, signedApproval(victimPending, { signFor: { runId: 'another-run' } })), {
      accepted: false,
      reason: 'binding_mismatch',
      winner: null,
    });
    assert.equal(ranUnder(victim), 0);

    // With the field declared visible, the approver sees whom the transfer acts as.
    const shown = 'attack-preview-shown';
    await startTransfer(shown, TRANSFER_SHOWN);
    const shownPending = await pendingOf(shown);
    assert.deepEqual(shownPending.preview.arguments, bigTransfer);
    assert.deepEqual(shownPending.preview.hidden, []);
    for (const id of [victim, other, shown])
      await client()
        .workflow.getHandle(id)
        .signal(
          APPROVAL_SIGNAL,
          signedApproval(await pendingOf(id), { decision: 'reject', approver: 'risk@example.com' }),
        );
    assert.equal(((await victimHandle.result()) as ToolCallResult).modelResult.error?.code, 'APPROVAL_REJECTED');
  },
);

test(
  'self-approval is refused when the worker forbids it; another approver decides, and the audit names them',
  { timeout: 180_000 },
  async () => {
    const taskQueue = `${h.taskQueue}-no-self-approval`;
    const strict = await h.startWorker({
      taskQueue,
      plugins: [
        new ToolContractPlugin({ tools: h.tools, store: h.store, decisions: testDecisions, forbidSelfApproval: true }),
      ],
    });
    try {
      const workflowId = 'attack-self-approval';
      const handle = await client().workflow.start('runToolCall', {
        taskQueue,
        workflowId,
        args: [TRANSFER, bigTransfer, { principal }],
      });
      const pending = await pendingOf(workflowId);
      assert.deepEqual(await update(workflowId, signedApproval(pending, { approver: principal.subject })), {
        accepted: false,
        reason: 'self_approval',
        winner: null,
      });
      const approved = await update(
        workflowId,
        signedApproval(pending, { approver: 'controller@example.com', reason: 'verified by phone' }),
      );
      assert.ok(approved.accepted);
      const { modelResult, auditRef } = (await handle.result()) as ToolCallResult;
      assert.equal(modelResult.status, 'succeeded');
      assert.equal(ranUnder(workflowId), 1);
      const ran = (await auditsOf(workflowId)).find((audit) => audit.audit_id === auditRef?.audit_id);
      assert.deepEqual(
        {
          by: ran?.decision?.decided_by,
          method: ran?.decision?.method,
          id: ran?.decision?.decision_id,
          digest: ran?.decision?.request_sha256,
          note: ran?.decision?.note,
        },
        {
          by: 'controller@example.com',
          method: 'ed25519',
          id: approved.decision.decision_id,
          digest: pending.preview.requestSha256,
          note: 'verified by phone',
        },
      );
    } finally {
      await strict.stop();
    }
  },
);

test(
  'the tool activity itself refuses to run an approval-required tool without a valid decision for exactly its arguments',
  { timeout: 180_000 },
  async () => {
    // A genuine, approved call: its decision is the one an attacker would copy from history.
    const source = 'attack-direct-source';
    const sourceHandle = await startTransfer(source);
    const sourcePending = await pendingOf(source);
    const grantMessage = signedApproval(sourcePending);
    const granted = await update(source, grantMessage);
    assert.ok(granted.accepted);
    await sourceHandle.result();
    assert.equal(ranUnder(source), 1);
    const grant = { token: grantMessage.token ?? null, decision: granted.decision };

    // [what, arguments, input overrides, code]; an input naming another call's identity is refused without being
    // recorded (recording it would write under that call's key and audit id); every other refusal is audited.
    const attempts: [string, unknown, Partial<ToolActivityInput>, string][] = [
      ['no decision', bigTransfer, {}, 'APPROVAL_REQUIRED'],
      [
        'a forged token',
        bigTransfer,
        {
          approval: {
            ...grant,
            token: signDecision(
              {
                kind: 'approval',
                workflowId: 'attack-direct-1',
                runId: 'r',
                callId: 'call-1',
                requestSha256: grant.decision.request_sha256 ?? '',
                decision: 'approve',
                decidedBy: 'ceo',
              },
              generateDecisionKey('ed25519', TEST_DECISION_KEY.id),
            ),
          },
        },
        'APPROVAL_INVALID',
      ],
      [
        'an unsigned record',
        bigTransfer,
        { approval: { token: null, decision: { ...grant.decision, method: 'unauthenticated' } } },
        'APPROVAL_INVALID',
      ],
      [
        'a genuine decision for other arguments',
        { ...bigTransfer, to_account: 'acct_other' },
        { approval: grant },
        'APPROVAL_INVALID',
      ],
      [
        'a genuine decision for these arguments, copied into another workflow',
        bigTransfer,
        { approval: grant },
        'APPROVAL_INVALID',
      ],
      // These two name an identity that is not this workflow's own call: refused by the ownership check that every tool
      // call passes first, before its approval is even looked at.
      [
        'a genuine decision under a fresh idempotency key',
        bigTransfer,
        { approval: grant, idempotencyKey: 'fresh-key-1' },
        'PERMISSION_DENIED',
      ],
      [
        "a genuine decision with the genuine call's identity",
        bigTransfer,
        { approval: grant, operationId: `${source}:call-1`, idempotencyKey: `${source}:call-1` },
        'PERMISSION_DENIED',
      ],
    ];
    const foreignIdentity = new Set([6, 7]);
    for (const [i, [what, args, overrides, code]] of attempts.entries()) {
      const workflowId = `attack-direct-${i + 1}`;
      const input: ToolActivityInput = {
        kind: TOOL_ACTIVITY_INPUT_KIND,
        args,
        callId: 'call-1',
        operationId: `${workflowId}:call-1`,
        idempotencyKey: `${workflowId}:call-1`,
        principal,
        provider: WORKFLOW_PROVIDER,
        dispatch: 'dispatch',
        // Public (every run's history shows it): the attacker sends the right one.
        revision: h.tools.get(TRANSFER).facts.revision,
        ...overrides,
      };
      const { modelResult, auditRef } = await client().workflow.execute<
        (tool: string, input: ToolActivityInput) => Promise<ToolCallResult>
      >('scheduleToolActivity', {
        taskQueue: h.taskQueue,
        workflowId,
        args: [TRANSFER, input],
      });
      assert.equal(modelResult.error?.code, code, what);
      assert.equal(modelResult.execution.outcome, 'not_started', what);
      if (foreignIdentity.has(i + 1)) {
        assert.equal(auditRef, null, `${what}: nothing is recorded under another call's identity`);
      } else {
        assert.ok(auditRef !== null, `${what}: the refusal is audited`);
        assert.equal((await auditsOf(workflowId))[0]?.error_code, code, what);
      }
    }
    for (const key of [...attempts.keys()].map((i) => `attack-direct-${i + 1}:call-1`).concat('fresh-key-1'))
      assert.equal(transfers.get(key), undefined, `the handler never ran under ${key}`);
    assert.equal(ranUnder(source), 1, 'nor again for the genuine call');
    assert.equal((await auditsOf(source)).length, 1, "the genuine call's audit is untouched");
  },
);

test(
  'a forged resolution while the reconciliation is still asking the provider is refused and settles nothing (public API and CLI)',
  { timeout: 180_000 },
  async () => {
    const key = chargeKey(principal.tenant, 'pay_forged_res', TOOLS.charge);
    h.payments.inject(key, 'hang_before_commit');
    h.payments.setStatusFault(key, 'unavailable');
    const handle = await client().workflow.start('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId: 'attack-forged-resolution',
      args: [
        TOOLS.charge,
        { payment_id: 'pay_forged_res', customer: 'cus_1', amount_cents: 500 },
        {
          principal,
          timeoutMs: 1500,
          reconcile: { initialIntervalMs: 200, maximumIntervalMs: 500, deadlineMs: 120_000 },
        },
      ],
    });
    const reconciler = client().workflow.getHandle(reconcileWorkflowId(key));
    const asking = await eventually(
      'the reconciliation to be asking the provider',
      async () => {
        const status = await reconciler.query<ReconcileStatus>(RECONCILE_STATE_QUERY);
        return status.state === 'reconciling' && status.queries >= 1 ? status : undefined;
      },
      60_000,
    );

    const forged: ResolveOutcomeSignal = {
      outcome: 'committed',
      externalId: 'FORGED-RECEIPT-123',
      resolvedBy: 'attacker@example.com',
    };
    await reconciler.signal(RESOLVE_OUTCOME_SIGNAL, forged);
    // Even a correctly signed resolution does not count before the escalation: a person's word does not override a
    // receipt the authoritative system may still give.
    await reconciler.signal(
      RESOLVE_OUTCOME_SIGNAL,
      signedResolution(asking, {
        outcome: 'committed',
        externalId: 'FORGED-RECEIPT-123',
        resolvedBy: 'ops@example.com',
      }),
    );
    const answered = await reconciler.executeUpdate<ApprovalUpdateResult, [ResolveOutcomeSignal]>(
      RESOLVE_OUTCOME_UPDATE,
      { args: [forged] },
    );
    assert.deepEqual(answered, { accepted: false, reason: 'not_escalated', winner: null });
    const cli = await runCli(
      ['resolve', key, '--committed', 'FORGED-RECEIPT-123', '--resolver', 'attacker@example.com'],
      { env: cliEnv() },
    );
    assert.equal(cli.code, 5, cli.stderr);
    assert.match(cli.stderr, /'reconciling', not 'escalated'/);

    const status = await reconciler.query<ReconcileStatus>(RECONCILE_STATE_QUERY);
    assert.equal(status.state, 'reconciling', 'still asking the provider');
    assert.deepEqual(
      status.refusedResolutions.map((r) => r.reason),
      ['not_escalated', 'not_escalated', 'not_escalated'],
    );
    assert.equal((await h.store.getReconciliation(key))?.state, 'open', 'nothing settled in the store');

    // The provider answers at last: the write never happened, and that is the result — not a forged receipt.
    h.payments.setStatusFault(key, 'truthful');
    const { modelResult } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.error?.code, 'NOT_COMMITTED');
    assert.equal(modelResult.execution.delivery, 'confirmed_absent');
    assert.equal(modelResult.execution.outcome, 'not_started');
    assert.equal(h.payments.commits(key), 0);
  },
);

test(
  'CLI: an unsigned approval is refused when the worker requires signatures, and the loser of a race exits 5 naming the winner',
  { timeout: 180_000 },
  async () => {
    const workflowId = 'attack-cli-race';
    const handle = await startTransfer(workflowId);
    const pending = await pendingOf(workflowId);
    const decide = (
      verb: 'approve' | 'reject',
      who: string,
      options: { cwd?: string; env?: Record<string, string | undefined> } = {},
    ) =>
      runCli([verb, workflowId, pending.callId, '--digest', pending.preview.requestSha256, '--approver', who], {
        env: cliEnv(),
        ...options,
      });

    // No key in the environment, none in the folder: the CLI sends an unsigned decision, and the worker refuses it.
    const unsigned = await decide('approve', 'ceo@example.com', {
      cwd: mkdtempSync(join(tmpdir(), 'ttc-no-keys-')),
      env: { ...cliEnv(), TTC_DECISION_KEY: undefined },
    });
    assert.equal(unsigned.code, 5, unsigned.stderr);
    assert.match(unsigned.stderr, /unsigned/);

    const [approve, reject] = await Promise.all([
      decide('approve', 'alice@example.com'),
      decide('reject', 'bob@example.com'),
    ]);
    const winner =
      approve.code === 0
        ? { run: approve, who: 'alice@example.com', loser: reject }
        : { run: reject, who: 'bob@example.com', loser: approve };
    assert.equal(winner.run.code, 0, `${approve.stderr}\n${reject.stderr}`);
    assert.equal(winner.loser.code, 5, winner.loser.stderr);
    assert.ok(winner.loser.stderr.includes(winner.who), `the loser is told who won: ${winner.loser.stderr}`);
    const decided = (JSON.parse(winner.run.stdout) as { recorded: { decision_id: string } }).recorded.decision_id;
    assert.ok(winner.loser.stderr.includes(decided), 'and which decision won');

    const { auditRef } = (await handle.result()) as ToolCallResult;
    const audit = (await auditsOf(workflowId)).find((row) => row.audit_id === auditRef?.audit_id);
    assert.equal(audit?.decision?.decided_by, winner.who, 'the audit names the winner');
    assert.equal(ranUnder(workflowId), winner.who === 'alice@example.com' ? 1 : 0, 'the transfer ran iff approved');
  },
);

test('every decided call of these attacks replays deterministically', { timeout: 120_000 }, async () => {
  const ids = [
    'attack-early-forged',
    'attack-replay-victim',
    'attack-direct-source',
    'attack-direct-1',
    'attack-forged-resolution',
    reconcileWorkflowId(chargeKey(principal.tenant, 'pay_forged_res', TOOLS.charge)),
    'attack-cli-race',
  ];
  assert.deepEqual(await h.replay(ids), []);
});
