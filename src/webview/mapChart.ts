// Geometry of the Context Map chart: which rounds share a bar (bucketing, so a 100,000-round
// session still draws a few hundred bars), the scales, the stacked segments, the usage line
// and the reference lines. Pure numbers, no DOM: unit-tested in Node, drawn with SVG.
import { niceScale, shortTokens } from './chart';
import type { MapRound, MapState } from './mapProtocol';

export interface MapSize {
  width: number;
  height: number;
  marginLeft: number;
  marginRight: number;
  marginTop: number;
  marginBottom: number;
  /** Narrowest bar (px, gap included): fewer bars than this allows means buckets of several rounds. */
  minBar: number;
}

export const MAP_SIZE: MapSize = {
  width: 960,
  height: 340,
  marginLeft: 64,
  marginRight: 16,
  marginTop: 16,
  marginBottom: 40,
  minBar: 4,
};

/** Visible rounds [from, to). */
export interface MapView {
  from: number;
  to: number;
}

export interface Segment {
  series: number;
  y: number;
  height: number;
}

export interface Bar {
  /** Rounds [first, last] this bar stands for; `peak` is the one drawn (the largest context). */
  first: number;
  last: number;
  peak: number;
  x: number;
  width: number;
  segments: Segment[];
  total: number;
  /** The strongest plan mark among its rounds (drop over summarize over keep). */
  mark: MapRound['mark'];
  boundary: boolean;
  usage: number | null;
}

export interface RefLine {
  kind: 'window' | 'autoCompact' | 'floor' | 'target';
  y: number;
  tokens: number;
  label: string;
}

export interface MapGeometry {
  plot: { x: number; y: number; width: number; height: number };
  viewBox: string;
  bars: Bar[];
  roundsPerBar: number;
  maxY: number;
  yTicks: { pos: number; label: string }[];
  /** Usage line over the bars; a boundary or a bar without usage starts a new sub-path. */
  usagePath: string;
  lines: RefLine[];
  /** Reference lines above the chart's range (named beside it instead). */
  offChart: RefLine['kind'][];
}

const MARK_RANK: Record<MapRound['mark'], number> = { keep: 0, summarize: 1, drop: 2 };

export function stackTotal(r: MapRound): number {
  let t = 0;
  for (const v of r.stack) t += v;
  return t;
}

/** A view of at least one round inside [0, n). */
export function clampView(v: MapView, n: number): MapView {
  const span = Math.max(1, Math.min(n, Math.round(v.to - v.from)));
  const from = Math.max(0, Math.min(n - span, Math.round(v.from)));
  return { from, to: from + span };
}

/** Zooms by `factor` (< 1 in, > 1 out) keeping the round at `anchor` (fraction of the view) in place. */
export function zoomView(v: MapView, n: number, factor: number, anchor = 0.5): MapView {
  const span = v.to - v.from;
  const next = Math.max(1, Math.min(n, Math.round(span * factor)));
  const at = v.from + anchor * span;
  return clampView({ from: at - anchor * next, to: at - anchor * next + next }, n);
}

export function panView(v: MapView, n: number, by: number): MapView {
  return clampView({ from: v.from + by, to: v.to + by }, n);
}

export function mapGeometry(state: MapState, view: MapView, size: MapSize = MAP_SIZE): MapGeometry {
  const plot = {
    x: size.marginLeft,
    y: size.marginTop,
    width: size.width - size.marginLeft - size.marginRight,
    height: size.height - size.marginTop - size.marginBottom,
  };
  const v = clampView(view, Math.max(1, state.rounds.length));
  const count = Math.max(0, Math.min(state.rounds.length, v.to) - v.from);
  const maxBars = Math.max(1, Math.floor(plot.width / size.minBar));
  const per = Math.max(1, Math.ceil(count / maxBars));
  const nBars = Math.ceil(count / per);
  const slot = nBars > 0 ? plot.width / nBars : plot.width;
  const bars: Bar[] = [];
  let dataMax = 0;
  for (let b = 0; b < nBars; b++) {
    const first = v.from + b * per;
    const last = Math.min(v.from + count, first + per) - 1;
    let peak = first;
    let peakTotal = -1;
    let mark: MapRound['mark'] = 'keep';
    let boundary = false;
    let usage: number | null = null;
    for (let i = first; i <= last; i++) {
      const r = state.rounds[i];
      const t = stackTotal(r);
      if (t > peakTotal) {
        peakTotal = t;
        peak = i;
      }
      if (MARK_RANK[r.mark] > MARK_RANK[mark]) mark = r.mark;
      if (r.boundary) boundary = true;
      if (r.usage !== null) usage = Math.max(usage ?? 0, r.usage);
    }
    dataMax = Math.max(dataMax, peakTotal, usage ?? 0);
    bars.push({
      first,
      last,
      peak,
      x: plot.x + b * slot,
      width: Math.max(1, slot - (slot >= 4 ? 1 : 0)),
      segments: [],
      total: peakTotal,
      mark,
      boundary,
      usage,
    });
  }
  // The target counts for the scale only within the targets that mean something (a read-only map offers none), so a
  // target far above the context does not squash the bars.
  const target = state.reachable ? state.targetTokens : null;
  const wanted = Math.max(dataMax, state.reachable ? Math.min(state.targetTokens, state.reachable.max) : 0);
  const window = state.contextWindow;
  const showLimits = window !== null && wanted >= 0.25 * window;
  const scale = niceScale(showLimits ? Math.max(wanted, window) : wanted);
  const maxY = scale.max;
  const yOf = (tokens: number) => plot.y + plot.height - (Math.min(tokens, maxY) / maxY) * plot.height;
  for (const bar of bars) {
    let base = 0;
    const stack = state.rounds[bar.peak].stack;
    for (let s = 0; s < stack.length; s++) {
      if (stack[s] <= 0) continue;
      const y0 = yOf(base);
      const y1 = yOf(base + stack[s]);
      bar.segments.push({ series: s, y: y1, height: Math.max(0, y0 - y1) });
      base += stack[s];
    }
  }
  let usagePath = '';
  let open = false;
  for (const bar of bars) {
    if (bar.usage === null || bar.boundary) open = false;
    if (bar.usage === null) continue;
    const x = bar.x + bar.width / 2;
    usagePath += `${open ? 'L' : 'M'}${x.toFixed(1)},${yOf(bar.usage).toFixed(1)}`;
    open = true;
  }
  const lines: RefLine[] = [];
  const offChart: RefLine['kind'][] = [];
  const ref = (kind: RefLine['kind'], tokens: number, label: string) => {
    if (tokens > maxY) offChart.push(kind);
    else lines.push({ kind, y: yOf(tokens), tokens, label });
  };
  if (window !== null) ref('window', window, `context window ${shortTokens(window)}`);
  if (state.autoCompactAt !== null)
    ref('autoCompact', state.autoCompactAt, `auto-compact ≈${shortTokens(state.autoCompactAt)}`);
  if (state.reachable) ref('floor', state.reachable.floor, `floor ≈${shortTokens(state.reachable.floor)}`);
  if (target !== null) ref('target', target, `target ${shortTokens(target)}`);
  const yTicks: { pos: number; label: string }[] = [];
  for (let t = 0; t <= maxY + 1e-9; t += scale.step) yTicks.push({ pos: yOf(t), label: shortTokens(t) });
  return {
    plot,
    viewBox: `0 0 ${size.width} ${size.height}`,
    bars,
    roundsPerBar: per,
    maxY,
    yTicks,
    usagePath,
    lines,
    offChart,
  };
}

/**
 * A target within the reachable range, in whole thousands: from the floor (rounded up) to the context now (rounded
 * up: at or above it nothing is planned), at least 1,000.
 */
export function clampTarget(reachable: { floor: number; max: number }, tokens: number): number {
  const lo = Math.max(1000, Math.ceil(reachable.floor / 1000) * 1000);
  const hi = Math.max(lo, Math.ceil(reachable.max / 1000) * 1000);
  return Math.max(lo, Math.min(hi, Math.round(tokens / 1000) * 1000));
}

/** Tokens at a y position of the plot (for dragging the target), whole thousands, at least 1,000. */
export function tokensAtY(g: MapGeometry, y: number): number {
  const frac = (g.plot.y + g.plot.height - y) / g.plot.height;
  const tokens = Math.max(0, Math.min(1, frac)) * g.maxY;
  return Math.max(1000, Math.round(tokens / 1000) * 1000);
}

/** The bar that holds round `round`, or -1. */
export function barOf(g: MapGeometry, round: number): number {
  return g.bars.findIndex((b) => round >= b.first && round <= b.last);
}
