/**
 * The Sessions view at the side bar's default width (1400×900, the side bar as the workbench opens it): a session
 * with a long title still shows its context fill and cost whole, since the end of a row is what the tree cuts. The
 * whole title is in the tooltip.
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
        const o = JSON.parse(l) as { type?: string; cwd?: string; isMeta?: boolean; message?: { content?: unknown } };
        if (typeof o.cwd === 'string') o.cwd = CWD;
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

  it('a long-titled session shows its fill and cost whole; the title is shortened and whole in the tooltip', async () => {
    await wb.page.locator('.activitybar .action-item .action-label[aria-label^="Agent Compactor"]').click();
    const pane = wb.page.locator('.part.sidebar .pane', {
      has: wb.page.locator('.pane-header h3.title', { hasText: /^Sessions$/i }),
    });
    // Fill and cost are read in the background once the project (the only one, so expanded) is shown.
    const session = pane
      .locator('.monaco-list-row')
      .filter({ has: wb.page.locator('.label-description', { hasText: /^\d+% · \$/ }) })
      .first();
    await session.waitFor({ state: 'visible', timeout: 60_000 });
    const row = await session.evaluate((el) => {
      const box = el.querySelector('.monaco-icon-label-container')!.getBoundingClientRect();
      const desc = el.querySelector('.label-description')!;
      const figures = /^\d+% · \$[\d.]+/.exec(desc.textContent ?? '')![0];
      const range = document.createRange();
      range.setStart(desc.firstChild!, 0);
      range.setEnd(desc.firstChild!, figures.length);
      return {
        label: el.querySelector('.label-name')?.textContent ?? '',
        title:
          el.querySelector('.monaco-icon-label')?.getAttribute('aria-label') ??
          (el as HTMLElement).getAttribute('aria-label') ??
          '',
        figures,
        right: range.getBoundingClientRect().right,
        visibleTo: box.right,
        sidebar: document.querySelector('.part.sidebar')!.getBoundingClientRect().width,
      };
    });
    await wb.screenshot('sessions-width');
    assert.ok(row.label.startsWith('Refactor the') && row.label.endsWith('…'), `the title shortened: ${row.label}`);
    assert.ok(
      row.right <= row.visibleTo,
      `"${row.figures}" is shown whole in a ${row.sidebar} px side bar: it ends at ${row.right} px, the row is cut at ${row.visibleTo} px`,
    );
    // The whole title is the tooltip's first line.
    const tooltip = await wb.hoverText(session.locator('.label-name'), LONG_TITLE);
    assert.ok(tooltip.includes(LONG_TITLE), `the whole title is shown in the row's tooltip: ${tooltip}`);
  });
});
