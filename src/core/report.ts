// The report: per-round token figures (usage where the file records it, calibrated estimates elsewhere) and the
// session's totals, computed by one loop that incremental re-inspection can resume at a round.
import type { Chain } from './chain';
import type { Entry } from './entries';
import type { FormatInfo } from './formats/types';
import type { Round } from './rounds';
import type { TranscriptIndex } from './transcript';
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
  /** The agent that wrote the file (decided by content), its version when recorded, and how it is stored. */
  format: FormatInfo;
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
    /**
     * Estimated tokens of what every request carries but no transcript line holds (system prompt,
     * tool definitions): per segment, its first usage minus the estimated content before it; the
     * smallest over segments. Null without usage.
     */
    overheadTokens: number | null;
  };
}

/** Running figures of the report loop, at the start of a round (so the loop can resume there). */
export interface ReportState {
  calibration: SessionCalibration;
  running: number;
  runningSource: TokenSource;
  newestUsage: number | null;
  newestUsageRound: number;
  outputTokens: number;
}

export function freshReportState(): ReportState {
  return { calibration: new SessionCalibration(), running: 0, runningSource: 'estimate', newestUsage: null, newestUsageRound: -1, outputTokens: 0 };
}

export function cloneState(s: ReportState): ReportState {
  return { ...s, calibration: s.calibration.clone() };
}

export interface ReportRun {
  reports: RoundReport[];
  final: ReportState;
  /** State at the start of round `resume.at` (the second-to-last round), where an append can make figures change. */
  resume: { at: number; state: ReportState };
}

/** The per-round report loop from round `from` on (`head` holds the reports of rounds before it). */
export function reportRounds(entries: Entry[], rounds: Round[], from: number, state: ReportState, head: RoundReport[]): ReportRun {
  const usageCache = new Map<number, RoundUsage | null>();
  const usageOf = (i: number): RoundUsage | null => {
    let u = usageCache.get(i);
    if (u === undefined) usageCache.set(i, (u = roundUsage(entries, rounds[i])));
    return u;
  };
  const reports = head;
  const resumeAt = Math.max(0, rounds.length - 2);
  let resume: { at: number; state: ReportState } = { at: from, state: cloneState(state) };
  const st = state;
  for (let i = from; i < rounds.length; i++) {
    if (i === resumeAt && i !== from) resume = { at: i, state: cloneState(st) };
    const r = rounds[i];
    const calibration = st.calibration;
    const raw = rawEstimate(r.content, continuesToolLoop(r));
    const estimate = Math.round(raw * calibration.factor);
    const u = usageOf(i);
    const next = i + 1 < rounds.length ? rounds[i + 1] : null;
    const nextUsage = next && next.segment === r.segment && !next.startsAtBoundary ? usageOf(i + 1) : null;
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
      st.running = 0;
      st.runningSource = 'estimate';
    }
    let cumulative: { tokens: number; source: TokenSource };
    if (nextUsage) {
      cumulative = { tokens: nextUsage.contextTokens, source: 'usage' };
      st.running = nextUsage.contextTokens;
      st.runningSource = 'usage';
    } else {
      st.running = (u ? u.contextTokens : st.running) + added;
      if (u) st.runningSource = 'usage';
      cumulative = { tokens: Math.round(st.running), source: u && source === 'usage' ? 'usage' : 'estimate' };
      if (!u && st.runningSource === 'usage') cumulative.source = 'estimate';
    }
    if (u) {
      st.newestUsage = u.contextTokens;
      st.newestUsageRound = i;
      st.outputTokens += u.outputTokens;
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
  return { reports, final: st, resume };
}

export function assembleReport(index: TranscriptIndex, chain: Chain, rounds: Round[], run: ReportRun, sidechains: SidechainReport[]): InspectReport {
  const entries = index.entries;
  const { reports, final } = run;
  const { calibration, newestUsage, newestUsageRound, outputTokens } = final;
  // Current context: the newest request's usage plus estimates of what came after it
  // (that round's own response and results are not part of its request).
  let activeRounds = 0;
  let toolUses = 0;
  let toolResultChars = 0;
  let activeEstimate = 0;
  for (const r of reports) {
    if (r.inContext) {
      activeRounds++;
      activeEstimate += r.tokens.estimate;
    }
    toolUses += r.toolUses.length;
    for (const t of r.toolResults) toolResultChars += t.chars;
  }
  let current = 0;
  let currentSource: TokenSource = 'estimate';
  if (newestUsageRound >= 0 && rounds[newestUsageRound].inContext) {
    current = newestUsage!;
    for (let i = newestUsageRound; i < reports.length; i++) current += reports[i].tokens.estimate;
    if (current === newestUsage) currentSource = 'usage';
  }
  const overheadTokens = estimateOverhead(reports);
  // Without usage in the active context (e.g. just compacted), add the system prompt and tools.
  if (!(newestUsageRound >= 0 && rounds[newestUsageRound].inContext)) current = activeEstimate + (overheadTokens ?? 0);
  current = Math.round(current);

  const malformed = index.malformed.map((m) => ({ line: m.line, error: m.error }));
  return {
    file: index.path,
    format: { ...index.format },
    bytes: index.size,
    lines: index.lineCount,
    entries: entries.length,
    subagentFile: chain.subagentFile,
    rounds: reports,
    sidechains,
    malformed,
    compactBoundaries: chain.boundaries.map((i) => ({ line: entries[i].line, preTokens: entries[i].preTokens ?? null })),
    chainNotes: chain.notes,
    totals: {
      rounds: reports.length,
      activeRounds,
      toolUses,
      toolResultChars,
      contextTokens: newestUsageRound >= 0 && rounds[newestUsageRound].inContext ? newestUsage : null,
      currentContextTokens: current,
      currentContextSource: currentSource,
      outputTokens,
      calibrationFactor: Math.round(calibration.factor * 1000) / 1000,
      calibrationSamples: calibration.samples,
      overheadTokens,
    },
  };
}

function estimateOverhead(reports: RoundReport[]): number | null {
  let found: number | null = null;
  let before = 0;
  let segment = -1;
  let done = false;
  for (const r of reports) {
    if (r.segment !== segment || r.startsAtBoundary) {
      segment = r.segment;
      before = 0;
      done = false;
    }
    if (done) continue;
    if (r.usage && !r.synthetic) {
      // The smallest over segments: a segment after a compaction also carries re-attached files.
      const here = Math.max(0, Math.round(r.usage.contextTokens - before));
      found = found === null ? here : Math.min(found, here);
      done = true;
    } else before += r.tokens.estimate;
  }
  return found;
}

export function sidechainReport(index: TranscriptIndex, id: string, list: number[]): SidechainReport {
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
