// The lines of a session a compaction needs, read once after planning: the kept rounds' lines whole (the writer
// copies them), the summarized rounds' as the summarizer reads them, the leaf and an earlier summary.
import type { Analysis } from '../analysis';
import { loadEntryObjects, RawBytes } from '../lines';
import { agentModule } from '../formats/registry';
import type { JsonObject } from '../json';
import { contentText, messageOf, type ConversationRecord } from '../conversation';
import type { PlanDetails } from './planBase';
import type { PlanInputs, SummarizerOptions } from './options';
import { earlierSummaryOf, type EarlierSummary } from './summary';
import { shapeForExtractive } from './summarize/extractive';

/** The rounds a plan summarizes (indices into analysis.rounds), in order. */
export function summarizedRounds(analysis: Analysis, d: PlanDetails): number[] {
  return analysis.rounds
    .filter((r) => r.inContext && d.plan.rounds[r.index].action === 'summarize')
    .map((r) => r.index);
}

/** Stands for a line loaded only to be summarized: its record is kept (Loaded.records), the line itself is not. */
const NOT_WRITTEN: JsonObject = Object.freeze({});

export interface Loaded {
  /** The lines written as they are (kept rounds, the leaf, the earlier summary), parsed whole: what the writer copies. */
  objects: Map<number, JsonObject>;
  /** What the summarizers and the fidelity measure read: each loaded entry's message as its agent's module maps it. */
  records: Map<number, ConversationRecord>;
  earlier: EarlierSummary | null;
  /** Entries loaded whole (written as they are). */
  written: Set<number>;
  rawBytes: RawBytes;
}

/** The entries a plan reads: those of its summarized and kept rounds, the leaf and the earlier summary. */
function neededEntries(
  analysis: Analysis,
  plan: PlanDetails,
  earlierAt: { entry: number } | null,
): { needed: Set<number>; written: Set<number> } {
  const needed = new Set<number>();
  for (const ri of [...summarizedRounds(analysis, plan), ...plan.kept])
    for (const e of analysis.rounds[ri].entries) needed.add(e);
  if (analysis.chain.leaf >= 0) needed.add(analysis.chain.leaf);
  if (earlierAt) needed.add(earlierAt.entry);
  const written = new Set<number>(plan.kept.flatMap((ri) => analysis.rounds[ri].entries));
  if (analysis.chain.leaf >= 0) written.add(analysis.chain.leaf);
  if (earlierAt) written.add(earlierAt.entry);
  return { needed, written };
}

/**
 * The lines a plan needs, loaded once: whole where they are written as they are, cut down to what the summarizer reads
 * where they are only summarized (`offline`: the summary is given or written offline).
 */
export async function loadForSummary(
  file: string,
  analysis: Analysis,
  firstPlan: PlanDetails,
  offline: boolean,
): Promise<Loaded> {
  const active = analysis.rounds.filter((r) => r.inContext).map((r) => r.index);
  const earlierAt = earlierSummaryOf(analysis, active);
  const { needed, written } = neededEntries(analysis, firstPlan, earlierAt);
  // Each record is read as its message in the engine's model by its agent's module, as it is parsed. A line only
  // summarized is not kept; its message is cut down to what the summarizer reads (the offline summary reads little;
  // the others the messages, never an agent's own copies of tool results). Written lines stay whole, and so do the
  // earlier summary and the agent's preserved segment (quoted whole if summarized: summary.ts offlineSummary).
  const records = agentModule(analysis.index.format.id).records;
  const message = records?.message;
  // The folder the session names once for all its records, where its agent does (read first: lines are parsed in
  // file order), so that the summaries name its files relative to it as they do on lines that carry their own.
  let metaCwd: string | undefined;
  const folder = records?.sessionFolder;
  const firstMeta = folder ? analysis.index.entries.findIndex((e) => folder.holds(e)) : -1;
  if (firstMeta >= 0) needed.add(firstMeta);
  const preserved = new Set(analysis.chain.preserved);
  const conversation = new Map<number, ConversationRecord>();
  const read = (line: JsonObject, i: number) => {
    if (i === firstMeta) metaCwd = folder!.read(line) ?? undefined;
    const r = message?.(line, analysis.index.entries[i]);
    if (r) {
      if (metaCwd !== undefined) r.cwd = metaCwd;
      conversation.set(i, written.has(i) || preserved.has(i) || !offline ? r : shapeForExtractive(r));
    }
    return written.has(i) ? line : NOT_WRITTEN;
  };
  const rawBytes = new RawBytes(written);
  const objects = await loadEntryObjects(file, analysis.index.entries, [...needed], read, rawBytes);
  for (const [i, o] of objects) if (o === NOT_WRITTEN) objects.delete(i);
  const earlierContent = earlierAt ? messageOf(conversation.get(earlierAt.entry))?.content : undefined;
  const earlier: EarlierSummary | null = earlierAt
    ? { ...earlierAt, content: earlierContent, text: contentText(earlierContent) }
    : null;
  return { objects, records: conversation, earlier, written, rawBytes };
}

/** True when no summarizer reads the lines whole: the summary is given, or written offline. */
export function isOffline(inputs: PlanInputs, summarizer: SummarizerOptions): boolean {
  if (inputs.summaryText !== undefined || summarizer.summarizer === 'extractive') return true;
  return summarizer.summarizer === 'anthropic' && !summarizer.anthropic?.apiKey;
}

/**
 * `loaded` with the lines a plan keeps that were not loaded whole yet (a plan for a given summary keeps more than the
 * plan the lines were loaded for when its text is shorter than the reserve), read whole.
 */
export async function withNewlyKept(
  file: string,
  analysis: Analysis,
  details: PlanDetails,
  loaded: Loaded,
): Promise<Loaded> {
  const nowKept = details.kept.flatMap((ri) => analysis.rounds[ri].entries).filter((e) => !loaded.written.has(e));
  for (const e of nowKept) loaded.written.add(e);
  if (nowKept.length)
    for (const [i, o] of await loadEntryObjects(file, analysis.index.entries, nowKept, undefined, loaded.rawBytes))
      loaded.objects.set(i, o);
  return loaded;
}
