// The operator console in headless Chromium, on a real dev server and a real Postgres with the demo running in manual
// approval: the refund waits in the inbox with its evidence and the injected instruction flagged, is approved from
// the keyboard, the reconciliation settles it, and a page left open from before decides nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Worker } from '@temporalio/worker';
import type { Page } from 'playwright-core';
import { serveConsole, type ServedConsole } from '../../src/cli/console-command.js';
import { storeBackend } from '../../src/cli/console/store-backend.js';
import {
  DEMO_TASK_QUEUE,
  DEMO_TOOLS,
  DEMO_WORKFLOWS_PATH,
  runDemo,
  startDemoServices,
  type DemoSummary,
} from '../../src/demo/index.js';
import { ToolContractPlugin } from '../../src/temporal/plugin.js';
import { CleanupStack } from '../../testkit/cleanup-stack.js';
import { runInBackground } from '../../testkit/running-worker.js';
import { startTestTemporal, type TestTemporal } from '../../testkit/temporal-server.js';
import { launchHeadlessChromium, skipWithoutChromium, type HeadlessChromium } from '../support/chromium.js';
import { TEST_DECISION_KEY, testDecisions } from '../support/decisions.js';
import { integrationStore } from '../support/integration-store.js';
import { see, seeAfterReloads, SEE_TIMEOUT_MS } from './console-page.js';

/** TTC_RECORD_SCREENSHOTS=1 refreshes the console screenshots in docs/; otherwise they are still taken, into a temp dir. */
const recordScreenshots = process.env['TTC_RECORD_SCREENSHOTS'] === '1';
const VIEWPORT = { width: 1200, height: 900 };
const OPERATOR = 'lead@example.com';

const cleanups = new CleanupStack();
let browser: HeadlessChromium;
let page: Page;
let served: ServedConsole;
let demo: Promise<DemoSummary>;
let workflowId: string;
let screenshotDir: string;

describe('operator console', { skip: skipWithoutChromium() }, () => {
  before(
    async () => {
      screenshotDir = recordScreenshots
        ? fileURLToPath(new URL('../../docs/', import.meta.url))
        : mkdtempSync(join(tmpdir(), 'ttc-console-shots-'));
      browser = await launchHeadlessChromium({ viewport: VIEWPORT });
      cleanups.push(() => browser.close());
      const [temporal, { store }, services] = await cleanups.startTogether(
        [startTestTemporal(), (started: TestTemporal) => started.stop()],
        [integrationStore('ui-console').create(), (started) => started.close()],
        [startDemoServices(), (started) => started.stop()],
      );
      const taskQueue = `${DEMO_TASK_QUEUE}-console-${process.pid}`;
      const worker = await Worker.create({
        connection: temporal.nativeConnection,
        namespace: temporal.server.namespace,
        taskQueue,
        workflowsPath: DEMO_WORKFLOWS_PATH,
        shutdownGraceTime: '1s',
        plugins: [
          new ToolContractPlugin({
            tools: services.tools,
            store,
            safeRetryTools: services.safeRetryTools,
            decisions: testDecisions,
          }),
        ],
      });
      const running = runInBackground(worker, new Set());
      cleanups.push(() => running.stop());
      served = await serveConsole(
        storeBackend({ client: temporal.client, store, signingKey: TEST_DECISION_KEY }),
        {
          operator: { kind: 'local', name: OPERATOR },
          allowedHosts: [],
          temporalUi: { url: 'http://127.0.0.1:8233', namespace: temporal.server.namespace },
          log: () => undefined,
        },
        0,
      );
      cleanups.push(() => served.close());
      workflowId = `support-demo-console-ui-${process.pid}`;
      demo = runDemo({
        client: temporal.client,
        store,
        services,
        taskQueue,
        workflowId,
        approval: 'manual',
        cli: 'tool-contract',
        consoleUrl: served.url,
        onProgress: () => undefined,
      });
      demo.catch(() => undefined);
      page = await browser.context.newPage();
    },
    { timeout: 300_000 },
  );

  after(
    async () => {
      await cleanups.release();
      if (!recordScreenshots && screenshotDir !== undefined) rmSync(screenshotDir, { recursive: true, force: true });
    },
    { timeout: 120_000 },
  );

  it(
    "the demo's refund waits in the inbox with its evidence and the injected instruction flagged, is approved from the keyboard, and the reconciliation settles it",
    { timeout: 180_000 },
    async () => {
      const card = page.getByTestId('pending-call').filter({ hasText: workflowId });
      await seeAfterReloads(page, served.url, card, `the refund of ${workflowId} in the inbox`);
      await see(
        page,
        card.getByRole('heading', { name: new RegExp(DEMO_TOOLS.refundCreate.replace('.', '\\.')) }),
        'the tool',
      );
      await see(
        page,
        card.getByText('Reads like an instruction to the agent (possible prompt injection)'),
        'the injected instruction flagged',
      );
      await see(
        page,
        card.getByTestId('untrusted').filter({ hasText: /ignore previous instructions/i }),
        'the injected text itself, shown as data',
      );
      assert.ok((await card.getByRole('row').count()) > 1, 'the evidence gathered so far is listed');
      await screenshot('console-inbox.png');

      // A second tab opened now goes stale once the refund is decided in the first.
      const stale = await browser.context.newPage();
      await stale.goto(served.url);

      await card.getByLabel('Reason (recorded in the audit)').fill('damaged on arrival, policy allows it');
      await card.getByLabel('Reason (recorded in the audit)').press('Tab');
      await page.keyboard.press('Enter');
      await see(page, page.getByTestId('message'), 'the outcome of the approval');
      assert.match(await page.getByTestId('message').innerText(), /^Approved call /, 'the approval took effect');
      const summary = await demo;
      assert.equal(summary.status, 'COMPLETED');
      assert.deepEqual(summary.approval?.approvers, [OPERATOR]);
      assert.equal(summary.refundsCommitted, 1, 'exactly one refund');
      assert.equal(summary.reconciliation?.outcome, 'committed', 'the reconciliation settled it');

      await stale
        .getByTestId('pending-call')
        .filter({ hasText: workflowId })
        .getByRole('button', { name: 'Reject' })
        .click();
      await stale
        .getByTestId('message')
        .filter({ hasText: 'takes no decision now' })
        .first()
        .waitFor({ state: 'visible', timeout: SEE_TIMEOUT_MS });
      assert.match(await stale.getByRole('heading', { level: 1 }).innerText(), /Nothing was decided/);
      await stale.close();

      await page.goto(`${served.url}/call?workflowId=${encodeURIComponent(workflowId)}`);
      const refund = page.getByTestId('call').filter({ hasText: DEMO_TOOLS.refundCreate });
      await see(
        page,
        refund.getByTestId('settlement').filter({ hasText: "settled: committed, by the provider's receipt" }),
        "the refund settled by the provider's receipt",
      );
      await see(
        page,
        refund.getByRole('cell', { name: 'committed', exact: true }),
        'the finding the settlement rests on',
      );
      assert.equal(await page.getByText('DOES NOT MATCH').count(), 0, 'every audit digest recomputes');
      assert.ok((await page.getByTestId('audit-check').count()) >= 4, "each call's audit is checked");
      await screenshot('console-call.png');
    },
  );
});

async function screenshot(name: string): Promise<void> {
  const png = await page.screenshot({ path: join(screenshotDir, name), fullPage: true });
  assert.ok(png.length > 20_000, `${name} looks empty (${png.length} bytes)`);
}
