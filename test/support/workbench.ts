/**
 * A real VS Code workbench for UI scenarios: code-server (without the
 * smoke-test driver, so the workbench behaves as for a user: toasts show)
 * with the extension installed into a private --extensions-dir, a temp
 * workspace of fixtures, and headless Chromium on it; plus small helpers that
 * act as a person would (explorer, command palette, notifications).
 *
 * One code-server and one Chromium serve the whole UI run (Workbench.open): they start with the first file that
 * opens a workbench and stop when the runner calls stopAllWorkbenches(). Each open() writes its user settings,
 * creates its own workspace folder and opens it in a page of a new browser context, so every file gets a new window
 * (a new extension host, which reads the settings and the environment afresh) and a first visit's browser state
 * (view layout, extensions' globalState, SecretStorage: the web workbench keeps them in the browser). What the server
 * keeps is shared: its user-data dir (settings.json is rewritten by every open()), HOME, and the environment, whose
 * CLAUDE_CONFIG_DIR is Workbench.claudeConfigDir(), a folder a file seeds before it opens.
 *
 *   const wb = await Workbench.open({ settings: { ... } });
 *   await wb.openFileFromExplorer('example.jsonl');
 *   await wb.screenshot('transcript');
 *   await wb.stop();   // closes this file's page and workspace; the server and browser stay
 *
 * Workbench.start() still starts a private code-server and Chromium, for a scenario that needs its own environment
 * or a fresh user-data dir.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BrowserContext, Frame, Locator, Page } from 'playwright-core';
import { DEFAULT_VIEWPORT, launchChromium, newPage, type LaunchedChromium } from './browser';
import { assertExtensionBuilt, repoRoot, startCodeServer, writeUserSettings, type CodeServer } from './code-server';
import { createWorkspace, defaultWorkspaceFiles, type TempWorkspace, type WorkspaceFiles } from './workspace';
import { keepTempDir, tempDir } from './temp';

export const screenshotsDir = path.join(repoRoot, 'test-results', 'screenshots');

export interface OpenOptions {
  /** Extra user settings, written over the defaults into User/settings.json before the window opens. */
  settings?: Record<string, unknown>;
  /** Files of the temp workspace. Default: a few Claude Code fixtures. */
  workspaceFiles?: WorkspaceFiles;
  viewport?: { width: number; height: number };
  /** Milliseconds to wait for the workbench to show the workspace. Default 90000. */
  readyTimeoutMs?: number;
}

export interface WorkbenchOptions extends OpenOptions {
  /** Extension folder to install. Default: $AGENT_COMPACTOR_EXTENSION_PATH or the repo root. */
  extensionPath?: string;
  /** Extra environment for code-server and so for the extension host. */
  env?: Record<string, string>;
}

export interface Notification {
  message: string;
  source: string;
  severity: 'info' | 'warning' | 'error' | 'unknown';
}

interface Manifest {
  name: string;
  publisher: string;
  version: string;
}

/**
 * Install an extension folder into an extensions dir the way VS Code finds
 * installed extensions: a folder named <publisher>.<name>-<version>. A
 * symlink, so the extension runs from its build output (dist/) as it is;
 * VS Code only ever removes the link, never the target.
 */
export function installExtensionLink(extensionPath: string, extensionsDir: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(extensionPath, 'package.json'), 'utf8')) as Manifest;
  const id = `${manifest.publisher}.${manifest.name}`.toLowerCase();
  const dest = path.join(extensionsDir, `${id}-${manifest.version}`);
  fs.symlinkSync(path.resolve(extensionPath), dest, 'dir');
  return id;
}

/**
 * The scenarios' transcripts are hand-named copies (markup.jsonl, session.jsonl) that no agent's file name marks as a
 * session (test/host/00-activation.test.ts covers those): the setting a person with such copies uses opens them as
 * Agent Sessions, which activates the extension as opening a real session does.
 */
const SCENARIO_SETTINGS: Record<string, unknown> = { 'files.associations': { '*.jsonl': 'agent-session' } };

function extensionPathOf(opts: { extensionPath?: string }): string {
  return path.resolve(repoRoot, opts.extensionPath ?? process.env.AGENT_COMPACTOR_EXTENSION_PATH ?? '.');
}

const liveWorkbenches = new Set<Workbench>();

/** The code-server and Chromium every Workbench.open() uses. */
interface Shared {
  server: CodeServer;
  chromium: LaunchedChromium;
  extensionId: string;
}
let shared: Promise<Shared> | undefined;
/** Temp folder of the shared workbench's own files (the Claude Code config folder); made on first use. */
let sharedRoot: string | undefined;
/** Workbench.claudeConfigDir() was called since the last open(): its contents are the next window's. */
let claudeConfigSeeded = false;

function sharedRootDir(): string {
  if (!sharedRoot) {
    sharedRoot = fs.realpathSync(tempDir('agent-compactor-ui-'));
    if (process.env.KEEP_TEST_TMP === '1') keepTempDir(sharedRoot);
  }
  return sharedRoot;
}

function claudeConfigPath(): string {
  return path.join(sharedRootDir(), 'claude-config');
}

async function startShared(): Promise<Shared> {
  const extensionPath = extensionPathOf({});
  assertExtensionBuilt(extensionPath);
  let extensionId = '';
  const [server, chromium] = await Promise.allSettled([
    startCodeServer({
      smokeTestDriver: false,
      settings: SCENARIO_SETTINGS,
      // Set once for the whole run: a window's extension host inherits the server's environment.
      env: { CLAUDE_CONFIG_DIR: claudeConfigPath() },
      prepare: (dirs) => {
        extensionId = installExtensionLink(extensionPath, dirs.extensionsDir);
      },
    }),
    launchChromium(),
  ]);
  if (server.status === 'fulfilled' && chromium.status === 'fulfilled') {
    return { server: server.value, chromium: chromium.value, extensionId };
  }
  if (server.status === 'fulfilled') await server.value.stop();
  if (chromium.status === 'fulfilled') await chromium.value.close();
  throw server.status === 'rejected' ? server.reason : (chromium as PromiseRejectedResult).reason;
}

/** The shared code-server and Chromium, started on first use (and again if the browser went away). */
async function sharedWorkbench(): Promise<Shared> {
  if (shared) {
    const s = await shared.catch(() => undefined);
    if (s?.chromium.browser.isConnected()) return s;
    await stopShared();
  }
  return (shared = startShared());
}

async function stopShared(): Promise<void> {
  const s = await shared?.catch(() => undefined);
  shared = undefined;
  if (s) {
    await s.chromium.close();
    await s.server.stop().catch(() => undefined);
  }
  if (sharedRoot) {
    if (process.env.KEEP_TEST_TMP === '1') console.log(`[workbench] kept ${sharedRoot}`);
    else fs.rmSync(sharedRoot, { recursive: true, force: true, maxRetries: 3 });
    sharedRoot = undefined;
  }
}

/** Stop every workbench still running, then the shared code-server and Chromium (end of run, signals, timeouts). */
export async function stopAllWorkbenches(): Promise<void> {
  await Promise.all([...liveWorkbenches].map((w) => w.stop().catch(() => undefined)));
  await stopShared();
}

/**
 * Two animation frames of `frame` (a page's main frame or a webview's) have passed: what changed before has been laid
 * out and painted. For a picture taken right after a change, instead of a pause that guesses how long that takes.
 */
export async function paintedIn(frame: Frame): Promise<void> {
  await frame.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
}

/** A mocha `afterEach` hook that saves a screenshot of the workbench when the test failed. */
export function screenshotOnFailure(get: () => Workbench | undefined) {
  return async function (this: Mocha.Context): Promise<void> {
    const wb = get();
    if (this.currentTest?.state === 'failed' && wb) {
      const file = await wb.screenshot(`FAILED-${this.currentTest.fullTitle()}`).catch(() => undefined);
      if (file) console.log(`    screenshot of the failure: ${file}`);
    }
  };
}

export class Workbench {
  private stopping: Promise<void> | undefined;

  private constructor(
    readonly server: CodeServer,
    readonly context: BrowserContext,
    readonly page: Page,
    readonly workspace: TempWorkspace,
    readonly extensionId: string,
    private readonly release: () => Promise<void>,
  ) {}

  /**
   * The Claude Code config folder (CLAUDE_CONFIG_DIR) of the shared workbench, emptied: what a file writes into it
   * before its Workbench.open() is what that window's extension host finds there. A window opened without calling this
   * first finds no such folder (as with an empty HOME).
   */
  static claudeConfigDir(): string {
    const dir = claudeConfigPath();
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    fs.mkdirSync(dir, { recursive: true });
    claudeConfigSeeded = true;
    return dir;
  }

  /**
   * A window of the shared workbench on a new workspace folder of `workspaceFiles`, with `settings` as the user
   * settings and a fresh browser context of `viewport`; resolves once the window shows the folder. Starts the shared
   * code-server and Chromium on first use. stop() closes the window and removes the folder.
   */
  static async open(opts: OpenOptions = {}): Promise<Workbench> {
    const s = await sharedWorkbench();
    // Whatever an earlier file left in the Claude Code config folder is not this window's.
    if (!claudeConfigSeeded) fs.rmSync(claudeConfigPath(), { recursive: true, force: true, maxRetries: 3 });
    claudeConfigSeeded = false;
    writeUserSettings(s.server.userDataDir, { ...SCENARIO_SETTINGS, ...opts.settings });
    const workspace = createWorkspace(opts.workspaceFiles ?? defaultWorkspaceFiles());
    let wb: Workbench | undefined;
    try {
      const { context, page } = await newPage(s.chromium.browser, opts.viewport ?? DEFAULT_VIEWPORT);
      wb = new Workbench(s.server, context, page, workspace, s.extensionId, async () => {
        // A hung close must not hang the run; the server ends the window's extension host when its page is gone.
        await Promise.race([context.close().catch(() => undefined), new Promise((r) => setTimeout(r, 10_000).unref())]);
        workspace.dispose();
      });
      liveWorkbenches.add(wb);
      const t0 = Date.now();
      await wb.gotoWorkspace(opts.readyTimeoutMs ?? 90_000);
      // What a window costs (each file opens one): where a run's time goes outside its tests.
      console.log(`      [workbench] window on ${path.basename(workspace.dir)} ready in ${Date.now() - t0} ms`);
      return wb;
    } catch (e) {
      if (wb) await wb.stop();
      else workspace.dispose();
      throw e;
    }
  }

  /** A private code-server and Chromium for one scenario (its own environment, a fresh user-data dir). */
  static async start(opts: WorkbenchOptions = {}): Promise<Workbench> {
    const extensionPath = extensionPathOf(opts);
    assertExtensionBuilt(extensionPath);
    const workspace = createWorkspace(opts.workspaceFiles ?? defaultWorkspaceFiles());
    let server: CodeServer | undefined;
    let chromium: LaunchedChromium | undefined;
    try {
      let extensionId = '';
      server = await startCodeServer({
        smokeTestDriver: false,
        settings: { ...SCENARIO_SETTINGS, ...opts.settings },
        env: opts.env,
        prepare: (dirs) => {
          extensionId = installExtensionLink(extensionPath, dirs.extensionsDir);
        },
      });
      chromium = await launchChromium();
      const { context, page } = await newPage(chromium.browser, opts.viewport ?? DEFAULT_VIEWPORT);
      const [srv, chr] = [server, chromium];
      const wb = new Workbench(server, context, page, workspace, extensionId, async () => {
        const t0 = Date.now();
        await chr.close().catch(() => undefined);
        const t1 = Date.now();
        await srv.stop().catch(() => undefined);
        workspace.dispose();
        if (process.env.UI_TEST_DEBUG === '1')
          console.log(`[workbench] stopped: browser ${t1 - t0} ms, code-server ${Date.now() - t1} ms`);
      });
      liveWorkbenches.add(wb);
      await wb.gotoWorkspace(opts.readyTimeoutMs ?? 90_000);
      return wb;
    } catch (e) {
      await chromium?.close();
      await server?.stop();
      workspace.dispose();
      throw e;
    }
  }

  private async gotoWorkspace(readyTimeoutMs: number): Promise<void> {
    await this.page.goto(`${this.server.url}/?folder=${encodeURIComponent(this.workspace.dir)}`, {
      waitUntil: 'domcontentloaded',
      timeout: 60_000,
    });
    await this.waitForReady(readyTimeoutMs);
  }

  /** The workbench is up, its window is on this workspace's folder, and the explorer lists the folder. */
  async waitForReady(timeoutMs: number): Promise<void> {
    const page = this.page;
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: timeoutMs });
    await page.waitForFunction((name) => document.title.includes(name), path.basename(this.workspace.dir), {
      timeout: timeoutMs,
    });
    await this.explorerRows().first().waitFor({ state: 'visible', timeout: timeoutMs });
    // (Nothing more: each gesture waits for its own effect, e.g. a palette entry of the extension for its context key.)
  }

  /** Close this window (and, for Workbench.start(), its code-server and Chromium); remove its workspace. */
  stop(): Promise<void> {
    return (this.stopping ??= (async () => {
      liveWorkbenches.delete(this);
      await this.release();
    })());
  }

  private explorerRows(): Locator {
    return this.page.locator('.explorer-folders-view .monaco-list-row');
  }

  /** Shows the Explorer (no-op when it is already visible). */
  async showExplorer(timeoutMs = 30_000): Promise<void> {
    const page = this.page;
    const view = page.locator('.explorer-folders-view');
    if (await view.isVisible()) return;
    await this.runCommand('View: Show Explorer');
    const shown = await view.waitFor({ state: 'visible', timeout: 5_000 }).then(
      () => true,
      () => false,
    );
    if (shown) return;
    // The command does not always switch containers in code-server: the activity bar item, as a user would.
    await page
      .locator('.activitybar .action-item .action-label[aria-label^="Explorer"]')
      .first()
      .click({ timeout: 5_000 });
    await view.waitFor({ state: 'visible', timeout: timeoutMs });
  }

  /**
   * Open a file by double-clicking it in the Explorer (pinned editor); waits for its tab. (The bounds of waits for what
   * must come are wide: a passing run never waits them out, and beside a CPU hog a window can take half a minute.)
   */
  async openFileFromExplorer(name: string, timeoutMs = 90_000): Promise<void> {
    const page = this.page;
    await this.showExplorer(timeoutMs);
    const row = page.locator('.explorer-folders-view').getByRole('treeitem', { name, exact: true });
    await row.waitFor({ state: 'visible', timeout: timeoutMs });
    await row.dblclick();
    await page
      .locator(`.tabs-container .tab.active[data-resource-name="${name}"]`)
      .waitFor({ state: 'visible', timeout: timeoutMs });
    await this.waitForEditorContent(timeoutMs);
  }

  /** The active editor shows something: text lines, or a webview (custom editor) that finished loading. */
  async waitForEditorContent(timeoutMs = 90_000): Promise<void> {
    await this.page
      .locator(
        '.editor-group-container.active .monaco-editor .view-lines .view-line, .webview.ready, iframe.webview.ready',
      )
      .first()
      .waitFor({ state: 'visible', timeout: timeoutMs });
  }

  private quickInput(): Locator {
    return this.page.locator('.quick-input-widget');
  }

  /**
   * Open the command palette (F1) and type `text`, leaving the list open. A workbench still starting (or on a busy
   * machine) can drop the typed text or fill the list late, so a list that does not show the command is closed and the
   * palette opened and typed into again, up to three times, before the test fails.
   */
  async openCommandPalette(text = '', timeoutMs = 15_000): Promise<void> {
    const attempts = text ? 3 : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.typeIntoPalette(text, timeoutMs);
        return;
      } catch (error) {
        if (attempt >= attempts) throw error;
        await this.page.keyboard.press('Escape').catch(() => undefined);
        await this.quickInput()
          .waitFor({ state: 'hidden', timeout: 5_000 })
          .catch(() => undefined);
      }
    }
  }

  private async typeIntoPalette(text: string, timeoutMs: number): Promise<void> {
    const page = this.page;
    const input = this.quickInput().locator('input.input');
    if (!(await input.isVisible())) {
      await page
        .locator('.monaco-workbench')
        .focus()
        .catch(() => undefined);
      await page.keyboard.press('F1');
      await input.waitFor({ state: 'visible', timeout: timeoutMs });
    }
    await input.fill(`>${text}`);
    if (text) {
      await this.quickInput()
        .locator('.quick-input-list .monaco-list-row', { hasText: text })
        .first()
        .waitFor({ state: 'visible', timeout: timeoutMs });
    }
  }

  /**
   * Preferences: Color Theme from the palette, `theme` (its name as the picker lists it, e.g. "Light Modern" for the
   * setting's "Default Light Modern") typed into its picker and its row clicked; resolves once the picker closed (the
   * caller waits for the theme's own effect).
   */
  async pickColorTheme(theme: string, timeoutMs = 15_000): Promise<void> {
    await this.openCommandPalette('Preferences: Color Theme', timeoutMs);
    await this.quickInput()
      .locator('.quick-input-list .monaco-list-row')
      .filter({ has: this.page.locator('.label-name', { hasText: /^Preferences: Color Theme$/ }) })
      .first()
      .click();
    const input = this.quickInput().locator('input.input');
    // The palette becomes the theme picker: its input loses the '>' of commands.
    await this.page.waitForFunction(
      () => {
        const i = document.querySelector<HTMLInputElement>('.quick-input-widget input.input');
        return !!i && !i.value.startsWith('>') && !!document.querySelector('.quick-input-list .monaco-list-row');
      },
      undefined,
      { timeout: timeoutMs },
    );
    await input.fill(theme);
    const row = this.quickInput()
      .locator('.quick-input-list .monaco-list-row')
      .filter({ has: this.page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(theme)}$`) }) })
      .first();
    await row.waitFor({ state: 'visible', timeout: timeoutMs });
    await row.click();
    await this.quickInput().waitFor({ state: 'hidden', timeout: timeoutMs });
  }

  /** Labels of the rows the quick input (palette / quick pick) shows. */
  async quickPickItems(): Promise<string[]> {
    const rows = this.quickInput().locator('.quick-input-list .monaco-list-row');
    const labels = await rows.evaluateAll((els) =>
      els.map((el) => (el.querySelector('.label-name')?.textContent ?? el.getAttribute('aria-label') ?? '').trim()),
    );
    return labels.filter(Boolean);
  }

  /** Run a command by its title through the command palette, as a user would. */
  async runCommand(title: string, timeoutMs = 15_000): Promise<void> {
    await this.openCommandPalette(title, timeoutMs);
    // Prefer the row whose label is exactly the title; fall back to the first match.
    const rows = this.quickInput().locator('.quick-input-list .monaco-list-row');
    const exact = rows.filter({
      has: this.page.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(title)}$`) }),
    });
    if ((await exact.count()) > 0) await exact.first().click();
    else await this.page.keyboard.press('Enter');
    await this.quickInput().waitFor({ state: 'hidden', timeout: timeoutMs });
  }

  /**
   * The text of the hover shown on pointing at `target`, once it matches `match` (a string matches as it is). A hover
   * is cancelled when its row re-renders under the pointer (views refresh as background reads land), and can vanish
   * between two calls, so the text is read in the same page step that finds it; the pointer leaves and comes back
   * until one is read.
   */
  async hoverText(target: Locator, match: RegExp | string, attempts = 6): Promise<string> {
    const pattern = typeof match === 'string' ? new RegExp(escapeRegExp(match)) : match;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      await this.page.mouse.move(900, 450);
      await target.hover();
      const text = await this.page
        .waitForFunction(
          ({ source, flags }) => {
            const re = new RegExp(source, flags);
            for (const e of document.querySelectorAll('.monaco-hover, .workbench-hover')) {
              const t = (e.textContent ?? '').replace(/\s+/g, ' ');
              if (re.test(t)) return t;
            }
            return undefined;
          },
          { source: pattern.source, flags: pattern.flags },
          { timeout: 6_000 },
        )
        .then((h) => h.jsonValue() as Promise<string>)
        .catch(() => undefined);
      if (text !== undefined) return text;
    }
    throw new Error(`no hover matching ${pattern} after ${attempts} attempts`);
  }

  async closeQuickInput(): Promise<void> {
    if (await this.quickInput().isVisible()) {
      await this.page.keyboard.press('Escape');
      await this.quickInput().waitFor({ state: 'hidden', timeout: 5_000 });
    }
  }

  async closeAllEditors(): Promise<void> {
    await this.closeQuickInput();
    await this.runCommand('View: Close All Editors');
  }

  /** Drags the side bar's sash so that the side bar is `width` px wide (as a person widens it); its width after. */
  async resizeSidebar(width: number): Promise<number> {
    const sidebar = this.page.locator('.part.sidebar');
    const box = await sidebar.boundingBox();
    if (!box) throw new Error('no side bar is shown');
    const edge = box.x + box.width;
    const sashes = this.page.locator('.monaco-sash.vertical');
    const boxes = await sashes.evaluateAll((els) =>
      els.map((e) => e.getBoundingClientRect()).map((r) => ({ x: r.x, w: r.width, h: r.height })),
    );
    const sash = boxes.find((b) => Math.abs(b.x + b.w / 2 - edge) <= 4 && b.h > 100);
    if (!sash) throw new Error(`no sash at the side bar's edge (${edge} px)`);
    const y = box.y + box.height / 2;
    await this.page.mouse.move(sash.x + sash.w / 2, y);
    await this.page.mouse.down();
    await this.page.mouse.move(box.x + width, y, { steps: 8 });
    await this.page.mouse.up();
    return (await sidebar.boundingBox())?.width ?? 0;
  }

  /** Save a PNG of the whole page into test-results/screenshots/<name>.png; returns its path. */
  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(screenshotsDir, { recursive: true });
    const file = path.join(screenshotsDir, `${name.replace(/[^\w.-]+/g, '_')}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  /**
   * Every notification, read from the Notifications center (opened through
   * the command palette; toasts vanish, the center keeps them). The center is
   * left open; pass `close: true` to hide it again.
   */
  async readNotifications(opts: { close?: boolean } = {}): Promise<Notification[]> {
    const center = this.page.locator('.notifications-center');
    // On a busy machine the command can land while a toast takes the focus and the center stays shut: ask again.
    for (let attempt = 1; !(await center.isVisible()); attempt++) {
      await this.runCommand('Notifications: Show Notifications');
      const shown = await center
        .waitFor({ state: 'visible', timeout: 10_000 })
        .then(() => true)
        .catch(() => false);
      if (!shown && attempt === 3) throw new Error('the Notifications center did not open after 3 attempts');
    }
    const items = await center.locator('.notification-list-item').evaluateAll((els) =>
      els.map((el): Notification => {
        const icon = el.querySelector('.notification-list-item-icon')?.className ?? '';
        return {
          message: (el.querySelector('.notification-list-item-message')?.textContent ?? '').trim(),
          source: (el.querySelector('.notification-list-item-source')?.textContent ?? '').trim(),
          severity: /codicon-error/.test(icon)
            ? 'error'
            : /codicon-warning/.test(icon)
              ? 'warning'
              : /codicon-info/.test(icon)
                ? 'info'
                : 'unknown',
        };
      }),
    );
    if (opts.close) await this.runCommand('Notifications: Hide Notifications').catch(() => undefined);
    return items;
  }

  /** Wait until some notification's message matches; returns it. */
  async waitForNotification(match: RegExp | string, timeoutMs = 20_000): Promise<Notification> {
    const deadline = Date.now() + timeoutMs;
    const re = typeof match === 'string' ? new RegExp(escapeRegExp(match)) : match;
    for (;;) {
      const found = (await this.readNotifications()).find((n) => re.test(n.message));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no notification matching ${re} within ${timeoutMs} ms`);
      await this.page.waitForTimeout(250);
    }
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
