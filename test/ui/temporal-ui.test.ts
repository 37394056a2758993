// End-to-end through the dev server's Web UI in headless Chromium: real pages, real DOM, text-based assertions.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { DEMO_TOOLS } from '../../src/demo/index.js';
import { RECONCILE_WORKFLOW_TYPE } from '../../src/wire/names.js';
import { launchHeadlessChromium, skipWithoutChromium, type HeadlessChromium } from '../support/chromium.js';
import { eventually } from '../support/eventually.js';
import { startDemoScene, type UiRun, type UiScene } from './demo-scene.js';

/** TTC_RECORD_SCREENSHOTS=1 refreshes the README's screenshots; otherwise they are still taken, into a temp dir. */
const recordScreenshots = process.env['TTC_RECORD_SCREENSHOTS'] === '1';
const VIEWPORT = { width: 1400, height: 1000 };
/** The UI loads its data after the page: generous waits on a shared 2-core machine. */
const SEE_TIMEOUT_MS = 30_000;

let scene: UiScene;
let run: UiRun;
let ui: string;
let browser: HeadlessChromium;
let page: Page;
let screenshotDir: string;

describe('Temporal Web UI', { skip: skipWithoutChromium() }, () => {
  before(
    async () => {
      screenshotDir = recordScreenshots
        ? fileURLToPath(new URL('../../docs/', import.meta.url))
        : mkdtempSync(join(tmpdir(), 'ttc-ui-shots-'));
      // Chromium first: without it (a failure in CI) there is no point in running the demo.
      browser = await launchHeadlessChromium({ viewport: VIEWPORT });
      scene = await startDemoScene();
      ({ run, namespaceUrl: ui } = scene);
      page = await browser.context.newPage();
      // The list reads the visibility store, which lags a finished run by a moment.
      await eventually('visibility to list the run and its child', async () => {
        const ids = new Set<string>();
        for await (const w of scene.temporal.client.workflow.list()) ids.add(w.workflowId);
        return ids.has(run.workflowId) && ids.has(run.reconcileWorkflowId) ? true : undefined;
      });
    },
    { timeout: 300_000 },
  );

  after(
    async () => {
      await browser?.close();
      await scene?.stop();
      if (!recordScreenshots && screenshotDir !== undefined) rmSync(screenshotDir, { recursive: true, force: true });
    },
    { timeout: 120_000 },
  );

  it(
    'the workflow list shows the run and its reconciliation child, each by id and type',
    { timeout: 90_000 },
    async () => {
      await page.goto(`${ui}/workflows`);
      const rows = page.getByRole('row');
      await see(
        rows.filter({ hasText: run.workflowId }).filter({ hasText: run.workflowType }),
        `a row for ${run.workflowId} (${run.workflowType})`,
      );
      await see(
        rows.filter({ hasText: run.reconcileWorkflowId }).filter({ hasText: RECONCILE_WORKFLOW_TYPE }),
        `a row for the child ${run.reconcileWorkflowId} (${RECONCILE_WORKFLOW_TYPE})`,
      );
    },
  );

  it(
    "the run's timeline shows every tool activity by tool name with its summary, and the reconciliation child",
    { timeout: 90_000 },
    async () => {
      assert.deepEqual([...run.tools].sort(), Object.values(DEMO_TOOLS).sort(), 'the demo ran every demo tool');
      await page.goto(`${ui}/workflows/${encodeURIComponent(run.workflowId)}`);
      await see(page.getByText(run.workflowType, { exact: true }), `the workflow type ${run.workflowType}`);
      for (const tool of run.tools) {
        // Timeline label: "<activity type> • <summary>", the summary being "<tool> [<effect>] <call id>", or the
        // arguments a person approved in place of the call id (docs/security.md, *Where it runs*).
        const label = new RegExp(
          `^${escapeRegExp(tool)} • ${escapeRegExp(tool)} \\[(read|write|destructive)\\] (\\{"|\\S)`,
        );
        await see(page.getByText(label), `the activity ${tool} with its summary`);
      }
      await see(
        page.getByText(`Reconcile ${run.reconciledTool} (unknown outcome)`, { exact: true }),
        'the reconciliation child (its static summary)',
      );
      await screenshot('temporal-ui.png');
    },
  );

  it('the relationships tab shows the reconciliation child under its parent', { timeout: 90_000 }, async () => {
    await page.goto(`${ui}/workflows/${encodeURIComponent(run.workflowId)}`);
    const tab = page.getByRole('tab', { name: /^Relationships/ });
    await see(tab, 'the Relationships tab');
    await tab.first().click();
    await see(
      page.getByRole('link', { name: run.reconcileWorkflowId }),
      `a link to the child ${run.reconcileWorkflowId}`,
    );
    await see(page.getByText(RECONCILE_WORKFLOW_TYPE, { exact: true }), "the child's type");
    await screenshot('temporal-ui-child.png');
  });
});

/** Waits until the locator's first match is visible; the failure names what was expected. */
async function see(locator: Locator, what: string): Promise<void> {
  try {
    await locator.first().waitFor({ state: 'visible', timeout: SEE_TIMEOUT_MS });
  } catch (error) {
    throw new Error(
      `the UI did not show ${what} at ${page.url()}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  }
}

/** A screenshot of the whole page: the UI scrolls inside a wrapper, so the viewport grows to its content first. */
async function screenshot(name: string): Promise<void> {
  // A string, evaluated in the page: this project compiles without the DOM library.
  const height = await page.evaluate<number>(
    "Math.max(document.documentElement.scrollHeight, document.getElementById('content-wrapper')?.scrollHeight ?? 0)",
  );
  await page.setViewportSize({ width: VIEWPORT.width, height: Math.min(Math.max(height, VIEWPORT.height), 4000) });
  try {
    const png = await page.screenshot({ path: join(screenshotDir, name), fullPage: true });
    assert.ok(png.length > 20_000, `${name} looks empty (${png.length} bytes)`);
  } finally {
    await page.setViewportSize(VIEWPORT);
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
