// The Budget Preview webview bundle in a real (headless) Chromium, under the same CSP the
// extension sets: it renders a real plan, posts typed messages, and shows hostile tool
// output (`<script>`, `<img onerror>`) as characters without running anything.
// Needs /usr/bin/chromium (scripts/provision-vscode.sh installs it; npm test provisions before the unit tests).
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { inspectFile } from '../../src/core/inspect';
import { planCompaction } from '../../src/core/compact/plan';
import { buildBudgetState } from '../../src/extension/model/budget';
import { budgetHtml } from '../../src/extension/model/budgetHtml';
import type { BudgetState } from '../../src/webview/protocol';
import type { UserDecisions } from '../../src/core/compact/decisions';
import { CHROMIUM_PATH, launchBrowser, type LaunchedBrowser } from '../support/browser';
import { fixture, repoRoot } from '../support/fixtures';

const ORIGIN = 'https://webview.test';
const NONCE = 'dGVzdG5vbmNlMTIzNDU2Nzg5MA==';
const EVIL =
  '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2"> & </pre><b>bold?</b>' +
  '</textarea><a href="javascript:window.__pwned = 4">link</a><style>body { display: none }</style>' +
  ' bidi:\u202Etxt.exe\u202C control:\u0007\u001b[31m';

describe('Budget Preview webview in Chromium', function () {
  this.timeout(120_000);
  let b: LaunchedBrowser | undefined;
  let state: BudgetState;
  let pinned = -1;
  let dropped = -1;
  let keptInFull = '';
  const violations: string[] = [];

  before(async function () {
    if (!existsSync(CHROMIUM_PATH))
      throw new Error(
        `${CHROMIUM_PATH} is missing: run bash scripts/provision-vscode.sh (it installs Debian's chromium)`,
      );
    const out = await build({
      entryPoints: [join(repoRoot, 'src/webview/main.ts')],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    const script = out.outputFiles[0].text;
    const css = readFileSync(join(repoRoot, 'media/budget.css'), 'utf8');
    const html = budgetHtml({
      cspSource: ORIGIN,
      nonce: NONCE,
      scriptUri: `${ORIGIN}/dist/webview.js`,
      styleUri: `${ORIGIN}/media/budget.css`,
    });

    const analysis = await inspectFile(fixture('with-compactions.jsonl'));
    const settings = { targetTokens: 60_000, keepRecentTokens: 5_000, maxToolResultChars: 1_000 };
    // The user's own decisions: pin one active round, drop the next, keep one replaced result in full.
    const auto = await planCompaction(analysis, settings);
    // (Not the round of the earlier compaction's summary: that one is always quoted in the new summary.)
    const boundaries = new Set(analysis.report.rounds.filter((r) => r.startsAtBoundary).map((r) => r.index));
    const active = auto.rounds.filter((r) => r.inContext && !boundaries.has(r.index));
    pinned = active[0].index;
    dropped = active[1].index;
    keptInFull = auto.toolResults.find((t) => t.action === 'replaced' && t.round !== dropped)!.toolUseId;
    const decisions: UserDecisions = {
      rounds: { [pinned]: 'keep', [dropped]: 'drop' },
      summarizeUpTo: null,
      keepFrom: null,
      toolResults: { [keptInFull]: 'keep-full' },
    };
    const plan = await planCompaction(analysis, settings, undefined, decisions);
    state = buildBudgetState(fixture('with-compactions.jsonl'), analysis, plan);
    state.toolResults.unshift({
      toolUseId: 'toolu_evil',
      toolName: '<img src=y onerror="window.__pwned=3">',
      round: 0,
      line: 1,
      wireMessage: 0,
      originalChars: 5000,
      decision: 'replaced',
      preview: EVIL,
      fullTextPath: '<script>alert(1)</script>.txt',
      reason: EVIL,
      byUser: false,
    });

    b = await launchBrowser();
    await b.page.route(`${ORIGIN}/**`, (route) => {
      const url = new URL(route.request().url());
      if (url.pathname === '/index.html') return route.fulfill({ contentType: 'text/html', body: html });
      if (url.pathname === '/dist/webview.js') return route.fulfill({ contentType: 'text/javascript', body: script });
      if (url.pathname === '/media/budget.css') return route.fulfill({ contentType: 'text/css', body: css });
      return route.fulfill({ status: 404, body: '' });
    });
    // Strings, not functions: tsx's transpiled functions reference helpers the page lacks.
    await b.page.addInitScript(`
      window.__posted = [];
      window.__violations = [];
      let saved;
      window.acquireVsCodeApi = () => ({
        postMessage: (m) => window.__posted.push(m),
        getState: () => saved,
        setState: (s) => (saved = s),
      });
      document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
    `);
    b.page.on('pageerror', (e) => violations.push(`pageerror: ${e.message}`));
    b.page.on('console', (m) => {
      if (m.type() === 'error') violations.push(m.text());
    });
    await b.page.goto(`${ORIGIN}/index.html`);
    await b.page
      .waitForFunction(`window.__posted.some((m) => m.type === 'ready')`, undefined, { timeout: 15_000 })
      .catch((e: Error) => {
        throw new Error(`${e.message}; page errors: ${violations.join(' | ')}`);
      });
    await post({ type: 'state', state });
    await b.page.waitForSelector('svg.chart');
  });

  const post = (msg: unknown) => b!.page.evaluate(`window.postMessage(${JSON.stringify(msg)}, '*')`);
  const get = <T>(expr: string) => b!.page.evaluate<T>(expr);

  after(async () => {
    await b?.close();
  });

  it('sends ready first', async () => {
    const posted = await get<unknown[]>('window.__posted');
    assert.deepEqual(posted[0], { type: 'ready' });
  });

  it('renders the summary, one entry per decision and the wire messages', async () => {
    const page = b!.page;
    assert.equal(await page.textContent('.summary'), state.summary);
    const shown = Math.min(200, state.toolResults.length);
    assert.equal(await page.locator('ol.tools > li').count(), shown);
    assert.equal(await page.locator('table tbody tr').count(), state.wireMessages.length);
    const replaced = state.toolResults.filter((t) => t.decision !== 'kept' && t.preview !== null);
    assert.equal(await page.locator('pre.preview').count(), Math.min(replaced.length, shown));
    // In words a user knows (a walk found "0 frozen" and "Wire messages" unexplained).
    const text = await page.locator('body').innerText();
    assert.doesNotMatch(text, /\bfrozen\b|\bwire message/i);
    assert.match(await page.locator('#wire-h').innerText(), /^Messages with tool results, as sent \(\d+\)$/);
  });

  it("shows the user's decisions as the Rounds tree marks them", async () => {
    const page = b!.page;
    assert.deepEqual(
      state.userRounds.map((r) => [r.round, r.mark]),
      [
        [pinned, 'keep'],
        [dropped, 'drop'],
      ],
      'the plan honours both choices',
    );
    const items = await page.locator('.user-rounds li').allTextContents();
    assert.deepEqual(
      items,
      state.userRounds.map((r) => `${r.mark === 'keep' ? '[pinned]' : '[drop · you]'} #${r.round} ${r.label}`),
    );
    assert.match((await page.textContent('#user-h')) ?? '', /^Your decisions \(2 rounds\)$/);
    // The result kept in full by the user, and only it, says so; the budget's own decisions do not.
    const mine = page.locator('ol.tools > li', { has: page.locator('.decision.by-user') });
    assert.equal(await mine.count(), 1);
    assert.equal(await mine.locator('.decision').textContent(), '[kept in full · you]');
    assert.equal(state.toolResults.find((t) => t.toolUseId === keptInFull)?.byUser, true);
    assert.equal(state.toolResults.filter((t) => t.byUser).length, 1);
    // The "By you" filter lists just the user's results; then back to all.
    await page.getByRole('combobox', { name: 'Show decisions' }).selectOption('user');
    assert.deepEqual(await page.locator('ol.tools > li .decision').allTextContents(), ['[kept in full · you]']);
    await page.getByRole('combobox', { name: 'Show decisions' }).selectOption('all');
    assert.equal(await page.locator('ol.tools > li').count(), Math.min(200, state.toolResults.length));
    // A decided round reveals its round.
    await page.locator('.user-rounds li').nth(1).locator('a').click();
    const posted = await get<unknown[]>('window.__posted');
    assert.deepEqual(posted.at(-1), { type: 'revealRound', round: dropped });
  });

  it('draws the chart with usage, estimate, target and cut', async () => {
    const page = b!.page;
    for (const sel of [
      'svg.chart path.usage',
      'svg.chart path.estimate',
      'svg.chart line.target',
      'svg.chart line.cut',
    ]) {
      assert.equal(await page.locator(sel).count(), 1, sel);
    }
    assert.ok((await page.locator('svg.chart circle.dot').count()) > 0);
  });

  /** Every text of the chart and the boxes that must hold them, as the browser lays them out. */
  const chartBoxes = () =>
    get<{
      svgWidth: number;
      wrapWidth: number;
      frame: DOMRect;
      svg: DOMRect;
      labels: { cls: string; text: string; box: DOMRect }[];
      ticks: { text: string; box: DOMRect }[];
      floor: number;
      fontPx: number;
    }>(`(() => {
      const r = (e) => { const b = e.getBoundingClientRect(); return { x: b.x, y: b.y, width: b.width, height: b.height }; };
      const svg = document.querySelector('svg.chart');
      return {
        svgWidth: Number(svg.getAttribute('width')),
        wrapWidth: document.querySelector('.chart-wrap').clientWidth,
        frame: r(svg.querySelector('rect.frame')),
        svg: r(svg),
        labels: Array.from(svg.querySelectorAll('text.label')).map((t) => ({ cls: t.getAttribute('class'), text: t.textContent, box: r(t) })),
        ticks: Array.from(svg.querySelectorAll('text.tick')).map((t) => ({ text: t.textContent, box: r(t) })),
        floor: svg.querySelectorAll('line.floor').length,
        fontPx: parseFloat(getComputedStyle(svg.querySelector('text.tick')).fontSize) * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width,
      };
    })()`);
  const inside = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
    a.x >= b.x - 0.5 &&
    a.y >= b.y - 0.5 &&
    a.x + a.width <= b.x + b.width + 0.5 &&
    a.y + a.height <= b.y + b.height + 0.5;
  const overlap = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
    a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;

  for (const width of [330, 900]) {
    it(`at ${width} px: the chart is drawn at the panel's width, labels inside the plot, ticks apart, the floor drawn`, async () => {
      const page = b!.page;
      await page.setViewportSize({ width, height: 900 });
      // (Polled with evaluate: waitForFunction would eval inside the page, which its CSP forbids.)
      for (
        let waited = 0;
        !(await get<boolean>(
          `(() => { const s = document.querySelector('svg.chart'); return !!s && Math.abs(Number(s.getAttribute('width')) - document.querySelector('.chart-wrap').clientWidth) < 1; })()`,
        ));
        waited += 50
      ) {
        assert.ok(waited < 10_000, 'the chart is redrawn at the new width');
        await page.waitForTimeout(50);
      }
      const c = await chartBoxes();
      assert.ok(c.wrapWidth <= width - 24 && c.wrapWidth > width / 2, `wrap ${c.wrapWidth} px in a ${width} px panel`);
      assert.ok(Math.abs(c.fontPx - 11) < 0.01, `tick text is drawn at 11 px, not scaled (${c.fontPx})`);
      assert.equal(c.floor, 1, 'the system-prompt floor line');
      assert.deepEqual(
        c.labels.map((l) => l.cls.split(' ')[1]),
        ['label-target', 'label-floor', 'label-cut'],
      );
      for (const l of c.labels)
        assert.ok(
          inside(l.box, c.frame),
          `${l.text} inside the plot: ${JSON.stringify(l.box)} in ${JSON.stringify(c.frame)}`,
        );
      for (const t of c.ticks) assert.ok(inside(t.box, c.svg), `tick ${t.text} inside the chart`);
      const texts = [...c.labels, ...c.ticks];
      for (let i = 0; i < texts.length; i++)
        for (let j = i + 1; j < texts.length; j++)
          assert.ok(!overlap(texts[i].box, texts[j].box), `${texts[i].text} / ${texts[j].text} overlap`);
      assert.ok(c.ticks.length >= 4);
      await page
        .locator('section.chart-section')
        .screenshot({ path: join(repoRoot, 'test-results', 'screenshots', `webview-budget-chart-${width}.png`) });
    });
  }

  it('shows the context now by default; a keyboard toggle shows the whole history and back', async () => {
    const page = b!.page;
    const firstActive = state.chart.points.findIndex((p) => p.inContext);
    const dots = (from: number) => state.chart.points.slice(from).filter((p) => p.usage !== null).length;
    assert.ok(firstActive > 0);
    assert.equal(await page.locator('svg.chart circle.dot').count(), dots(firstActive));
    assert.match(
      (await page.textContent('.chart-range')) ?? '',
      new RegExp(
        `^Rounds #${state.chart.points[firstActive].round}–#${state.chart.points.at(-1)!.round}, the context now \\(${firstActive} older rounds`,
      ),
    );
    const toggle = page.getByRole('button', { name: 'Show whole history' });
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    await toggle.focus();
    await page.keyboard.press('Enter');
    assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
    assert.equal(await page.locator('svg.chart circle.dot').count(), dots(0));
    assert.match(
      (await page.textContent('.chart-range')) ?? '',
      new RegExp(`^All ${state.chart.points.length} rounds`),
    );
    assert.equal(
      await page.evaluate('document.activeElement.textContent'),
      'Show whole history',
      'focus stays on the toggle',
    );
    await page.keyboard.press('Space');
    assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
    assert.equal(await page.locator('svg.chart circle.dot').count(), dots(firstActive));
  });

  it('shows hostile tool output as characters and runs none of it', async () => {
    const page = b!.page;
    const first = page.locator('ol.tools > li').first();
    assert.equal(await first.locator('pre.preview').textContent(), EVIL);
    assert.equal(await first.locator('strong').textContent(), '<img src=y onerror="window.__pwned=3">');
    assert.equal(await first.locator('.reason').textContent(), EVIL);
    assert.equal(await get<unknown>('window.__pwned'), undefined);
    assert.equal(await page.locator('#app img').count(), 0);
    assert.equal(await page.locator('#app script').count(), 0);
    assert.equal(await page.locator('#app b').count(), 0);
    assert.equal(await page.locator('#app a[href^="javascript:"]').count(), 0);
    assert.equal(await page.locator('#app style, #app textarea').count(), 0);
    assert.equal(await get<string>('getComputedStyle(document.body).display'), 'block', 'injected CSS did not apply');
  });

  it('posts typed messages from its controls', async () => {
    const page = b!.page;
    await page.locator('ol.tools > li').nth(1).locator('a').click();
    await page.getByRole('button', { name: 'Refresh' }).click();
    const posted = await get<unknown[]>('window.__posted');
    assert.deepEqual(posted.slice(-2), [{ type: 'revealLine', line: state.toolResults[1].line }, { type: 'refresh' }]);
  });

  it('ignores malformed host messages and shows empty/busy states', async () => {
    const page = b!.page;
    await post({ type: 'state', state: { nope: true } });
    await page.waitForTimeout(50);
    assert.equal(await page.locator('svg.chart').count(), 1, 'a bad message changes nothing');
    await post({ type: 'empty', message: '<i>No transcript</i>' });
    await page.waitForSelector('#app > p.muted');
    assert.equal(await page.textContent('#app > p.muted'), '<i>No transcript</i>');
    assert.equal(await page.locator('#app i').count(), 0);
  });

  it('raised no CSP violation', async () => {
    const v = await get<string[]>('window.__violations');
    assert.deepEqual(v, []);
    assert.deepEqual(
      violations.filter((t) => /Content Security Policy/i.test(t)),
      [],
    );
  });
});
