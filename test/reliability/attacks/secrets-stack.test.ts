// The security corpus through the whole stack: every fake secret (161, 53 families) put by real tools on a real
// worker (dev server + Postgres) in every place a tool can put text, then looked for in what a model, a history and a
// terminal show: the model result, every provider adapter's rendering, the decoded Temporal history, the activity
// summaries, the approval preview (the pending query and `tool-contract pending`), reconciliation findings (history
// and Postgres), the audit, and `tool-contract inspect`. The benign look-alikes (102) must come back unchanged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scanCap } from '../../../src/contract/call-redactor.js';
import { businessIdempotencyKey } from '../../../src/contract/idempotency-key.js';
import type { ModelResult } from '../../../src/index.js';
import { reconcileWorkflowId } from '../../../src/wire/ids.js';
import { APPROVAL_SIGNAL, PENDING_APPROVALS_QUERY } from '../../../src/wire/names.js';
import type { BatchCallRequest, CorrelatedResult, PendingApproval, ToolCallResult } from '../../../workflows/index.js';
import { BENIGN_LOOKALIKES } from '../../../testkit/security/secret-corpus.js';
import { runCli } from '../../support/cli-process.js';
import { signedApproval } from '../../support/decisions.js';
import { eventually } from '../../support/eventually.js';
import { historyText } from '../../support/history-text.js';
import { databaseEnv, openTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { useRuntimeHarness } from '../../support/use-runtime-harness.js';
import { assertHidden } from '../../unit/security/hidden.js';
import {
  approvalArguments,
  forbiddenTexts,
  PLACED,
  REASONS_PER_RECONCILIATION,
  SECRET_TOOLS,
  secretArguments,
  secretTools,
  SETTLE_BATCHES,
  type PlacedSecret,
} from './secret-placements.js';
import { adapterRenderings, assertValidModelResult } from './stack.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const WORKFLOWS = {
  data: 'secrets-data',
  args: 'secrets-args',
  thrown: 'secrets-thrown',
  approval: 'secrets-approval',
  benign: 'secrets-benign',
} as const;
const settleWorkflow = (batch: number) => `secrets-settle-${batch}`;
const settleKey = (batch: number) => businessIdempotencyKey(SECRET_TOOLS.settle, principal.tenant, String(batch));

let db: TestDatabase;
const stack = useRuntimeHarness('rel-secrets', {
  extraTools: secretTools(),
  // Its own database, so that the CLI can be pointed at it.
  storeFactory: {
    create: async () => ((db = await openTestDatabase('rel-secrets')), { store: db.store(), close: () => db.close() }),
  },
});

/** Where a `tool-contract` process finds this file's stack (read once the harness has started). */
function cliEnv(): Record<string, string> {
  const { DATABASE_URL, DATABASE_SCHEMA } = databaseEnv(db);
  return {
    DATABASE_URL,
    DATABASE_SCHEMA,
    TEMPORAL_ADDRESS: stack.temporal.server.address,
    TEMPORAL_NAMESPACE: stack.temporal.server.namespace,
  };
}

function runBatch(workflowId: string, calls: BatchCallRequest[]): Promise<CorrelatedResult[]> {
  return stack.temporal.client.workflow.execute('runToolCalls', {
    taskQueue: stack.taskQueue,
    workflowId,
    args: [calls, { principal, readAttempts: 1 }],
  }) as Promise<CorrelatedResult[]>;
}

/** The model result and each adapter's rendering of it, as text. */
function shownTexts(result: CorrelatedResult, tool: string): Record<string, string> {
  const texts: Record<string, string> = { modelResult: JSON.stringify(result.modelResult) };
  for (const [name, value] of Object.entries(adapterRenderings(result.callId, tool, result.modelResult)))
    texts[name] = JSON.stringify(value);
  return texts;
}

/** No piece of the secret (eight characters or more) in any of `texts`. */
function assertHiddenIn(texts: Readonly<Record<string, string>>, secret: PlacedSecret, placement: string): void {
  for (const [where, text] of Object.entries(texts)) assertHidden(text, secret, `${placement}, ${where}`);
}

/** None of the secrets in `text` (a history or an output showing many calls at once), each of their canaries in it. */
function assertAggregate(text: string, secrets: readonly PlacedSecret[], where: string): void {
  for (const secret of secrets) {
    assert.ok(text.includes(secret.canary), `${where}: ${secret.canary} is shown (so its text was looked at)`);
    for (const value of forbiddenTexts(secret))
      assert.ok(!text.includes(value), `${where}: ${secret.family} '${value.slice(0, 24)}' leaked`);
  }
}

/** Activity summaries (user metadata) of a workflow's history: payloads, decoded from their JSON. */
async function summaries(workflowId: string): Promise<string[]> {
  const history = await stack.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  const texts: string[] = [];
  for (const event of history.events ?? []) {
    const data = event.userMetadata?.summary?.data;
    if (data) texts.push(JSON.parse(Buffer.from(data).toString('utf8')) as string);
  }
  return texts;
}

test(`the corpus has ${PLACED.length} fake secrets in ${new Set(PLACED.map((s) => s.family)).size} families and ${BENIGN_LOOKALIKES.length} benign look-alikes`, () => {
  assert.ok(PLACED.length >= 150 && BENIGN_LOOKALIKES.length >= 100);
});

test(
  'data, nested data, keys, name/value pairs, secret-named fields, untrusted text, evidence and cursor: no secret in the model result, an adapter rendering or the history',
  { timeout: 300_000 },
  async () => {
    const started = Date.now();
    const results = await runBatch(
      WORKFLOWS.data,
      PLACED.map((s) => ({ name: SECRET_TOOLS.fetch, args: { i: s.index }, callId: `data-${s.index}` })),
    );
    process.stdout.write(`data placements: ${results.length} calls in ${Date.now() - started} ms\n`);
    for (const [i, result] of results.entries()) {
      const secret = PLACED[i]!;
      assertValidModelResult(result.modelResult, secret.canary);
      const { modelResult } = result;
      assert.equal(modelResult.error, null, `${secret.canary}: ${JSON.stringify(modelResult.error)}`);
      // Positive controls: every placement is still there, only the secret went.
      const data = modelResult.data as {
        note: string;
        orders: { lines: { memo: string }[] }[];
        keys: { kept: string };
        headers: { name: string; value: unknown }[];
      };
      assert.ok(
        data.note.startsWith(secret.canary) &&
          data.orders[0]!.lines[0]!.memo.startsWith(secret.canary) &&
          data.keys.kept === secret.canary,
        secret.canary,
      );
      assert.deepEqual(data.headers.at(-1), { name: 'x-canary', value: secret.canary });
      assert.ok(
        modelResult.untrusted_content[0]!.text.includes(secret.canary) &&
          modelResult.evidence[0]!.quote!.startsWith(secret.canary),
      );
      assert.ok(modelResult.evidence[0]!.locator.startsWith(`kb/${secret.canary}/`));
      // The tool declares no continuation, so the cursor it returns is one it could not honour: never shown (seed 003).
      assert.equal(modelResult.completeness.next, null);
      assertHiddenIn(shownTexts(result, SECRET_TOOLS.fetch), secret, 'data placements');
    }
    const { text } = await historyText(stack.temporal.client, WORKFLOWS.data);
    assertAggregate(text, PLACED, 'the decoded history');
  },
);

test(
  'thrown text (Error messages and ToolError details): no secret in the model result, an adapter rendering, the audit or the history',
  { timeout: 300_000 },
  async () => {
    const calls = PLACED.flatMap((s) =>
      (['error', 'tool_error'] as const).map((kind) => ({
        name: SECRET_TOOLS.throws,
        args: { i: s.index, kind },
        callId: `${kind}-${s.index}`,
      })),
    );
    const results = await runBatch(WORKFLOWS.thrown, calls);
    for (const [n, result] of results.entries()) {
      const secret = PLACED[Math.floor(n / 2)]!;
      assertValidModelResult(result.modelResult, result.callId);
      assert.equal(result.modelResult.error?.code, n % 2 === 0 ? 'TOOL_ERROR' : 'NOT_FOUND');
      assertHiddenIn(shownTexts(result, SECRET_TOOLS.throws), secret, result.callId);
      const stored = await stack.store.getAudit(result.auditRef!.audit_id);
      const detail = JSON.stringify(stored?.audit.error_detail);
      assert.ok(detail.includes(secret.canary), `${result.callId}: the exception text is in the audit`);
      assertHidden(detail, secret, `${result.callId}, the audit's error detail`);
    }
    const { text } = await historyText(stack.temporal.client, WORKFLOWS.thrown);
    assert.ok(
      text.includes('tool-result.model.v1') && text.includes(SECRET_TOOLS.throws),
      'the decoded history holds the calls and their results',
    );
    for (const secret of PLACED)
      for (const value of forbiddenTexts(secret)) assert.ok(!text.includes(value), `history: ${secret.family} leaked`);
  },
);

test('reconcile() reasons: redacted before the reconciliation history and Postgres', { timeout: 300_000 }, async () => {
  const { client } = stack.temporal;
  const policy = { initialIntervalMs: 10, backoffCoefficient: 1, maximumIntervalMs: 10, deadlineMs: 300_000 };
  const settled = await Promise.all(
    Array.from(
      { length: SETTLE_BATCHES },
      (_, batch) =>
        client.workflow.execute('runToolCall', {
          taskQueue: stack.taskQueue,
          workflowId: settleWorkflow(batch),
          args: [SECRET_TOOLS.settle, { batch }, { principal, reconcile: policy }],
        }) as Promise<ToolCallResult>,
    ),
  );
  for (const [batch, { modelResult }] of settled.entries()) {
    // Every query but the last said "unknown" with a secret; the last said "not committed".
    assert.deepEqual(
      [modelResult.error?.code, modelResult.execution.delivery],
      ['NOT_COMMITTED', 'confirmed_absent'],
      `batch ${batch}`,
    );
    const secrets = PLACED.slice(batch * REASONS_PER_RECONCILIATION, (batch + 1) * REASONS_PER_RECONCILIATION);
    const { text } = await historyText(client, reconcileWorkflowId(settleKey(batch)));
    assertAggregate(text, secrets, `history of ${reconcileWorkflowId(settleKey(batch))}`);
    const record = await stack.store.getReconciliation(settleKey(batch));
    const findings = (record?.attempts ?? []).filter((attempt) => attempt.finding === 'unknown');
    assert.equal(findings.length, secrets.length, `batch ${batch}: one recorded finding per reason`);
    for (const [n, secret] of secrets.entries()) {
      const detail = findings[n]!.detail ?? '';
      assert.ok(detail.startsWith(secret.canary), `batch ${batch}: finding ${n + 1} is recorded`);
      assertHidden(detail, secret, 'a reconciliation finding in Postgres');
    }
  }
});

test('arguments: the activity summaries show the call but none of its secrets', { timeout: 300_000 }, async () => {
  const results = await runBatch(
    WORKFLOWS.args,
    PLACED.map((s) => ({ name: SECRET_TOOLS.fetch, args: secretArguments(s), callId: `args-${s.index}` })),
  );
  for (const [i, result] of results.entries())
    assertHiddenIn(
      shownTexts(result, SECRET_TOOLS.fetch),
      PLACED[i]!,
      'a result of a call whose arguments hold the secret',
    );
  const shown = await summaries(WORKFLOWS.args);
  assert.equal(shown.length, PLACED.length, 'one summary per tool activity');
  // A call no person decides is summarised by its tool, effect and call id: workflow code never renders its arguments
  // (docs/temporal-runtime.md). The approval preview, which does show them, has its own test below.
  for (const secret of PLACED) {
    const summary = shown.find((text) => text.endsWith(` args-${secret.index}`));
    assert.ok(
      summary !== undefined && summary.includes(SECRET_TOOLS.fetch),
      `${secret.canary}: its summary names the tool and the call`,
    );
    assertHidden(summary, secret, 'an activity summary');
  }
});

test(
  'the approval preview (pending query and `tool-contract pending`) shows every argument but no secret, each string cut at the scan cap',
  { timeout: 300_000 },
  async () => {
    const { client } = stack.temporal;
    const handle = await client.workflow.start('runToolCall', {
      taskQueue: stack.taskQueue,
      workflowId: WORKFLOWS.approval,
      args: [SECRET_TOOLS.submit, approvalArguments(), { principal }],
    });
    const pending = await eventually(
      'the submission to wait for approval',
      async () => (await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY))[0],
      60_000,
    );
    const preview = JSON.stringify(pending.preview);
    assertAggregate(preview, PLACED, 'the approval preview');
    const { long } = pending.preview.arguments as { long: string };
    assert.ok(
      long.length < scanCap(stack.tools.get(SECRET_TOOLS.submit).budget) + 40 && /…\[truncated \d+ chars\]$/.test(long),
      'a long argument is cut at the scan cap',
    );

    const cli = await runCli(['pending', WORKFLOWS.approval], { env: cliEnv() });
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual(
      (JSON.parse(cli.stdout) as { workflows: { approvals: { callId: string }[] }[] }).workflows.map((run) =>
        run.approvals.map((a) => a.callId),
      ),
      [[pending.callId]],
      'the call is listed',
    );
    assertAggregate(cli.stdout, PLACED, '`tool-contract pending`');

    await handle.signal(
      APPROVAL_SIGNAL,
      signedApproval(pending, { decision: 'reject', approver: 'secops@example.com' }),
    );
    const { modelResult } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.error?.code, 'APPROVAL_REJECTED');
  },
);

test(
  'benign look-alikes come back unchanged through the stack: the false-positive rate',
  { timeout: 120_000 },
  async () => {
    const [result] = await runBatch(WORKFLOWS.benign, [{ name: SECRET_TOOLS.benign, args: {}, callId: 'benign' }]);
    const { modelResult } = result!;
    assert.equal(modelResult.status, 'succeeded');
    const items = (modelResult.data as { items: string[] }).items;
    const changed = BENIGN_LOOKALIKES.filter(
      (lookalike, i) => items[i] !== lookalike.text || modelResult.untrusted_content[i]?.text !== lookalike.text,
    );
    const rate = (100 * changed.length) / BENIGN_LOOKALIKES.length;
    process.stdout.write(
      `benign look-alikes through the stack: ${changed.length}/${BENIGN_LOOKALIKES.length} changed (false-positive rate ${rate.toFixed(1)} %)\n`,
    );
    assert.deepEqual(changed, []);
  },
);

test('`tool-contract inspect` shows no secret, with or without --protected', { timeout: 300_000 }, async () => {
  const data = await runCli(['inspect', WORKFLOWS.data], { env: cliEnv() });
  assert.equal(data.code, 0, data.stderr);
  assertAggregate(data.stdout, PLACED, '`tool-contract inspect` of the data placements');
  const thrown = await runCli(['inspect', WORKFLOWS.thrown, '--protected'], { env: cliEnv() });
  assert.equal(thrown.code, 0, thrown.stderr);
  // With --protected the audit's error details are printed: they hold each exception, redacted.
  assertAggregate(thrown.stdout, PLACED, '`tool-contract inspect --protected` of the thrown placements');
});

test('the worker survived the corpus, and the recorded histories replay', { timeout: 120_000 }, async () => {
  assert.equal(stack.worker.worker.getState(), 'RUNNING');
  const reconciliations = Array.from({ length: SETTLE_BATCHES }, (_, batch) => [
    settleWorkflow(batch),
    reconcileWorkflowId(settleKey(batch)),
  ]).flat();
  assert.deepEqual(await stack.replay([...Object.values(WORKFLOWS), ...reconciliations]), []);
  const healthy: ModelResult = (
    await runBatch('secrets-healthy', [{ name: 'customers.get', args: { customer_id: 'cus_1' }, callId: 'healthy' }])
  )[0]!.modelResult;
  assert.equal(healthy.status, 'succeeded');
});
