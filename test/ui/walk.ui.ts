/**
 * One compaction walked as a new user walks it, in the real workbench (code-server + headless Chromium), driven only
 * through the UI, every figure on the way read off the screen and held against one value: the context the plan
 * promised in the confirmation. From the **Sessions** view (a row's inline **Compact**), the dialog (before → the
 * promise), the summary under review (its lens: the plan with this summary, and why it differs from the promise),
 * **Apply Summary** on it, the result notification (the delivered figure, and why it differs, part by part), the
 * status bar and the Rounds header of the new session (the delivered figure), its last round (the same figure: a
 * fork's rounds count its system prompt and tools), the fork's row in the Sessions view, and **Undo Last
 * Compaction**: the original is shown again, the fork's tabs are closed, its file is gone.
 *
 * The summary is the offline one (nothing leaves the machine); the session is a real one from the shared fixtures.
 *
 * Screenshots (test-results/screenshots/): walk-sessions.png, walk-confirm.png, walk-review.png, walk-result.png,
 * walk-undone.png.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Workbench, screenshotOnFailure } from '../support/workbench';
import { fixturesDir } from '../support/workspace';

const VIEWPORT = { width: 1400, height: 900 };
const CWD = '/home/me/code/flake-config';
const ID = '3c9d2e1f-7a6b-4c5d-8e9f-0a1b2c3d4e5f';
const TARGET = 40_000;

/** "85,346" → 85346. */
const num = (s: string) => Number(s.replace(/,/g, ''));

describe('UI: one compaction from the Sessions view to Undo, every figure against the promise', function () {
  this.timeout(180_000);
  let wb: Workbench;
  let configDir: string;
  let session: string;
  /** What the confirmation showed: the context before and the promised context after. */
  let contextBefore = 0;
  let promised = 0;
  let delivered = 0;
  let fork = '';

  before(async function () {
    this.timeout(180_000);
    configDir = Workbench.claudeConfigDir();
    const dir = path.join(configDir, 'projects', CWD.replace(/[^a-zA-Z0-9]/g, '-'));
    fs.mkdirSync(dir, { recursive: true });
    session = path.join(dir, `${ID}.jsonl`);
    fs.writeFileSync(
      session,
      fs
        .readFileSync(path.join(fixturesDir, 'claude-code', 'v2.1.97-live-after.jsonl'), 'utf8')
        .replace(/"cwd":"[^"]*"/g, `"cwd":${JSON.stringify(CWD)}`),
    );
    const then = new Date(Date.now() - 2 * 3_600_000);
    fs.utimesSync(session, then, then);
    wb = await Workbench.open({
      viewport: VIEWPORT,
      settings: { 'agentCompactor.targetTokens': TARGET },
      workspaceFiles: { 'README.md': '# a project\n' },
    });
  });

  afterEach(screenshotOnFailure(() => wb));

  after(async function () {
    this.timeout(60_000);
    await wb?.stop();
  });

  const sidebar = () => wb.page.locator('.part.sidebar');
  const pane = (title: string) =>
    sidebar().locator('.pane', {
      has: wb.page.locator('.pane-header h3.title', { hasText: new RegExp(`^${title}$`, 'i') }),
    });
  const rows = (title: string) => pane(title).locator('.monaco-list-row');
  const dialog = () => wb.page.locator('.monaco-dialog-box');
  /** The CodeLenses of the summary under review (an untitled editor, the active one in its group). */
  const lenses = () =>
    wb.page
      .locator('.editor-group-container', { has: wb.page.locator('.tab.active[data-resource-name^="Untitled-"]') })
      .locator('.codelens-decoration');

  /** Polls `read` until `ok` holds for its value (or the time is up); returns the last value. */
  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
    const end = Date.now() + ms;
    let v = await read();
    while (!ok(v) && Date.now() < end) {
      await wb.page.waitForTimeout(250);
      v = await read();
    }
    return v;
  }

  it("the Sessions view lists the session with its fill; its row's inline Compact opens the confirmation with the promise", async () => {
    await wb.page.locator('.activitybar .action-item .action-label[aria-label^="Agent Compactor"]').click();
    // Fill and cost come with the background read of the expanded project.
    const row = rows('Sessions')
      .filter({ has: wb.page.locator('.label-name', { hasText: /^\d+% · \$/ }) })
      .first();
    await row.waitFor({ state: 'visible', timeout: 60_000 });
    const share = Number(/^(\d+)%/.exec((await row.locator('.label-name').textContent()) ?? '')![1]);
    await wb.screenshot('walk-sessions');
    await row.hover();
    const compact = row.locator('.actions .action-label[aria-label^="Compact Transcript"]');
    await compact.waitFor({ state: 'visible', timeout: 10_000 });
    await compact.click();

    await dialog().waitFor({ state: 'visible', timeout: 60_000 });
    const text = ((await dialog().textContent()) ?? '').replace(/\s+/g, ' ');
    const m = /Compact 3c9d2e1f-[\w-]+\.jsonl\? Context (~?)([\d,]+) → ([\d,]+) tokens/.exec(text);
    assert.ok(m, `the confirmation says the context before and after: ${text}`);
    contextBefore = num(m[2]);
    promised = num(m[3]);
    // The row's fill is this context figure against the window.
    assert.equal(share, Math.round((contextBefore / 200_000) * 100), `row ${share}% vs the dialog's ${contextBefore}`);
    assert.ok(promised <= TARGET, `the promise meets the ${TARGET} target: ${promised}`);
    assert.match(text, /What bounds the result: result \d+k, within your 40k target/);
    await wb.screenshot('walk-confirm');
    await dialog()
      .locator('.dialog-buttons .monaco-button', { hasText: /^Review Summary$/ })
      .click();
    await dialog().waitFor({ state: 'hidden', timeout: 10_000 });
  });

  it('the summary under review says the plan with this summary, and how it differs from the promise', async () => {
    const figures = lenses()
      .filter({ hasText: /context ~?[\d,]+ → [\d,]+ tokens/ })
      .first();
    await figures.waitFor({ state: 'visible', timeout: 60_000 });
    const text = ((await figures.textContent()) ?? '').replace(/\s+/g, ' ');
    const m =
      /context ~?([\d,]+) → ([\d,]+) tokens.*\(planned ([\d,]+): the summary came out at ([\d,]+), below its ([\d,]+) reserve\)/.exec(
        text,
      );
    assert.ok(m, `the lens names the promise and the summary against its reserve: ${text}`);
    assert.equal(num(m[1]), contextBefore);
    assert.equal(num(m[3]), promised, 'the promise the dialog showed');
    // The one difference, with its numbers: the summary is shorter than its reserve by exactly the gap.
    assert.equal(num(m[2]), promised - (num(m[5]) - num(m[4])), text);
    await wb.screenshot('walk-review');
    await lenses().locator('a', { hasText: 'Apply Summary' }).first().click();
  });

  it('the result says the delivered figure and explains every token of its gap to the promise', async () => {
    const toast = wb.page.locator('.notification-toast', { hasText: /Compacted 3c9d2e1f-/ }).first();
    await toast.waitFor({ state: 'visible', timeout: 120_000 });
    const text = ((await toast.innerText()) ?? '').replace(/\s+/g, ' ');
    const m =
      /Compacted 3c9d2e1f-[\w-]+\.jsonl: context ~?([\d,]+) → ([\d,]+) tokens \(your summary, written as given\)\. Planned ([\d,]+): ([^.]+)\. New session ([0-9a-f-]{36}) beside/.exec(
        text,
      );
    assert.ok(m, `the result names the delivered figure and the promise: ${text}`);
    assert.equal(num(m[1]), contextBefore);
    assert.equal(num(m[3]), promised, 'measured against the promise the dialog showed');
    delivered = num(m[2]);
    fork = `${m[5]}.jsonl`;
    // Every part of the gap is named with its size, and they add up to it.
    let explained = 0;
    for (const part of m[4].split('; ')) {
      const summary = /^the summary came out at ([\d,]+), (?:below|above) its ([\d,]+) reserve$/.exec(part);
      const kept = /^\d+ (?:more|fewer) recent rounds? kept verbatim \(([+−])([\d,]+)\)$/.exec(part);
      if (summary) explained += num(summary[1]) - num(summary[2]);
      else if (kept) explained += (kept[1] === '−' ? -1 : 1) * num(kept[2]);
      else assert.fail(`a part of the gap without its size: ${part}`);
    }
    assert.equal(delivered, promised + explained, `${promised} + the named parts = ${delivered}`);
    await wb.screenshot('walk-result');
  });

  it("the new session's status bar, Rounds header, last round and Sessions row say the delivered figure", async () => {
    const short = fork.slice(0, 23);
    const status = wb.page.locator('.statusbar-item', {
      hasText: new RegExp(`${short}.*: context ~?[\\d,]+ · \\d+ rounds`),
    });
    const statusText = await until(
      async () => ((await status.first().isVisible()) ? ((await status.first().textContent()) ?? '') : ''),
      (t) => t !== '',
    );
    assert.equal(num(/context ~?([\d,]+)/.exec(statusText)![1]), delivered, statusText);
    // The Rounds view shows the new session; its header leads with the same figure.
    // (While it reads the file the view shows a "Reading …" row naming it.)
    const header = rows('Rounds')
      .filter({ hasText: fork })
      .filter({ hasText: /context ~?[\d,]+ tokens/ })
      .first();
    await header.waitFor({ state: 'visible', timeout: 60_000 });
    const label = (await header.getAttribute('aria-label')) ?? '';
    assert.equal(num(/^context ~?([\d,]+) tokens/.exec(label)?.[1] ?? '0'), delivered, label);
    // Its last round's running figure is the header's: the rounds count the system prompt and tools too.
    await header.click();
    await wb.page.keyboard.press('End');
    const last = rows('Rounds')
      .filter({ hasText: /^\+~?[\d,]+ · #\d+ / })
      .last();
    const lastText = await until(
      async () => (await last.locator('.label-description').textContent()) ?? '',
      (t) => /^context ~?[\d,]+/.test(t) && num(/^context ~?([\d,]+)/.exec(t)![1]) === delivered,
      20_000,
    );
    assert.equal(num(/^context ~?([\d,]+)/.exec(lastText)?.[1] ?? '0'), delivered, `last round: ${lastText}`);
    // The Sessions view lists the fork with the same figure as its fill.
    const forkRow = rows('Sessions').filter({
      has: wb.page.locator('.label-name', {
        hasText: new RegExp(`^${Math.round((delivered / 200_000) * 100)}% · `),
      }),
    });
    await forkRow.first().waitFor({ state: 'visible', timeout: 60_000 });
  });

  it('Undo Last Compaction: the original is shown again, the fork is gone and its tabs are closed', async () => {
    await wb.runCommand('Agent Compactor: Undo Last Compaction');
    await dialog().waitFor({ state: 'visible', timeout: 30_000 });
    assert.match((await dialog().textContent()) ?? '', /Undo the last compaction of 3c9d2e1f-/);
    await dialog()
      .locator('.dialog-buttons .monaco-button', { hasText: /^Undo Compaction$/ })
      .click();
    await wb.page
      .locator('.notification-toast', { hasText: /The last compaction of 3c9d2e1f-[\w-]+\.jsonl was undone/ })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    assert.ok(!fs.existsSync(path.join(path.dirname(session), fork)), 'the fork is deleted');
    const tabs = await until(
      () =>
        wb.page
          .locator('.tabs-container .tab')
          .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? '')),
      (t) => !t.some((l) => l.includes(fork)),
      15_000,
    );
    assert.ok(!tabs.some((l) => l.includes(fork)), `no tab of the fork: ${JSON.stringify(tabs)}`);
    // The Rounds view shows the session the user came from, with the figure the dialog started from. It may keep the
    // scroll of the fork's last round (the step above went to the end): back to the top, where the header is.
    await until(
      async () => {
        await rows('Rounds').first().click();
        await wb.page.keyboard.press('Home');
        return rows('Rounds')
          .filter({ hasText: `${ID}.jsonl` })
          .count();
      },
      (n) => n > 0,
      30_000,
    );
    const header = rows('Rounds')
      .filter({ hasText: `${ID}.jsonl` })
      .filter({ hasText: /context ~?[\d,]+ tokens/ })
      .first();
    await header.waitFor({ state: 'visible', timeout: 60_000 });
    const label = (await header.getAttribute('aria-label')) ?? '';
    assert.equal(num(/^context ~?([\d,]+) tokens/.exec(label)?.[1] ?? '0'), contextBefore, label);
    await wb.screenshot('walk-undone');
  });
});
