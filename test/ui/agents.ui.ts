/**
 * Other agents' sessions in the real workbench (code-server + headless Chromium), driven only through the UI: a
 * Cline task (opened first: a .json alone activates the extension) and a Codex CLI rollout opened from the Explorer show their rounds in the Rounds tree with the agent
 * named in the header; **Compact Transcript** is offered (enabled) for the Codex rollout and disabled for the Cline
 * task, whose header says why when hovered. The palette lists the extension's commands.
 *
 * Screenshots (test-results/screenshots/): agents-codex.png, agents-cline.png, agents-command-palette.png.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { Workbench, screenshotOnFailure } from '../support/workbench';

const VIEWPORT = { width: 1400, height: 900 };
const ROLLOUT = 'rollout-2026-01-02T03-04-05-019ed917-1cf7-72a3-92f5-c0aa98fb134e.jsonl';
const CLINE_DIR = 'cline-task';
const CLINE_FILE = 'api_conversation_history.json';

describe('UI: a Codex rollout and a Cline task in the Rounds tree', function () {
  this.timeout(120_000);
  let wb: Workbench;

  before(async function () {
    this.timeout(180_000);
    wb = await Workbench.open({
      viewport: VIEWPORT,
      workspaceFiles: {
        [ROLLOUT]: { copyFrom: path.join('codex', 'rollout-0.140.jsonl') },
        [`${CLINE_DIR}/${CLINE_FILE}`]: { copyFrom: path.join('cline', 'task-opus', CLINE_FILE) },
        [`${CLINE_DIR}/ui_messages.json`]: { copyFrom: path.join('cline', 'task-opus', 'ui_messages.json') },
      },
    });
  });

  afterEach(screenshotOnFailure(() => wb));

  after(async function () {
    this.timeout(60_000);
    await wb?.stop();
  });

  const sidebar = () => wb.page.locator('.part.sidebar');
  const roundsPane = () =>
    sidebar().locator('.pane', { has: wb.page.locator('.pane-header h3.title', { hasText: /^Rounds$/i }) });
  const rows = () => roundsPane().locator('.monaco-list-row');
  /** The Compact Transcript action in the Rounds view's title bar. */
  const compactAction = () => roundsPane().locator('.pane-header .action-label[aria-label^="Compact Transcript"]');

  async function header(file: string): Promise<{ label: string; description: string }> {
    // The header leads with the context figure; the file name starts its description.
    const row = rows()
      .filter({
        has: wb.page.locator('.label-description', {
          hasText: new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} · `),
        }),
      })
      .first();
    await row.waitFor({ state: 'visible', timeout: 60_000 });
    return {
      label: ((await row.locator('.label-name').textContent()) ?? '').trim(),
      description: ((await row.locator('.label-description').textContent()) ?? '').trim(),
    };
  }

  async function roundLabels(): Promise<string[]> {
    await rows()
      .filter({ hasText: /^\+~?[\d,]+ · (\[[^\]]+\] )?#\d+ / })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    const labels = await rows().evaluateAll((els) =>
      els.map((el) => (el.querySelector('.label-name')?.textContent ?? '').trim()),
    );
    return labels.filter((l) => /^\+~?[\d,]+ · (\[[^\]]+\] )?#\d+ /.test(l));
  }

  async function isDisabled(action: ReturnType<typeof compactAction>): Promise<boolean> {
    await action.first().waitFor({ state: 'attached', timeout: 15_000 });
    const cls = (await action.first().getAttribute('class')) ?? '';
    const aria = await action.first().getAttribute('aria-disabled');
    return /\bdisabled\b/.test(cls) || aria === 'true';
  }

  it('a Cline task: rounds, Cline / Roo Code in the header, Compact disabled with the reason on the header', async () => {
    if (!(await wb.page.locator('.explorer-folders-view').isVisible())) await wb.runCommand('View: Show Explorer');
    await wb.page.locator('.explorer-folders-view').getByRole('treeitem', { name: CLINE_DIR, exact: true }).click();
    const file = wb.page.locator('.explorer-folders-view').getByRole('treeitem', { name: CLINE_FILE, exact: true });
    // (Wide bounds: beside a CPU hog the folder took over 15 s to open.)
    await file.waitFor({ state: 'visible', timeout: 60_000 });
    await file.dblclick();
    await wb.page
      .locator(`.tabs-container .tab.active[data-resource-name="${CLINE_FILE}"]`)
      .waitFor({ state: 'visible', timeout: 60_000 });
    // Opened first in a fresh workbench: a workspace holding a Cline task activates the extension (ordinary JSON files
    // do not), and its first transcript reveals the Rounds view by itself (nothing here clicks the activity bar).
    const item = wb.page.locator('.activitybar .action-item', {
      has: wb.page.locator('.action-label[aria-label^="Agent Compactor"]'),
    });
    await wb.page.waitForFunction(
      () =>
        [...document.querySelectorAll('.activitybar .action-item')].some(
          (e) =>
            e.classList.contains('checked') &&
            (e.querySelector('.action-label')?.getAttribute('aria-label') ?? '').startsWith('Agent Compactor'),
        ),
      undefined,
      { timeout: 60_000 },
    );
    assert.match((await item.getAttribute('class')) ?? '', /\bchecked\b/);
    const h = await header(CLINE_FILE);
    assert.match(
      h.description,
      /^api_conversation_history\.json · (\d+) rounds · Cline \/ Roo Code$/,
      JSON.stringify(h),
    );
    const rounds = await roundLabels();
    assert.ok(rounds.length >= 3, `round rows: ${JSON.stringify(rounds)}`);
    await roundsPane().hover();
    await wb.page.waitForFunction(
      () => {
        const a = [...document.querySelectorAll('.part.sidebar .pane-header .action-label')].find((e) =>
          (e.getAttribute('aria-label') ?? '').startsWith('Compact Transcript'),
        );
        return !!a && a.classList.contains('disabled');
      },
      undefined,
      { timeout: 15_000 },
    );
    assert.equal(await isDisabled(compactAction()), true, 'Compact Transcript is disabled for Cline');
    // Hovering the header says why.
    const why = await wb.hoverText(rows().filter({ hasText: CLINE_FILE }).first(), /read-only for now/);
    assert.match(
      why,
      /Cline \/ Roo Code sessions are read-only for now: Agent Compactor inspects them but does not write them back\./,
    );
    await wb.screenshot('agents-cline');
    console.log(`      ${h.label}: ${h.description}`);
  });
  it('a Codex rollout: rounds, Codex CLI in the header, Compact offered', async () => {
    await wb.openFileFromExplorer(ROLLOUT);
    // The Rounds view revealed itself for the first transcript of the workspace; now the user opens it.
    const item = wb.page.locator('.activitybar .action-item', {
      has: wb.page.locator('.action-label[aria-label^="Agent Compactor"]'),
    });
    if (!/\bchecked\b/.test((await item.getAttribute('class')) ?? '')) await item.locator('.action-label').click();
    const h = await header(ROLLOUT);
    assert.match(h.description, /^rollout-.*\.jsonl · (\d+) rounds · Codex CLI$/, JSON.stringify(h));
    assert.match(h.label, /^context ~?[\d,]+ tokens \((usage|estimate)\)$/, JSON.stringify(h));
    const rounds = await roundLabels();
    assert.ok(rounds.length >= 3, `round rows: ${JSON.stringify(rounds)}`);
    assert.match(rounds[0], /^\+~?[\d,]+ · #0 /, `the first round first: ${rounds[0]}`);
    await roundsPane().hover();
    // Context keys follow the read, so wait for the action to settle into its enabled state.
    await wb.page.waitForFunction(
      () => {
        const a = [...document.querySelectorAll('.part.sidebar .pane-header .action-label')].find((e) =>
          (e.getAttribute('aria-label') ?? '').startsWith('Compact Transcript'),
        );
        return !!a && !a.classList.contains('disabled');
      },
      undefined,
      { timeout: 15_000 },
    );
    assert.equal(await isDisabled(compactAction()), false, 'Compact Transcript is enabled for Codex');
    await wb.screenshot('agents-codex');
    console.log(`      ${h.label}: ${h.description}`);
  });

  // (Was smoke.ui.ts, a window of its own for this check and a transcript opened from the Explorer, which the tests
  // above do in this window with the same default settings.)
  it('lists Agent Compactor commands in the command palette', async () => {
    await wb.openCommandPalette('Agent Compactor');
    const items = await wb.quickPickItems();
    assert.ok(
      items.some((i) => i.startsWith('Agent Compactor')),
      `the palette shows an "Agent Compactor: ..." command; it shows: ${JSON.stringify(items)}`,
    );
    await wb.screenshot('agents-command-palette');
    await wb.closeQuickInput();
  });
});
