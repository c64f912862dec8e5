/**
 * The Sessions view at the side bar's default width (1400×900, the side bar as the workbench opens it): a session
 * with a long title shows its context fill and cost whole at the start of its row, then as much of its title as the
 * row has room for (the tree cuts the end of a row). The whole title is in the tooltip.
 *
 * Screenshot (test-results/screenshots/): sessions-width.png.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Workbench, screenshotOnFailure } from '../support/workbench';
import { fixturesDir } from '../support/workspace';

const CWD = '/home/me/code/payments';
const ID = '6e1f0a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
const LONG_TITLE = 'Refactor the payment retry logic so that failed charges are retried with exponential backoff';

describe('UI: the Sessions view at the default side bar width', function () {
  this.timeout(120_000);
  let wb: Workbench;
  let configDir: string;

  before(async function () {
    this.timeout(180_000);
    configDir = Workbench.claudeConfigDir();
    const dir = path.join(configDir, 'projects', CWD.replace(/[^a-zA-Z0-9]/g, '-'));
    fs.mkdirSync(dir, { recursive: true });
    // A real session of many rounds, its first prompt replaced by a long one (the title a person would type).
    let first = true;
    const lines = fs
      .readFileSync(path.join(fixturesDir, 'claude-code', 'v2.1.97-live-before.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const o = JSON.parse(l) as {
          type?: string;
          cwd?: string;
          sessionId?: string;
          isMeta?: boolean;
          message?: { content?: unknown };
        };
        if (typeof o.cwd === 'string') o.cwd = CWD;
        // Its own session's lines (under another id they would be a fork's copies, which cost it nothing).
        if (typeof o.sessionId === 'string') o.sessionId = ID;
        if (
          first &&
          o.type === 'user' &&
          !o.isMeta &&
          typeof o.message?.content === 'string' &&
          !o.message.content.startsWith('<')
        ) {
          o.message.content = LONG_TITLE;
          first = false;
        }
        return JSON.stringify(o);
      });
    const file = path.join(dir, `${ID}.jsonl`);
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const then = new Date(Date.now() - 2 * 3_600_000);
    fs.utimesSync(file, then, then);
    wb = await Workbench.open({
      viewport: { width: 1400, height: 900 },
      workspaceFiles: { 'README.md': '# a project\n' },
    });
  });

  afterEach(screenshotOnFailure(() => wb));

  after(async function () {
    this.timeout(60_000);
    await wb?.stop();
  });

  it('a long-titled session shows its fill and cost whole, then as much of its title as the row has room for', async () => {
    await wb.page.locator('.activitybar .action-item .action-label[aria-label^="Agent Compactor"]').click();
    const pane = wb.page.locator('.part.sidebar .pane', {
      has: wb.page.locator('.pane-header h3.title', { hasText: /^Sessions$/i }),
    });
    // Fill and cost are read in the background once the project (the only one, so expanded) is shown.
    const session = pane
      .locator('.monaco-list-row')
      .filter({ has: wb.page.locator('.label-name', { hasText: /^\d+% · \$/ }) })
      .first();
    await session.waitFor({ state: 'visible', timeout: 60_000 });
    /** The row's label, its figures, and where on screen they and the title's first `titleChars` characters end. */
    const measure = (titleChars: number) =>
      session.evaluate((el, chars) => {
        const box = el.querySelector('.monaco-icon-label-container')!.getBoundingClientRect();
        const name = el.querySelector('.label-name')!;
        const text = name.textContent ?? '';
        const figures = /^\d+% · \$[\d.]+ · /.exec(text)![0];
        const node = document.createTreeWalker(name, NodeFilter.SHOW_TEXT).nextNode()!;
        const range = document.createRange();
        range.setStart(node, 0);
        range.setEnd(node, figures.length);
        const figuresRight = range.getBoundingClientRect().right;
        range.setEnd(node, Math.min(figures.length + chars, node.textContent!.length));
        return {
          label: text,
          figures,
          figuresRight,
          titleRight: range.getBoundingClientRect().right,
          visibleTo: box.right,
          sidebar: document.querySelector('.part.sidebar')!.getBoundingClientRect().width,
        };
      }, titleChars);
    const row = await measure(8);
    await wb.screenshot('sessions-width');
    assert.equal(row.label, `${row.figures}${LONG_TITLE}`, 'the row holds the whole title after the figures');
    assert.ok(
      row.figuresRight <= row.visibleTo,
      `"${row.figures}" is shown whole in a ${row.sidebar} px side bar: it ends at ${row.figuresRight} px, the row is cut at ${row.visibleTo} px`,
    );
    assert.ok(row.titleRight <= row.visibleTo, `the title begins in the row: ${JSON.stringify(row)}`);
    // The title is cut by the row's width only: a wider side bar shows more of it (a fixed cut showed 15 characters).
    await wb.resizeSidebar(640);
    const wide = await measure(60);
    await wb.screenshot('sessions-width-wide');
    assert.ok(
      wide.titleRight <= wide.visibleTo,
      `in a ${wide.sidebar} px side bar the title's first 60 characters are shown: they end at ${wide.titleRight} px, the row at ${wide.visibleTo} px`,
    );
    // The whole title is the tooltip's first line.
    const tooltip = await wb.hoverText(session.locator('.label-name'), LONG_TITLE);
    assert.ok(tooltip.includes(LONG_TITLE), `the whole title is shown in the row's tooltip: ${tooltip}`);
  });
});
