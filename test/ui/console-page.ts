// Waiting on the operator console's pages in a browser: it is server-rendered, so what appears later needs a reload.
import type { Locator, Page } from 'playwright-core';

/** Generous waits on a shared 2-core machine. */
export const SEE_TIMEOUT_MS = 30_000;

/** Waits until the locator's first match is visible; the failure names what was expected. */
export async function see(page: Page, locator: Locator, what: string): Promise<void> {
  try {
    await locator.first().waitFor({ state: 'visible', timeout: SEE_TIMEOUT_MS });
  } catch (error) {
    throw new Error(
      `the console did not show ${what} at ${page.url()}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  }
}

/** Loads `url` again until the locator matches (the inbox lists a call once the worker recorded it). */
export async function seeAfterReloads(
  page: Page,
  url: string,
  locator: Locator,
  what: string,
  timeoutMs = 90_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await page.goto(url);
    if ((await locator.count()) > 0) return;
    if (Date.now() > deadline) throw new Error(`the console did not show ${what} at ${url}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
