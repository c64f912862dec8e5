// Inspection: the round list with honest token figures, as the CLI and the extension show it.
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { buildChain, type Chain } from './chain';
import { buildRounds, type Round } from './rounds';
import { assertTranscript, extendIndex, indexTranscript, type IndexOptions, type TranscriptIndex } from './transcript';
import { roundUsage, type RoundUsage } from './tokens/usage';
import { continuesToolLoop, rawEstimate, SessionCalibration } from './tokens/estimate';

export type TokenSource = 'usage' | 'estimate';

export interface RoundTokens {
  /** Best figure for what the round adds to the context. */
  added: number;
  source: TokenSource;
  /** Calibrated estimate, computed without this round's or any later round's usage. */
  estimate: number;
}

export interface RoundReport {
  index: number;
  messageId: string | null;
  firstLine: number;
  lastLine: number;
  lineCount: number;
  model: string | null;
  label: string;
  segment: number;
  inContext: boolean;
  startsAtBoundary: boolean;
  synthetic: boolean;
  toolUses: { id: string; name: string; chars: number }[];
  toolResults: { id: string; name: string | null; chars: number; isError: boolean; images: number }[];
  tokens: RoundTokens;
  usage: RoundUsage | null;
  /** Context size after this round (usage of the next request when known, else running estimate). */
  cumulative: { tokens: number; source: TokenSource };
}

export interface SidechainReport {
  id: string;
  source: 'inline' | 'file';
  file?: string;
  lines: number;
  rounds: number;
  contextTokens: number | null;
}

export interface InspectReport {
  file: string;
  bytes: number;
  lines: number;
  entries: number;
  subagentFile: boolean;
  rounds: RoundReport[];
  sidechains: SidechainReport[];
  malformed: { line: number; error: string }[];
  compactBoundaries: { line: number; preTokens: number | null }[];
  chainNotes: string[];
  totals: {
    rounds: number;
    activeRounds: number;
    toolUses: number;
    toolResultChars: number;
    /** Context size of the newest request with usage (null when the file has none). */
    contextTokens: number | null;
    /** Best figure for the active context now: newest usage plus estimates for what follows it. */
    currentContextTokens: number;
    currentContextSource: TokenSource;
    outputTokens: number;
    calibrationFactor: number;
    calibrationSamples: number;
  };
}

/** All derived views of a transcript, recomputed cheaply from the index. */
export interface Analysis {
  index: TranscriptIndex;
  chain: Chain;
  rounds: Round[];
  report: InspectReport;
}

export function analyze(index: TranscriptIndex): Analysis {
  const chain = buildChain(index.entries);
  const rounds = buildRounds(index.entries, chain);
  const report = buildReport(index, chain, rounds);
  return { index, chain, rounds, report };
}

function buildReport(index: TranscriptIndex, chain: Chain, rounds: Round[]): InspectReport {
  const entries = index.entries;
  const usages = rounds.map((r) => roundUsage(entries, r));
  const calibration = new SessionCalibration();
  const reports: RoundReport[] = [];
  let running = 0;
  let runningSource: TokenSource = 'estimate';
  let newestUsage: number | null = null;
  let newestUsageRound = -1;
  let outputTokens = 0;

  for (let i = 0; i < rounds.length; i++) {
    const r = rounds[i];
    const raw = rawEstimate(r.content, continuesToolLoop(r));
    const estimate = Math.round(raw * calibration.factor);
    const u = usages[i];
    const next = i + 1 < rounds.length ? rounds[i + 1] : null;
    const nextUsage = next && next.segment === r.segment && !next.startsAtBoundary ? usages[i + 1] : null;
    let added = estimate;
    let source: TokenSource = 'estimate';
    if (nextUsage && (u || !r.messageId)) {
      const delta = nextUsage.contextTokens - (u ? u.contextTokens : 0);
      if (delta >= 0) {
        added = delta;
        source = 'usage';
        if (u) calibration.observe(delta, raw);
      }
    }
    if (r.startsAtBoundary) {
      running = 0;
      runningSource = 'estimate';
    }
    let cumulative: { tokens: number; source: TokenSource };
    if (nextUsage) {
      cumulative = { tokens: nextUsage.contextTokens, source: 'usage' };
      running = nextUsage.contextTokens;
      runningSource = 'usage';
    } else {
      running = (u ? u.contextTokens : running) + added;
      if (u) runningSource = 'usage';
      cumulative = { tokens: Math.round(running), source: u && source === 'usage' ? 'usage' : 'estimate' };
      if (!u && runningSource === 'usage') cumulative.source = 'estimate';
    }
    if (u) {
      newestUsage = u.contextTokens;
      newestUsageRound = i;
      outputTokens += u.outputTokens;
    }
    reports.push({
      index: r.index,
      messageId: r.messageId,
      firstLine: r.firstLine,
      lastLine: r.lastLine,
      lineCount: r.entries.length,
      model: r.model ?? null,
      label: r.label,
      segment: r.segment,
      inContext: r.inContext,
      startsAtBoundary: r.startsAtBoundary,
      synthetic: r.synthetic,
      toolUses: r.toolUses.map((t) => ({ id: t.id, name: t.name, chars: t.chars })),
      toolResults: r.toolResults.map((t) => ({ id: t.id, name: t.name ?? null, chars: t.chars, isError: t.isError, images: t.images })),
      tokens: { added, source, estimate },
      usage: u,
      cumulative,
    });
  }

  // Current context: the newest request's usage plus estimates of what came after it
  // (that round's own response and results are not part of its request).
  const activeReports = reports.filter((r) => r.inContext);
  let current: number;
  let currentSource: TokenSource = 'estimate';
  if (newestUsageRound >= 0 && rounds[newestUsageRound].inContext) {
    current = newestUsage!;
    for (let i = newestUsageRound; i < reports.length; i++) current += reports[i].tokens.estimate;
    if (current === newestUsage) currentSource = 'usage';
  } else {
    current = activeReports.reduce((s, r) => s + r.tokens.estimate, 0);
  }
  current = Math.round(current);

  const malformed = index.malformed.map((m) => ({ line: m.line, error: m.error }));
  return {
    file: index.path,
    bytes: index.size,
    lines: index.lineCount,
    entries: entries.length,
    subagentFile: chain.subagentFile,
    rounds: reports,
    sidechains: chain.sidechains.map((s) => sidechainReport(index, s.id, s.entries)),
    malformed,
    compactBoundaries: chain.boundaries.map((i) => ({ line: entries[i].line, preTokens: entries[i].preTokens ?? null })),
    chainNotes: chain.notes,
    totals: {
      rounds: reports.length,
      activeRounds: activeReports.length,
      toolUses: reports.reduce((s, r) => s + r.toolUses.length, 0),
      toolResultChars: reports.reduce((s, r) => s + r.toolResults.reduce((a, t) => a + t.chars, 0), 0),
      contextTokens: newestUsage,
      currentContextTokens: current,
      currentContextSource: currentSource,
      outputTokens,
      calibrationFactor: Math.round(calibration.factor * 1000) / 1000,
      calibrationSamples: calibration.samples,
    },
  };
}

function sidechainReport(index: TranscriptIndex, id: string, list: number[]): SidechainReport {
  const ids = new Set<string>();
  let context: number | null = null;
  for (const i of list) {
    const e = index.entries[i];
    if (e.kind === 'assistant' && e.messageId) {
      ids.add(e.messageId);
      if (e.usage) context = e.usage.input + e.usage.cacheCreation + e.usage.cacheRead;
    }
  }
  return { id, source: 'inline', lines: list.length, rounds: ids.size, contextTokens: context };
}

/** Subagent files of a session: `<dir>/<session>/subagents/agent-*.jsonl`. */
export async function findSubagentFiles(file: string): Promise<string[]> {
  const dir = join(dirname(file), basename(file, '.jsonl'), 'subagents');
  try {
    const names = await readdir(dir);
    return names.filter((n) => n.endsWith('.jsonl')).sort().map((n) => join(dir, n));
  } catch {
    return [];
  }
}

export interface InspectOptions extends IndexOptions {
  /** Also read `<session>/subagents/*.jsonl` (default true). */
  subagents?: boolean;
}

/** Reads, validates and analyses a transcript file. Throws NotATranscriptError on unusable input. */
export async function inspectFile(file: string, options: InspectOptions = {}): Promise<Analysis> {
  const st = await stat(file);
  if (!st.isFile()) throw new Error(`${file}: not a regular file`);
  const index = await indexTranscript(file, options);
  assertTranscript(index);
  const analysis = analyze(index);
  if (options.subagents !== false) {
    for (const sub of await findSubagentFiles(file)) {
      const subIndex = await indexTranscript(sub, options);
      const subAnalysis = analyze(subIndex);
      analysis.report.sidechains.push({
        id: basename(sub, '.jsonl'),
        source: 'file',
        file: sub,
        lines: subIndex.lineCount,
        rounds: subAnalysis.rounds.filter((r) => r.messageId).length,
        contextTokens: subAnalysis.report.totals.contextTokens,
      });
    }
  }
  return analysis;
}

/** Incremental re-inspection: parse only the appended bytes, then re-derive the views. */
export async function reinspect(previous: Analysis, options: IndexOptions = {}): Promise<Analysis & { rebuilt: boolean }> {
  const { rebuilt } = await extendIndex(previous.index, options);
  return { ...analyze(previous.index), rebuilt };
}
