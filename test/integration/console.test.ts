// The operator console on a real dev server and a real Postgres: what it lists is what the worker recorded, its
// decisions go through the CLI's signed path (and show in the audit as the operator's), a stale page decides nothing,
// and an attacker's workflow that merely answers the pending-approvals query is neither listed nor approvable.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { serveConsole, type ServedConsole } from '../../src/cli/console-command.js';
import { storeBackend } from '../../src/cli/console/store-backend.js';
import { auditDigest } from '../../src/contract/bindings.js';
import { canonicalJson } from '../../src/contract/canonical-json.js';
import { formatDecisionKey } from '../../src/decisions/index.js';
import { PENDING_APPROVALS_QUERY, RECONCILE_STATE_QUERY } from '../../src/wire/names.js';
import {
  type ApprovalDecision,
  type PendingApproval,
  type ReconcileStatus,
  type ToolCallResult,
} from '../../workflows/index.js';
import { freePort } from '../../src/testing/free-port.js';
import { startCli } from '../support/cli-process.js';
import { ConsoleBrowser } from '../support/console-browser.js';
import { TEST_DECISION_KEY } from '../support/decisions.js';
import { escalatedCharge } from '../support/escalated-charge.js';
import { eventually } from '../support/eventually.js';
import { asOwnerWithoutTriggers, databaseEnv, openTestDatabase, type TestDatabase } from '../support/postgres.js';
import { CAPTURED_DECISIONS_QUERY } from '../support/test-workflows.js';
import { chargeKey, TOOLS } from '../../testkit/payment-tools.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const OPERATOR = 'lead@example.com';
let db: TestDatabase | undefined;
/** The file's database kept at hand: a test rewrites an audit row as its owner. */
const storeFactory = {
  create: async () => {
    const opened = await openTestDatabase('it-console');
    db = opened;
    const { DATABASE_URL, DATABASE_SCHEMA } = databaseEnv(opened);
    return { store: opened.store(), close: () => opened.close(), databaseEnv: { DATABASE_URL, DATABASE_SCHEMA } };
  },
};
const h = useRuntimeHarness('it-console', { safeRetryTools: [TOOLS.charge], storeFactory });

let served: ServedConsole | undefined;
after(async () => {
  await served?.close();
});

/** The console on this file's server and store, signing with the key the harness's worker verifies. */
async function consoleUrl(): Promise<string> {
  served ??= await serveConsole(
    storeBackend({ client: h.temporal.client, store: h.store, signingKey: TEST_DECISION_KEY }),
    {
      operator: { kind: 'local', name: OPERATOR },
      allowedHosts: [],
      temporalUi: { url: 'http://localhost:8233', namespace: 'default' },
      log: () => undefined,
    },
    0,
  );
  return served.url;
}

/** Starts a refund that needs approval and waits until the workflow lists it pending. */
async function startRefund(workflowId: string, paymentId: string) {
  const handle = await h.temporal.client.workflow.start('runToolCall', {
    taskQueue: h.taskQueue,
    workflowId,
    args: [TOOLS.refund, { payment_id: paymentId, customer: 'cus_1', amount_cents: 700 }, { principal }],
  });
  const pending = await eventually(
    'a pending approval',
    async () => (await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY))[0],
  );
  return { handle, pending };
}

/** The inbox page once it lists `workflowId`'s call (the worker records the request as the wait begins). */
async function inboxListing(browser: ConsoleBrowser, workflowId: string): Promise<string> {
  return eventually(`the console to list ${workflowId}`, async () => {
    const page = await browser.get('/');
    assert.equal(page.status, 200, page.body);
    return page.body.includes(`<code>${workflowId}</code>`) ? page.body : undefined;
  });
}

test(
  "a refund waiting for approval is listed from the worker's record, approved from the page, runs once, and the audit names the operator",
  { timeout: 180_000 },
  async () => {
    const { handle, pending } = await startRefund('console-approve-1', 'pay_console_1');
    const browser = new ConsoleBrowser(await consoleUrl());
    const page = await inboxListing(browser, 'console-approve-1');
    assert.ok(page.includes(pending.preview.requestSha256), 'the request digest is shown');
    assert.ok(page.includes('pay_console_1'), 'the arguments are shown');
    assert.ok(!page.includes(formatDecisionKey(TEST_DECISION_KEY, 'signing')), 'the signing key is in no page');
    assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_console_1', TOOLS.refund)), 0);

    const approved = await browser.post('/decide', {
      workflowId: 'console-approve-1',
      callId: pending.callId,
      requestSha256: pending.preview.requestSha256,
      decision: 'approve',
      reason: 'customer verified',
    });
    assert.equal(approved.status, 200, approved.body);
    const { modelResult, auditRef } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.status, 'succeeded');
    assert.equal(h.payments.commits(chargeKey(principal.tenant, 'pay_console_1', TOOLS.refund)), 1, 'one side effect');
    const audit = (await h.store.listAudits({ workflowId: 'console-approve-1' })).find(
      (row) => row.auditId === auditRef?.audit_id,
    )?.audit;
    assert.equal(audit?.decision?.decided_by, OPERATOR);
    assert.equal(audit?.decision?.method, 'ed25519', "signed with the CLI's key, like `approve`");
    assert.equal(audit?.decision?.note, 'customer verified');

    const call = await browser.get(`/call?workflowId=console-approve-1&callId=${encodeURIComponent(pending.callId)}`);
    assert.equal(call.status, 200, call.body);
    assert.match(call.body, /data-testid="audit-check">/);
    assert.ok(!call.body.includes('DOES NOT MATCH'), 'every audit digest recomputes');
    assert.match(call.body, /href="http:\/\/localhost:8233\/namespaces\/default\/workflows\/console-approve-1"/);
  },
);

test(
  'a stale page (a digest the call no longer waits on) decides nothing, and says why',
  { timeout: 180_000 },
  async () => {
    const { handle, pending } = await startRefund('console-stale-1', 'pay_console_2');
    const browser = new ConsoleBrowser(await consoleUrl());
    await inboxListing(browser, 'console-stale-1');
    const staleDigest = 'f'.repeat(64) === pending.preview.requestSha256 ? 'e'.repeat(64) : 'f'.repeat(64);
    const refused = await browser.post('/decide', {
      workflowId: 'console-stale-1',
      callId: pending.callId,
      requestSha256: staleDigest,
      decision: 'approve',
    });
    assert.equal(refused.status, 409);
    assert.match(refused.body, /Nothing was decided/);
    assert.ok(
      refused.body.includes(`waits for a decision on request ${pending.preview.requestSha256}`),
      'the page names the digest it waits on',
    );
    assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_console_2', TOOLS.refund)), 0);
    assert.equal((await handle.query<PendingApproval[]>(PENDING_APPROVALS_QUERY)).length, 1, 'still waiting');
    await handle.terminate('test over');
  },
);

test(
  'a lure workflow that only answers the pending-approvals query is not listed, and an approval of what it shows is refused',
  { timeout: 180_000 },
  async () => {
    const { handle: victim, pending: real } = await startRefund('console-lure-victim', 'pay_console_3');
    const harmless: PendingApproval = {
      ...real,
      preview: { ...real.preview, arguments: { payment_id: 'pay_console_3', customer: 'cus_1', amount_cents: 1 } },
    };
    const lure = await h.temporal.client.workflow.start('lureApprover', {
      taskQueue: h.taskQueue,
      workflowId: 'console-lure-attacker',
      args: [harmless],
    });
    try {
      await eventually('the lure to answer its query', async () =>
        (await lure.query<PendingApproval[]>(PENDING_APPROVALS_QUERY)).length === 1 ? true : undefined,
      );
      const browser = new ConsoleBrowser(await consoleUrl());
      const page = await inboxListing(browser, 'console-lure-victim');
      assert.ok(!page.includes('console-lure-attacker'), "the attacker's workflow is not in the inbox");
      const lured = await browser.post('/decide', {
        workflowId: 'console-lure-attacker',
        callId: real.callId,
        requestSha256: real.preview.requestSha256,
        decision: 'approve',
      });
      assert.equal(lured.status, 409, lured.body);
      assert.deepEqual(
        await lure.query<ApprovalDecision[]>(CAPTURED_DECISIONS_QUERY),
        [],
        'no decision reached the attacker',
      );
      assert.equal(h.payments.dispatches(chargeKey(principal.tenant, 'pay_console_3', TOOLS.refund)), 0);
    } finally {
      await lure.terminate('test over').catch(() => undefined);
      await victim.terminate('test over').catch(() => undefined);
    }
  },
);

test(
  "an escalated reconciliation is listed with its findings and resolved from the page, audited as the operator's",
  { timeout: 180_000 },
  async () => {
    const { key, handle, reconciler } = await escalatedCharge(h, principal, 'pay_console_4', 'console-escalate-1');
    const browser = new ConsoleBrowser(await consoleUrl());
    const page = await eventually('the console to list the escalation', async () => {
      const body = (await browser.get('/')).body;
      return body.includes(`<code>${key}</code>`) && /data-testid="reconciliation-state">escalated</.test(body)
        ? body
        : undefined;
    });
    assert.match(page, /<td>unknown<\/td>/, 'the provider queries and their findings are shown');
    const externalId = h.payments.charge(key)?.charge_id ?? 'missing';
    const resolved = await browser.post('/resolve', {
      idempotencyKey: key,
      outcome: 'committed',
      externalId,
      note: 'seen in the provider dashboard',
    });
    assert.equal(resolved.status, 200, resolved.body);
    const { modelResult } = (await handle.result()) as ToolCallResult;
    assert.equal(modelResult.execution.delivery, 'human_resolved');
    assert.equal(modelResult.execution.receipt?.external_id, externalId);
    assert.equal(h.payments.dispatches(key), 1, 'never re-dispatched');
    const status = await reconciler.query<ReconcileStatus>(RECONCILE_STATE_QUERY);
    assert.equal(status.resolution?.decided_by, OPERATOR);
    assert.equal(status.resolution?.method, 'ed25519');
  },
);

test(
  '`tool-contract console --operator <name>` serves the inbox and signs with TTC_DECISION_KEY as that operator; Ctrl-C stops it',
  { timeout: 180_000 },
  async () => {
    const port = await freePort();
    const env = {
      TEMPORAL_ADDRESS: h.temporal.server.address,
      TEMPORAL_NAMESPACE: h.temporal.server.namespace,
      ...h.databaseEnv,
      TTC_DECISION_KEY: formatDecisionKey(TEST_DECISION_KEY, 'signing'),
    };
    const cliConsole = startCli(
      [
        'console',
        '--json',
        '--port',
        String(port),
        '--operator',
        'cli-lead@example.com',
        '--temporal-ui',
        'http://localhost:8233',
      ],
      { env },
    );
    try {
      const ready = await cliConsole.waitForEvent('ready', 60_000);
      assert.equal(ready['url'], `http://127.0.0.1:${port}`);
      assert.equal(ready['signed'], true);
      const { handle, pending } = await startRefund('console-cli-1', 'pay_console_5');
      const browser = new ConsoleBrowser(String(ready['url']));
      await inboxListing(browser, 'console-cli-1');
      const approved = await browser.post('/decide', {
        workflowId: 'console-cli-1',
        callId: pending.callId,
        requestSha256: pending.preview.requestSha256,
        decision: 'approve',
      });
      assert.equal(approved.status, 200, approved.body);
      const { auditRef } = (await handle.result()) as ToolCallResult;
      const audit = (await h.store.listAudits({ workflowId: 'console-cli-1' })).find(
        (row) => row.auditId === auditRef?.audit_id,
      )?.audit;
      assert.equal(audit?.decision?.decided_by, 'cli-lead@example.com');
      assert.equal(audit?.decision?.key_id, TEST_DECISION_KEY.id, "signed with the CLI's key");
      assert.ok(
        !cliConsole.stdout().includes(env.TTC_DECISION_KEY) && !cliConsole.stderr().includes(env.TTC_DECISION_KEY),
        'the key is never printed',
      );
    } finally {
      cliConsole.child.kill('SIGINT');
      assert.equal(await cliConsole.exited(30_000), 0);
    }
  },
);

test(
  'an audit rewritten in the database is caught in the call view: the record alone is refused, record and digest column together differ from the history',
  { timeout: 180_000 },
  async () => {
    const { handle, pending } = await startRefund('console-tamper-1', 'pay_console_6');
    const browser = new ConsoleBrowser(await consoleUrl());
    await inboxListing(browser, 'console-tamper-1');
    assert.equal(
      (
        await browser.post('/decide', {
          workflowId: 'console-tamper-1',
          callId: pending.callId,
          requestSha256: pending.preview.requestSha256,
          decision: 'approve',
        })
      ).status,
      200,
    );
    const { auditRef } = (await handle.result()) as ToolCallResult;
    assert.ok(auditRef !== null && db !== undefined);
    const view = `/call?workflowId=console-tamper-1&callId=${encodeURIComponent(pending.callId)}`;
    const before = await browser.get(view);
    assert.equal(before.status, 200);
    assert.ok(
      !before.body.includes('DOES NOT MATCH') && !before.body.includes('not in history'),
      'untouched: every digest matches, history included',
    );

    const stored = await h.store.getAudit(auditRef.audit_id);
    assert.ok(stored !== null);
    const forged = {
      ...stored.audit,
      decision:
        stored.audit.decision === undefined
          ? undefined
          : { ...stored.audit.decision, decided_by: 'mallory@example.com' },
    };
    await asOwnerWithoutTriggers(db, 'UPDATE ttc_audit SET audit_json = $1 WHERE audit_id = $2', [
      canonicalJson(forged),
      auditRef.audit_id,
    ]);
    const recordOnly = await browser.get(view);
    assert.equal(recordOnly.status, 502);
    assert.match(recordOnly.body, /integrity check failed/);
    assert.ok(!recordOnly.body.includes('mallory@example.com'), 'nothing of the rewritten record is shown');

    await asOwnerWithoutTriggers(db, 'UPDATE ttc_audit SET audit_sha256 = $1 WHERE audit_id = $2', [
      auditDigest(forged),
      auditRef.audit_id,
    ]);
    const withDigest = await browser.get(view);
    assert.equal(withDigest.status, 200);
    const row =
      withDigest.body.split('data-testid="audit-check"').find((part) => part.includes(auditRef.audit_id)) ?? '';
    assert.match(
      row,
      /<td><span class="bad">DOES NOT MATCH<\/span><\/td><\/tr>/,
      'the digest in history gives it away',
    );
  },
);
