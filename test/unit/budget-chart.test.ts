// The Budget Preview's chart geometry at the widths it is drawn at: a side-by-side panel (~330 px) and a wide one
// (~900 px). Ticks are few enough to read and never overlap, the target / floor / cut labels lie inside the plot and
// clear of each other, the floor (system prompt and tools) sits where it belongs, and the x axis spans the context
// now by default, the whole history on request.
import { strict as assert } from 'node:assert';
import { inspectFile } from '../../src/core/inspect';
import { planCompaction } from '../../src/core/compact/plan';
import { contextNow } from '../../src/core/context';
import { buildBudgetState } from '../../src/extension/model/budget';
import {
  boxInside,
  boxesOverlap,
  chartGeometry,
  chartLayout,
  type Box,
  type ChartGeometry,
} from '../../src/webview/chart';
import { parseHostToWebview, type ChartData, type ChartPoint } from '../../src/webview/protocol';
import { fixture } from '../support/fixtures';

/** The shape the issue describes: 113 rounds of old history (up to ~167k) before the last compact boundary, 23 in context, the first 3 of them summarized. */
function historyChart(over: Partial<ChartData> = {}): ChartData {
  const points: ChartPoint[] = [];
  for (let i = 0; i < 136; i++) {
    const inContext = i >= 113;
    const value = inContext ? 45_000 + (i - 113) * 2_700 : 20_000 + (i % 57) * 2_600;
    points.push({
      round: i,
      usage: i % 3 ? value : null,
      estimate: value + 300,
      mark: i >= 113 && i <= 115 ? 'summarize' : 'keep',
      boundary: i === 57 || i === 113,
      inContext,
    });
  }
  return {
    points,
    targetTokens: 60_000,
    floorTokens: 41_803,
    cutAfterRound: 115,
    preTokens: 107_560,
    postTokens: 16_042,
    ...over,
  };
}

/** `n` rounds all in context, a cut after round `cut` (or none). */
function simpleChart(n: number, cut: number | null, targetTokens: number, floorTokens: number | null): ChartData {
  const points: ChartPoint[] = Array.from({ length: n }, (_, i) => ({
    round: i,
    usage: 10_000 + i * 500,
    estimate: 10_000 + i * 500,
    mark: cut !== null && i <= cut ? 'summarize' : 'keep',
    boundary: false,
    inContext: true,
  }));
  return { points, targetTokens, floorTokens, cutAfterRound: cut, preTokens: 1, postTokens: 1 };
}

const chartBox = (g: ChartGeometry): Box => ({ x: 0, y: 0, width: g.width, height: g.height });

function assertNoOverlap(boxes: { name: string; box: Box }[]): void {
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++)
      assert.ok(
        !boxesOverlap(boxes[i].box, boxes[j].box),
        `${boxes[i].name} overlaps ${boxes[j].name}: ${JSON.stringify([boxes[i].box, boxes[j].box])}`,
      );
  }
}

describe('budget chart: readable at the width it is drawn at', () => {
  for (const width of [330, 900]) {
    it(`${width} px: drawn at its own size, few short tick labels, none overlapping, all inside the chart`, () => {
      const layout = chartLayout(width);
      const g = chartGeometry(historyChart(), layout);
      assert.equal(g.viewBox, `0 0 ${width} ${layout.height}`, 'one SVG unit is one pixel: labels are not scaled down');
      assert.ok(layout.height >= 200 && layout.height <= 300);
      assert.ok(g.yTicks.length >= 2 && g.yTicks.length <= 6, `y ticks: ${g.yTicks.map((t) => t.label).join(' ')}`);
      for (const t of g.yTicks) assert.match(t.label, /^\d+(\.\d)?[kM]?$/, 'abbreviated (40k, 1.5M)');
      assert.ok(g.yTicks.some((t) => /k$/.test(t.label)));
      for (let i = 1; i < g.yTicks.length; i++)
        assert.ok(g.yTicks[i - 1].pos - g.yTicks[i].pos >= 2 * layout.fontSize, 'a line of text between y labels');
      assert.ok(g.xTicks.length >= 2, `x ticks: ${g.xTicks.map((t) => t.label).join(' ')}`);
      for (const t of g.xTicks) assert.match(t.label, /^#\d+$/);
      const all = [
        ...g.yTicks.map((t) => ({ name: `y ${t.label}`, box: t.box })),
        ...g.xTicks.map((t) => ({ name: `x ${t.label}`, box: t.box })),
      ];
      for (const t of all)
        assert.ok(boxInside(t.box, chartBox(g)), `${t.name} inside the chart: ${JSON.stringify(t.box)}`);
      assertNoOverlap(all);
      // X labels sit at round numbers that are multiples of one step (1, 2, 5, 10, …).
      const rounds = g.xTicks.map((t) => Number(t.label.slice(1)));
      const step = rounds[1] - rounds[0];
      assert.ok([1, 2, 5, 10, 20, 50].includes(step), `step ${step}`);
      for (const r of rounds) assert.equal(r % step, 0);
    });
  }

  it('shows fewer x labels in a narrow panel than in a wide one, with a gap between neighbours', () => {
    const narrow = chartGeometry(historyChart(), chartLayout(330, 'history'));
    const wide = chartGeometry(historyChart(), chartLayout(900, 'history'));
    assert.ok(narrow.xTicks.length < wide.xTicks.length, `${narrow.xTicks.length} < ${wide.xTicks.length}`);
    for (const g of [narrow, wide]) {
      for (let i = 1; i < g.xTicks.length; i++)
        assert.ok(g.xTicks[i].box.x - (g.xTicks[i - 1].box.x + g.xTicks[i - 1].box.width) >= 8, 'gap between x labels');
    }
  });

  it('keeps the target, floor and cut labels inside the plot and clear of each other, wherever the lines fall', () => {
    let checked = 0;
    for (const width of [200, 260, 330, 480, 640, 900, 1200]) {
      for (const n of [1, 2, 5, 23, 136, 400]) {
        for (const cut of [...new Set([0, 1, Math.floor(n / 2), n - 2, n - 1])].filter((c) => c >= 0 && c < n)) {
          const peak = 10_000 + (n - 1) * 500;
          for (const [target, floor] of [
            [60_000, 41_803],
            [peak, null],
            [peak * 2, peak * 2],
            [5_000, 4_000],
            [peak, peak * 0.98],
          ] as [number, number | null][]) {
            const g = chartGeometry(simpleChart(n, cut, target, floor), chartLayout(width));
            const where = `width ${width}, ${n} rounds, cut after #${cut}, target ${target}, floor ${floor}`;
            assert.deepEqual(
              g.labels.map((l) => l.kind),
              ['target', ...(floor !== null ? ['floor'] : []), 'cut'],
              where,
            );
            for (const l of g.labels)
              assert.ok(
                boxInside(l.box, g.plot),
                `${l.kind} label inside the plot (${where}): ${JSON.stringify(l.box)} in ${JSON.stringify(g.plot)}`,
              );
            assertNoOverlap(g.labels.map((l) => ({ name: `${l.kind} (${where})`, box: l.box })));
            // Each label sits beside its own line.
            const cutLabel = g.labels.find((l) => l.kind === 'cut')!;
            assert.ok(
              Math.min(Math.abs(cutLabel.box.x - g.cutX!), Math.abs(cutLabel.box.x + cutLabel.box.width - g.cutX!)) <=
                5,
              `cut label beside the cut (${where})`,
            );
            const targetLabel = g.labels.find((l) => l.kind === 'target')!;
            assert.ok(
              targetLabel.box.y <= g.targetY! + 5 && targetLabel.box.y + targetLabel.box.height >= g.targetY! - 5,
              `target label at its line (${where})`,
            );
            checked++;
          }
        }
      }
    }
    assert.ok(checked > 500, `${checked} layouts checked`);
  });

  it('moves the cut label to the left of the line when the cut is at the right edge', () => {
    for (const width of [330, 900]) {
      const g = chartGeometry(simpleChart(10, 9, 60_000, 41_803), chartLayout(width));
      assert.ok(Math.abs(g.cutX! - (g.plot.x + g.plot.width)) < 1e-9);
      const cut = g.labels.find((l) => l.kind === 'cut')!;
      assert.equal(cut.anchor, 'end', `at ${width} px`);
      assert.ok(cut.box.x + cut.box.width <= g.cutX!);
      assert.ok(boxInside(cut.box, g.plot));
    }
  });

  it('draws the floor (system prompt and tools) at its height, labelled, and scales to include it', () => {
    const data = historyChart();
    for (const width of [330, 900]) {
      const g = chartGeometry(data, chartLayout(width));
      const yOf = (v: number) => g.plot.y + g.plot.height - (v / g.maxY) * g.plot.height;
      assert.ok(g.floorY !== null);
      assert.ok(Math.abs(g.floorY - yOf(41_803)) < 1e-9);
      assert.ok(g.floorY > g.targetY!, 'below the 60k target');
      const label = g.labels.find((l) => l.kind === 'floor')!;
      assert.match(label.text, /^(system prompt \+ tools|prompt \+ tools|floor) 41\.8k$/);
      if (width === 900) assert.equal(label.text, 'system prompt + tools 41.8k');
    }
    // A floor above every round (a tiny transcript under a large system prompt) is still on the chart.
    const g = chartGeometry(simpleChart(5, null, 20_000, 90_000), chartLayout(330));
    assert.ok(g.maxY >= 90_000);
    assert.ok(g.floorY! >= g.plot.y && g.floorY! < g.targetY!);
    // Unknown (no usage in the file): no line, no label.
    const none = chartGeometry(historyChart({ floorTokens: null }), chartLayout(330));
    assert.equal(none.floorY, null);
    assert.ok(!none.labels.some((l) => l.kind === 'floor'));
  });

  it('spans the rounds in context by default, the whole history on request', () => {
    const data = historyChart();
    for (const width of [330, 900]) {
      const active = chartGeometry(data, chartLayout(width));
      const history = chartGeometry(data, chartLayout(width, 'history'));
      assert.equal(active.range, 'active');
      assert.equal(active.hiddenRounds, 113);
      assert.deepEqual([active.firstRound, active.lastRound], [113, 135]);
      assert.equal(history.range, 'history');
      assert.equal(history.hiddenRounds, 0);
      assert.deepEqual([history.firstRound, history.lastRound], [0, 135]);
      // The rounds about to be summarized: 3 of 23 slots, not 3 of 136.
      assert.deepEqual(
        active.bands.map((b) => b.mark),
        ['summarize'],
      );
      assert.ok(Math.abs(active.bands[0].width - (3 * active.plot.width) / 23) < 1e-9);
      assert.ok(Math.abs(history.bands[0].width - (3 * history.plot.width) / 136) < 1e-9);
      assert.ok(Math.abs(active.cutX! - (active.plot.x + (3 * active.plot.width) / 23)) < 1e-9);
      // The y axis follows what is shown: the old history peaked higher.
      assert.ok(active.maxY < history.maxY, `${active.maxY} < ${history.maxY}`);
      // The boundary at the start of the context is the chart's left edge, not a line on it.
      assert.deepEqual(active.boundaryXs, []);
      assert.equal(history.boundaryXs.length, 2);
      assert.equal(active.usagePoints[0].round >= 113, true);
    }
    // Without history before the context there is nothing to hide.
    const plain = chartGeometry(simpleChart(12, 3, 60_000, null), chartLayout(330));
    assert.equal(plain.range, 'history');
    assert.equal(plain.hiddenRounds, 0);
    assert.equal(plain.firstRound, 0);
  });

  it('a real session with old history: floor from contextNow, survives validation', async () => {
    const analysis = await inspectFile(fixture('with-compactions.jsonl'));
    const plan = await planCompaction(analysis, { targetTokens: 60_000 });
    const state = buildBudgetState(fixture('with-compactions.jsonl'), analysis, plan);
    const context = contextNow(analysis.report);
    assert.ok(context.overheadKnown);
    assert.equal(state.chart.floorTokens, Math.round(context.overhead));
    const msg = parseHostToWebview(JSON.parse(JSON.stringify({ type: 'state', state })));
    assert.ok(msg && msg.type === 'state');
    assert.equal(msg.state.chart.floorTokens, state.chart.floorTokens);
    for (const bad of ['40k', -1, undefined])
      assert.equal(
        parseHostToWebview({ type: 'state', state: { ...state, chart: { ...state.chart, floorTokens: bad } } }),
        null,
        String(bad),
      );
    const firstActive = state.chart.points.findIndex((p) => p.inContext);
    assert.ok(firstActive > 0, 'history before the context');
    const g = chartGeometry(state.chart, chartLayout(330));
    assert.equal(g.hiddenRounds, firstActive);
    assert.ok(g.cutX !== null, 'the cut is in the context now');
    for (const l of g.labels) assert.ok(boxInside(l.box, g.plot), l.kind);
  });
});
