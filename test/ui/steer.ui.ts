/**
 * Steering by hand in the real workbench (code-server + headless Chromium), only through the UI:
 * pin a round and drop another from the Rounds tree's context menu (their marks and the plan line
 * update), run Compact Transcript, review the summary in its editor, edit it, Apply Summary; the
 * written session holds exactly the edited summary; then Compact Without Review from the dialog while the agent
 * appends a line: the result says the plan was made again over the grown file.
 *
 * Screenshots (test-results/screenshots/): steer-tree.png, steer-review.png, steer-replanned.png.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Workbench, screenshotOnFailure } from '../support/workbench';

const TRANSCRIPT = 'session.jsonl';
const EDITED_LINE = 'STEER-EDITED-MARKER: the user pinned the Read of the config and dropped a detour.';

describe('UI: steer a compaction by hand', function () {
  this.timeout(120_000);
  let wb: Workbench;
  let pinned = '';
  let dropped = '';

  before(async function () {
    this.timeout(180_000);
    wb = await Workbench.open({
      viewport: { width: 1400, height: 900 },
      settings: {
        'agentCompactor.targetTokens': 20_000,
        'agentCompactor.keepRecentTokens': 5_000,
        'agentCompactor.summarizer': 'extractive',
      },
      workspaceFiles: { [TRANSCRIPT]: { copyFrom: path.join('claude-code', 'v2.1.97-live-before.jsonl') } },
    });
  });

  afterEach(screenshotOnFailure(() => wb));

  after(async function () {
    this.timeout(60_000);
    await wb?.stop();
  });

  const treeRows = () => wb.page.locator('.part.sidebar .monaco-list-row');
  const roundRow = (index: number) =>
    treeRows()
      .filter({ has: wb.page.locator('.label-name', { hasText: new RegExp(`(^|\\] |· )#${index} `) }) })
      .first();
  const labelOf = async (index: number) => ((await roundRow(index).locator('.label-name').textContent()) ?? '').trim();

  async function decide(index: number, action: string): Promise<void> {
    await roundRow(index).click({ button: 'right' });
    const item = wb.page.getByRole('menuitem', { name: action, exact: true }).first();
    await item.waitFor({ state: 'visible', timeout: 10_000 });
    await item.click();
  }

  /**
   * Compact Transcript from the palette. The palette lists a command only while it is enabled, and reads that when it
   * opens: the shown transcript's context keys must first say it can be compacted (after a decision the plan is made
   * again). The Rounds view's title action has the same enablement, so its enabled state is the effect waited for.
   */
  async function runCompactTranscript(): Promise<void> {
    await wb.page
      .locator('.part.sidebar .pane-header .action-label[aria-label^="Compact Transcript"]:not(.disabled)')
      .first()
      .waitFor({ state: 'attached', timeout: 30_000 });
    await wb.runCommand('Agent Compactor: Compact Transcript…');
  }

  it("pins a round and drops another from the tree's context menu: their own marks and the plan line say so", async () => {
    await wb.openFileFromExplorer(TRANSCRIPT);
    await wb.page
      .locator('.statusbar-item', { hasText: /context ~?[\d,]+ · \d+ rounds/ })
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    await roundRow(3).waitFor({ state: 'visible', timeout: 60_000 });
    await decide(3, 'Keep Verbatim');
    await treeRows()
      .filter({ hasText: /^\+~?[\d,]+ · \[pinned\] #3 / })
      .first()
      .waitFor({ state: 'visible', timeout: 15_000 });
    await decide(5, 'Drop');
    await treeRows()
      .filter({ hasText: /^\+~?[\d,]+ · \[drop · you\] #5 / })
      .first()
      .waitFor({ state: 'visible', timeout: 15_000 });
    pinned = await labelOf(3);
    dropped = await labelOf(5);
    assert.match(pinned, /^\+~?[\d,]+ · \[pinned\] #3 /);
    assert.match(dropped, /^\+~?[\d,]+ · \[drop · you\] #5 /);
    const plan = treeRows()
      .filter({ hasText: /kept by you/ })
      .first();
    await plan.waitFor({ state: 'visible', timeout: 15_000 });
    assert.match(((await plan.locator('.label-name').textContent()) ?? '').trim(), /^context ~?[\d,]+ → [\d,]+ tokens/);
    assert.match(
      ((await plan.locator('.label-description').textContent()) ?? '').trim(),
      /^1 kept by you, 1 dropped by you/,
    );
    await wb.screenshot('steer-tree');
  });

  it('Compact Transcript: review the summary, edit it, Apply; exactly the edited text is written', async () => {
    assert.ok(pinned && dropped, 'the decisions were made');
    await runCompactTranscript();
    const dialog = wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match((await dialog.textContent()) ?? '', /1 kept by you, 1 dropped by you/);
    await dialog.locator('.dialog-buttons .monaco-button', { hasText: /^Review Summary$/ }).click();
    // Written: Apply Summary and Discard on the summary editor, with the plan's figures (your decisions named).
    const lenses = wb.page
      .locator('.editor-group-container', { has: wb.page.locator('.tab.active[data-resource-name^="Untitled-"]') })
      .locator('.codelens-decoration');
    const applyLens = lenses.locator('a', { hasText: 'Apply Summary' }).first();
    await applyLens.waitFor({ state: 'visible', timeout: 60_000 });
    await lenses
      .filter({ hasText: /1 kept by you, 1 dropped by you; context ~?[\d,]+ → [\d,]+ tokens/ })
      .first()
      .waitFor({ state: 'visible', timeout: 10_000 });
    const review = wb.page
      .locator('.editor-group-container', { has: wb.page.locator('.tab.active[data-resource-name^="Untitled-"]') })
      .locator('.monaco-editor .view-lines')
      .first();
    await review.filter({ hasText: /\S/ }).waitFor({ state: 'visible', timeout: 15_000 });
    assert.deepEqual(
      fs.readdirSync(wb.workspace.dir).filter((n) => n.endsWith('.jsonl')),
      [TRANSCRIPT],
      'nothing written before Apply',
    );
    await review.click();
    await wb.page.keyboard.press('Control+Home');
    await wb.page.keyboard.type(EDITED_LINE);
    await wb.page.keyboard.press('Enter');
    await review.filter({ hasText: EDITED_LINE }).waitFor({ state: 'visible', timeout: 10_000 });
    await wb.screenshot('steer-review');
    await applyLens.click();
    const done = wb.page
      .locator('.notification-toast', {
        hasText: /Compacted session\.jsonl: context ~?[\d,]+ → [\d,]+ tokens \(your summary, written as given\)/,
      })
      .first();
    await done.waitFor({ state: 'visible', timeout: 60_000 });
    const written = fs.readdirSync(wb.workspace.dir).filter((n) => n.endsWith('.jsonl') && n !== TRANSCRIPT);
    assert.equal(written.length, 1, `one new session: ${JSON.stringify(written)}`);
    const text = fs.readFileSync(path.join(wb.workspace.dir, written[0]), 'utf8');
    const hits = text.split('\n').filter((l) => l.includes('STEER-EDITED-MARKER'));
    assert.equal(hits.length, 1, 'the edited summary is written once');
    const summary = JSON.stringify(JSON.parse(hits[0]));
    assert.ok(
      summary.includes(JSON.stringify(`${EDITED_LINE}\n`).slice(1, -1)),
      'the typed line, on its own line, as typed',
    );
  });

  it('Compact Transcript applies the plan its dialog showed: a line the agent appends while it is open is planned again, and the result says so', async () => {
    assert.ok(pinned && dropped, 'the decisions were made');
    const before = new Set(fs.readdirSync(wb.workspace.dir));
    // Back to the original (the review opened the result): its decisions show in the tree again.
    await wb.page.locator(`.tabs-container .tab[data-resource-name="${TRANSCRIPT}"]`).first().click();
    await treeRows()
      .filter({ hasText: /^\+~?[\d,]+ · \[pinned\] #3 / })
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    await runCompactTranscript();
    const dialog = wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match((await dialog.textContent()) ?? '', /1 kept by you, 1 dropped by you/);
    // While the user reads the dialog, the agent appends its next prompt.
    const file = path.join(wb.workspace.dir, TRANSCRIPT);
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const last = JSON.parse(lines[lines.length - 1]) as Record<string, unknown>;
    const next: Record<string, unknown> = {
      ...last,
      type: 'user',
      parentUuid: last.uuid,
      uuid: '00000000-0000-4000-8000-00000000abcd',
      message: { role: 'user', content: 'APPENDED-WHILE-CONFIRMING: also update the changelog.' },
    };
    delete next.requestId;
    fs.appendFileSync(file, JSON.stringify(next) + '\n');
    await dialog.locator('.dialog-buttons .monaco-button', { hasText: /^Compact Without Review$/ }).click();
    const done = wb.page
      .locator('.notification-toast', {
        hasText:
          /Compacted session\.jsonl: .*Not the plan you confirmed: the transcript changed after the plan was made \(\d+ bytes were appended/,
      })
      .first();
    await done.waitFor({ state: 'visible', timeout: 60_000 });
    await wb.screenshot('steer-replanned');
    const written = fs.readdirSync(wb.workspace.dir).filter((n) => n.endsWith('.jsonl') && !before.has(n));
    assert.equal(written.length, 1, `one new session: ${JSON.stringify(written)}`);
    assert.ok(
      fs.readFileSync(path.join(wb.workspace.dir, written[0]), 'utf8').includes('APPENDED-WHILE-CONFIRMING'),
      'the appended prompt is in the result',
    );
  });
});
