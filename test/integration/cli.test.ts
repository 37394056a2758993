import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { parseCommand } from '../../src/cli/argv.js';
import { CliError, EXIT_CODES } from '../../src/cli/cli-error.js';
import { configFromEnv } from '../../src/cli/cli-config.js';
import type { CliDeps } from '../../src/cli/command.js';
import { unsettledCommand } from '../../src/cli/commands/unsettled.js';
import { decideApproval } from '../../src/cli/approve.js';
import { inspectCalls } from '../../src/cli/inspect.js';
import type { InspectView } from '../../src/cli/inspect-view.js';
import { listPendingApprovals } from '../../src/cli/pending.js';
import { resolveOutcome } from '../../src/cli/resolve.js';
import { reportMetrics } from '../../src/cli/metrics.js';
import type { ToolStore } from '../../src/store/index.js';
import { RECONCILE_STATE_SA } from '../../src/wire/search-attributes.js';
import { formatDecisionKey } from '../../src/decisions/index.js';
import { reconcileWorkflowId, type ToolCallResult } from '../../workflows/index.js';
import { TEST_DECISION_KEY } from '../support/decisions.js';
import { eventually } from '../support/eventually.js';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import { RUN_TYPESCRIPT } from '../../testkit/run-typescript.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';

// The machine may be shared with other test runs: every wait here is generous.
const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const h = useRuntimeHarness('it-cli');

const mainScript = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** Runs the real `main` in a child process (async, so this process's worker keeps running); never rejects. */
function runMain(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...RUN_TYPESCRIPT, mainScript, ...args],
      { env: { ...process.env, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs an operator command line as `main` does, with these connections. */
async function runOperator(argv: readonly string[], deps: CliDeps): Promise<unknown> {
  const command = parseCommand(argv);
  assert.equal(command.kind, 'operator', argv.join(' '));
  return command.kind === 'operator' ? command.run(deps) : undefined;
}

/** What `unsettled` prints, read from the store. */
function listUnsettled(store: ToolStore) {
  return unsettledCommand.run(
    {},
    {
      cli: 'tool-contract',
      config: configFromEnv({}),
      client: () => Promise.reject(new Error('unsettled needs no Temporal')),
      store: () => Promise.resolve(store),
      database: () => Promise.reject(new Error('unsettled needs only the store')),
      signingKey: () => Promise.reject(new Error('unsettled signs nothing')),
    },
  );
}

/** Asserts that `promise` rejects with a CliError carrying `exitCode`. */
async function rejectsWithExit(promise: Promise<unknown>, exitCode: number): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof CliError, `expected a CliError, got ${String(error)}`);
    assert.equal(error.exitCode, exitCode);
    return true;
  });
}

test(
  'pending lists a call waiting for approval, approve runs it, inspect shows its model result, audit and evidence',
  { timeout: 240_000 },
  async () => {
    const workflowId = 'cli-approve-1';
    const handle = await h.temporal.client.workflow.start('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [TOOLS.refund, { payment_id: 'pay_cli_1', customer: 'cus_1', amount_cents: 700 }, { principal }],
    });
    const [one] = await eventually(
      'the call to be pending',
      async () => {
        const { workflows } = await listPendingApprovals(h.temporal.client, h.store, { workflowId });
        return workflows[0]?.approvals.length === 1 ? workflows : undefined;
      },
      60_000,
    );
    const pending = one!.approvals[0]!;
    assert.equal(pending.preview.tool, TOOLS.refund);

    const listed = await eventually(
      'the store to list the waiting workflow',
      async () => {
        const { workflows } = await listPendingApprovals(h.temporal.client, h.store);
        return workflows.find((wf) => wf.workflowId === workflowId);
      },
      60_000,
    );
    assert.equal(listed.error, null);
    assert.deepEqual(
      listed.approvals.map((a) => a.callId),
      [pending.callId],
    );

    // A wrong digest is refused at once (exit 5) and the call stays pending.
    await rejectsWithExit(
      decideApproval(
        h.temporal.client,
        h.store,
        { workflowId, callId: pending.callId, requestSha256: '0'.repeat(64), decision: 'approve', approver: 'mallory' },
        TEST_DECISION_KEY,
      ),
      EXIT_CODES.refused,
    );
    await rejectsWithExit(
      decideApproval(
        h.temporal.client,
        h.store,
        {
          workflowId: 'cli-no-such-workflow',
          callId: 'call-1',
          requestSha256: '0'.repeat(64),
          decision: 'approve',
          approver: 'alice',
        },
        TEST_DECISION_KEY,
      ),
      EXIT_CODES.notFound,
    );

    // Driven through the parsed command line, as `main` does.
    const deps: CliDeps = {
      cli: 'tool-contract',
      config: configFromEnv({}),
      client: () => Promise.resolve(h.temporal.client),
      store: () => Promise.resolve(h.store),
      database: () => Promise.reject(new Error('the audit trail commands are not run here')),
      signingKey: () => Promise.resolve(TEST_DECISION_KEY),
    };
    const decided = (await runOperator(
      [
        'approve',
        workflowId,
        pending.callId,
        '--digest',
        pending.preview.requestSha256,
        '--approver',
        'alice@example.com',
        '--reason',
        'customer verified',
      ],
      deps,
    )) as { accepted: boolean; recorded: { decided_by: string; method: string } };
    assert.equal(decided.accepted, true);
    assert.equal(decided.recorded.decided_by, 'alice@example.com');
    assert.equal(decided.recorded.method, 'ed25519');
    const { modelResult } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.status, 'succeeded');
    assert.equal(h.payments.commits(chargeKey(principal.tenant, 'pay_cli_1', TOOLS.refund)), 1);

    const inspected = await inspectCalls(h.store, { workflowId, callId: pending.callId });
    assert.equal(inspected.calls.length, 1);
    const call = inspected.calls[0]!;
    assert.deepEqual(call.modelResult, modelResult, 'inspect shows exactly the model result the workflow got');
    assert.equal(call.ledger?.status, 'completed');
    assert.ok(call.attempts.length >= 1);
    assert.equal(call.attempts[0]!.audit.tool, TOOLS.refund);
    assert.ok(inspected.evidence.length >= 1, 'the receipt is evidence');
    assert.ok(inspected.evidence.every((row) => row.callId === pending.callId));
    assert.deepEqual(inspected.statePatches, []);
    JSON.stringify(inspected); // printable as JSON
    const whole = (await runOperator(['inspect', workflowId], deps)) as InspectView;
    assert.deepEqual(
      whole.calls.map((c) => c.callId),
      [pending.callId],
    );
    // The default view names who approved, how and when; only the approver's note is withheld.
    const approved = whole.calls[0]!.attempts.find((attempt) => attempt.audit.decision !== undefined)?.audit.decision;
    assert.deepEqual(
      [approved?.decided_by, approved?.method, approved?.decision, approved?.key_id],
      ['alice@example.com', 'ed25519', 'approve', TEST_DECISION_KEY.id],
    );
    assert.ok(approved !== undefined && !('note' in approved), 'the note is a protected field');
    assert.ok(!whole.protectedFields.included && whole.protectedFields.withheld.includes('audit.decision.note'));

    await rejectsWithExit(inspectCalls(h.store, { workflowId, callId: 'call-999' }), EXIT_CODES.notFound);
    await rejectsWithExit(
      listPendingApprovals(h.temporal.client, h.store, { workflowId: 'cli-no-such-workflow' }),
      EXIT_CODES.notFound,
    );
  },
);

test(
  'unsettled lists an escalated reconciliation with metrics, and resolve settles it: human_resolved',
  { timeout: 240_000 },
  async () => {
    const key = chargeKey(principal.tenant, 'pay_cli_2', TOOLS.chargeNoReconcile);
    h.payments.inject(key, 'hang_before_commit');
    const handle = await h.temporal.client.workflow.start('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId: 'cli-escalate-1',
      args: [
        TOOLS.chargeNoReconcile,
        { payment_id: 'pay_cli_2', customer: 'cus_1', amount_cents: 500 },
        { principal, timeoutMs: 1500, reconcile: { initialIntervalMs: 200, maximumIntervalMs: 800, deadlineMs: 3000 } },
      ],
    });
    const reconciler = h.temporal.client.workflow.getHandle(reconcileWorkflowId(key));
    await eventually(
      'escalation',
      async () =>
        (await reconciler.describe()).typedSearchAttributes.get(RECONCILE_STATE_SA) === 'escalated' ? true : undefined,
      90_000,
    );

    // listUnsettled reads the records and the metrics in two statements at once: the poll that first sees the record
    // may count it in one and not yet in the other, so wait until both agree.
    await eventually(
      'the escalated record listed and counted as unknown and escalated',
      async () => {
        const out = await listUnsettled(h.store);
        const listed = out.unsettled.some((r) => r.idempotencyKey === key && r.state === 'escalated');
        return listed && out.metrics.unknownSideEffects >= 1 && out.metrics.escalated >= 1 ? true : undefined;
      },
      60_000,
    );

    await rejectsWithExit(
      resolveOutcome(
        h.temporal.client,
        { idempotencyKey: 'no-such-key', outcome: 'not_committed', resolvedBy: 'ops' },
        TEST_DECISION_KEY,
      ),
      EXIT_CODES.notFound,
    );
    const sent = await resolveOutcome(
      h.temporal.client,
      {
        idempotencyKey: key,
        outcome: 'not_committed',
        resolvedBy: 'ops@example.com',
        note: 'not in the provider dashboard',
      },
      TEST_DECISION_KEY,
    );
    assert.equal(sent.workflowId, reconcileWorkflowId(key));
    assert.equal(sent.accepted, true);
    assert.equal(sent.recorded.decided_by, 'ops@example.com');
    assert.equal(sent.recorded.note, 'not in the provider dashboard');
    const { modelResult } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.execution.delivery, 'human_resolved');
    assert.equal(modelResult.execution.outcome, 'not_started');
    assert.equal(h.payments.dispatches(key), 1, 'never re-dispatched');

    const afterwards = await listUnsettled(h.store);
    assert.ok(!afterwards.unsettled.some((r) => r.idempotencyKey === key), 'settled records are no longer listed');
    assert.equal((await h.store.getReconciliation(key))?.resolvedBy, 'ops@example.com');
  },
);

test('metrics: seed 004 rates and time to settle from what the calls above recorded', async () => {
  const everything = await reportMetrics(h.store);
  assert.ok(everything.metrics.attempts > 0, 'the calls of the tests above were audited');
  assert.ok(everything.metrics.reconciliation.settled >= 1, 'the resolved reconciliation counts as settled');
  assert.notEqual(everything.metrics.reconciliation.timeToSettleMs, null);
  assert.match(everything.text, /\| schema failure rate \(OUTPUT_CONTRACT_VIOLATION\) \| /);
  const future = await reportMetrics(h.store, { since: new Date(Date.now() + 3600_000).toISOString() });
  assert.equal(future.metrics.attempts, 0, 'a window after every call holds none');
  const viaRunCommand = (await runOperator(['metrics'], {
    cli: 'tool-contract',
    config: configFromEnv({}),
    client: () => Promise.reject(new Error('metrics needs no Temporal')),
    store: () => Promise.resolve(h.store),
    database: () => Promise.reject(new Error('metrics needs only the store')),
    signingKey: () => Promise.reject(new Error('metrics signs nothing')),
  })) as typeof everything;
  assert.equal(viaRunCommand.metrics.attempts, everything.metrics.attempts);
  const [tool] = everything.metrics.byTool;
  assert.ok(tool !== undefined);
  const narrowed = await reportMetrics(h.store, { tool: tool.tool });
  assert.deepEqual(
    [narrowed.metrics.attempts, narrowed.metrics.byTool.map((t) => t.tool)],
    [tool.attempts, [tool.tool]],
  );
});

test(
  'main: argv and env in, JSON out, exit codes for bad input, unknown workflows and an unreachable server',
  { timeout: 240_000 },
  async () => {
    const workflowId = 'cli-main-reject-1';
    const handle = await h.temporal.client.workflow.start('runToolCall', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [TOOLS.refund, { payment_id: 'pay_cli_3', customer: 'cus_1', amount_cents: 900 }, { principal }],
    });
    const env = {
      TEMPORAL_ADDRESS: h.temporal.server.address,
      TEMPORAL_NAMESPACE: h.temporal.server.namespace,
      ...h.databaseEnv,
      TTC_DECISION_KEY: formatDecisionKey(TEST_DECISION_KEY, 'signing'),
    };
    const pending = await eventually(
      'the call to be pending',
      async () => {
        const run = await runMain(['pending', workflowId], env);
        if (run.code !== 0) return undefined;
        const out = JSON.parse(run.stdout) as Awaited<ReturnType<typeof listPendingApprovals>>;
        return out.workflows[0]?.approvals[0];
      },
      90_000,
    );
    const rejected = await runMain(
      [
        'reject',
        workflowId,
        pending.callId,
        '--digest',
        pending.preview.requestSha256,
        '--approver',
        'bob',
        '--reason',
        'too much',
      ],
      env,
    );
    assert.equal(rejected.code, 0, rejected.stderr);
    const printed = JSON.parse(rejected.stdout) as {
      workflowId: string;
      decision: string;
      accepted: boolean;
      recorded: { decided_by: string; note: string };
    };
    assert.deepEqual(
      [printed.workflowId, printed.decision, printed.accepted, printed.recorded.decided_by, printed.recorded.note],
      [workflowId, 'reject', true, 'bob', 'too much'],
    );
    assert.ok(
      !rejected.stdout.includes(formatDecisionKey(TEST_DECISION_KEY, 'signing').split(':')[2]!),
      'the key is never printed',
    );
    const { modelResult } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.error?.code, 'APPROVAL_REJECTED');

    const usage = await runMain(['approve', workflowId], env);
    assert.equal(usage.code, EXIT_CODES.usage);
    assert.match(usage.stderr, /Usage: tool-contract/);
    const missing = await runMain(['pending', 'cli-no-such-workflow'], env);
    assert.equal(missing.code, EXIT_CODES.notFound, missing.stderr);
    const unreachable = await runMain(['pending'], { ...h.databaseEnv, TEMPORAL_ADDRESS: '127.0.0.1:1' });
    assert.equal(unreachable.code, EXIT_CODES.unavailable, unreachable.stderr);
    assert.match(unreachable.stderr, /TEMPORAL_ADDRESS/);
  },
);
