/**
 * A user's session with Agent Compactor in the real workbench (code-server +
 * headless Chromium), driven only through the UI: open a transcript from the
 * Explorer, watch the Rounds view fill, preview a compaction (marks in the
 * tree), set the API key in the password box, run **Compact Transcript** from
 * the command palette, confirm the modal, follow the progress notification,
 * review the summary streamed into an editor, edit it, Apply Summary (on the summary editor),
 * see the result (a new session `<uuid>.jsonl` beside the original, with
 * Resume in Claude Code / Copy Resume Command buttons) in the Explorer, copy
 * its resume command from the palette and open **Show Diff**.
 *
 * The summary is written by the local fake Anthropic Messages API
 * (test/support/fake-anthropic.ts, in this process), held after its first
 * text until the test has seen the progress notification and the text
 * streaming in.
 *
 * Screenshots (test-results/screenshots/): rounds-tree.png, compact-confirm.png, compact-progress.png, compact-review.png, compact-result.png, diff.png.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator } from 'playwright-core';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { Workbench, paintedIn, screenshotOnFailure } from '../support/workbench';
import { fixturesDir } from '../support/workspace';

const TRANSCRIPT = 'session.jsonl';
/** The session folder recorded in the fixture's first lines. */
const SESSION_CWD = '/home/vwestberg/Claude';
/** The fork's file name, `<new-session-id>.jsonl`, read from the result notification. */
let RESULT = '';
let SESSION_ID = '';
const KEY = `sk-ant-api03-uitest-${Date.now().toString(36)}`;
const VIEWPORT = { width: 1400, height: 900 };
/** The line the user types at the top of the reviewed summary. */
const EDITED_LINE = 'UI-EDITED-MARKER: keep the failing test case in mind.';

/** A transcript with every timestamp moved so that its newest is two minutes ago (order and gaps kept). */
function recentCopy(jsonl: string): string {
  const stamps = [...jsonl.matchAll(/"timestamp":"([^"]+)"/g)].map((m) => Date.parse(m[1]));
  const delta = Date.now() - 2 * 60_000 - Math.max(...stamps);
  return jsonl.replace(
    /"timestamp":"([^"]+)"/g,
    (_, t: string) => `"timestamp":"${new Date(Date.parse(t) + delta).toISOString()}"`,
  );
}

/** Every string value in the JSON lines of a transcript that contains `needle`. */
function stringsWith(jsonl: string, needle: string): string[] {
  const found: string[] = [];
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      if (v.includes(needle)) found.push(v);
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') Object.values(v).forEach(visit);
  };
  for (const line of jsonl.split('\n')) if (line.trim()) visit(JSON.parse(line));
  return found;
}

/** The checklist lens of the summary under review, as the user reads it: its title and the counts summed. */
async function checklist(lenses: Locator): Promise<{ title: string; kept: number; total: number }> {
  const line = (
    (await lenses
      .filter({ hasText: /Keeps \d+\/\d+ /u })
      .first()
      .innerText()) ?? ''
  ).replace(/\u00a0/g, ' ');
  const title = (/Keeps [^|]*/.exec(line)?.[0] ?? '').trim();
  const pairs = [...title.matchAll(/(\d+)\/(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
  return { title, kept: pairs.reduce((n, p) => n + p[0], 0), total: pairs.reduce((n, p) => n + p[1], 0) };
}

/** The value `check` resolves to once it is defined, polling (the lenses follow an edit after a debounce). */
async function until<T>(check: () => Promise<T | undefined>, what: string, tries = 120): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('UI: compact a transcript as a user would', function () {
  this.timeout(120_000);
  let wb: Workbench;
  let fake: FakeAnthropic;
  // The fixture as if its last reply came two minutes ago: its prompt cache (written for 1 hour) is warm, so the
  // confirmation weighs a cheap cached next turn against the compaction and shows a break-even after some turns.
  const original = Buffer.from(
    recentCopy(fs.readFileSync(path.join(fixturesDir, 'claude-code', 'v2.1.97-live-before.jsonl'), 'utf8')),
  );

  before(async function () {
    this.timeout(180_000);
    // The reply stops after its first text until the test has seen it stream in (releaseStreams).
    fake = await startFakeAnthropic({ pauseAfterEvents: 4 });
    wb = await Workbench.open({
      viewport: VIEWPORT,
      settings: {
        'agentCompactor.targetTokens': 20_000,
        'agentCompactor.keepRecentTokens': 5_000,
        'agentCompactor.summarizer': 'anthropic',
        'agentCompactor.baseUrl': fake.url,
      },
      workspaceFiles: {
        [TRANSCRIPT]: original,
        'example.jsonl': { copyFrom: path.join('claude-code', 'example.jsonl') },
      },
    });
  });

  afterEach(screenshotOnFailure(() => wb));

  after(async function () {
    this.timeout(60_000);
    await wb?.stop();
    await fake?.close();
  });

  const sidebar = () => wb.page.locator('.part.sidebar');
  const treeRows = () => sidebar().locator('.monaco-list-row');
  const quickInput = () => wb.page.locator('.quick-input-widget');

  /** Pick a command in the palette by its exact title, for commands that then ask for input (the quick input stays open). */
  async function pickCommand(title: string): Promise<void> {
    await wb.openCommandPalette(title);
    const row = quickInput()
      .locator('.quick-input-list .monaco-list-row')
      .filter({
        has: wb.page.locator('.label-name', {
          hasText: new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
        }),
      });
    await row.first().click({ timeout: 15_000 });
  }

  /** The activity bar entry of the Agent Compactor container (its aria-label grows a badge tooltip). */
  const activityItem = () =>
    wb.page.locator('.activitybar .action-item', {
      has: wb.page.locator('.action-label[aria-label^="Agent Compactor"]'),
    });

  /** Visible rows of the Rounds view as "label — description". */
  async function roundRows(): Promise<{ label: string; description: string }[]> {
    return treeRows().evaluateAll((els) =>
      els.map((el) => ({
        label: (el.querySelector('.label-name')?.textContent ?? '').trim(),
        description: (el.querySelector('.label-description')?.textContent ?? '').trim(),
      })),
    );
  }

  /** A notification button, in its toast or (once the toast is gone) in the Notifications center. */
  async function clickNotificationButton(message: RegExp, button: string): Promise<void> {
    const inToast = wb.page
      .locator('.notification-toast', { hasText: message })
      .locator('.monaco-button', { hasText: button });
    if (await inToast.first().isVisible()) {
      await inToast.first().click();
      return;
    }
    await wb.readNotifications();
    const inCenter: Locator = wb.page
      .locator('.notifications-center .notification-list-item', { hasText: message })
      .locator('.monaco-button', { hasText: button });
    await inCenter.first().click({ timeout: 10_000 });
  }

  it('opens a transcript from the Explorer; the Rounds view lists its rounds with token figures', async () => {
    await wb.openFileFromExplorer(TRANSCRIPT);
    // The extension activates on the .jsonl and reads it: its status bar item shows the figures.
    // (Its palette entries depend on context keys it sets, so they appear only after that.)
    await wb.page
      .locator('.statusbar-item', { hasText: /context ~?[\d,]+ · \d+ rounds/ })
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    // The first transcript opened in a workspace reveals the Rounds view by itself (the Explorer was showing).
    const header = treeRows().filter({ hasText: TRANSCRIPT }).first();
    await header.waitFor({ state: 'visible', timeout: 60_000 });
    // The header row is found by the file name in its description; the activity bar marks the container a moment later.
    const shownClasses = async () =>
      `${(await activityItem().getAttribute('class')) ?? ''} ${(await activityItem().locator('.action-label').getAttribute('class')) ?? ''}`;
    let classes = await shownClasses();
    for (let tries = 0; tries < 40 && !/\bchecked\b/.test(classes); tries++) {
      await wb.page.waitForTimeout(250);
      classes = await shownClasses();
    }
    assert.match(classes, /\bchecked\b/, `the Agent Compactor container is the one shown (${classes})`);
    // At the default side-bar width (not widened): the context figure leads the header, tokens lead each round.
    assert.match(
      (await header.getAttribute('aria-label')) ?? '',
      /^context ~?[\d,]+ tokens \((usage|estimate)\), session\.jsonl · 65 rounds · Claude Code$/,
    );
    await treeRows()
      .filter({ hasText: /^\+~?[\d,]+ · #\d+ / })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    const rounds = (await roundRows()).filter((r) => /^\+~?[\d,]+ · #\d+ /.test(r.label));
    assert.ok(rounds.length >= 10, `round rows are shown: ${rounds.length}`);
    for (const r of rounds) {
      assert.match(r.description, /^context .+ \((usage|estimate)\)$/, `context figure of ${r.label}`);
      assert.ok(!/\*\*|```/.test(r.label), `no markdown in ${r.label}`);
    }
    assert.match(rounds[0].label, /^\+~?[\d,]+ · #0 /, 'the first round is at the top');
    // The tokens are on screen, not cut off: the label's text starts inside the visible row.
    const firstLabel = treeRows()
      .filter({ hasText: /^\+~?[\d,]+ · #0 / })
      .first()
      .locator('.label-name');
    const [row, name] = [await sidebar().boundingBox(), await firstLabel.boundingBox()];
    assert.ok(
      row && name && name.x + 60 < row.x + row.width,
      `the round's tokens are visible at ${row?.width ?? 0} px`,
    );
  });

  it('Restore From Backup is offered only for a transcript that has a backup', async () => {
    const restore = 'Agent Compactor: Restore From Backup…';
    // "Agent Compactor: Re…" always lists Refresh, Reveal Round and Resume; Restore only where a backup exists.
    const listed = async () => {
      await wb.openCommandPalette('Agent Compactor: Re');
      const items = await wb.quickPickItems();
      await wb.closeQuickInput();
      return items;
    };
    const before = await listed();
    assert.ok(
      before.some((i) => i.startsWith('Agent Compactor: Re')),
      `the palette lists the others: ${JSON.stringify(before)}`,
    );
    assert.ok(!before.includes(restore), `not offered: session.jsonl has no backup (${JSON.stringify(before)})`);
    // An in-place compaction names its backup <file>.bak-<time>; one appears beside the transcript.
    const backup = path.join(wb.workspace.dir, `${TRANSCRIPT}.bak-20261123T000000000Z`);
    fs.copyFileSync(path.join(wb.workspace.dir, TRANSCRIPT), backup);
    try {
      let items: string[] = [];
      for (let tries = 0; tries < 60 && !items.includes(restore); tries++) {
        await wb.page.waitForTimeout(500);
        items = await listed();
      }
      assert.ok(items.includes(restore), `offered once a backup exists: ${JSON.stringify(items)}`);
    } finally {
      fs.rmSync(backup, { force: true });
    }
  });

  it('Preview Compaction marks the rounds to summarize in the tree', async () => {
    await pickCommand('Agent Compactor: Preview Compaction…');
    // The target box, prefilled with the configured target.
    const input = quickInput().locator('input.input');
    await wb.page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Preview Compaction' })
      .waitFor({ state: 'visible', timeout: 15_000 });
    assert.equal(await input.inputValue(), '20000');
    // A target below what the newest response and the system prompt need is flagged in the box itself.
    await input.fill('1000');
    const warning = quickInput().locator('.quick-input-message', {
      hasText: /^Unreachable: .*The smallest reachable target is about [\d,]+\.$/,
    });
    await warning.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill('20000');
    await warning.waitFor({ state: 'hidden', timeout: 10_000 });
    await input.press('Enter');
    await quickInput().waitFor({ state: 'hidden', timeout: 15_000 });
    const marked = treeRows().filter({ hasText: /^\+~?[\d,]+ · \[summarize\] #\d+ / });
    await marked.first().waitFor({ state: 'visible', timeout: 30_000 });
    const rows = await roundRows();
    const plan = rows.find((r) => /would be summarized or dropped/.test(r.description));
    assert.ok(plan, `a plan summary row: ${JSON.stringify(rows.slice(0, 3))}`);
    assert.match(plan.label, /^context ~?[\d,]+ → [\d,]+ tokens/);
    assert.match(plan.description, /^\d+ rounds \/ [\d,]+ tokens would be summarized or dropped$/);
    const marks = rows.filter((r) => /^\+~?[\d,]+ · \[summarize\] #\d+ /.test(r.label));
    assert.ok(marks.length >= 5, `marked rows: ${marks.length}`);
    // The open transcript is marked too: a CodeLens above each marked round's first line.
    const lens = wb.page.locator('.codelens-decoration', { hasText: /\[summarize\] round #\d+: / });
    await lens.first().waitFor({ state: 'visible', timeout: 30_000 });
    // The view's badge counts the rounds the plan row names. The badge element can be there before its count (the
    // workbench renders it when the view's badge changes), so wait for the count rather than read it once.
    const planned = /^(\d+) rounds/.exec(plan.description)![1];
    const badge = activityItem().locator('.badge-content');
    await activityItem()
      .locator('.badge-content', { hasText: new RegExp(`^${planned}$`) })
      .waitFor({ state: 'attached', timeout: 30_000 })
      .catch(() => undefined);
    assert.equal(((await badge.textContent()) ?? '').trim(), planned, 'the badge counts the planned rounds');
    const shot = await wb.screenshot('rounds-tree');
    console.log(`      ${plan.label}; screenshot ${path.basename(shot)}`);
  });

  it('Set Anthropic API Key: typed in a password box, not written to settings', async () => {
    await pickCommand('Agent Compactor: Set Anthropic API Key…');
    await wb.page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Anthropic API Key' })
      .waitFor({ state: 'visible', timeout: 15_000 });
    const input = quickInput().locator('input.input');
    assert.equal(await input.getAttribute('type'), 'password', 'the key is typed into a password field');
    await input.fill(KEY);
    await input.press('Enter');
    await quickInput().waitFor({ state: 'hidden', timeout: 15_000 });
    await wb.waitForNotification('Anthropic API key saved in secret storage.', 20_000);
    await wb.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
    await wb.closeQuickInput();
    const settingsFile = path.join(wb.server.userDataDir, 'User', 'settings.json');
    const settings = fs.readFileSync(settingsFile, 'utf8');
    assert.ok(settings.includes(fake.url), 'this is the settings file the workbench uses');
    assert.ok(!settings.includes(KEY), 'the key is not in settings.json');
  });

  it('Compact Transcript from the palette: confirm, the summary streams into a review editor, edit it, Apply; the result in the Explorer', async () => {
    await wb.openCommandPalette('Compact Transcript');
    const items = await wb.quickPickItems();
    assert.ok(items.includes('Agent Compactor: Compact Transcript…'), `palette: ${JSON.stringify(items)}`);
    await pickCommand('Agent Compactor: Compact Transcript…');

    // The confirmation modal with the figures; reviewing the summary first is its first choice.
    const dialog = wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 30_000 });
    const text = (await dialog.textContent()) ?? '';
    assert.match(text, /Compact session\.jsonl\? Context ~?[\d,]+ → [\d,]+ tokens/);
    assert.match(text, /written by the Anthropic API/);
    assert.match(text, /a new session <new-id>\.jsonl beside session\.jsonl, which is untouched/);
    const buttons = (await dialog.locator('.dialog-buttons .monaco-button').allTextContents()).map((t) => t.trim());
    for (const b of ['Review Summary', 'Compact Without Review', 'Open Budget Preview'])
      assert.ok(buttons.includes(b), `dialog buttons: ${JSON.stringify(buttons)}`);
    assert.ok(!buttons.includes('Compact'), 'no one-step Compact while reviewing is on');
    // The cost line: the warm cache read as it is, the compaction with the Anthropic summary's own (estimated) cost,
    // and the turns after which it pays for itself.
    assert.match(
      text,
      /Cost: next turn as it is \$[\d.]+ \(cache warm for \d+ min more\), compacted \$[\d.]+, \$[\d.]+ of it the summary by the Anthropic API \([\w.-]+; an estimate: [^)]*\); it pays for itself after \d+ turns?; (saves|costs) ≈ \$[\d.]+/,
    );
    await wb.screenshot('compact-confirm');
    const t0 = Date.now();
    await dialog.locator('.dialog-buttons .monaco-button', { hasText: /^Review Summary$/ }).click();
    await dialog.waitFor({ state: 'hidden', timeout: 10_000 });

    // The progress notification while the summary is written: cancellable.
    const progress = wb.page.locator('.notification-toast', { hasText: 'Writing the summary of session.jsonl' });
    await progress.first().waitFor({ state: 'visible', timeout: 45_000 });
    // The workbench renders the toast's button after its message: on a busy machine, seconds after.
    await progress
      .first()
      .locator('.monaco-button', { hasText: 'Cancel' })
      .waitFor({ state: 'visible', timeout: 30_000 });
    assert.match((await progress.first().innerText()) ?? '', /Agent Compactor/);
    // The reply streams into an editor beside the transcript while the notification is up.
    const review = wb.page
      .locator('.editor-group-container', { has: wb.page.locator('.tab.active[data-resource-name^="Untitled-"]') })
      .locator('.monaco-editor .view-lines');
    await review.first().filter({ hasText: /\S/ }).waitFor({ state: 'visible', timeout: 60_000 });
    const streamingText = (await review.first().innerText()).replace(/\u00a0/g, ' ');
    const stillWriting = await progress.first().isVisible();
    await wb.screenshot('compact-progress');
    assert.ok(stillWriting, 'text appeared in the review editor while the summary was still being written');
    assert.doesNotMatch(
      streamingText,
      /FAKE-SUMMARY-MARKER[\s\S]*Continuing where the conversation left off/,
      `only part of the reply had arrived: ${streamingText}`,
    );
    fake.releaseStreams();

    // Written: the summary alone (the scratchpad gone); above it, on the summary editor itself, Apply Summary and
    // Discard, the checklist of what the summary keeps, and the plan's figures.
    const lenses = wb.page
      .locator('.editor-group-container', { has: wb.page.locator('.tab.active[data-resource-name^="Untitled-"]') })
      .locator('.codelens-decoration');
    const applyLens = lenses.locator('a', { hasText: 'Apply Summary' }).first();
    await applyLens.waitFor({ state: 'visible', timeout: 60_000 });
    await lenses.locator('a', { hasText: 'Discard' }).first().waitFor({ state: 'visible', timeout: 5_000 });
    await lenses
      .filter({ hasText: /Keeps \d+\/\d+ /u })
      .first()
      .waitFor({ state: 'visible', timeout: 5_000 });
    await lenses
      .filter({
        hasText: /[\d,]+ rounds? \/ [\d,]+ tokens would be summarized or dropped; context ~?[\d,]+ → [\d,]+ tokens/,
      })
      .first()
      .waitFor({ state: 'visible', timeout: 5_000 });
    // The editor wraps long lines and places its lines by position, not in DOM order: read them top to bottom.
    const shown = async () =>
      (
        await review
          .first()
          .locator('.view-line')
          .evaluateAll((els) =>
            els
              .map((e) => ({ top: parseFloat((e as HTMLElement).style.top) || 0, text: e.textContent ?? '' }))
              .sort((a, b) => a.top - b.top)
              .map((l) => l.text)
              .join(' '),
          )
      ).replace(/[\s\u00a0]+/g, ' ');
    let reviewed = await shown();
    for (let tries = 0; tries < 40 && !reviewed.includes('Continuing where the conversation left off.'); tries++) {
      await wb.page.waitForTimeout(250);
      reviewed = await shown();
    }
    assert.ok(
      reviewed.includes('Continuing where the conversation left off.'),
      `the whole summary is in the editor: ${reviewed}`,
    );
    assert.match(reviewed, /FAKE-SUMMARY-MARKER/);
    assert.doesNotMatch(reviewed, /<analysis>|<summary>/, 'the review holds the summary taken from the reply');
    assert.equal(fake.messageRequests().length, 1, 'one summary request');
    assert.deepEqual(
      fs
        .readdirSync(wb.workspace.dir)
        .filter((n) => n.endsWith('.jsonl'))
        .sort(),
      ['example.jsonl', TRANSCRIPT].sort(),
      'nothing is written before Apply',
    );

    // The checklist as the user reads it: what the drafted summary keeps of the summarized part, per category, and
    // "Add:" beside the first facts it misses.
    const first = await checklist(lenses);
    assert.match(first.title, /^Keeps \d+\/\d+ requests · \d+\/\d+ files edited/);
    assert.ok(first.kept < first.total, `the fake's summary misses facts: ${first.title}`);
    const adds = async () =>
      (await lenses.locator('a', { hasText: /^Add: / }).allTextContents()).map((t) => t.replace(/\u00a0/g, ' '));
    const offered = await adds();
    assert.ok(offered.length >= 2, `Add lenses: ${JSON.stringify(offered)}`);
    // A request the summary misses, shown whole in its lens (typed as it reads: no quotes or brackets to auto-close).
    const request = offered
      .map((a) => /^Add: the request "([^"…()[\]{}`']+)"$/.exec(a)?.[1])
      .find((r): r is string => r !== undefined && r.split(' ').length >= 4);
    assert.ok(request, `a missing request to type: ${JSON.stringify(offered)}`);

    // The user edits the summary: a line typed at its top, and the missing request typed on the next: the checklist
    // counts it, and no longer offers to add it.
    await review.first().click();
    await wb.page.keyboard.press('Control+Home');
    await wb.page.keyboard.type(EDITED_LINE);
    await wb.page.keyboard.press('Enter');
    const askedLine = `Also asked: ${request}`;
    await wb.page.keyboard.type(askedLine);
    await wb.page.keyboard.press('Enter');
    let typed = await shown();
    for (let tries = 0; tries < 40 && !typed.startsWith(`${EDITED_LINE} ${askedLine} `); tries++) {
      await wb.page.waitForTimeout(250);
      typed = await shown();
    }
    assert.ok(
      typed.startsWith(`${EDITED_LINE} ${askedLine} `),
      `the typed lines are at the top of the summary: ${typed.slice(0, 300)}`,
    );
    const edited = await until(async () => {
      const c = await checklist(lenses);
      return c.kept > first.kept ? c : undefined;
    }, 'the checklist counts the typed request');
    assert.equal(edited.total, first.total);
    assert.ok(!(await adds()).includes(`Add: the request "${request}"`), 'the typed request is no longer offered');

    // One click on an Add lens: its fact goes under "Also:" at the end of the summary, and is counted.
    const add = (await adds())[0];
    await lenses.locator('a', { hasText: add }).first().click();
    const added = await until(async () => {
      const c = await checklist(lenses);
      return c.kept > edited.kept ? c : undefined;
    }, `the checklist counts the fact added by "${add}"`);
    assert.equal(added.total, first.total);
    let withAlso = await shown();
    for (let tries = 0; tries < 40 && !/ Also: - \S/.test(withAlso); tries++) {
      await wb.page.waitForTimeout(250);
      withAlso = await shown();
    }
    assert.match(withAlso, /Continuing where the conversation left off\. Also: - \S/, 'the fact is added at the end');
    console.log(`      checklist: ${first.title} → ${edited.kept} kept after typing → ${added.kept} after "${add}"`);
    await wb.screenshot('compact-review');
    // While the summary waits, the status bar says so (an item of the review, not a message on a timer).
    const hint = wb.page.locator('.statusbar-item', { hasText: 'Summary of session.jsonl: Apply or Discard' });
    await hint.first().waitFor({ state: 'visible', timeout: 10_000 });
    await applyLens.click();

    // Done: the result notification, the file on disk and in the Explorer; the original untouched.
    const done =
      /Compacted session\.jsonl: context ~?[\d,]+ → [\d,]+ tokens \(your summary, written as given\)\. Planned [\d,]+: the summary came out at [\d,]+, below its [\d,]+ reserve(?:; [^.]+)?\. New session ([0-9a-f-]{36}) beside session\.jsonl, which is untouched\. The written file is [\d.]+ (?:B|KiB|MiB) \(the original [\d.]+ (?:B|KiB|MiB)\): the history before the new compact boundary stays in it for the record; the agent reads only the [\d.]+ (?:B|KiB|MiB) after it\. Resume: cd \/home\/vwestberg\/Claude && claude --resume ([0-9a-f-]{36})/;
    const toast = wb.page.locator('.notification-toast', { hasText: done }).first();
    await toast.waitFor({ state: 'visible', timeout: 60_000 });
    const m = done.exec((await toast.innerText()) ?? '');
    assert.ok(m && m[1] === m[2], `the new session and its resume command: ${await toast.innerText()}`);
    SESSION_ID = m[1];
    RESULT = `${SESSION_ID}.jsonl`;
    // The notification offers to resume the new session.
    // A loaded machine can take seconds to lay out the toast's buttons after its text.
    for (const button of ['Resume in Claude Code', 'Copy Resume Command', 'Show Diff']) {
      await toast.locator('.monaco-button', { hasText: button }).first().waitFor({ state: 'visible', timeout: 30_000 });
    }
    // The review is over: its status bar item goes with it.
    await hint.first().waitFor({ state: 'detached', timeout: 10_000 });
    await wb.screenshot('compact-result');
    console.log(
      `      compacted in ${Date.now() - t0} ms; ${fake.messageRequests().length} Messages API request(s); new session ${SESSION_ID}`,
    );
    assert.equal(
      fake.messageRequests().length,
      1,
      'the summary came from the (fake) Anthropic API, once: Apply writes the reviewed text',
    );
    const out = path.join(wb.workspace.dir, RESULT);
    assert.ok(fs.existsSync(out), `${RESULT} written beside the original`);
    assert.deepEqual(
      fs
        .readdirSync(wb.workspace.dir)
        .filter((n) => n.endsWith('.jsonl'))
        .sort(),
      ['example.jsonl', RESULT, TRANSCRIPT].sort(),
      'one new transcript: the fork',
    );
    // Exactly the edited text: the typed lines first, then the draft as it was, then the added fact.
    const summaries = stringsWith(fs.readFileSync(out, 'utf8'), EDITED_LINE);
    assert.equal(summaries.length, 1, 'the edited summary is written once');
    const writtenSummary = summaries[0].slice(summaries[0].indexOf(EDITED_LINE));
    assert.ok(
      writtenSummary.startsWith(`${EDITED_LINE}\nAlso asked: `),
      `the typed lines on lines of their own: ${JSON.stringify(writtenSummary.slice(0, 200))}`,
    );
    assert.ok(
      writtenSummary.includes('FAKE-SUMMARY-MARKER') &&
        /Continuing where the conversation left off\.\n\nAlso:\n- \S[^\n]*$/.test(writtenSummary.trimEnd()),
      `the draft follows, unchanged, then the added fact: ${JSON.stringify(writtenSummary)}`,
    );
    assert.doesNotMatch(writtenSummary, /<analysis>/);
    assert.ok(
      fs.readFileSync(path.join(wb.workspace.dir, TRANSCRIPT)).equals(original),
      'the original is byte-identical',
    );
    // The result opens in an editor ...
    await wb.page
      .locator(`.tabs-container .tab[data-resource-name="${RESULT}"]`)
      .waitFor({ state: 'visible', timeout: 15_000 });
    // ... and shows up in the Explorer.
    await wb.runCommand('View: Show Explorer');
    await wb.page
      .locator('.explorer-folders-view')
      .getByRole('treeitem', { name: RESULT, exact: true })
      .waitFor({ state: 'visible', timeout: 20_000 });
  });

  it('Copy Resume Command from the palette, on the new session shown in the editor', async () => {
    assert.ok(SESSION_ID, 'the compaction test ran');
    await wb.runCommand('Agent Compactor: Copy Resume Command');
    const expected = `cd ${SESSION_CWD} && claude --resume ${SESSION_ID}`;
    const n = await wb.waitForNotification(`Copied to the clipboard: ${expected}`, 20_000);
    assert.ok(n.message.startsWith(`Copied to the clipboard: ${expected}`), n.message);
    // The session folder does not exist on this machine: the confirmation says so.
    assert.match(n.message, /\/home\/vwestberg\/Claude does not exist on this machine/);
    await wb.runCommand('Notifications: Hide Notifications').catch(() => undefined);
  });

  it('Show Diff opens the readable conversation before and after, in the first group', async () => {
    await clickNotificationButton(/Compacted session\.jsonl/, 'Show Diff');
    // It opens in the first group (the review editor leaves a second one open), where it has room.
    const tab = wb.page.locator('.editor-group-container.active .tabs-container .tab.active');
    await wb.page
      .locator('.editor-group-container.active .tabs-container .tab.active', { hasText: '↔' })
      .waitFor({ state: 'visible', timeout: 20_000 });
    assert.equal(
      ((await tab.textContent()) ?? '').trim().startsWith(`Conversation: ${TRANSCRIPT} ↔ ${RESULT}`),
      true,
      `diff tab: ${await tab.textContent()}`,
    );
    const diff = wb.page.locator('.editor-group-container.active .monaco-diff-editor');
    await diff.waitFor({ state: 'visible', timeout: 20_000 });
    await diff
      .locator('.editor.modified .view-lines .view-line')
      .first()
      .waitFor({ state: 'visible', timeout: 20_000 });
    // Clear the toasts and close the side bar so the diff gets the whole window (side by side).
    await wb.closeQuickInput();
    await wb.runCommand('Notifications: Clear All Notifications');
    await wb.runCommand('View: Close Primary Side Bar');
    await wb.page.locator('.part.sidebar').waitFor({ state: 'hidden', timeout: 10_000 });
    await diff
      .locator('.editor.original .view-lines .view-line')
      .first()
      .waitFor({ state: 'visible', timeout: 20_000 });
    // The rounds summarized are gone from the conversation the agent resumes and the summary came in: the diff shows
    // changes (the first in view is the older rounds' removal; lines wrap, so the summary may be further down).
    await diff
      .locator('.line-insert, .char-insert, .gutter-insert, .line-delete, .char-delete, .gutter-delete')
      .first()
      .waitFor({ state: 'attached', timeout: 20_000 });
    // The readable conversation, not JSON lines: each message starts with its role.
    const firstLines = await diff.locator('.editor.modified .view-lines .view-line').allTextContents();
    assert.ok(
      !firstLines.some((l) => l.trimStart().startsWith('{"')),
      `readable text: ${firstLines.slice(0, 3).join(' | ')}`,
    );
    await paintedIn(wb.page.mainFrame());
    await wb.screenshot('diff');
  });
});
