// The report: per-round token figures (usage where the file records it, calibrated estimates elsewhere) and the
// session's totals, computed by one loop that incremental re-inspection can resume at a round.
import type { Chain } from './chain';
import type { Entry } from './entries';
import type { AgentId, FormatInfo } from './formats/registry';
import type { Round } from './rounds';
import type { TranscriptIndex } from './transcript';
import { roundUsage, type RoundUsage } from './tokens/usage';
import { continuesToolLoop, rawEstimate, SessionCalibration } from './tokens/estimate';
import { resentOnResume } from './reannounced';

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
    /**
     * Where `overheadTokens` comes from: `recorded` when the file holds the agent's own record of its requests'
     * system prompt and tools (the newest `api-request-shape` line, Claude Code 2.1.330), counted with the tokenizer;
     * `estimated` from usage as above; null without either.
     */
    overheadSource: 'recorded' | 'estimated' | null;
    /** Calibrated estimate of the active transcript's lines alone (the sum of the in-context rounds' estimates). */
    transcriptEstimateTokens: number;
    /**
     * Part of `currentContextTokens` without usage in the active context: what resuming the file sends again that no
     * active line holds (the agent's session-start context, and what its module says it gives a resumed session
     * again: `resentOnResume`): after our compaction the next request is a resume. 0 otherwise.
     */
    resentTokens: number;
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
  /** The totals' sums over the rounds so far, kept here so that a resumed loop does not revisit earlier rounds. */
  activeRounds: number;
  activeEstimate: number;
  toolUses: number;
  toolResultChars: number;
  /** The newest usage plus the estimates of its round and every round after it (the context now, see assembleReport). */
  usagePlusLater: number;
  /** `noteOverhead`'s scan: the smallest figure so far, and the current segment's estimates before its first usage. */
  overhead: number | null;
  overheadSegment: number;
  overheadBefore: number;
  overheadDone: boolean;
  /** The current segment's compact boundary: its line (-1 before the first) and the agent's count of the messages after it. */
  boundaryLine: number;
  boundaryMessages: number | null;
  /** Estimates of the current segment's rounds that the boundary's count does not cover (neither it nor preserved). */
  afterBoundaryEstimate: number;
  /**
   * True while the current segment's rounds have no usage since its boundary and the running figure counts up from
   * `boundaryBase` (the rounds the boundary's own count covers add nothing to it).
   */
  fromBoundaryBase: boolean;
}

export function freshReportState(): ReportState {
  return {
    calibration: new SessionCalibration(),
    running: 0,
    runningSource: 'estimate',
    newestUsage: null,
    newestUsageRound: -1,
    outputTokens: 0,
    activeRounds: 0,
    activeEstimate: 0,
    toolUses: 0,
    toolResultChars: 0,
    usagePlusLater: 0,
    overhead: null,
    overheadSegment: -1,
    overheadBefore: 0,
    overheadDone: false,
    boundaryLine: -1,
    boundaryMessages: null,
    afterBoundaryEstimate: 0,
    fromBoundaryBase: false,
  };
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
export function reportRounds(
  entries: Entry[],
  rounds: Round[],
  from: number,
  state: ReportState,
  head: RoundReport[],
  /** The agent that wrote the file: what a resume of it sends again is its module's (resentOnResume). */
  agent: AgentId,
): ReportRun {
  const usageCache = new Map<number, RoundUsage | null>();
  const st = state;
  // A round of the preserved segment sits after the boundary but its response's usage is from a request sent before
  // the compaction (Claude Code's own /compact keeps it): that usage is not the active context's.
  const usageOf = (i: number): RoundUsage | null => {
    let u = usageCache.get(i);
    if (u === undefined) {
      u = roundUsage(entries, rounds[i]);
      if (u && entries[rounds[i].usageEntry].line < st.boundaryLine) u = null;
      usageCache.set(i, u);
    }
    return u;
  };
  const reports = head;
  const resumeAt = Math.max(0, rounds.length - 2);
  let resume: { at: number; state: ReportState } = { at: from, state: cloneState(state) };
  for (let i = from; i < rounds.length; i++) {
    if (i === resumeAt && i !== from) resume = { at: i, state: cloneState(st) };
    const r = rounds[i];
    if (r.startsAtBoundary) noteBoundary(st, entries, r);
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
      st.fromBoundaryBase = false;
      // No request after the compaction yet: the next one carries the system prompt and tools and what the
      // compaction left, as the context figure counts them (assembleReport), so the rounds' figures lead up to it.
      if (!u && !nextUsage) {
        const kept = new Set<number>();
        for (let j = i; j < rounds.length && rounds[j].segment === r.segment; j++) kept.add(rounds[j].index);
        st.running = boundaryBase(
          st.boundaryMessages,
          recordedOverhead(entries) ?? st.overhead ?? 0,
          st.boundaryMessages === null ? resentOnResume(agent, entries, rounds, kept, calibration.factor) : 0,
        );
        st.fromBoundaryBase = true;
      }
    } else if (u || nextUsage) st.fromBoundaryBase = false;
    let cumulative: { tokens: number; source: TokenSource };
    if (nextUsage) {
      cumulative = { tokens: nextUsage.contextTokens, source: 'usage' };
      st.running = nextUsage.contextTokens;
      st.runningSource = 'usage';
    } else {
      const coveredByBoundary = st.fromBoundaryBase && st.boundaryMessages !== null && r.firstLine <= st.boundaryLine;
      st.running = (u ? u.contextTokens : st.running) + (coveredByBoundary ? 0 : added);
      if (u) st.runningSource = 'usage';
      cumulative = { tokens: Math.round(st.running), source: u && source === 'usage' ? 'usage' : 'estimate' };
      if (!u && st.runningSource === 'usage') cumulative.source = 'estimate';
    }
    if (u) {
      st.newestUsage = u.contextTokens;
      st.newestUsageRound = i;
      st.outputTokens += u.outputTokens;
      st.usagePlusLater = u.contextTokens;
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
      toolResults: r.toolResults.map((t) => ({
        id: t.id,
        name: t.name ?? null,
        chars: t.chars,
        isError: t.isError,
        images: t.images,
      })),
      tokens: { added, source, estimate },
      usage: u,
      cumulative,
    });
    addToTotals(st, reports[reports.length - 1]);
    if (!r.startsAtBoundary && r.firstLine > st.boundaryLine) st.afterBoundaryEstimate += estimate;
  }
  return { reports, final: st, resume };
}

/**
 * What the next request after a compaction carries before the rounds after it add theirs: the system prompt and tools,
 * and what the compaction left that the rounds' own estimates do not hold: the agent's count of the messages it kept
 * (Claude Code's `postTokens`: its summary and preserved rounds), else what a resume sends again (our compactions: the
 * summary is the boundary's round and is estimated with the others). The rounds' running figure and the context
 * figure both start from it.
 */
function boundaryBase(boundaryMessages: number | null, overhead: number, resent: number): number {
  return overhead + (boundaryMessages ?? resent);
}

/** A round that starts at a compact boundary: the segment's line and the agent's own count of what follows it. */
function noteBoundary(st: ReportState, entries: Entry[], r: Round): void {
  st.boundaryLine = r.firstLine;
  st.boundaryMessages = null;
  for (const i of r.entries) {
    const n = entries[i].messagesAfterCompaction;
    if (n !== undefined) st.boundaryMessages = n;
  }
  st.afterBoundaryEstimate = 0;
}

/** Adds a round's report to the running sums the totals are made of. */
function addToTotals(st: ReportState, r: RoundReport): void {
  if (r.inContext) {
    st.activeRounds++;
    st.activeEstimate += r.tokens.estimate;
  }
  st.toolUses += r.toolUses.length;
  for (const t of r.toolResults) st.toolResultChars += t.chars;
  // The context now: the newest request's usage (set by the loop at its round) plus the estimates of that
  // round and every later one (its own response and results are not part of its request).
  st.usagePlusLater += r.tokens.estimate;
  noteOverhead(st, r);
}

/**
 * Estimated tokens of what every request carries but no transcript line holds (system prompt, tool
 * definitions): per segment, its first usage minus the estimated content before it; the smallest over segments.
 */
function noteOverhead(st: ReportState, r: RoundReport): void {
  if (r.segment !== st.overheadSegment || r.startsAtBoundary) {
    st.overheadSegment = r.segment;
    st.overheadBefore = 0;
    st.overheadDone = false;
  }
  if (st.overheadDone) return;
  if (r.usage && !r.synthetic) {
    // The smallest over segments: a segment after a compaction also carries re-attached files.
    const here = Math.max(0, Math.round(r.usage.contextTokens - st.overheadBefore));
    st.overhead = st.overhead === null ? here : Math.min(st.overhead, here);
    st.overheadDone = true;
  } else st.overheadBefore += r.tokens.estimate;
}

export function assembleReport(
  index: TranscriptIndex,
  chain: Chain,
  rounds: Round[],
  run: ReportRun,
  sidechains: SidechainReport[],
): InspectReport {
  const entries = index.entries;
  const { reports, final } = run;
  const {
    calibration,
    newestUsage,
    newestUsageRound,
    outputTokens,
    activeRounds,
    activeEstimate,
    toolUses,
    toolResultChars,
  } = final;
  const recorded = recordedOverhead(entries);
  const overheadTokens = recorded ?? final.overhead;
  const overheadSource = recorded !== null ? 'recorded' : final.overhead !== null ? 'estimated' : null;
  const usageInContext = newestUsageRound >= 0 && rounds[newestUsageRound].inContext;
  let current: number;
  let currentSource: TokenSource = 'estimate';
  let resentTokens = 0;
  if (usageInContext) {
    current = final.usagePlusLater;
    if (current === newestUsage) currentSource = 'usage';
  } else if (final.boundaryMessages !== null && rounds.length > 0 && rounds[rounds.length - 1].inContext) {
    // Right after the agent's own compaction its count of the messages it kept is better than our estimate of them.
    current = boundaryBase(final.boundaryMessages, overheadTokens ?? 0, 0) + final.afterBoundaryEstimate;
  } else {
    // Without usage in the active context (e.g. just compacted by us), the next request is a resume: the system
    // prompt and tools, what the resume sends again that no active line holds, and the active rounds.
    const active = new Set(rounds.filter((r) => r.inContext).map((r) => r.index));
    resentTokens = resentOnResume(index.format.id, entries, rounds, active, calibration.factor);
    current = boundaryBase(null, overheadTokens ?? 0, resentTokens) + activeEstimate;
  }
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
    compactBoundaries: chain.boundaries.map((i) => ({
      line: entries[i].line,
      preTokens: entries[i].preTokens ?? null,
    })),
    chainNotes: chain.notes,
    totals: {
      rounds: reports.length,
      activeRounds,
      toolUses,
      toolResultChars,
      contextTokens: usageInContext ? newestUsage : null,
      currentContextTokens: current,
      currentContextSource: currentSource,
      outputTokens,
      calibrationFactor: calibration.factor,
      calibrationSamples: calibration.samples,
      overheadTokens,
      overheadSource,
      transcriptEstimateTokens: Math.round(activeEstimate),
      resentTokens,
    },
  };
}

/** The system prompt and tools of the newest request shape the agent recorded (the requests after it carry them), or null. */
function recordedOverhead(entries: Entry[]): number | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const n = entries[i].recordedOverheadTokens;
    if (n !== undefined) return n;
  }
  return null;
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
