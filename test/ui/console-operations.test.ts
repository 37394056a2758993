// The operator console in headless Chromium with the payment tools of the integration tests: an escalated payment
// is resolved from the page (keyboard and labels only), and a lure workflow that merely answers the pending-approvals
// query never shows up next to the call it imitates. Real dev server, real Postgres.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { serveConsole, type ServedConsole } from '../../src/cli/console-command.js';
import { storeBackend } from '../../src/cli/console/store-backend.js';
import { PENDING_APPROVALS_QUERY, RECONCILE_STATE_QUERY } from '../../src/wire/names.js';
import { type PendingApproval, type ReconcileStatus, type ToolCallResult } from '../../workflows/index.js';
import { TOOLS } from '../../testkit/payment-tools.js';
import { launchHeadlessChromium, skipWithoutChromium, type HeadlessChromium } from '../support/chromium.js';
import { TEST_DECISION_KEY } from '../support/decisions.js';
import { escalatedCharge } from '../support/escalated-charge.js';
import { eventually } from '../support/eventually.js';
import { useRuntimeHarness } from '../support/use-runtime-harness.js';
import { see, seeAfterReloads } from './console-page.js';

const principal = { tenant: 'tenant-acme', subject: 'user-42' };
const OPERATOR = 'finance@example.com';
const skip = skipWithoutChromium();

describe('operator console: resolving and refusing', { skip }, () => {
  const h = useRuntimeHarness('ui-console-ops', { safeRetryTools: [TOOLS.charge] });
  let browser: HeadlessChromium;
  let page: Page;
  let served: ServedConsole;

  before(
    async () => {
      browser = await launchHeadlessChromium();
      page = await browser.context.newPage();
      served = await serveConsole(
        storeBackend({ client: h.temporal.client, store: h.store, signingKey: TEST_DECISION_KEY }),
        { operator: { kind: 'local', name: OPERATOR }, allowedHosts: [], temporalUi: null, log: () => undefined },
        0,
      );
    },
    { timeout: 120_000 },
  );

  after(async () => {
    await served?.close();
    await browser?.close();
  });

  it(
    'an escalated payment is listed with its findings and resolved as committed from the page',
    { timeout: 180_000 },
    async () => {
      const { key, handle, reconciler } = await escalatedCharge(
        h,
        principal,
        'pay_ui_console_1',
        'ui-console-escalate-1',
      );

      const card = page.getByTestId('reconciliation').filter({ hasText: key });
      await seeAfterReloads(
        page,
        served.url,
        card.filter({ hasText: 'escalated' }),
        `the escalated reconciliation of ${key}`,
      );
      assert.ok(
        (await card.getByRole('cell', { name: 'unknown', exact: true }).count()) >= 1,
        'the provider queries and what they found are shown',
      );
      const externalId = h.payments.charge(key)?.charge_id ?? 'missing';
      await card.getByLabel('Committed', { exact: true }).check();
      await card.getByLabel('External id of the committed write').fill(externalId);
      await card.getByLabel('Note (recorded in the audit)').fill('seen in the provider dashboard');
      await card.getByRole('button', { name: 'Resolve' }).focus();
      await page.keyboard.press('Enter');
      await see(
        page,
        page.getByTestId('message').filter({ hasText: `Resolved ${key} as committed` }),
        'the resolution taking effect',
      );

      const { modelResult } = (await handle.result()) as ToolCallResult;
      assert.equal(modelResult.execution.delivery, 'human_resolved');
      assert.equal(modelResult.execution.receipt?.external_id, externalId);
      assert.equal(h.payments.dispatches(key), 1, 'never re-dispatched');
      assert.equal((await reconciler.query<ReconcileStatus>(RECONCILE_STATE_QUERY)).resolution?.decided_by, OPERATOR);
    },
  );

  it(
    "a lure workflow answering the pending-approvals query with a victim's call is not shown; the victim's call is, as recorded",
    { timeout: 180_000 },
    async () => {
      const victim = await h.temporal.client.workflow.start('runToolCall', {
        taskQueue: h.taskQueue,
        workflowId: 'ui-console-lure-victim',
        args: [
          TOOLS.refund,
          { payment_id: 'pay_ui_console_2', customer: 'cus_1', amount_cents: 90_000 },
          { principal },
        ],
      });
      const real = await eventually(
        'the victim to wait',
        async () => (await victim.query<PendingApproval[]>(PENDING_APPROVALS_QUERY))[0],
      );
      const harmless: PendingApproval = {
        ...real,
        preview: { ...real.preview, arguments: { payment_id: 'pay_ui_console_2', customer: 'cus_1', amount_cents: 1 } },
      };
      const lure = await h.temporal.client.workflow.start('lureApprover', {
        taskQueue: h.taskQueue,
        workflowId: 'ui-console-lure-attacker',
        args: [harmless],
      });
      try {
        await eventually('the lure to answer', async () =>
          (await lure.query<PendingApproval[]>(PENDING_APPROVALS_QUERY)).length === 1 ? true : undefined,
        );
        const victimCard = page.getByTestId('pending-call').filter({ hasText: 'ui-console-lure-victim' });
        await seeAfterReloads(page, served.url, victimCard, "the victim's call");
        await see(page, victimCard.getByText('"amount_cents": 90000'), 'the amount the worker recorded');
        assert.equal(
          await page.getByTestId('pending-call').filter({ hasText: 'ui-console-lure-attacker' }).count(),
          0,
          'the lure is not in the inbox',
        );
      } finally {
        await lure.terminate('test over').catch(() => undefined);
        await victim.terminate('test over').catch(() => undefined);
      }
    },
  );
});
