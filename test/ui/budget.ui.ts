/**
 * The Budget Preview webview in the real workbench: it lists every tool-result
 * decision, and transcript text that looks like HTML is shown as text, never
 * run. The transcript is hand-made (written into the temp workspace): one tool
 * result is huge (so it is replaced by a preview) and starts with markup that
 * would run script if it were ever parsed as HTML.
 *
 * Screenshot (test-results/screenshots/): budget-preview.png.
 */
import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { buildTranscript } from '../support/reliability';
import { Workbench, screenshotOnFailure } from '../support/workbench';

const FILE = 'markup.jsonl';
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
    wb = await Workbench.start({ viewport: { width: 1400, height: 900 }, workspaceFiles: { [FILE]: markupTranscript() } });
  });

  afterEach(screenshotOnFailure(() => wb));

  after(async function () {
    this.timeout(60_000);
    await wb?.stop();
  });

  /** The frame of the Budget Preview's content (inside the webview's host iframe). */
  async function budgetFrame(timeoutMs = 30_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const f of wb.page.frames()) {
        if (f === wb.page.mainFrame()) continue;
        const found = await f.evaluate(() => !!document.querySelector('main#app h1')).catch(() => false);
        if (found) return f;
      }
      if (Date.now() > deadline) throw new Error(`no Budget Preview frame within ${timeoutMs} ms`);
      await wb.page.waitForTimeout(250);
    }
  }

  it('lists the tool-result decisions; markup in a tool result is shown as text and no script runs', async () => {
    await wb.openFileFromExplorer(FILE);
    // The extension activates on the .jsonl and reads it: its status bar item shows the figures.
    // (Its palette entries depend on context keys it sets, so they appear only after that.)
    await wb.page.locator('.statusbar-item', { hasText: /context ~?[\d,]+ · \d+ rounds/ }).first().waitFor({ state: 'visible', timeout: 60_000 });
    await wb.runCommand('Agent Compactor: Open Budget Preview');
    await wb.page.locator('.tabs-container .tab', { hasText: 'Budget' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    const frame = await budgetFrame();
    await frame.locator('ol.tools > li').first().waitFor({ state: 'visible', timeout: 30_000 });

    // Every decision is listed: 6 tool results, the huge one replaced by a preview.
    assert.match(await frame.locator('h1').innerText(), /Budget Preview: markup\.jsonl/);
    assert.match(await frame.locator('header').innerText(), /Tool results: 5 kept, 1 replaced, 0 frozen\./);
    assert.match(await frame.locator('#tools-h').innerText(), /Tool results \(6\)/);
    const items = frame.locator('ol.tools > li');
    assert.equal(await items.count(), 6);
    assert.equal(await frame.locator('ol.tools > li.tool-kept').count(), 5);
    const replaced = frame.locator('ol.tools > li.tool-replaced');
    assert.equal(await replaced.count(), 1);
    assert.match(await replaced.locator('.tool-head').innerText(), /\[replaced\] Read · round #\d+, line \d+ · wire message \d+ · 90,\d{3} chars/);

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
      pwnedScripts: Array.from(document.querySelectorAll('script')).filter((s) => (s.textContent ?? '').includes('__pwned')).length,
      appScripts: document.querySelectorAll('#app script').length,
      imgs: document.querySelectorAll('img').length,
      iframes: document.querySelectorAll('iframe').length,
      textareas: document.querySelectorAll('textarea').length,
      jsLinks: document.querySelectorAll('a[href^="javascript:"]').length,
      preChildren: Array.from(document.querySelectorAll('pre.preview')).map((p) => p.children.length),
    }));
    assert.equal(dom.appScripts, 0, 'no <script> element in the content');
    // (VS Code injects its own inline bootstrap into <head>; the body has the extension's bundle only.)
    assert.equal(dom.bodyScripts.length, 1, `only the extension's own script in the body: ${JSON.stringify(dom.bodyScripts)}`);
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
      const pwned = await f.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned).catch((e: Error) => `unreachable: ${e.message}`);
      if (typeof pwned === 'string' && pwned.startsWith('unreachable')) continue; // detached frame
      assert.equal(pwned, undefined, `window.__pwned in ${f.url().slice(0, 80)}`);
    }
    console.log(`      checked window.__pwned in ${frames.length} frames`);

    // Give the webview the window for the picture: no side bar, its editor group maximized.
    await wb.runCommand('View: Close Primary Side Bar');
    await wb.page.locator('.tabs-container .tab', { hasText: 'Budget' }).first().click();
    await wb.runCommand('View: Toggle Maximize Editor Group').catch((e: Error) => console.log(`      (could not maximize the group: ${e.message.split('\n')[0]})`));
    await wb.page.waitForTimeout(500);
    await replaced.scrollIntoViewIfNeeded();
    await wb.page.waitForTimeout(300);
    await wb.screenshot('budget-preview');
  });
});
