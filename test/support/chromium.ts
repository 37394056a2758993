import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/**
 * Headless, and quiet on the network: without the background-networking flags Chromium keeps opening connections
 * that a closed network refuses. `--no-sandbox` because tests may run as root (containers, CI).
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The system Chromium (Debian's `chromium` package) unless CHROMIUM_PATH names another; Playwright never downloads one. */
export function chromiumPath(): string {
  return process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
}

/** Why Chromium cannot be launched, or `null` when the executable is there. */
export function chromiumMissing(): string | null {
  const path = chromiumPath();
  try {
    accessSync(path, constants.X_OK);
    return null;
  } catch {
    return `Chromium not found at ${path} (install Debian's chromium package or set CHROMIUM_PATH)`;
  }
}

/**
 * The `skip` option for a test that needs Chromium: a reason outside CI, never in CI (CI=true), where the launch
 * then fails with that reason — a browser test that silently skips in CI proves nothing.
 */
export function skipWithoutChromium(): string | false {
  if (process.env['CI'] === 'true') return false;
  return chromiumMissing() ?? false;
}

/** A headless Chromium with a throwaway profile; `close` removes the profile. */
export interface HeadlessChromium {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchHeadlessChromium(
  options: { viewport?: { width: number; height: number } } = {},
): Promise<HeadlessChromium> {
  const missing = chromiumMissing();
  if (missing !== null) throw new Error(missing);
  const profile = mkdtempSync(join(tmpdir(), 'ttc-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath(),
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: options.viewport ?? { width: 1400, height: 1000 },
    });
    return {
      context,
      close: async () => {
        await context.close().catch(() => undefined);
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}
