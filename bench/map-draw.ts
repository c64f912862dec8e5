// How fast the Context Map draws for the ~100 MB bench transcript, in the real VS Code
// (code-server + headless Chromium, as the UI tests run it). Writes the "## Context Map drawing"
// section of bench/RESULTS.md (bench.ts keeps that section when it rewrites the file).
//
//   flock /work/wt/.heavy.lock node --import tsx bench/map-draw.ts     (after node scripts/build.mjs)
//
// Measured: the host's work (inspect, then the map's state: breakdowns, cost, stacks) in this
// process; in the workbench, from running "Open Context Map" on the inspected file to its bars
// being on screen, the webview's own drawing time of that first picture, and its drawing time
// for each of 10 pans (Page Down) and 3 zooms.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { inspectFile } from '../src/core/inspect';
import { buildMapState } from '../src/extension/model/mapState';
import { Workbench } from '../test/support/workbench';
import { generateLarge } from './generate-large';
import { writeSection } from './results';

const ROOT = join(__dirname, '..');
const RESULTS = join(ROOT, 'bench', 'RESULTS.md');
const HEADING = '## Context Map drawing';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`);

/** Waits for the map's bars; `seen` gets the time the map's page first had its HTML (the #app element). */
async function mapFrame(wb: Workbench, timeoutMs: number, seen: { scriptAt?: number }): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const f of wb.page.frames()) {
      if (f === wb.page.mainFrame()) continue;
      const [chart, bars] = await f
        .evaluate(() => [!!document.getElementById('app'), document.querySelectorAll('g.bar').length > 0])
        .catch(() => [false, false]);
      if (chart && seen.scriptAt === undefined) seen.scriptAt = performance.now();
      if (bars) return f;
    }
    if (Date.now() > deadline) throw new Error('no Context Map drawn');
    await wb.page.waitForTimeout(20);
  }
}

/** Runs Open Context Map, timed from choosing it in the palette (typing its name is the user's time, not the map's). */
async function openMapTimed(wb: Workbench): Promise<{ frame: Frame; opened: number; pageShown: number | undefined }> {
  await wb.openCommandPalette('Agent Compactor: Open Context Map');
  const openStart = performance.now();
  await wb.page.keyboard.press('Enter');
  const seen: { scriptAt?: number } = {};
  const frame = await mapFrame(wb, 60_000, seen);
  return {
    frame,
    opened: performance.now() - openStart,
    pageShown: seen.scriptAt === undefined ? undefined : seen.scriptAt - openStart,
  };
}

async function drawMs(frame: Frame, before: string | undefined): Promise<number> {
  for (let i = 0; i < 500; i++) {
    const v = await frame.evaluate(() => document.body.dataset.drawMs);
    if (v !== undefined && v !== before) return Number(v);
    await frame.waitForTimeout(10);
  }
  throw new Error('the map did not redraw');
}

async function main(): Promise<void> {
  const file = join(ROOT, 'bench', 'work', 'large.jsonl');
  const gen = await generateLarge(file, 100e6);
  const t0 = performance.now();
  const analysis = await inspectFile(file);
  const t1 = performance.now();
  const state = buildMapState(file, analysis, null, undefined);
  const t2 = performance.now();
  const stateBytes = JSON.stringify(state).length;

  const wb = await Workbench.start({
    viewport: { width: 1400, height: 950 },
    workspaceFiles: { 'large.jsonl': readFileSync(file), 'small.jsonl': { copyFrom: 'claude-code/plan-mode.jsonl' } },
  });
  try {
    // The extension activates on a .jsonl text document; a 100 MB file gets no text editor, so a small one first.
    await wb.openFileFromExplorer('small.jsonl');
    await wb.page
      .locator('.statusbar-item', { hasText: /context ~?[\d,]+ · [\d,]+ rounds?/ })
      .first()
      .waitFor({ state: 'visible', timeout: 60_000 });
    // The same-run baseline: the map of a small session (what a webview panel costs in this workbench), opened
    // twice: the first webview of a window also starts the workbench's webview machinery.
    const cold = await openMapTimed(wb);
    await wb.closeAllEditors();
    await wb.openFileFromExplorer('small.jsonl');
    const small = await openMapTimed(wb);
    await wb.closeAllEditors();
    // A 100 MB file: VS Code may not render it in a text editor; the extension follows the tab either way.
    // Quick Open (Ctrl+P) by name: the Explorer's rows re-render while the first transcript is read.
    await wb.page.keyboard.press('Control+P');
    const quick = wb.page.locator('.quick-input-widget input.input');
    await quick.waitFor({ state: 'visible', timeout: 15_000 });
    await quick.fill('large.jsonl');
    await wb.page
      .locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'large.jsonl' })
      .first()
      .waitFor({ state: 'visible', timeout: 30_000 });
    const loadStart = performance.now();
    await wb.page.keyboard.press('Enter');
    await wb.page
      .locator('.statusbar-item', { hasText: /context ~?[\d,]+ · \d{1,3},\d{3} rounds/ })
      .first()
      .waitFor({ state: 'visible', timeout: 180_000 })
      .catch(async (err: Error) => {
        console.error(`the transcript was not read: screenshot ${await wb.screenshot('map-bench-failure')}`);
        throw err;
      });
    const loaded = performance.now() - loadStart;
    const { frame, opened, pageShown } = await openMapTimed(wb);
    const first = await drawMs(frame, undefined);
    const bars = await frame.locator('g.bar').count();
    await frame.locator('#map-chart').focus();
    const pans: number[] = [];
    let last = String(first);
    for (let i = 0; i < 10; i++) {
      await frame.locator('#map-chart').press(i === 0 ? '+' : 'PageDown');
      const d = await drawMs(frame, last);
      last = String(d);
      pans.push(d);
    }
    const zooms: number[] = [];
    for (let i = 0; i < 3; i++) {
      await frame.locator('#map-chart').press('-');
      const d = await drawMs(frame, last);
      last = String(d);
      zooms.push(d);
    }
    const section = [
      HEADING,
      '',
      `Written by \`node --import tsx bench/map-draw.ts\` (${new Date().toISOString()}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)}), not by \`npm run bench\`. ` +
        `The same ${(gen.bytes / 1e6).toFixed(1)} MB file (${state.rounds.length.toLocaleString('en-US')} rounds, ${state.series.length} stacked series), in code-server ${'4.139.1'} with headless Chromium.`,
      '',
      '| step | time |',
      '|---|---|',
      `| host: inspect (for reference) | ${ms(t1 - t0)} |`,
      `| host: the map's state (breakdowns, cost, stacks; ${(stateBytes / 1e6).toFixed(1)} MB of JSON) | ${ms(t2 - t1)} |`,
      `| workbench: the transcript read (status bar shows it) after opening it | ${ms(loaded)} |`,
      `| workbench, small session (plan-mode.jsonl), the window's first webview: "Open Context Map" chosen in the palette to bars on screen | ${ms(cold.opened)} |`,
      `| workbench, small session (plan-mode.jsonl), again: "Open Context Map" chosen in the palette to the map's page shown / to bars on screen | ${small.pageShown === undefined ? 'not seen' : ms(small.pageShown)} / ${ms(small.opened)} |`,
      `| workbench, 100 MB: "Open Context Map" chosen in the palette to the map's page shown (panel, webview, its HTML) | ${pageShown === undefined ? 'not seen' : ms(pageShown)} |`,
      `| workbench, 100 MB: "Open Context Map" chosen in the palette to bars on screen (panel, webview, state message, drawing) | **${ms(opened)}** (${(opened / small.opened).toFixed(2)}× the small session's) |`,
      `| webview: drawing the first picture (${bars} bars) | ${ms(first)} |`,
      `| webview: drawing after a pan or zoom (median / max of ${pans.length + zooms.length}) | ${ms(median([...pans, ...zooms]))} / ${ms(Math.max(...pans, ...zooms))} |`,
      '',
      `The map's own part for 100 MB (its bars on screen, less the same workbench's time for a small session's map): ${ms(opened - small.opened)}. ` +
        "The rest is the workbench's cost of any webview panel in code-server (a page in an iframe behind a service worker); " +
        "the map's state is built while that page loads, after its HTML has gone out.",
      '',
      'Bars are buckets of rounds (the largest context of each bucket is drawn), so a drawing is a few hundred SVG groups whatever the length of the session.',
      '',
    ].join('\n');
    writeSection(RESULTS, HEADING, section);
    process.stdout.write(section + '\n');
  } finally {
    await wb.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
