// Estimate-accuracy metric (issue: "estimates must be honest"), shared by the benchmark
// and test/unit/accuracy.test.ts.
//
// For consecutive main-chain rounds r and r+1 that both have usage and no compact boundary
// between them (same segment, r+1 does not start at a boundary), the truth is
// Δ = context(r+1) − context(r) and the estimate is `tokens.estimate` of round r from the
// inspect report. Over all pairs with Δ ≥ 300 the median and the 90th percentile of
// |estimate − Δ| / Δ are reported. Calibration only ever sees earlier rounds of the same
// session (SessionCalibration inside the report), never the pair being scored.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { inspectFile } from '../src/core/inspect';
import { splitJoinedObjects, type Entry } from '../src/core/entries';
import type { Round, RoundContent } from '../src/core/rounds';
import {
  continuesToolLoop,
  rawEstimate,
  SessionCalibration,
  TEXT_TOKENS,
  textFeatures,
  TOKEN_MODEL,
  type TextTokenWeights,
  type TokenModel,
} from '../src/core/tokens/estimate';

export const FIXTURE_DIR = process.env.AC_FIXTURES ?? join(__dirname, '..', '..', 'shared', 'fixtures', 'claude-code');
/** v2.1.97-live-before.jsonl is a byte prefix of live-after: its pairs would be counted twice. */
export const EXCLUDED = ['v2.1.97-live-before.jsonl'];
export const MIN_DELTA = 300;

export function metricFiles(dir = FIXTURE_DIR): string[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl') && !EXCLUDED.includes(n))
    .sort()
    .map((n) => join(dir, n));
}

export interface RoundData {
  content: RoundContent;
  loop: boolean;
  /** Context tokens of this round's request (report `usage.contextTokens`), or null. */
  context: number | null;
  segment: number;
  startsAtBoundary: boolean;
  /** `tokens.estimate` as reported by inspect. */
  reported: number;
  round: Round;
}

export interface SessionData {
  file: string;
  name: string;
  rounds: RoundData[];
  entries: Entry[];
}

export async function loadSession(file: string): Promise<SessionData> {
  const { report, rounds, index } = await inspectFile(file, { subagents: false });
  return {
    file,
    name: basename(file),
    entries: index.entries,
    rounds: report.rounds.map((r, i) => ({
      content: rounds[i].content,
      loop: continuesToolLoop(rounds[i]),
      context: r.usage ? r.usage.contextTokens : null,
      segment: r.segment,
      startsAtBoundary: r.startsAtBoundary,
      reported: r.tokens.estimate,
      round: rounds[i],
    })),
  };
}

export async function loadSessions(files = metricFiles()): Promise<SessionData[]> {
  const out: SessionData[] = [];
  for (const f of files) out.push(await loadSession(f));
  return out;
}

/** Truth for round i (Δ to the next request), or null when the pair does not qualify for calibration. */
export function truthAfter(s: SessionData, i: number): number | null {
  const r = s.rounds[i];
  const q = s.rounds[i + 1];
  if (!q || r.context === null || q.context === null || q.segment !== r.segment || q.startsAtBoundary) return null;
  return q.context - r.context;
}

/** Indices of the scored pairs of a session (Δ ≥ MIN_DELTA). */
export function scoredPairs(s: SessionData): { i: number; delta: number }[] {
  const out: { i: number; delta: number }[] = [];
  for (let i = 0; i + 1 < s.rounds.length; i++) {
    const d = truthAfter(s, i);
    if (d !== null && d >= MIN_DELTA) out.push({ i, delta: d });
  }
  return out;
}

/**
 * Calibrated estimates for every round of a session from a raw estimator, replaying the
 * report's online calibration: the factor for round i comes from earlier rounds only.
 */
export function calibrated(s: SessionData, raw: (r: RoundData) => number, calibrate = true): number[] {
  const cal = new SessionCalibration();
  return s.rounds.map((r, i) => {
    const x = raw(r);
    const est = calibrate ? x * cal.factor : x;
    const d = truthAfter(s, i);
    if (d !== null && d >= 0) cal.observe(d, x);
    return est;
  });
}

export interface ErrorStats {
  pairs: number;
  median: number;
  p90: number;
  mean: number;
}

/** Linear-interpolation quantile (numpy's default). */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export function errorStats(errors: number[]): ErrorStats {
  const s = [...errors].sort((a, b) => a - b);
  return {
    pairs: s.length,
    median: quantile(s, 0.5),
    p90: quantile(s, 0.9),
    mean: s.reduce((a, b) => a + b, 0) / (s.length || 1),
  };
}

/** Relative errors of per-round estimates over the scored pairs of one session. */
export function errorsOf(s: SessionData, estimates: number[]): number[] {
  return scoredPairs(s).map(({ i, delta }) => Math.abs(estimates[i] - delta) / delta);
}

/** The shipped metric: inspect's own `tokens.estimate` against the usage deltas. */
export function reportedErrors(sessions: SessionData[]): number[] {
  return sessions.flatMap((s) =>
    errorsOf(
      s,
      s.rounds.map((r) => r.reported),
    ),
  );
}

export function modelErrors(sessions: SessionData[], model: TokenModel, calibrate = true): number[] {
  return sessions.flatMap((s) =>
    errorsOf(
      s,
      calibrated(s, (r) => rawEstimate(r.content, r.loop, model), calibrate),
    ),
  );
}

// ---------------------------------------------------------------------------------------
// Fitting (for the leave-one-session-out check): the model is linear in its weights, so
// minimise the sum of |est − Δ| / Δ over the training pairs (uncalibrated) by iteratively
// reweighted least squares with non-negative weights.

/** Feature vector of a round in TOKEN_MODEL key order. */
export function features(r: RoundData): number[] {
  return modelFeatures(r.content, r.loop);
}

const KEYS = Object.keys(TOKEN_MODEL) as (keyof TokenModel)[];

function modelFeatures(c: RoundContent, loop: boolean): number[] {
  // One-hot probes through rawEstimate keep this in step with the model's own formula.
  return KEYS.map((k) => rawEstimate(c, loop, probe(k)));
}

const probes = new Map<string, TokenModel>();
function probe(k: keyof TokenModel): TokenModel {
  let m = probes.get(k);
  if (!m) {
    m = Object.fromEntries(KEYS.map((j) => [j, j === k ? 1 : 0])) as unknown as TokenModel;
    probes.set(k, m);
  }
  return m;
}

/** Solves min Σ w_i (x_i·β − y_i)² with β ≥ 0 (projected coordinate descent). */
function nnls(X: number[][], y: number[], w: number[], start: number[]): number[] {
  const p = start.length;
  const A = Array.from({ length: p }, () => new Array<number>(p).fill(0));
  const b = new Array<number>(p).fill(0);
  for (let n = 0; n < X.length; n++) {
    const x = X[n];
    for (let i = 0; i < p; i++) {
      if (x[i] === 0) continue;
      b[i] += w[n] * x[i] * y[n];
      for (let j = 0; j < p; j++) A[i][j] += w[n] * x[i] * x[j];
    }
  }
  const beta = [...start];
  for (let it = 0; it < 500; it++) {
    let moved = 0;
    for (let i = 0; i < p; i++) {
      if (A[i][i] === 0) continue;
      let r = b[i];
      for (let j = 0; j < p; j++) if (j !== i) r -= A[i][j] * beta[j];
      const v = Math.max(0, r / A[i][i]);
      moved = Math.max(moved, Math.abs(v - beta[i]) / (Math.abs(beta[i]) + 1e-9));
      beta[i] = v;
    }
    if (moved < 1e-7) break;
  }
  return beta;
}

/** Fits TOKEN_MODEL-shaped weights on the scored pairs of `sessions`. Weights with no data keep `prior`. */
export function fitModel(sessions: SessionData[], prior: TokenModel = TOKEN_MODEL): TokenModel {
  const X: number[][] = [];
  const y: number[] = [];
  for (const s of sessions) {
    for (const { i, delta } of scoredPairs(s)) {
      X.push(features(s.rounds[i]));
      y.push(delta);
    }
  }
  let beta = KEYS.map((k) => prior[k]);
  if (X.length === 0) return prior;
  const used = KEYS.map((_, j) => X.some((x) => x[j] !== 0));
  // IRLS for the L1 relative error: weight 1 / (Δ · |residual|), residual floored at 2 % of Δ.
  let w = y.map((d) => 1 / (d * d));
  for (let it = 0; it < 30; it++) {
    beta = nnls(X, y, w, beta);
    w = X.map((x, n) => {
      const est = x.reduce((s, v, j) => s + v * beta[j], 0);
      const rel = Math.max(0.02, Math.abs(est - y[n]) / y[n]);
      return 1 / (y[n] * y[n] * rel);
    });
  }
  return Object.fromEntries(KEYS.map((k, j) => [k, used[j] ? beta[j] : prior[k]])) as unknown as TokenModel;
}

/** Leave-one-session-out: refit on the other files, score the held-out file with that model. */
export function leaveOneOut(sessions: SessionData[]): {
  errors: number[];
  perFile: { name: string; summary: ErrorStats; model: TokenModel }[];
} {
  const errors: number[] = [];
  const perFile: { name: string; summary: ErrorStats; model: TokenModel }[] = [];
  for (const held of sessions) {
    if (scoredPairs(held).length === 0) continue;
    const model = fitModel(sessions.filter((s) => s !== held));
    const e = modelErrors([held], model);
    errors.push(...e);
    perFile.push({ name: held.name, summary: errorStats(e), model });
  }
  return { errors, perFile };
}

// ---------------------------------------------------------------------------------------
// Round texts, for comparisons with a real tokenizer (o200k_base) over the same content.

export interface RoundTexts {
  prose: string[];
  toolUseInput: string[];
  thinking: string[];
  toolResult: string[];
  images: number;
}

function objectAt(buf: Buffer, e: Entry): Record<string, unknown> | null {
  const text = buf.subarray(e.start, e.end).toString('utf8');
  try {
    if (e.part === 0) return JSON.parse(text);
  } catch {
    /* joined objects */
  }
  const parts = splitJoinedObjects(text.trim());
  if (!parts || !parts[e.part]) return null;
  return JSON.parse(parts[e.part]);
}

const asText = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v);

/** The texts a round adds, split by kind the same way RoundContent counts them. */
export function roundTexts(s: SessionData, buf: Buffer, r: RoundData): RoundTexts {
  const out: RoundTexts = { prose: [], toolUseInput: [], thinking: [], toolResult: [], images: 0 };
  for (const idx of r.round.entries) {
    const e = s.entries[idx];
    if (e.kind !== 'assistant' && e.kind !== 'user' && e.kind !== 'attachment') continue;
    const o = objectAt(buf, e);
    if (!o) continue;
    if (e.kind === 'attachment') {
      const a = o.attachment as Record<string, unknown> | undefined;
      if (a && typeof a === 'object') {
        const t = asText(a.rendered ?? a.content ?? a.snippet ?? '');
        if (t) out.prose.push(t);
      }
      continue;
    }
    const m = o.message as Record<string, unknown> | undefined;
    if (!m || typeof m !== 'object') continue;
    const content = m.content;
    if (typeof content === 'string') {
      out.prose.push(content);
      continue;
    }
    if (!Array.isArray(content)) continue;
    for (const b of content as Record<string, unknown>[]) {
      if (!b || typeof b !== 'object') continue;
      if (e.kind === 'assistant') {
        if (b.type === 'thinking') out.thinking.push(asText(b.thinking));
        else if (b.type === 'tool_use' || b.type === 'server_tool_use')
          out.toolUseInput.push(`${asText(b.name)}${asText(b.input)}`);
        else if (b.type === 'text') out.prose.push(asText(b.text));
        else if (b.type !== 'redacted_thinking') out.prose.push(asText(b));
      } else if (b.type === 'tool_result') {
        const c = b.content;
        if (typeof c === 'string') out.toolResult.push(c);
        else if (Array.isArray(c)) {
          for (const x of c as Record<string, unknown>[]) {
            if (x && x.type === 'text') out.toolResult.push(asText(x.text));
            else if (x && x.type === 'image') out.images++;
            else out.toolResult.push(asText(x));
          }
        } else out.toolResult.push(asText(c));
      } else if (b.type === 'image') out.images++;
      else if (b.type === 'text') out.prose.push(asText(b.text));
      else out.prose.push(asText(b));
    }
  }
  return out;
}

export function allTexts(t: RoundTexts, withThinking: boolean): string[] {
  return [...t.prose, ...t.toolUseInput, ...t.toolResult, ...(withThinking ? t.thinking : [])];
}

export function fileBuffer(s: SessionData): Buffer {
  return readFileSync(s.file);
}

/** Formats a fraction as a percentage with one decimal. */
export const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

// ---------------------------------------------------------------------------------------
// Stage 1 (text → proxy tokens) against a real tokenizer, and the leave-one-out check of both stages.

export interface TextSample {
  session: string;
  kind: 'prose' | 'toolUseInput' | 'toolResult';
  features: number[];
  tokens: number;
}

/** Feature sums of a round's texts by kind (for re-deriving its proxy counts with other stage-1 weights). */
export interface RoundTextFeatures {
  prose: number[];
  toolUseInput: number[];
  toolResult: number[];
}

const zero = () => [0, 0, 0, 0, 0, 0];
const addTo = (a: number[], b: number[]) => b.forEach((v, j) => (a[j] += v));

/** Exact tokenizer counts of a round's texts by kind. */
export interface RoundExact {
  prose: number;
  toolUseInput: number;
  toolResult: number;
  thinking: number;
}

/** Samples every text of every round (features and exact count) and the per-round feature sums and exact counts. */
export function textSamples(
  sessions: SessionData[],
  count: (s: string) => number,
): { samples: TextSample[]; perRound: Map<RoundData, RoundTextFeatures>; exact: Map<RoundData, RoundExact> } {
  const samples: TextSample[] = [];
  const perRound = new Map<RoundData, RoundTextFeatures>();
  const exact = new Map<RoundData, RoundExact>();
  for (const s of sessions) {
    const buf = fileBuffer(s);
    for (const r of s.rounds) {
      const t = roundTexts(s, buf, r);
      const f: RoundTextFeatures = { prose: zero(), toolUseInput: zero(), toolResult: zero() };
      const x: RoundExact = { prose: 0, toolUseInput: 0, toolResult: 0, thinking: 0 };
      for (const kind of ['prose', 'toolUseInput', 'toolResult'] as const) {
        for (const text of t[kind]) {
          if (!text) continue;
          const feats = textFeatures(text);
          const tokens = count(text);
          addTo(f[kind], feats);
          x[kind] += tokens;
          samples.push({ session: s.name, kind, features: feats, tokens });
        }
      }
      for (const text of t.thinking) x.thinking += count(text);
      perRound.set(r, f);
      exact.set(r, x);
    }
  }
  return { samples, perRound, exact };
}

const TEXT_KEYS = Object.keys(TEXT_TOKENS) as (keyof TextTokenWeights)[];

/** Stage-1 fit: least squares of proxy against tokenizer counts, weighted 1/(tokens+5) (≈ relative error for long texts). */
export function fitTextTokens(samples: TextSample[]): TextTokenWeights {
  const p = TEXT_KEYS.length;
  const A = Array.from({ length: p }, () => new Array<number>(p).fill(0));
  const b = new Array<number>(p).fill(0);
  for (const s of samples) {
    const w = 1 / (s.tokens + 5);
    for (let i = 0; i < p; i++) {
      b[i] += w * s.features[i] * s.tokens;
      for (let j = 0; j < p; j++) A[i][j] += w * s.features[i] * s.features[j];
    }
  }
  // Gaussian elimination with partial pivoting.
  for (let c = 0; c < p; c++) {
    let piv = c;
    for (let r = c + 1; r < p; r++) if (Math.abs(A[r][c]) > Math.abs(A[piv][c])) piv = r;
    [A[c], A[piv]] = [A[piv], A[c]];
    [b[c], b[piv]] = [b[piv], b[c]];
    if (Math.abs(A[c][c]) < 1e-12) continue;
    for (let r = 0; r < p; r++) {
      if (r === c) continue;
      const f = A[r][c] / A[c][c];
      for (let k = c; k < p; k++) A[r][k] -= f * A[c][k];
      b[r] -= f * b[c];
    }
  }
  return Object.fromEntries(
    TEXT_KEYS.map((k, i) => [k, Math.abs(A[i][i]) < 1e-12 ? TEXT_TOKENS[k] : b[i] / A[i][i]]),
  ) as unknown as TextTokenWeights;
}

export function textProxyErrors(samples: TextSample[], w: TextTokenWeights, minTokens = 100): ErrorStats {
  const dot = (x: number[]) => TEXT_KEYS.reduce((s, k, j) => s + w[k] * x[j], 0);
  return errorStats(
    samples.filter((s) => s.tokens >= minTokens).map((s) => Math.abs(dot(s.features) - s.tokens) / s.tokens),
  );
}

/** A session whose rounds' proxy counts are re-derived from their texts with stage-1 weights `w`. */
export function withTextWeights(
  s: SessionData,
  perRound: Map<RoundData, RoundTextFeatures>,
  w: TextTokenWeights,
): SessionData {
  const dot = (x: number[]) => TEXT_KEYS.reduce((acc, k, j) => acc + w[k] * x[j], 0);
  return {
    ...s,
    rounds: s.rounds.map((r) => {
      const f = perRound.get(r);
      const p = r.content.proxy;
      if (!f || !p) return r;
      return {
        ...r,
        content: {
          ...r.content,
          proxy: { ...p, prose: dot(f.prose), toolUseInput: dot(f.toolUseInput), toolResult: dot(f.toolResult) },
        },
      };
    }),
  };
}

/** Leave-one-session-out refitting both stages: stage 1 on the other files' texts, stage 2 on their usage deltas. */
export function leaveOneOutBoth(
  sessions: SessionData[],
  samples: TextSample[],
  perRound: Map<RoundData, RoundTextFeatures>,
): { errors: number[]; perFile: { name: string; summary: ErrorStats }[] } {
  const errors: number[] = [];
  const perFile: { name: string; summary: ErrorStats }[] = [];
  for (const held of sessions) {
    if (scoredPairs(held).length === 0) continue;
    const w = fitTextTokens(samples.filter((s) => s.session !== held.name));
    const train = sessions.filter((s) => s !== held).map((s) => withTextWeights(s, perRound, w));
    const model = fitModel(train);
    const e = modelErrors([withTextWeights(held, perRound, w)], model);
    errors.push(...e);
    perFile.push({ name: held.name, summary: errorStats(e) });
  }
  return { errors, perFile };
}

/** A session whose rounds' proxy counts are replaced by exact tokenizer counts (what a real tokenizer would give the model). */
export function withExactCounts(s: SessionData, exact: Map<RoundData, RoundExact>): SessionData {
  return {
    ...s,
    rounds: s.rounds.map((r) => {
      const x = exact.get(r);
      const p = r.content.proxy;
      if (!x || !p) return r;
      return {
        ...r,
        content: {
          ...r.content,
          proxy: { ...p, prose: x.prose, toolUseInput: x.toolUseInput, toolResult: x.toolResult },
        },
      };
    }),
  };
}

/** Leave-one-session-out of stage 2 alone (the sessions as given, e.g. with exact counts in place of the proxy). */
export function leaveOneOutOf(sessions: SessionData[]): number[] {
  const errors: number[] = [];
  for (const held of sessions) {
    if (scoredPairs(held).length === 0) continue;
    errors.push(...modelErrors([held], fitModel(sessions.filter((s) => s !== held))));
  }
  return errors;
}

/** Errors of a per-round estimator without calibration (comparisons such as chars/4). */
export function plainErrors(sessions: SessionData[], estimate: (r: RoundData) => number): number[] {
  return sessions.flatMap((s) => errorsOf(s, s.rounds.map(estimate)));
}
