/**
 * The Budget Preview webview in the real workbench. Its chart reads at the width the panel opens in and beside the
 * transcript (labels inside the plot, the system-prompt floor drawn, the x axis on the context now, the whole history a
 * keyboard toggle away), on a real session whose old history dwarfs its context (with-compactions.jsonl, read from
 * ../shared). It lists every tool-result decision, and transcript text that looks like HTML is shown as text, never
 * run: that transcript is hand-made (written into the temp workspace): one tool result is huge (so it is replaced by
 * a preview) and starts with markup that would run script if it were ever parsed as HTML.
 *
 * Screenshots (test-results/screenshots/): budget-chart-opened.png (the width it opens in; README's
 * docs/screenshots/budget-preview.png), budget-chart-beside.png (the third of three columns), budget-chart-history.png,
 * the chart alone in budget-chart-*-detail.png, budget-preview.png (the markup shown as text).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { fixture } from '../support/fixtures';
import { buildTranscript } from '../support/reliability';
import { Workbench, paintedIn, screenshotOnFailure, screenshotsDir } from '../support/workbench';

const FILE = 'markup.jsonl';
const HISTORY_FILE = 'with-compactions.jsonl';
const HOSTILE_ID = 'toolu_0002';
const MARKUP = [
  '<script>window.__pwned=1</script>',
  '<img src=x onerror="window.__pwned=2">',
  '</textarea><textarea>',
  '<a href="javascript:window.__pwned=3">javascript: link</a>',
  '<iframe srcdoc="<script>parent.__pwned=4</script>"></iframe>',
].join(' ');

/** Six rounds; round 2's tool result is 90k characters starting with the markup. */
function markupTranscript(): string {
  const lines = buildTranscript({ rounds: 6, resultChars: (r) => (r === 2 ? 90_000 : 400) });
  let patched = 0;
  const out = lines.map((l) => {
    const o = JSON.parse(l);
    const block = Array.isArray(o.message?.content) ? o.message.content[0] : undefined;
    if (block?.type === 'tool_result' && block.tool_use_id === HOSTILE_ID) {
      block.content = `${MARKUP}\n${block.content}`;
      patched++;
    }
    return JSON.stringify(o);
  });
  assert.equal(patched, 1);
  return out.join('\n') + '\n';
}

describe('UI: Budget Preview webview', function () {
  this.timeout(120_000);
  let wb: Workbench;

  before(async function () {
    this.timeout(180_000);
    wb = await Workbench.open({
      viewport: { width: 1400, height: 900 },
      // A target the real session is well above: its plan summarizes the oldest rounds of the context.
      settings: { 'agentCompactor.targetTokens': 60_000 },
      workspaceFiles: { [FILE]: markupTranscript(), [HISTORY_FILE]: fs.readFileSync(fixture(HISTORY_FILE), 'utf8') },
    });
  });

  afterEach(screenshotOnFailure(() => wb));

  after(async function () {
    this.timeout(60_000);
    await wb?.stop();
  });

  /** The frame of the Budget Preview's content (inside the webview's host iframe), showing `file`. */
  async function budgetFrame(file: string, timeoutMs = 30_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const f of wb.page.frames()) {
        if (f === wb.page.mainFrame()) continue;
        const found = await f
          .evaluate((name) => (document.querySelector('main#app h1')?.textContent ?? '').endsWith(name), file)
          .catch(() => false);
        if (found) return f;
      }
      if (Date.now() > deadline) throw new Error(`no Budget Preview frame showing ${file} within ${timeoutMs} ms`);
      await wb.page.waitForTimeout(250);
    }
  }

  interface Rect {
    x: number;
    y: number;
    width: number;
    height: number;
  }
  const inside = (a: Rect, b: Rect) =>
    a.x >= b.x - 0.5 &&
    a.y >= b.y - 0.5 &&
    a.x + a.width <= b.x + b.width + 0.5 &&
    a.y + a.height <= b.y + b.height + 0.5;
  const overlap = (a: Rect, b: Rect) =>
    a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;

  /** The chart as the browser laid it out, once it is drawn at its wrap's width. */
  async function chartLayoutIn(frame: Frame) {
    const read = () =>
      // (No named helpers inside: the function runs in the page as written.)
      frame.evaluate(() => {
        const svg = document.querySelector('svg.chart');
        const wrap = document.querySelector('.chart-wrap');
        if (!svg || !wrap) return null;
        return {
          panelWidth: document.documentElement.clientWidth,
          wrapWidth: wrap.clientWidth,
          svgWidth: Number(svg.getAttribute('width')),
          frame: svg.querySelector('rect.frame')!.getBoundingClientRect().toJSON() as Rect,
          svg: svg.getBoundingClientRect().toJSON() as Rect,
          labels: Array.from(svg.querySelectorAll('text.label')).map((t) => ({
            kind: (t.getAttribute('class') ?? '').split(' ')[1],
            text: t.textContent ?? '',
            box: t.getBoundingClientRect().toJSON() as Rect,
          })),
          ticks: Array.from(svg.querySelectorAll('text.tick')).map((t) => ({
            text: t.textContent ?? '',
            box: t.getBoundingClientRect().toJSON() as Rect,
          })),
          floorLines: svg.querySelectorAll('line.floor').length,
          cutLines: svg.querySelectorAll('line.cut').length,
          dots: svg.querySelectorAll('circle.dot').length,
          tickFontPx:
            parseFloat(getComputedStyle(svg.querySelector('text.tick')!).fontSize) *
            (svg.getBoundingClientRect().width / (svg as SVGSVGElement).viewBox.baseVal.width),
          caption: document.querySelector('.chart-range')?.textContent ?? '',
        };
      });
    const deadline = Date.now() + 15_000;
    for (;;) {
      const c = await read();
      if (c && Math.abs(c.svgWidth - c.wrapWidth) < 1) return c;
      if (Date.now() > deadline)
        throw new Error(
          `the chart was not drawn at its width: ${JSON.stringify(c && { svg: c.svgWidth, wrap: c.wrapWidth })}`,
        );
      await wb.page.waitForTimeout(100);
    }
  }

  /** The chart reads: drawn at its width (labels at their real size), the target, floor and cut labels inside the plot, no two texts overlapping. */
  function assertReadable(c: Awaited<ReturnType<typeof chartLayoutIn>>, where: string): void {
    assert.ok(
      Math.abs(c.tickFontPx - 11) < 0.05,
      `${where}: ticks drawn at 11 px, not scaled (${c.tickFontPx.toFixed(2)})`,
    );
    assert.equal(c.floorLines, 1, `${where}: the system-prompt floor is drawn`);
    assert.equal(c.cutLines, 1, `${where}: the cut is drawn`);
    assert.deepEqual(
      c.labels.map((l) => l.kind),
      ['label-target', 'label-floor', 'label-cut'],
      where,
    );
    assert.match(c.labels[1].text, /^(system prompt \+ tools|prompt \+ tools|floor) \d+(\.\d)?k$/);
    for (const l of c.labels)
      assert.ok(
        inside(l.box, c.frame),
        `${where}: the ${l.kind} label (${l.text}) lies inside the chart's plot: ${JSON.stringify(l.box)} in ${JSON.stringify(c.frame)}`,
      );
    for (const t of c.ticks) assert.ok(inside(t.box, c.svg), `${where}: tick ${t.text} inside the chart`);
    const texts = [...c.labels, ...c.ticks];
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++)
        assert.ok(!overlap(texts[i].box, texts[j].box), `${where}: "${texts[i].text}" overlaps "${texts[j].text}"`);
    }
    assert.ok(
      c.ticks.filter((t) => t.text.startsWith('#')).length >= 2 && c.ticks.filter((t) => /k$/.test(t.text)).length >= 2,
      `${where}: ticks on both axes`,
    );
  }

  it('the chart reads at the width it opens in and beside the transcript; the whole history is a keyboard toggle away', async () => {
    await wb.openFileFromExplorer(HISTORY_FILE);
    await wb.page
      .locator('.statusbar-item', { hasText: /context ~?[\d,]+ · \d+ rounds/ })
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    await wb.runCommand('Agent Compactor: Open Budget Preview');
    const frame = await budgetFrame(HISTORY_FILE, 60_000);
    await frame.locator('svg.chart').waitFor({ state: 'visible', timeout: 30_000 });

    // Where it opens: the active editor group (the whole editor area, beside the side bar).
    const opened = await chartLayoutIn(frame);
    console.log(
      `      opened: panel ${opened.panelWidth} px, chart ${opened.wrapWidth} px; ticks ${opened.ticks.map((t) => t.text).join(' ')}; labels ${opened.labels.map((l) => l.text).join(' | ')}`,
    );
    assert.ok(opened.panelWidth >= 700, `it opens where it fits: ${opened.panelWidth} px`);
    assertReadable(opened, 'opened');
    // The x axis spans the context now; the caption says what is left out.
    assert.match(
      opened.caption,
      /^Rounds #\d+–#\d+, the context now \(\d+ older rounds, before the last compact boundary, not shown\)\.$/,
    );
    const toggle = frame.getByRole('button', { name: 'Show whole history' });
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    await frame.locator('section.chart-section').scrollIntoViewIfNeeded();
    await wb.screenshot('budget-chart-opened');
    await frame
      .locator('section.chart-section')
      .screenshot({ path: path.join(screenshotsDir, 'budget-chart-opened-detail.png') });

    // The whole history, by keyboard.
    await toggle.focus();
    await wb.page.keyboard.press('Enter');
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    const history = await chartLayoutIn(frame);
    assert.match(history.caption, /^All \d+ rounds; the context now starts at round #\d+\.$/);
    assert.ok(history.dots > opened.dots, `more rounds drawn: ${history.dots} > ${opened.dots}`);
    assertReadable(history, 'history');
    await wb.screenshot('budget-chart-history');
    await wb.page.keyboard.press('Space');
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');

    // Beside the transcript, in the third of three even columns (~330 px, what opening to the side gave when two
    // editors were open): still readable.
    await wb.runCommand('View: Move Editor into Right Group');
    await wb.runCommand('View: Focus First Editor Group');
    await wb.runCommand('View: Split Editor Right');
    await wb.runCommand('View: Reset Editor Group Sizes');
    const besideFrame = await budgetFrame(HISTORY_FILE, 30_000);
    const beside = await chartLayoutIn(besideFrame);
    console.log(
      `      beside: panel ${beside.panelWidth} px, chart ${beside.wrapWidth} px; ticks ${beside.ticks.map((t) => t.text).join(' ')}; labels ${beside.labels.map((l) => l.text).join(' | ')}`,
    );
    assert.ok(beside.panelWidth < 400, `beside is narrow: ${beside.panelWidth} px`);
    assertReadable(beside, 'beside');
    assert.equal(
      await besideFrame.getByRole('button', { name: 'Show whole history' }).getAttribute('aria-pressed'),
      'false',
      'the range choice is kept',
    );
    await besideFrame.locator('section.chart-section').scrollIntoViewIfNeeded();
    await wb.screenshot('budget-chart-beside');
    await besideFrame
      .locator('section.chart-section')
      .screenshot({ path: path.join(screenshotsDir, 'budget-chart-beside-detail.png') });
    await wb.runCommand('View: Join All Editor Groups');
  });

  it('lists the tool-result decisions; markup in a tool result is shown as text and no script runs', async () => {
    await wb.openFileFromExplorer(FILE);
    // The extension activates on the .jsonl and reads it: its status bar item shows the figures.
    // (Its palette entries depend on context keys it sets, so they appear only after that.)
    await wb.page
      .locator('.statusbar-item', { hasText: /context ~?[\d,]+ · \d+ rounds/ })
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    await wb.runCommand('Agent Compactor: Open Budget Preview');
    await wb.page
      .locator('.tabs-container .tab', { hasText: 'Budget' })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    const frame = await budgetFrame(FILE);
    await frame.locator('ol.tools > li').first().waitFor({ state: 'visible', timeout: 30_000 });

    // Every decision is listed: 6 tool results, the huge one replaced by a preview.
    assert.match(await frame.locator('h1').innerText(), /Budget Preview: markup\.jsonl/);
    assert.match(await frame.locator('header').innerText(), /Tool results: 5 kept, 1 replaced by a preview\./);
    assert.match(await frame.locator('#tools-h').innerText(), /Tool results \(6\)/);
    const items = frame.locator('ol.tools > li');
    assert.equal(await items.count(), 6);
    assert.equal(await frame.locator('ol.tools > li.tool-kept').count(), 5);
    const replaced = frame.locator('ol.tools > li.tool-replaced');
    assert.equal(await replaced.count(), 1);
    assert.match(
      await replaced.locator('.tool-head').innerText(),
      /\[replaced\] Read · round #\d+, line \d+ · message \d+ · 90,\d{3} chars/,
    );

    // Open the replacement text: the markup is there as characters.
    await replaced.locator('details > summary').click();
    const pre = replaced.locator('pre.preview');
    await pre.waitFor({ state: 'visible', timeout: 10_000 });
    const text = (await pre.textContent()) ?? '';
    assert.ok(text.startsWith('[Tool result replaced by a preview'), text.slice(0, 80));
    for (const piece of MARKUP.split(' <').map((p, i) => (i ? `<${p}` : p))) {
      assert.ok(text.includes(piece), `shown as text: ${piece}`);
    }
    assert.ok((await pre.innerText()).includes('<script>window.__pwned=1</script>'), 'rendered as visible characters');
    // ... and not as elements.
    const dom = await frame.evaluate(() => ({
      bodyScripts: Array.from(document.querySelectorAll('body script')).map((s) => s.getAttribute('src') ?? '(inline)'),
      pwnedScripts: Array.from(document.querySelectorAll('script')).filter((s) =>
        (s.textContent ?? '').includes('__pwned'),
      ).length,
      appScripts: document.querySelectorAll('#app script').length,
      imgs: document.querySelectorAll('img').length,
      iframes: document.querySelectorAll('iframe').length,
      textareas: document.querySelectorAll('textarea').length,
      jsLinks: document.querySelectorAll('a[href^="javascript:"]').length,
      preChildren: Array.from(document.querySelectorAll('pre.preview')).map((p) => p.children.length),
    }));
    assert.equal(dom.appScripts, 0, 'no <script> element in the content');
    // (VS Code injects its own inline bootstrap into <head>; the body has the extension's bundle only.)
    assert.equal(
      dom.bodyScripts.length,
      1,
      `only the extension's own script in the body: ${JSON.stringify(dom.bodyScripts)}`,
    );
    assert.match(dom.bodyScripts[0], /\/dist\/webview\.js$/);
    assert.equal(dom.pwnedScripts, 0, 'no script element carries the transcript text');
    assert.equal(dom.imgs, 0, 'no <img> element');
    assert.equal(dom.iframes, 0, 'no <iframe> element');
    assert.equal(dom.textareas, 0, 'no <textarea> element');
    assert.equal(dom.jsLinks, 0, 'no javascript: link');
    assert.deepEqual(dom.preChildren, [0], 'the preview is a single text node');

    // Nothing ran, in any frame of the page.
    await wb.page.waitForTimeout(500); // an onerror would fire right after the failed image load
    const frames = wb.page.frames();
    for (const f of frames) {
      const pwned = await f
        .evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)
        .catch((e: Error) => `unreachable: ${e.message}`);
      if (typeof pwned === 'string' && pwned.startsWith('unreachable')) continue; // detached frame
      assert.equal(pwned, undefined, `window.__pwned in ${f.url().slice(0, 80)}`);
    }
    console.log(`      checked window.__pwned in ${frames.length} frames`);

    // Give the webview the window for the picture: no side bar, and the Budget Preview the one editor group (the
    // palette offers no Maximize Editor Group when there is only one).
    await wb.runCommand('View: Close Primary Side Bar');
    await wb.page.locator('.part.sidebar').waitFor({ state: 'hidden', timeout: 10_000 });
    await wb.page.locator('.tabs-container .tab', { hasText: 'Budget' }).first().click();
    if ((await wb.page.locator('.editor-group-container').count()) > 1) {
      await wb.runCommand('View: Close Editors in Other Groups');
      await wb.page.waitForFunction(
        () => document.querySelectorAll('.editor-group-container').length === 1,
        undefined,
        {
          timeout: 10_000,
        },
      );
    }
    await replaced.scrollIntoViewIfNeeded();
    await paintedIn(frame);
    await wb.screenshot('budget-preview');
  });
  it("its Compact… button asks Compact Transcript's confirmation for the transcript it shows; Cancel writes nothing", async () => {
    const frame = await budgetFrame(FILE);
    const before = fs.readdirSync(wb.workspace.dir).sort();
    // The message the button sends (compact) reaches Compact Transcript's function with the panel's file.
    await frame.locator('.actions button', { hasText: 'Compact…' }).click();
    const dialog = wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 60_000 });
    assert.match((await dialog.textContent()) ?? '', /Compact markup\.jsonl\? Context ~?[\d,]+ → [\d,]+ tokens/);
    await dialog.locator('.dialog-buttons .monaco-button', { hasText: /^Cancel$/ }).click();
    await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
    await wb.page.waitForTimeout(500);
    assert.deepEqual(fs.readdirSync(wb.workspace.dir).sort(), before, 'nothing was written');
  });
});
