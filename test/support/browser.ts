/**
 * Headless Debian Chromium (/usr/bin/chromium, installed by
 * scripts/provision-vscode.sh) driven by playwright-core. Never downloads a
 * browser: playwright-core has no browser of its own and we always pass
 * executablePath.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { tempDir } from './temp';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export interface LaunchedBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Close page, context and browser, and remove the private HOME. Idempotent. */
  close(): Promise<void>;
}

export interface LaunchBrowserOptions {
  viewport?: { width: number; height: number };
  /** Milliseconds for chromium.launch. Default 60000. */
  timeoutMs?: number;
}

export const DEFAULT_VIEWPORT = { width: 1400, height: 900 };

export interface LaunchedChromium {
  browser: Browser;
  /** Close the browser and remove the private HOME. Idempotent. */
  close(): Promise<void>;
}

/** Headless Chromium with a private HOME, and no page yet (see newPage). */
export async function launchChromium(opts: { timeoutMs?: number } = {}): Promise<LaunchedChromium> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: run \`bash scripts/provision-vscode.sh\` first`);
  }
  // A private HOME/XDG so Chromium writes nothing into the real $HOME
  // (playwright gives it a fresh temporary --user-data-dir itself).
  const tmp = tempDir('agent-compactor-chromium-');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, {
    HOME: tmp,
    XDG_CONFIG_HOME: path.join(tmp, 'config'),
    XDG_CACHE_HOME: path.join(tmp, 'cache'),
    XDG_DATA_HOME: path.join(tmp, 'data'),
  });
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      env,
      timeout: opts.timeoutMs ?? 60_000,
      // The runners handle signals themselves and close everything in order.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  let closing: Promise<void> | undefined;
  return {
    browser,
    close: () =>
      (closing ??= (async () => {
        // A hung close must not hang the run (playwright also kills the browser on process exit).
        await Promise.race([browser.close().catch(() => undefined), new Promise((r) => setTimeout(r, 10_000).unref())]);
        fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
      })()),
  };
}

/**
 * A page in a new browser context: its own cookies, localStorage and IndexedDB, which is where the VS Code web
 * workbench keeps its UI state (view sizes and layout, extensions' globalState, SecretStorage), so a page in a new
 * context starts as a first visit does.
 */
export async function newPage(
  browser: Browser,
  viewport: { width: number; height: number } = DEFAULT_VIEWPORT,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  try {
    return { context, page: await context.newPage() };
  } catch (e) {
    await context.close().catch(() => undefined);
    throw e;
  }
}

export async function launchBrowser(opts: LaunchBrowserOptions = {}): Promise<LaunchedBrowser> {
  const launched = await launchChromium(opts);
  try {
    const { context, page } = await newPage(launched.browser, opts.viewport);
    return { browser: launched.browser, context, page, close: () => launched.close() };
  } catch (e) {
    await launched.close();
    throw e;
  }
}
