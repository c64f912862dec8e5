// Inspection: the round list with honest token figures, as the CLI and the extension show it.
import { open, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { buildChainWithTables } from './chain';
import { buildRounds } from './rounds';
import {
  assertTranscript,
  extendIndex,
  indexTranscript,
  NotATranscriptError,
  type IndexOptions,
  type TranscriptIndex,
} from './transcript';
import { indexJsonDocument, isJsonDocument } from './formats/documents';
import { isRealDir, listSidecarDir, openSidecar } from './io/sidecarFiles';
import { buildIncrementalState, extendAnalysis } from './incremental';
import type { Analysis } from './analysis';
import type { Entry } from './entries';
import { assembleReport, freshReportState, reportRounds, sidechainReport } from './report';

export type { InspectReport, RoundReport, RoundTokens, SidechainReport, TokenSource } from './report';
export type { Analysis, IncrementalState } from './analysis';

export interface AnalyzeOptions {
  /**
   * False for a reader that will not `reinspect` the analysis (a one-shot command): its `appendState` (tables
   * over every uuid, message and tool id) is not built, and a later `reinspect` re-derives in full. Default true.
   */
  appendable?: boolean;
}

export function analyze(index: TranscriptIndex, options: AnalyzeOptions = {}): Analysis {
  const { chain, tables } = buildChainWithTables(index.entries);
  const rounds = buildRounds(index.entries, chain);
  const run = reportRounds(index.entries, rounds, 0, freshReportState(), [], index.format.id);
  const report = assembleReport(
    index,
    chain,
    rounds,
    run,
    chain.sidechains.map((s) => sidechainReport(index, s.id, s.entries)),
  );
  const appendState =
    options.appendable === false ? null : buildIncrementalState(index.entries, chain, tables, rounds, run.resume);
  return { index, chain, rounds, report, appendState };
}

/** Subagent files of a session: `<dir>/<session>/subagents/agent-*.jsonl`. */
export async function findSubagentFiles(file: string): Promise<string[]> {
  // Only a JSONL session has that folder (for any other name, `session` would be the file itself).
  if (!file.endsWith('.jsonl')) return [];
  // Both folders real ones (sidecarFiles.ts): a link is refused, never followed.
  const session = join(dirname(file), basename(file, '.jsonl'));
  const dir = join(session, 'subagents');
  const entries = (await isRealDir(session)) ? await listSidecarDir(dir) : null;
  return (entries ?? [])
    .map((e) => e.name)
    .filter((n) => n.endsWith('.jsonl'))
    .sort()
    .map((n) => join(dir, n));
}

/** Refuses a subagent file that is not a regular file (a link, a FIFO, a device: reading one may never end). */
async function assertSubagentFile(path: string): Promise<void> {
  const opened = await openSidecar(path);
  await opened?.fh.close();
}

/** The responses of a subagent's transcript, which its session paid for (its assistant lines with usage). */
function subagentResponsesOf(entries: readonly Entry[]): Entry[] {
  return entries.filter((e) => e.kind === 'assistant' && e.usage !== undefined);
}

/**
 * Every response of the session's subagents (`<session>/subagents/*.jsonl`), read as `inspectFile` reads them: what
 * the session's cost counts beside its own file (the Sessions row prices them as the map and `inspect` do).
 */
export async function readSubagentResponses(file: string, options: IndexOptions = {}): Promise<Entry[]> {
  const out: Entry[] = [];
  for (const sub of await findSubagentFiles(file)) {
    await assertSubagentFile(sub);
    out.push(...subagentResponsesOf((await indexTranscript(sub, options)).entries));
  }
  return out;
}

export interface InspectOptions extends IndexOptions, AnalyzeOptions {
  /** Also read `<session>/subagents/*.jsonl` (default true). */
  subagents?: boolean;
}

/** A JSON-document session's index; refused, naming what was found, when it is no session format we read. */
async function documentIndex(file: string): Promise<TranscriptIndex> {
  const index = await indexJsonDocument(file);
  if (!index)
    throw new NotATranscriptError(
      `${file}: one JSON document, but no session format Agent Compactor reads (expected a Gemini CLI chat with a messages array, a Cline / Roo Code message array, or a Claude Code transcript array)${(await crOnly(file)) ? '; its lines end in a carriage return alone, and JSON lines end in a line feed' : ''}`,
    );
  return index;
}

/** Whether the file's first 64 KiB hold a carriage return and no line feed (lines ended the old Mac way). */
async function crOnly(file: string): Promise<boolean> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(64 << 10);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const head = buf.subarray(0, bytesRead);
    return head.includes(13) && !head.includes(10);
  } finally {
    await fh.close();
  }
}

/**
 * The index of a session file in whichever container it is (one JSON document, or JSON lines), refused with a
 * located one-line error when it is no session we read: the one format decision of every verb (inspect, plan,
 * compact, doctor, repair), so that a file one of them refuses is refused by all, with the same message.
 */
export async function readSessionIndex(file: string, options: IndexOptions = {}): Promise<TranscriptIndex> {
  const index = (await isJsonDocument(file)) ? await documentIndex(file) : await indexTranscript(file, options);
  assertTranscript(index);
  return index;
}

/** Reads, validates and analyses a transcript file. Throws NotATranscriptError on unusable input. */
export async function inspectFile(file: string, options: InspectOptions = {}): Promise<Analysis> {
  const st = await stat(file);
  if (!st.isFile()) throw new Error(`${file}: not a regular file`);
  const index = await readSessionIndex(file, options);
  const analysis = analyze(index, options);
  if (options.subagents !== false) {
    for (const sub of await findSubagentFiles(file)) {
      await assertSubagentFile(sub);
      const subIndex = await indexTranscript(sub, options);
      const subAnalysis = analyze(subIndex, { appendable: false });
      (analysis.subagentResponses ??= []).push(...subagentResponsesOf(subIndex.entries));
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

/**
 * Incremental re-inspection: parses only the appended bytes, then extends the chain, the
 * last rounds and their report figures instead of re-deriving everything, when the append
 * is an ordinary continuation of the conversation (see `extendAnalysis`); anything else
 * (a rewrite, a compaction, a branch, new inline sidechains, a resumed leaf) is re-derived
 * in full. Either way the result equals a full `inspectFile` of the file as it is now.
 * Subagent-file sidechains found by the previous inspection are kept. `incremental` tells
 * which path was taken.
 */
export async function reinspect(
  previous: Analysis,
  options: IndexOptions = {},
): Promise<Analysis & { rebuilt: boolean; incremental: boolean }> {
  const index = previous.index;
  // A JSON document is rewritten whole by its agent: read it again.
  if (index.format.container === 'json')
    return Object.assign(await inspectFile(index.path, { subagents: false }), { rebuilt: true, incremental: false });
  const state = previous.appendState;
  const before = index.entries.length;
  const { rebuilt, droppedEntries } = await extendIndex(index, options);
  let next: Analysis | null = null;
  if (!rebuilt && droppedEntries === 0 && state && state.entryCount === before) next = extendAnalysis(previous, state);
  const extended = next !== null;
  if (!next) next = analyze(index);
  const fileSidechains = rebuilt ? [] : previous.report.sidechains.filter((s) => s.source === 'file');
  if (fileSidechains.length)
    next.report.sidechains = [...next.report.sidechains.filter((s) => s.source !== 'file'), ...fileSidechains];
  if (!rebuilt && previous.subagentResponses) next.subagentResponses = previous.subagentResponses;
  return Object.assign(next, { rebuilt, incremental: extended });
}
