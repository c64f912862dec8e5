/**
 * The Context Map in the real workbench: opened from the palette on a hand-made transcript whose
 * tool result and prompt carry markup, it shows one bar per round with the figures the extension
 * computed; selecting a bar reads the round (markup as characters) with exact o200k counts from
 * the token worker; dragging the target replans while the line is still held (the map's plan summary and the Rounds tree
 * follow); nothing injected runs in any frame. Then the map of a real session with compactions
 * in the dark, light and high-contrast themes.
 *
 * Screenshots (test-results/screenshots/): context-map-dark.png, context-map-light.png, context-map-hc.png.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { buildTranscript } from '../support/reliability';
import { Workbench, paintedIn, screenshotOnFailure } from '../support/workbench';

const FILE = 'markup.jsonl';
const REAL = 'with-compactions.jsonl';
const HOSTILE_ID = 'toolu_0002';
const MARKUP =
  '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"><a href="javascript:window.__pwned=3">x</a>';

/** Twelve rounds; round 2's tool result (20k characters) starts with the markup. */
function markupTranscript(): string {
  const lines = buildTranscript({ rounds: 12, resultChars: (r) => (r === 2 ? 20_000 : 3_000) });
  return (
    lines
      .map((l) => {
        const o = JSON.parse(l);
        const block = Array.isArray(o.message?.content) ? o.message.content[0] : undefined;
        if (block?.type === 'tool_result' && block.tool_use_id === HOSTILE_ID)
          block.content = `${MARKUP}\n${block.content}`;
        return JSON.stringify(o);
      })
      .join('\n') + '\n'
  );
}

describe('UI: Context Map', function () {
  this.timeout(180_000);
  let wb: Workbench;

  before(async function () {
    this.timeout(180_000);
    wb = await Workbench.open({
      viewport: { width: 1400, height: 950 },
      workspaceFiles: { [FILE]: markupTranscript(), [REAL]: { copyFrom: `claude-code/${REAL}` } },
      settings: { 'workbench.colorTheme': 'Default Dark Modern' },
    });
  });

  afterEach(screenshotOnFailure(() => wb));

  after(async function () {
    this.timeout(60_000);
    await wb?.stop();
  });

  /** The frame of a Context Map showing `fileName`. */
  async function mapFrame(fileName: string, timeoutMs = 30_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const f of wb.page.frames()) {
        if (f === wb.page.mainFrame()) continue;
        const found = await f
          .evaluate(
            (n) =>
              document.querySelector('main#app h1')?.textContent === `Context Map: ${n}` &&
              !!document.querySelector('g.bar'),
            fileName,
          )
          .catch(() => false);
        if (found) return f;
      }
      if (Date.now() > deadline) throw new Error(`no Context Map of ${fileName} within ${timeoutMs} ms`);
      await wb.page.waitForTimeout(250);
    }
  }

  async function openMap(file: string): Promise<Frame> {
    // A workbench started for one theme opens its first file while VS Code is still starting: on a loaded machine
    // that took over 30 s.
    await wb.openFileFromExplorer(file, 90_000);
    await wb.page
      .locator('.statusbar-item', { hasText: /context ~?[\d,]+ · \d+ rounds/ })
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    await wb.runCommand('Agent Compactor: Open Context Map');
    return mapFrame(file);
  }

  it('shows the rounds, reads a selected round with exact counts, replans when the target is dragged, runs no injected markup', async () => {
    const frame = await openMap(FILE);
    const bars = frame.locator('g.bar');
    const n = await bars.count();
    assert.ok(n >= 12, `${n} bars`);
    assert.equal(await bars.first().getAttribute('data-first'), '0');
    assert.match(await frame.locator('.summary').innerText(), /rounds · context now [\d,]+ tokens of 200k · cost \$/);
    assert.ok((await frame.locator('#tools-table tbody tr').count()) >= 1);

    // Select the round holding the hostile result (the largest item): its link in the table of largest items.
    const largest = frame.locator('#largest-table tbody tr').first();
    await largest.locator('td').nth(2).locator('a').click();
    const items = frame.locator('ol.items > li');
    await items.first().waitFor({ state: 'visible', timeout: 20_000 });
    const result = frame
      .locator('ol.items > li.item-toolResult', { hasText: 'Tool result' })
      .filter({ has: frame.locator('pre', { hasText: 'window.__pwned=1' }) });
    assert.equal(await result.count(), 1, 'the hostile result is listed');
    await result.locator('summary').click();
    assert.ok(((await result.locator('pre').textContent()) ?? '').startsWith(MARKUP), 'markup shown as characters');
    assert.equal(await result.locator('pre').evaluate((p) => p.children.length), 0, 'a single text node');
    await frame.locator('.exact').first().waitFor({ state: 'visible', timeout: 30_000 });
    const exact = await frame.locator('.exact').allTextContents();
    assert.ok(exact.length > 0 && exact.every((t) => /o200k count: [\d,]+$/.test(t)), exact.join(' | '));

    // Drag the target down: the store plans a compaction, the map's summary and the tree follow.
    const summaryBefore = await frame.locator('#plan-summary').innerText();
    // The round's detail scrolled the panel: bring the chart back into view, as a user would, before dragging.
    await frame.locator('svg.chart').scrollIntoViewIfNeeded();
    const grip = frame.locator('#target rect.grip');
    const box = (await grip.boundingBox())!;
    const x = box.x + box.width / 2;
    const y = box.y + box.height / 2;
    const plotBottom = (await frame.locator('svg.chart rect.frame').boundingBox())!;
    await wb.page.mouse.move(x, y);
    await wb.page.mouse.down();
    await wb.page.mouse.move(x, plotBottom.y + plotBottom.height - 3, { steps: 8 });
    // Still held: the map replans while dragging, not only on release.
    await frame.locator('#plan-summary').filter({ hasNotText: summaryBefore }).waitFor({ timeout: 30_000 });
    assert.ok(await frame.locator('#target.dragging').count(), 'the drag is still under way');
    await wb.page.mouse.up();
    const dragged = Number(await frame.locator('#target').getAttribute('data-tokens'));
    assert.ok(dragged >= 1000, `target ${dragged}`);
    await frame.locator('g.bar[data-mark="summarize"], g.bar[data-mark="drop"]').first().waitFor({ timeout: 30_000 });
    // The Rounds view (revealed by itself when the first transcript was opened) shows the marks too.
    await wb.page
      .locator('.monaco-list-row', { hasText: /\[summarize\]|\[drop\]/ })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });

    // Nothing ran, in any frame.
    await wb.page.waitForTimeout(500);
    for (const f of wb.page.frames()) {
      const pwned = await f
        .evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)
        .catch(() => 'unreachable');
      if (pwned === 'unreachable') continue;
      assert.equal(pwned, undefined, `window.__pwned in ${f.url().slice(0, 80)}`);
    }
    const scripts = await frame.evaluate(() =>
      Array.from(document.querySelectorAll('body script')).map((s) => s.getAttribute('src') ?? '(inline)'),
    );
    assert.equal(scripts.length, 1);
    assert.match(scripts[0], /\/dist\/map\.js$/);
  });

  it("Drop round in the table of largest items: the decision reaches the plan, the tree and the session's state file", async () => {
    const frame = await mapFrame(FILE);
    const row = frame.locator('#largest-table tbody tr').first();
    const drop = row.locator('button[data-action="drop-round"]');
    const round = Number(((await drop.getAttribute('aria-label')) ?? '').replace(/^Drop round #/, ''));
    assert.ok(Number.isInteger(round), `round of the largest item: ${round}`);
    await drop.click();
    await frame.locator('g.bar[data-mark="drop"]').first().waitFor({ timeout: 30_000 });
    await wb.page
      .locator('.monaco-list-row', { hasText: new RegExp(`\\[drop · you\\] #${round} `) })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    const state = path.join(wb.workspace.dir, FILE.replace(/\.jsonl$/, '.compactor-state.json'));
    const saved = JSON.parse(fs.readFileSync(state, 'utf8')) as { steering?: { rounds: Record<string, string> } };
    assert.equal(saved.steering?.rounds[String(round)], 'drop', 'saved with the session');
  });

  it("a largest item's line link: its round in readable form, in the transcript's group; the map stays where it is", async () => {
    const frame = await mapFrame(FILE);
    const row = frame.locator('#largest-table tbody tr').first();
    const round = Number(((await row.locator('td').nth(2).innerText()) ?? '').replace(/^#/, ''));
    assert.ok(Number.isInteger(round), `round of the largest item: ${round}`);
    const groups = wb.page.locator('.editor-group-container');
    const mapGroup = groups.filter({ has: wb.page.locator('.tab', { hasText: `Context Map: ${FILE}` }) });
    assert.equal(await mapGroup.count(), 1, 'one group holds the map');
    // The message the link sends (revealLine) reaches Reveal Round's function, asked for the readable form beside.
    const link = row.locator('td').nth(3).locator('a');
    const line = Number(/\d+/.exec((await link.innerText()) ?? '')?.[0]);
    assert.ok(Number.isInteger(line), `the link names a line: ${line}`);
    await link.click();
    const readable = `${FILE} · round ${round} (readable).txt`;
    const tab = wb.page.locator('.tab', { hasText: readable });
    await tab.first().waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(
      await mapGroup.locator('.tab', { hasText: readable }).count(),
      0,
      'the readable round opens in another group than the map',
    );
    assert.ok(
      await mapGroup
        .locator('.tab.active', { hasText: `Context Map: ${FILE}` })
        .isVisible()
        .catch(() => false),
      'the map is still the shown tab of its group',
    );
    // The readable round is scrolled to the linked line (its header may be above the view).
    await wb.page
      .locator('.editor-group-container .view-lines', { hasText: `line ${line} ·` })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    // The Rounds view selects the round shown.
    await wb.page
      .locator('.part.sidebar .monaco-list-row.selected', { hasText: new RegExp(`#${round} `) })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    // Its lines wrap at the editor's width (the group beside a map is narrow): no line runs past the editor's edge.
    const group = groups.filter({ has: wb.page.locator('.tab.active', { hasText: readable }) });
    const wrap = await group
      .locator('.monaco-editor')
      .first()
      .evaluate((ed) => {
        const right = ed.getBoundingClientRect().right;
        const spans = [...ed.querySelectorAll('.view-lines .view-line > span')];
        return {
          lines: spans.length,
          pastEdge: spans.filter((sp) => sp.getBoundingClientRect().right > right + 1).length,
          numbers: ed.querySelectorAll('.line-numbers').length,
        };
      });
    console.log(`      readable round: ${JSON.stringify(wrap)}`);
    assert.ok(wrap.lines > 0, 'the readable round is drawn');
    assert.equal(wrap.pastEdge, 0, `lines wrap at the editor's width: ${JSON.stringify(wrap)}`);
  });

  /** The map of the real session alone in the window, a round selected, as a screenshot. */
  async function screenshotRealMap(w: Workbench, name: string): Promise<Frame> {
    wb = w;
    const frame = await openMap(REAL);
    assert.ok((await frame.locator('svg.chart line.boundary').count()) >= 1, 'the compaction boundaries are marked');
    // The compaction Claude Code made by itself, listed with its trigger, figures and cost as the webview draws them.
    assert.match(
      (await frame.locator('#compactions-list li').first().textContent()) ?? '',
      /^Line 576: auto compaction by Claude Code: 167,174 → not recorded; next request 51,732; its own request cost not recorded\. Rounds before it are history; read #\d+\.$/,
    );
    await w.runCommand('View: Close Primary Side Bar');
    await w.page.locator('.part.sidebar').waitFor({ state: 'hidden', timeout: 10_000 });
    await w.page.locator('.tabs-container .tab', { hasText: 'Context Map' }).first().click();
    // The map alone in the window: the transcript's editor group, if the map opened beside it, closes (empty groups
    // close by default). With one group the palette does not offer the command.
    if ((await w.page.locator('.editor-group-container').count()) > 1) {
      await w.runCommand('View: Close Editors in Other Groups');
      await w.page.waitForFunction(() => document.querySelectorAll('.editor-group-container').length === 1, undefined, {
        timeout: 10_000,
      });
    }
    const bars = frame.locator('g.bar');
    // Near the top of the bar, clear of the target line's grip.
    await bars
      .nth(Math.floor((await bars.count()) * 0.8))
      .locator('rect.hit')
      .click({ position: { x: 2, y: 3 } });
    await frame.locator('ol.items > li').first().waitFor({ state: 'visible', timeout: 20_000 });
    await frame.evaluate(() => window.scrollTo(0, 0));
    await paintedIn(frame);
    await w.screenshot(name);
    return frame;
  }

  it('the map of a real session in the dark, light and high-contrast themes', async function () {
    this.timeout(240_000);
    await wb.closeAllEditors();
    const frame = await screenshotRealMap(wb, 'context-map-dark');
    // The same window in each further theme, picked as a person would: Preferences: Color Theme, the theme's name typed,
    // Enter. Each screenshot waits for the theme to reach the workbench and the map's own frame.
    for (const [theme, workbenchClass, webviewClass, name] of [
      ['Light Modern', 'vs', 'vscode-light', 'context-map-light'],
      ['Dark High Contrast', 'hc-black', 'vscode-high-contrast', 'context-map-hc'],
    ] as const) {
      await wb.pickColorTheme(theme);
      await wb.page.waitForFunction(
        (c) => document.querySelector('.monaco-workbench')?.classList.contains(c) ?? false,
        workbenchClass,
        { timeout: 60_000 },
      );
      await frame.waitForFunction((c) => document.body.classList.contains(c), webviewClass, { timeout: 60_000 });
      await frame.locator('ol.items > li').first().waitFor({ state: 'visible', timeout: 20_000 });
      await paintedIn(frame);
      await wb.screenshot(name);
    }
  });
});
