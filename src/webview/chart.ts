// Geometry of the context-size chart: pure numbers and SVG path strings, no DOM, so it is
// unit-tested in Node and drawn in the webview with createElementNS.
//
// The chart is laid out for the pixel width it is drawn at (one SVG unit = one CSS pixel), not
// scaled from a fixed drawing: scaled down into a side-by-side panel, 11 px labels became 5 px.
// So the number of ticks follows the room there is, and every label is placed by its measured
// width inside the plot, clear of the others.
import type { ChartData, ChartPoint } from './protocol';

/** Which rounds the x axis spans: those in the context now, or the whole file (history before the last compact boundary too). */
export type XRange = 'active' | 'history';

export interface ChartLayout {
  /** Width and height in CSS pixels (also the viewBox). */
  width: number;
  height: number;
  range: XRange;
  /** Font size of ticks and labels, px. */
  fontSize: number;
  /** Width in px of a text at `fontSize` (the webview measures with the real font; Node estimates). */
  measure: (text: string) => number;
}

/** A conservative width estimate: digits and lower-case letters of common UI fonts are under 0.64 em. */
export function estimateTextWidth(fontSize: number): (text: string) => number {
  return (text) => text.length * fontSize * 0.64;
}

export const CHART_FONT_SIZE = 11;

/** The layout for a chart `width` px wide: its height follows the width within bounds, so a narrow panel still gets a usable plot. */
export function chartLayout(
  width: number,
  range: XRange = 'active',
  measure?: (text: string) => number,
  fontSize = CHART_FONT_SIZE,
): ChartLayout {
  const w = Math.max(160, Math.round(width));
  const height = Math.round(Math.min(300, Math.max(200, w * 0.4)));
  return { width: w, height, range, fontSize, measure: measure ?? estimateTextWidth(fontSize) };
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Tick {
  pos: number;
  label: string;
  /** Where the label's text sits (its measured extent). */
  box: Box;
}

export type LabelKind = 'target' | 'floor' | 'cut';

export interface PlacedLabel {
  kind: LabelKind;
  text: string;
  /** Text anchor point (SVG x, baseline y). */
  x: number;
  y: number;
  anchor: 'start' | 'end';
  box: Box;
}

export interface ChartGeometry {
  viewBox: string;
  width: number;
  height: number;
  plot: Box;
  /** The range drawn: 'history' when asked for, or when no round lies before the context. */
  range: XRange;
  /** Rounds of the file not drawn (history before the last compact boundary, in the 'active' range). */
  hiddenRounds: number;
  /** First and last round drawn (null when there are none). */
  firstRound: number | null;
  lastRound: number | null;
  /** SVG path of the usage line; gaps (rounds without usage, boundaries) start new sub-paths. */
  usagePath: string;
  estimatePath: string;
  /** Points of the usage line (for markers / hit targets). */
  usagePoints: { x: number; y: number; round: number; value: number }[];
  /** y of the target line, or null when there is no target (0). */
  targetY: number | null;
  /** y of the floor (system prompt and tools, which no compaction removes), or null when unknown. */
  floorY: number | null;
  /** x of the cut between summarized/dropped rounds and kept ones (null: no cut drawn). */
  cutX: number | null;
  /** Labels of the target, floor and cut lines, each inside the plot and clear of the others. */
  labels: PlacedLabel[];
  /** Bands behind summarized / dropped rounds. */
  bands: { x: number; width: number; mark: 'summarize' | 'drop' }[];
  boundaryXs: number[];
  xTicks: Tick[];
  yTicks: Tick[];
  maxY: number;
}

/** A "nice" upper bound and step for an axis that must reach `max`. */
export function niceScale(max: number, ticks = 5): { max: number; step: number } {
  if (!(max > 0)) return { max: 1, step: 1 };
  const raw = max / Math.max(1, ticks);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const norm = raw / mag;
  const step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10) * mag;
  return { max: Math.ceil(max / step - 1e-9) * step, step };
}

/** Compact token label: 950, 12k, 1.5M. */
export function shortTokens(n: number): string {
  if (n >= 1_000_000) return `${trim(n / 1_000_000)}M`;
  if (n >= 1_000) return `${trim(n / 1_000)}k`;
  return String(Math.round(n));
}

function trim(v: number): string {
  return v >= 100 ? String(Math.round(v)) : String(Math.round(v * 10) / 10);
}

function fmt(v: number): string {
  return String(Math.round(v * 10) / 10);
}

/** The points the x axis spans: from the first round in context on ('active'), or all. */
export function visiblePoints(
  points: ChartPoint[],
  range: XRange,
): { points: ChartPoint[]; hidden: number; range: XRange } {
  const first = points.findIndex((p) => p.inContext);
  if (range === 'history' || first <= 0) return { points, hidden: 0, range: 'history' };
  return { points: points.slice(first), hidden: first, range: 'active' };
}

/** Vertical extent of a text whose baseline is at `y` (ascenders above, descenders below). */
function textBox(x: number, y: number, width: number, fontSize: number, anchor: 'start' | 'middle' | 'end'): Box {
  const left = anchor === 'start' ? x : anchor === 'end' ? x - width : x - width / 2;
  return { x: left, y: y - fontSize, width, height: fontSize * 1.3 };
}

export function boxInside(inner: Box, outer: Box): boolean {
  const e = 1e-6;
  return (
    inner.x >= outer.x - e &&
    inner.y >= outer.y - e &&
    inner.x + inner.width <= outer.x + outer.width + e &&
    inner.y + inner.height <= outer.y + outer.height + e
  );
}

export function boxesOverlap(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Y ticks: as many as fit with a line of text between neighbours, at most 6 (5 intervals). */
function yScale(peak: number, plotHeight: number, fontSize: number): { max: number; step: number } {
  const minGap = fontSize * 3;
  for (let want = Math.min(5, Math.max(1, Math.floor(plotHeight / minGap))); want >= 1; want--) {
    const s = niceScale(peak, want);
    if ((s.step / s.max) * plotHeight >= minGap || want === 1) return s;
  }
  return niceScale(peak, 1);
}

const NICE_STEPS = [1, 2, 5];

/** The smallest step of rounds (1, 2, 5, 10, 20, 50, …) whose labels, `slot` px per round, leave a gap between them. */
function xStep(slot: number, labelWidth: number, gap: number): number {
  for (let mag = 1; ; mag *= 10) {
    for (const m of NICE_STEPS) if (m * mag * slot >= labelWidth + gap) return m * mag;
    if (mag > 1e9) return mag;
  }
}

export function chartGeometry(data: ChartData, layout: ChartLayout = chartLayout(720)): ChartGeometry {
  const { fontSize, measure } = layout;
  const view = visiblePoints(data.points, layout.range);
  const pts = view.points;
  const floor = data.floorTokens !== null && data.floorTokens > 0 ? data.floorTokens : null;
  let peak = Math.max(data.targetTokens, floor ?? 0);
  for (const p of pts) peak = Math.max(peak, p.estimate, p.usage ?? 0);

  // The left margin holds the widest y label; the bottom one a row of x labels.
  const marginTop = 8;
  const marginBottom = Math.ceil(fontSize * 2.2);
  const plotHeight = Math.max(1, layout.height - marginTop - marginBottom);
  const scale = yScale(peak, plotHeight, fontSize);
  const yValues: number[] = [];
  for (let v = 0; v <= scale.max + scale.step / 2; v += scale.step) yValues.push(v);
  const marginLeft = Math.ceil(Math.max(...yValues.map((v) => measure(shortTokens(v)))) + 10);
  const marginRight = 12;
  const plot: Box = {
    x: marginLeft,
    y: marginTop,
    width: Math.max(1, layout.width - marginLeft - marginRight),
    height: plotHeight,
  };
  const n = pts.length;
  // Each round occupies one slot; its point sits in the slot's middle.
  const slot = plot.width / Math.max(1, n);
  const xOf = (i: number) => plot.x + slot * (i + 0.5);
  const yOf = (v: number) => plot.y + plot.height - (Math.min(v, scale.max) / scale.max) * plot.height;

  const usagePoints: ChartGeometry['usagePoints'] = [];
  let usagePath = '';
  let estimatePath = '';
  let usagePen = false;
  let estimatePen = false;
  const bands: ChartGeometry['bands'] = [];
  const boundaryXs: number[] = [];
  pts.forEach((p, i) => {
    const x = xOf(i);
    if (p.boundary) {
      if (i > 0) boundaryXs.push(plot.x + slot * i);
      usagePen = false;
      estimatePen = false;
    }
    if (p.usage !== null) {
      const y = yOf(p.usage);
      usagePath += `${usagePen ? 'L' : 'M'}${fmt(x)} ${fmt(y)} `;
      usagePen = true;
      usagePoints.push({ x, y, round: p.round, value: p.usage });
    } else usagePen = false;
    const ey = yOf(p.estimate);
    estimatePath += `${estimatePen ? 'L' : 'M'}${fmt(x)} ${fmt(ey)} `;
    estimatePen = true;
    if (p.mark !== 'keep') {
      const last = bands[bands.length - 1];
      const bx = plot.x + slot * i;
      if (last && last.mark === p.mark && Math.abs(last.x + last.width - bx) < 1e-6) last.width += slot;
      else bands.push({ x: bx, width: slot, mark: p.mark });
    }
  });

  let cutX: number | null = null;
  if (data.cutAfterRound !== null) {
    const i = pts.findIndex((p) => p.round === data.cutAfterRound);
    if (i >= 0) cutX = plot.x + slot * (i + 1);
  }

  const yTicks: Tick[] = yValues.map((v) => {
    const pos = yOf(v);
    const label = shortTokens(v);
    return { pos, label, box: textBox(plot.x - 6, pos + fontSize * 0.35, measure(label), fontSize, 'end') };
  });
  const xTicks = roundTicks(pts, plot, slot, xOf, layout, yTicks);

  const targetY = data.targetTokens > 0 ? yOf(data.targetTokens) : null;
  const floorY = floor !== null ? yOf(floor) : null;
  const labels = placeLabels(plot, layout, [
    ...(targetY !== null
      ? [
          {
            kind: 'target' as const,
            texts: [`target ${shortTokens(data.targetTokens)}`],
            line: { y: targetY },
            prefer: 'end' as const,
          },
        ]
      : []),
    ...(floorY !== null && floor !== null
      ? [
          {
            kind: 'floor' as const,
            texts: [
              `system prompt + tools ${shortTokens(floor)}`,
              `prompt + tools ${shortTokens(floor)}`,
              `floor ${shortTokens(floor)}`,
            ],
            line: { y: floorY },
            prefer: 'start' as const,
          },
        ]
      : []),
    ...(cutX !== null ? [{ kind: 'cut' as const, texts: ['cut'], line: { x: cutX }, prefer: 'start' as const }] : []),
  ]);

  return {
    viewBox: `0 0 ${layout.width} ${layout.height}`,
    width: layout.width,
    height: layout.height,
    plot,
    range: view.range,
    hiddenRounds: view.hidden,
    firstRound: n ? pts[0].round : null,
    lastRound: n ? pts[n - 1].round : null,
    usagePath: usagePath.trim(),
    estimatePath: estimatePath.trim(),
    usagePoints,
    targetY,
    floorY,
    cutX,
    labels,
    bands,
    boundaryXs,
    xTicks,
    yTicks,
    maxY: scale.max,
  };
}

/** X ticks at round numbers that are multiples of a nice step, as dense as their labels allow, each inside the chart and clear of the y labels. */
function roundTicks(
  pts: ChartPoint[],
  plot: Box,
  slot: number,
  xOf: (i: number) => number,
  layout: ChartLayout,
  yTicks: Tick[],
): Tick[] {
  if (!pts.length) return [];
  const widest = Math.max(...[pts[0], pts[pts.length - 1]].map((p) => layout.measure(`#${p.round}`)));
  const step = xStep(slot, widest, layout.fontSize);
  const baseline = plot.y + plot.height + layout.fontSize + 8;
  const chart: Box = { x: 0, y: 0, width: layout.width, height: layout.height };
  const ticks: Tick[] = [];
  pts.forEach((p, i) => {
    if (p.round % step !== 0) return;
    const label = `#${p.round}`;
    const pos = xOf(i);
    const box = textBox(pos, baseline, layout.measure(label), layout.fontSize, 'middle');
    if (boxInside(box, chart) && yTicks.every((t) => !boxesOverlap(t.box, box))) ticks.push({ pos, label, box });
  });
  // With few rounds and a wide step no multiple may fall in range: label the first round.
  if (!ticks.length) {
    const label = `#${pts[0].round}`;
    const box = textBox(xOf(0), baseline, layout.measure(label), layout.fontSize, 'middle');
    ticks.push({ pos: xOf(0), label, box: boxInside(box, chart) ? box : { ...box, x: Math.max(0, box.x) } });
  }
  return ticks;
}

interface LabelRequest {
  kind: LabelKind;
  /** The text, then shorter forms to try when the full one does not fit. */
  texts: string[];
  /** A horizontal line at y, or a vertical one at x. */
  line: { y: number } | { x: number };
  /** Which end of a horizontal line (or side of a vertical one) to try first. */
  prefer: 'start' | 'end';
}

/**
 * Puts each label next to its line, inside the plot and clear of the labels placed before it: the first candidate
 * position that fits wins; failing that, a shorter text; failing that, the first position inside the plot.
 */
export function placeLabels(
  plot: Box,
  layout: Pick<ChartLayout, 'fontSize' | 'measure'>,
  requests: LabelRequest[],
): PlacedLabel[] {
  const { fontSize, measure } = layout;
  const pad = 4;
  const placed: PlacedLabel[] = [];
  for (const r of requests) {
    let chosen: PlacedLabel | undefined;
    let fallback: PlacedLabel | undefined;
    for (const text of r.texts) {
      const w = measure(text);
      for (const c of candidates(r, plot, fontSize, pad)) {
        const label: PlacedLabel = {
          kind: r.kind,
          text,
          x: c.x,
          y: c.y,
          anchor: c.anchor,
          box: textBox(c.x, c.y, w, fontSize, c.anchor),
        };
        if (!boxInside(label.box, plot)) continue;
        fallback ??= label;
        if (placed.every((p) => !boxesOverlap(p.box, label.box))) {
          chosen = label;
          break;
        }
      }
      if (chosen) break;
    }
    const label = chosen ?? fallback ?? clampInto(r, plot, measure(r.texts[r.texts.length - 1]), fontSize, pad);
    placed.push(label);
  }
  return placed;
}

function candidates(
  r: LabelRequest,
  plot: Box,
  fontSize: number,
  pad: number,
): { x: number; y: number; anchor: 'start' | 'end' }[] {
  const left = { x: plot.x + pad, anchor: 'start' as const };
  const right = { x: plot.x + plot.width - pad, anchor: 'end' as const };
  if ('y' in r.line) {
    const above = r.line.y - pad;
    const below = r.line.y + fontSize + pad;
    const row = fontSize * 1.3 + 2;
    const ends = r.prefer === 'start' ? [left, right] : [right, left];
    // Beside the line first, then one row further off (two lines close together, near the top or bottom).
    return [above, below, above - row, below + row].flatMap((y) => ends.map((e) => ({ ...e, y })));
  }
  const x = r.line.x;
  const after = { x: x + pad, anchor: 'start' as const };
  const before = { x: x - pad, anchor: 'end' as const };
  const sides = r.prefer === 'start' ? [after, before] : [before, after];
  // Top rows first, then the bottom of the plot.
  const rows = [plot.y + fontSize + pad, plot.y + 2 * fontSize + 2 * pad, plot.y + plot.height - fontSize * 0.3 - pad];
  return rows.flatMap((y) => sides.map((s) => ({ ...s, y })));
}

/** The last resort: the shortest text at its line, moved inside the plot. */
function clampInto(r: LabelRequest, plot: Box, w: number, fontSize: number, pad: number): PlacedLabel {
  const text = r.texts[r.texts.length - 1];
  const x = Math.min(
    Math.max('x' in r.line ? r.line.x + pad : plot.x + pad, plot.x),
    Math.max(plot.x, plot.x + plot.width - w),
  );
  const y = Math.min(
    Math.max('y' in r.line ? r.line.y - pad : plot.y + fontSize + pad, plot.y + fontSize),
    plot.y + plot.height - fontSize * 0.3,
  );
  return { kind: r.kind, text, x, y, anchor: 'start', box: textBox(x, y, w, fontSize, 'start') };
}
