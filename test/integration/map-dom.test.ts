// The Context Map webview bundle in a real (headless) Chromium, under the CSP the extension
// sets: it draws a real map (bars holding the largest round of their bucket, the plan's marks,
// reference lines, boundaries), posts typed messages when a bar is clicked, the target dragged or
// the keyboard used, renders a round readably with its exact counts, buckets a 30,000-round
// session into a few hundred bars, and shows hostile transcript text as characters.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { inspectFile } from '../../src/core/inspect';
import { smallestReachableTarget } from '../../src/core/compact/reach';
import { planCompaction } from '../../src/core/compact/plan';
import { buildMapState } from '../../src/extension/model/mapState';
import { mapHtml } from '../../src/extension/model/mapHtml';
import { stackTotal } from '../../src/webview/mapChart';
import type { MapState, RoundDetail } from '../../src/webview/mapProtocol';
import { CHROMIUM_PATH, launchBrowser, type LaunchedBrowser } from '../support/browser';
import { fixture, repoRoot, sharedFixtures } from '../support/fixtures';

const ORIGIN = 'https://webview.test';
const NONCE = 'dGVzdG5vbmNlMTIzNDU2Nzg5MA==';
const EVIL =
  '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2"><b>bold?</b><a href="javascript:window.__pwned = 4">link</a><style>body { display: none }</style>';

interface BarData {
  first: number;
  last: number;
  peak: number;
  total: number;
  mark: string;
}

describe('Context Map webview in Chromium', function () {
  this.timeout(120_000);
  let b: LaunchedBrowser | undefined;
  let state: MapState;
  const violations: string[] = [];

  before(async function () {
    if (!existsSync(CHROMIUM_PATH))
      throw new Error(
        `${CHROMIUM_PATH} is missing: run bash scripts/provision-vscode.sh (it installs Debian's chromium)`,
      );
    const out = await build({
      entryPoints: [join(repoRoot, 'src/webview/map.ts')],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    const script = out.outputFiles[0].text;
    const css = readFileSync(join(repoRoot, 'media/map.css'), 'utf8');
    const html = mapHtml({
      cspSource: ORIGIN,
      nonce: NONCE,
      scriptUri: `${ORIGIN}/dist/map.js`,
      styleUri: `${ORIGIN}/media/map.css`,
    });
    const analysis = await inspectFile(fixture('with-compactions.jsonl'));
    const settings = { targetTokens: 60_000, keepRecentTokens: 5_000 };
    const plan = await planCompaction(analysis, settings);
    const floor = await smallestReachableTarget(analysis, settings);
    state = buildMapState(
      fixture('with-compactions.jsonl'),
      analysis,
      plan,
      undefined,
      undefined,
      undefined,
      undefined,
      floor,
    );
    state.rounds[0].label = EVIL;
    state.tools.unshift({ name: EVIL, calls: 1, activeTokens: 1, activeShare: 0, allTokens: 1, allShare: 0 });

    b = await launchBrowser({ viewport: { width: 1200, height: 900 } });
    await b.page.route(`${ORIGIN}/**`, (route) => {
      const url = new URL(route.request().url());
      if (url.pathname === '/index.html') return route.fulfill({ contentType: 'text/html', body: html });
      if (url.pathname === '/dist/map.js') return route.fulfill({ contentType: 'text/javascript', body: script });
      if (url.pathname === '/media/map.css') return route.fulfill({ contentType: 'text/css', body: css });
      return route.fulfill({ status: 404, body: '' });
    });
    await b.page.addInitScript(`
      window.__posted = [];
      window.__violations = [];
      let saved;
      window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m), getState: () => saved, setState: (s) => (saved = s) });
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
    await b.page.waitForSelector('svg.chart g.bar');
  });

  const post = (msg: unknown) => b!.page.evaluate(`window.postMessage(${JSON.stringify(msg)}, '*')`);
  const get = <T>(expr: string) => b!.page.evaluate<T>(expr);
  const posted = () => get<{ type: string; [k: string]: unknown }[]>('window.__posted');
  const bars = () =>
    get<BarData[]>(
      `[...document.querySelectorAll('g.bar')].map((g) => ({ first: +g.dataset.first, last: +g.dataset.last, peak: +g.dataset.peak, total: +g.dataset.total, mark: g.dataset.mark }))`,
    );

  after(async () => {
    await b?.close();
  });

  it('draws one bar per round (or bucket), each the largest context of its rounds, with the plan mark of its rounds', async () => {
    const drawn = await bars();
    assert.ok(drawn.length > 0);
    let next = 0;
    for (const bar of drawn) {
      assert.equal(bar.first, next, 'bars cover the rounds in order without gaps');
      next = bar.last + 1;
      const totals = state.rounds.slice(bar.first, bar.last + 1).map(stackTotal);
      assert.equal(bar.total, Math.max(...totals));
      const marks = state.rounds.slice(bar.first, bar.last + 1).map((r) => r.mark);
      assert.equal(bar.mark, marks.includes('drop') ? 'drop' : marks.includes('summarize') ? 'summarize' : 'keep');
    }
    assert.equal(next, state.rounds.length);
    assert.ok(
      drawn.some((x) => x.mark !== 'keep'),
      'the plan summarizes or drops something',
    );
    // The patterns are one path per mark, a closed subpath per bar: every summarized or dropped bar has its own.
    const subpaths = async (mark: string) =>
      (await b!.page.evaluate((m) => document.querySelector(`path.overlay-${m}`)?.getAttribute('d') ?? '', mark))
        .split('z')
        .filter(Boolean).length;
    for (const mark of ['summarize', 'drop']) {
      assert.equal(
        await subpaths(mark),
        drawn.filter((x) => x.mark === mark).length,
        `every ${mark} bar is patterned, not only coloured`,
      );
    }
    assert.equal((await b!.page.locator('ul.legend li').count()) >= state.series.length, true);
  });

  it('draws the usage line, the compaction boundaries and the target', async () => {
    const page = b!.page;
    assert.equal(await page.locator('svg.chart path.usage').count(), 1);
    assert.ok((await page.locator('svg.chart line.boundary').count()) >= 1);
    assert.equal(await page.getAttribute('#target', 'data-tokens'), String(state.targetTokens));
    const kinds = await page.locator('svg.chart line.ref').evaluateAll((ls) => ls.map((l) => l.getAttribute('class')));
    assert.ok(
      kinds.includes('ref ref-window') && kinds.includes('ref ref-autoCompact') && kinds.includes('ref ref-target'),
      kinds.join(),
    );
  });

  it('clicking a bar asks for its round; the round is rendered as text with its exact counts beside the estimates', async () => {
    const page = b!.page;
    const drawn = await bars();
    const pick = drawn[Math.floor(drawn.length / 2)];
    await page
      .locator('g.bar')
      .nth(Math.floor(drawn.length / 2))
      .locator('rect.hit')
      .click();
    assert.deepEqual((await posted()).at(-1), { type: 'selectRound', round: pick.peak });
    const detail: RoundDetail = {
      round: pick.peak,
      label: EVIL,
      model: 'claude-opus-4-5',
      costUsd: 0.5,
      items: [
        {
          kind: 'prompt',
          line: 10,
          tool: null,
          text: EVIL,
          chars: EVIL.length,
          truncated: false,
          estimate: 40,
          isError: false,
        },
        {
          kind: 'toolCall',
          line: 11,
          tool: EVIL,
          text: '{"file_path": "/etc/passwd"}',
          chars: 28,
          truncated: false,
          estimate: 9,
          isError: false,
        },
        {
          kind: 'toolResult',
          line: 12,
          tool: 'Read',
          text: EVIL,
          chars: 90_000,
          truncated: true,
          estimate: 30_000,
          isError: true,
        },
      ],
    };
    await post({ type: 'round', detail });
    await page.waitForSelector('ol.items > li');
    assert.equal(await page.locator('ol.items > li').count(), 3);
    assert.equal(await page.locator('ol.items > li').first().locator('pre').textContent(), EVIL);
    assert.equal(await page.locator('ol.items > li').nth(2).locator('details').count(), 1, 'results are collapsed');
    assert.match((await page.locator('ol.items > li').nth(2).locator('summary').textContent()) ?? '', /90,000 chars/);
    await post({ type: 'exact', round: pick.peak, counts: [41, 10, null] });
    await page.waitForSelector('.exact');
    const exact = await page.locator('.exact').allTextContents();
    // A Claude session: o200k is another vendor's tokenizer, said as a count, not as "exact", with why in its tooltip.
    assert.deepEqual(exact, [' · o200k count: 41', ' · o200k count: 10', ' · o200k count: –']);
    assert.match(
      (await page.locator('.exact').first().getAttribute('title'))!,
      /OpenAI's tokenizer: a close count of this text, not Claude's own/,
    );
    assert.equal(await get<unknown>('window.__pwned'), undefined);
  });

  it("a round's panel says the Rounds tree's figure for it (usage where the file records it), the bars' estimate labelled beside it", async () => {
    const page = b!.page;
    const drawn = await bars();
    const report = (await inspectFile(fixture('with-compactions.jsonl'))).report;
    // A round whose usage and whose estimate by category differ (they did: the panel said the estimate alone).
    const k = drawn.findIndex((bar) => {
      const tree = report.rounds[bar.peak].cumulative;
      return tree.source === 'usage' && Math.round(stackTotal(state.rounds[bar.peak])) !== tree.tokens;
    });
    assert.ok(k >= 0, 'a round with usage whose estimate differs');
    const r = state.rounds[drawn[k].peak];
    const tree = report.rounds[r.round].cumulative;
    await page.locator('g.bar').nth(k).locator('rect.hit').click();
    await page.waitForSelector(`#detail-h:has-text("Round #${r.round} ")`);
    const text = (await page.locator('#detail p.muted').first().textContent()) ?? '';
    const n = (v: number) => Math.round(v).toLocaleString('en-US');
    assert.ok(
      text.includes(`context after it ${n(tree.tokens)} tokens (usage); estimate by category ≈${n(stackTotal(r))}`),
      text,
    );
  });

  it('dragging the target line posts the new target; the keyboard moves it too', async () => {
    const page = b!.page;
    const grip = page.locator('#target rect.grip');
    const box = (await grip.boundingBox())!;
    const x = box.x + box.width / 2;
    const y = box.y + box.height / 2;
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x, y - 40, { steps: 5 });
    await page.mouse.up();
    const last = (await posted()).at(-1)!;
    assert.equal(last.type, 'setTarget');
    assert.ok(
      (last.tokens as number) > state.targetTokens,
      `dragged up: ${String(last.tokens)} > ${state.targetTokens}`,
    );
    assert.equal(await page.getAttribute('#target', 'data-tokens'), String(last.tokens));
    await page.locator('#target').focus();
    await page.keyboard.press('ArrowDown');
    const want = { type: 'setTarget', tokens: (last.tokens as number) - 1000 };
    for (let i = 0; i < 50 && JSON.stringify((await posted()).at(-1)) !== JSON.stringify(want); i++)
      await page.waitForTimeout(100);
    assert.deepEqual((await posted()).at(-1), want);
  });

  it('replans while the target is held: throttled targets go out during the drag, a state arriving meanwhile keeps the line under the pointer', async () => {
    const page = b!.page;
    // Start from the state's own target: the test before left its last target on the line, and the line stops at the
    // context now (the reachable range), which the upward drag below must not reach.
    const previous = (await posted()).filter((m) => m.type === 'setTarget').at(-1);
    if (previous) await post({ type: 'state', state: { ...state, targetTokens: previous.tokens } });
    await post({ type: 'state', state });
    await page.waitForFunction(`document.getElementById('target')?.dataset.tokens === '${state.targetTokens}'`);
    const grip = page.locator('#target rect.grip');
    const box = (await grip.boundingBox())!;
    const x = box.x + box.width / 2;
    let y = box.y + box.height / 2;
    const before = (await posted()).length;
    await page.mouse.move(x, y);
    await page.mouse.down();
    for (let i = 0; i < 6; i++) {
      y -= 8;
      await page.mouse.move(x, y);
      await page.waitForTimeout(200);
    }
    const during = (await posted()).slice(before).filter((m) => m.type === 'setTarget');
    assert.ok(during.length >= 2, `targets sent while held: ${during.length}`);
    // The host answers with a plan for an earlier target while the pointer still holds the line.
    await post({ type: 'state', state: { ...state, targetTokens: during[0].tokens as number } });
    const held = Number(await page.getAttribute('#target', 'data-tokens'));
    assert.equal(held, during.at(-1)!.tokens, 'the line stays where the pointer put it');
    y -= 8;
    await page.mouse.move(x, y);
    await page.mouse.up();
    const last = (await posted()).at(-1)!;
    assert.equal(last.type, 'setTarget');
    assert.ok((last.tokens as number) > held, 'the drag went on after the redraw');
    const sentWhileHeld = (await posted()).slice(before).filter((m) => m.type === 'setTarget').length;
    assert.ok(sentWhileHeld <= 10, `throttled: ${sentWhileHeld} targets for 7 moves over ~1.4 s`);
    // The plan for the final target arrives: the line is the state's again.
    await post({ type: 'state', state: { ...state, targetTokens: last.tokens as number } });
    assert.equal(await page.getAttribute('#target', 'data-tokens'), String(last.tokens));
    await post({ type: 'state', state });
  });

  it('the largest items offer one-click steering: drop the round, replace a tool result by its preview', async () => {
    const page = b!.page;
    const rows = page.locator('#largest-table tbody tr');
    assert.equal(await rows.count(), state.largest.length);
    const k = state.largest.findIndex((x) => x.kind === 'toolResult' && x.toolUseId);
    assert.ok(k >= 0, 'a tool result among the largest items');
    await rows.nth(k).locator('button[data-action="drop-round"]').click();
    assert.deepEqual((await posted()).at(-1), { type: 'dropRound', round: state.largest[k].round });
    await rows.nth(k).locator('button[data-action="preview-result"]').click();
    assert.deepEqual((await posted()).at(-1), { type: 'previewResult', toolUseId: state.largest[k].toolUseId });
    const nonResults = state.largest.map((x, i) => [x, i] as const).filter(([x]) => x.kind !== 'toolResult');
    for (const [, i] of nonResults)
      assert.equal(await rows.nth(i).locator('button[data-action="preview-result"]').count(), 0);
  });

  it('is keyboard navigable: arrows select bars, + and - zoom', async () => {
    const page = b!.page;
    await page.locator('#map-chart').focus();
    await page.keyboard.press('Home');
    assert.deepEqual((await posted()).at(-1), { type: 'selectRound', round: (await bars())[0].peak });
    await page.keyboard.press('ArrowRight');
    assert.deepEqual((await posted()).at(-1), { type: 'selectRound', round: (await bars())[1].peak });
    // A pan or zoom redraws the chart alone: the tables below it are the same nodes (a pan does not rebuild the page).
    await page.evaluate(() => {
      (window as unknown as { __tools: Element | null }).__tools = document.getElementById('tools-table');
    });
    const before = await page.textContent('#range');
    await page.keyboard.press('+');
    assert.notEqual(await page.textContent('#range'), before);
    await page.keyboard.press('-');
    assert.equal(await page.textContent('#range'), before);
    assert.equal(
      await page.evaluate(
        () => (window as unknown as { __tools: Element | null }).__tools === document.getElementById('tools-table'),
      ),
      true,
      'the tools table was not rebuilt',
    );
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'map-chart', 'the chart keeps the focus');
  });

  it("the Cost section marks assumed rates, shows the agent's own figure and every note beside the cost", async () => {
    await post({
      type: 'state',
      state: {
        ...state,
        cost: {
          ...state.cost,
          assumed: true,
          agentUsd: 1.26,
          notes: ['first note about the rates.', 'second note about the agent.'],
        },
      },
    });
    await b!.page.waitForFunction(`document.getElementById('cost-agent') !== null`, undefined, { timeout: 15_000 });
    assert.match(
      await get<string>(`document.getElementById('cost-total').textContent`),
      /^\$[\d.]+ \(assumed prices\) over /,
    );
    assert.equal(
      await get<string>(`document.getElementById('cost-agent').textContent`),
      "The agent's own figure (its cost-state records): $1.26.",
    );
    const warnings = await get<string[]>(
      `[...document.querySelectorAll('[aria-labelledby="cost-h"] p.warning')].map((p) => p.textContent)`,
    );
    assert.deepEqual(warnings, ['first note about the rates.', 'second note about the agent.']);
    assert.equal(
      await get<string>(`document.getElementById('cost-next-turn').textContent`),
      state.cost.nextTurn,
      'the cache state and the next turn as the host computed them',
    );
    assert.match(state.cost.nextTurn, /^Cost: next turn as it is \$[\d.]+ \(cache expired \d+ days ago\), compacted/);
    await post({ type: 'state', state });
    await b!.page.waitForFunction(`document.getElementById('cost-agent') === null`, undefined, { timeout: 15_000 });
  });

  it('shows hostile transcript text as characters and runs none of it', async () => {
    const page = b!.page;
    assert.equal(await page.locator('#tools-table tbody tr').first().locator('td').first().textContent(), EVIL);
    assert.equal(await get<unknown>('window.__pwned'), undefined);
    for (const sel of ['#app img', '#app script', '#app b', '#app a[href^="javascript:"]', '#app style'])
      assert.equal(await page.locator(sel).count(), 0, sel);
    assert.equal(await get<string>('getComputedStyle(document.body).display'), 'block');
  });

  it('a Codex map: its own window and threshold, the floor drawn, the target held within the reachable range, its label haloed; a read-only map offers no target', async () => {
    const page = b!.page;
    const codexFile = join(sharedFixtures, 'codex', 'rollout-0.142.jsonl');
    const analysis = await inspectFile(codexFile, { subagents: false, appendable: false });
    const codex = buildMapState(
      codexFile,
      analysis,
      await planCompaction(analysis, { targetTokens: 100_000 }),
      undefined,
      undefined,
      undefined,
      undefined,
      await smallestReachableTarget(analysis, { targetTokens: 100_000 }),
    );
    await post({ type: 'state', state: codex });
    await page.waitForFunction(`document.querySelector('.file')?.textContent === 'rollout-0.142.jsonl'`);
    assert.match((await page.textContent('.summary'))!, /tokens of 258k ·/);
    assert.match(
      (await page.textContent('#map-limits'))!,
      /window 258,400 \(recorded by Codex \(model_context_window 258,400\)\); auto-compacts near 233k/,
    );
    assert.match(
      (await page.textContent('#plan-summary'))!,
      /below the 100,000 target: kept verbatim capped at 40k by Keep Recent Tokens/,
    );
    assert.equal(await page.locator('svg.chart line.ref-floor').count(), 1, 'the floor is drawn');
    // The label reads over the bars: a halo (a stroke of the background painted under the fill).
    const halo = await page.locator('#target text.target-label').evaluate((t) => {
      const s = getComputedStyle(t);
      return { paintOrder: s.paintOrder, stroke: s.stroke, width: s.strokeWidth };
    });
    assert.match(halo.paintOrder, /^stroke/);
    assert.notEqual(halo.stroke, 'none');
    assert.equal(halo.width, '4px');
    // Dragged far above the context, the line stops at the context now (any more plans nothing); far below, at the floor.
    const plot = (await page.locator('svg.chart rect.frame').boundingBox())!;
    const drag = async (toY: number) => {
      const grip = (await page.locator('#target rect.grip').boundingBox())!;
      await page.mouse.move(grip.x + grip.width / 2, grip.y + grip.height / 2);
      await page.mouse.down();
      await page.mouse.move(grip.x + grip.width / 2, toY, { steps: 4 });
      await page.mouse.up();
      return {
        tokens: Number(await page.getAttribute('#target', 'data-tokens')),
        label: (await page.textContent('#target text.target-label'))!,
      };
    };
    const top = await drag(plot.y + 2);
    assert.equal(top.tokens, Math.ceil(codex.reachable!.max / 1000) * 1000);
    assert.match(top.label, /\(the context now: nothing to compact\)$/);
    assert.equal((await posted()).filter((m) => m.type === 'setTarget').at(-1)!.tokens, top.tokens);
    const bottom = await drag(plot.y + plot.height - 2);
    assert.equal(bottom.tokens, Math.ceil(codex.reachable!.floor / 1000) * 1000);
    assert.match(bottom.label, /\(the floor\)$/);
    assert.equal(await page.getAttribute('#target', 'aria-valuemin'), String(bottom.tokens));
    await page.locator('#target').focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(
      Number(await page.getAttribute('#target', 'data-tokens')),
      bottom.tokens,
      'the keyboard stops at the floor too',
    );

    const geminiFile = join(sharedFixtures, 'gemini-cli', 'session-tools.json');
    const gemini = buildMapState(
      geminiFile,
      await inspectFile(geminiFile, { subagents: false, appendable: false }),
      null,
      900_000,
    );
    await post({ type: 'state', state: gemini });
    await page.waitForFunction(`document.querySelector('.file')?.textContent === 'session-tools.json'`);
    assert.equal(await page.locator('#target').count(), 0, 'no target to drag on a read-only map');
    assert.match((await page.textContent('#plan-summary'))!, /^Read-only: /);
    assert.match((await page.textContent('#map-limits'))!, /auto-compaction threshold unknown/);
    await post({ type: 'state', state });
    await page.waitForFunction(`document.querySelector('.file')?.textContent === 'with-compactions.jsonl'`);
  });

  it('buckets 30,000 rounds into a few hundred bars and draws them quickly', async () => {
    const big: MapState = { ...state, file: '/big.jsonl', fileName: 'big.jsonl', rounds: [] };
    const proto = state.rounds[state.rounds.length - 1];
    for (let i = 0; i < 30_000; i++)
      big.rounds.push({
        ...proto,
        round: i,
        boundary: i % 10_000 === 0,
        usage: i % 3 ? null : 1000 + (i % 500),
        stack: proto.stack.map((v, k) => (k === 0 ? v : (v * ((i % 97) + 1)) / 97)),
      });
    await post({ type: 'state', state: big });
    for (let i = 0; i < 100 && (await b!.page.textContent('.file')) !== 'big.jsonl'; i++)
      await b!.page.waitForTimeout(100);
    const n = await b!.page.locator('g.bar').count();
    assert.ok(n >= 100 && n <= 300, `${n} bars`);
    const drawMs = Number(await get<string>('document.body.dataset.drawMs'));
    assert.ok(drawMs < 1000, `drawn in ${drawMs} ms`);
  });

  it('ignores malformed host messages; raised no CSP violation', async () => {
    const page = b!.page;
    await post({ type: 'state', state: { ...state, rounds: [{ nope: 1 }] } });
    await post({ type: 'exact', round: -1, counts: ['x'] });
    await page.waitForTimeout(50);
    assert.equal(await page.textContent('.file'), 'big.jsonl', 'a bad message changes nothing');
    assert.deepEqual(await get<string[]>('window.__violations'), []);
    assert.deepEqual(violations, []);
  });
});
