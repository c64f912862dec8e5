// Checks a written transcript the way Claude Code will rebuild it on resume: the active
// context after the last boundary must start with the summary, be API-valid, and fit the target.
import { reannouncedOnResume } from '../context';
import { analyze } from '../inspect';
import { extendIndex, indexTranscript, UNCAPPED, type TranscriptIndex } from '../transcript';
import { continuesToolLoop, rawEstimate } from '../tokens/estimate';
import { loadConversation } from '../lines';
import { checkApiValidity, toApiMessages, type ApiMessage } from './messages';

export interface ResumeCheck {
  ok: boolean;
  problems: string[];
  messages: ApiMessage[];
  estimatedTokens: number;
  leafUuid: string | null;
}

export interface ResumeCheckOptions {
  targetTokens?: number;
  calibration?: number;
  expectLeaf?: string;
  expectSummaryFirst?: boolean;
  /**
   * The index of a transcript whose first `bytes` bytes (its whole size when indexed) `file` begins with, byte for
   * byte: a compaction's output written after the original. Only the bytes after them are read and parsed; the
   * result is the same as indexing `file` from scratch, without a second index of the original in memory.
   */
  prefix?: { index: TranscriptIndex; bytes: number };
  /** The session-start context the user's agent announces today (agentNow.ts), sent again on resume; default the file's own. */
  announcedNow?: Readonly<Record<string, number>> | null;
}

export async function checkResumable(file: string, opts: ResumeCheckOptions = {}): Promise<ResumeCheck> {
  const index = opts.prefix
    ? await indexAfter(opts.prefix.index, opts.prefix.bytes, file)
    : await indexTranscript(file, UNCAPPED);
  const analysis = analyze(index, { appendable: false });
  const { chain, rounds } = analysis;
  const problems: string[] = [];
  const activeEntries = chain.main.slice(chain.activeStart);
  const records = await loadConversation(file, index.format.id, index.entries, activeEntries);
  const messages = toApiMessages(activeEntries.map((i) => records.get(i)));
  for (const p of checkApiValidity(messages)) problems.push(`message ${p.message}: ${p.problem}`);
  const leafUuid = chain.leaf >= 0 ? (index.entries[chain.leaf].uuid ?? null) : null;
  if (opts.expectLeaf && leafUuid !== opts.expectLeaf)
    problems.push(`resume would start from leaf ${leafUuid}, not the compacted chain's leaf ${opts.expectLeaf}`);
  if (opts.expectSummaryFirst) {
    const first = activeEntries.map((i) => index.entries[i]).find((e) => e.kind === 'user');
    if (!first?.isCompactSummary)
      problems.push('the first message of the resumed context is not the compaction summary');
  }
  const calibration = opts.calibration ?? 1;
  const active = rounds.filter((r) => r.inContext);
  // What resuming it sends: the active rounds, and the session-start context the agent sends again when they lack it.
  const reannounced = reannouncedOnResume(
    index.entries,
    rounds,
    new Set(active.map((r) => r.index)),
    calibration,
    opts.announcedNow,
  );
  // Each round rounded as the report rounds it (report.ts), so the figure is the written file's own context figure.
  const estimatedTokens =
    active.reduce((s, r) => s + Math.round(rawEstimate(r.content, continuesToolLoop(r)) * calibration), 0) +
    reannounced;
  if (opts.targetTokens !== undefined && estimatedTokens > opts.targetTokens)
    problems.push(`estimated ${estimatedTokens} tokens, over the ${opts.targetTokens}-token target`);
  // Responses must not merge: every assistant message id in the context is used by one response only.
  const seen = new Set<string>();
  for (const m of messages) {
    if (m.role !== 'assistant' || !m.id) continue;
    if (seen.has(m.id)) problems.push(`assistant message id ${m.id} appears in two separate messages`);
    seen.add(m.id);
  }
  return { ok: problems.length === 0, problems, messages, estimatedTokens, leafUuid };
}

/**
 * The index of `file`, which begins with the `bytes` bytes `prefix` was built from: a copy of `prefix` extended by what
 * follows (an unterminated last line of the prefix is re-read, as extendIndex does for a growing file). Falls back to
 * indexing `file` whole when `prefix` did not stop exactly at `bytes` (the original grew while it was read).
 */
async function indexAfter(prefix: TranscriptIndex, bytes: number, file: string): Promise<TranscriptIndex> {
  if (prefix.size !== bytes || prefix.consumedBytes > bytes) return indexTranscript(file, UNCAPPED);
  const index: TranscriptIndex = {
    ...prefix,
    path: file,
    entries: prefix.entries.slice(),
    malformed: prefix.malformed.slice(),
    reader: null,
  };
  const { rebuilt } = await extendIndex(index, UNCAPPED);
  return rebuilt ? indexTranscript(file, UNCAPPED) : index;
}
