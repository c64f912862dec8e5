// Geometry of the context-size chart: pure numbers and SVG path strings, no DOM, so it is
// unit-tested in Node and drawn in the webview with createElementNS.
import type { ChartData } from './protocol';

export interface ChartSize {
  width: number;
  height: number;
  /** Space for axis labels. */
  marginLeft: number;
  marginRight: number;
  marginTop: number;
  marginBottom: number;
}

export const DEFAULT_CHART_SIZE: ChartSize = { width: 720, height: 260, marginLeft: 64, marginRight: 16, marginTop: 16, marginBottom: 32 };

export interface Tick {
  pos: number;
  label: string;
}

export interface ChartGeometry {
  viewBox: string;
  plot: { x: number; y: number; width: number; height: number };
  /** SVG path of the usage line; gaps (rounds without usage, boundaries) start new sub-paths. */
  usagePath: string;
  estimatePath: string;
  /** Points of the usage line (for markers / hit targets). */
  usagePoints: { x: number; y: number; round: number; value: number }[];
  /** y of the target line, or null when the target is off the chart (0). */
  targetY: number | null;
  /** x of the cut between summarized/dropped rounds and kept ones (null: no cut). */
  cutX: number | null;
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
  const raw = max / ticks;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const norm = raw / mag;
  const step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10) * mag;
  return { max: Math.ceil(max / step) * step, step };
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

export function chartGeometry(data: ChartData, size: ChartSize = DEFAULT_CHART_SIZE): ChartGeometry {
  const plot = {
    x: size.marginLeft,
    y: size.marginTop,
    width: Math.max(1, size.width - size.marginLeft - size.marginRight),
    height: Math.max(1, size.height - size.marginTop - size.marginBottom),
  };
  const pts = data.points;
  let peak = data.targetTokens;
  for (const p of pts) peak = Math.max(peak, p.estimate, p.usage ?? 0);
  const scale = niceScale(peak);
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
      boundaryXs.push(plot.x + slot * i);
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

  const yTicks: Tick[] = [];
  for (let v = 0; v <= scale.max + scale.step / 2; v += scale.step) yTicks.push({ pos: yOf(v), label: shortTokens(v) });
  const xTicks: Tick[] = [];
  if (n > 0) {
    const every = Math.max(1, Math.ceil(n / 10));
    for (let i = 0; i < n; i += every) xTicks.push({ pos: xOf(i), label: `#${pts[i].round}` });
  }

  return {
    viewBox: `0 0 ${size.width} ${size.height}`,
    plot,
    usagePath: usagePath.trim(),
    estimatePath: estimatePath.trim(),
    usagePoints,
    targetY: data.targetTokens > 0 ? yOf(data.targetTokens) : null,
    cutX,
    bands,
    boundaryXs,
    xTicks,
    yTicks,
    maxY: scale.max,
  };
}
