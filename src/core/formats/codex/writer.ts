// Writing a compacted Codex CLI rollout (Codex's AgentWriter). The pipeline (plan, decisions, summary, checks,
// sidecars, commit) is the one compact.ts runs for every agent; this module writes it back in Codex's own way. Codex rebuilds a resumed thread
// from the newest `compacted` record that has a `replacement_history` (that history replaces everything before it;
// later response items are replayed on top), so compaction appends one such record: our summary as a user message,
// then the kept rounds' response items, each copied byte for byte from its line. Ordinals continue where the file
// has them; a fork gets a new thread id in its `session_meta` records and its file name (Codex finds a rollout by both).
import { randomUUID } from 'node:crypto';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Analysis } from '../../analysis';
import { analyze } from '../../inspect';
import { indexTranscript, UNCAPPED } from '../../transcript';
import { asObject, str, type JsonObject } from '../../json';
import { loadEntryObjects } from '../../lines';
import { SUMMARY_PREFIX } from '../../compact/summarize/prompt';
import { CompactError } from '../../errors';
import type { AgentWriter, BuiltOutput, WriteInput } from '../writer';
import { codexWriteRefusal } from './historyMode';
import { forkedMetaLine } from './threadId';

/** Marks a `compacted` record as ours (an `--out --force` target must be an earlier output of ours). */
const OUR_MARK = '"compactor":"agent-compactor"';

/** `rollout-YYYY-MM-DDTHH-MM-SS-<id>.jsonl`, the name Codex gives a rollout. */
export function codexRolloutName(id: string, now: Date): string {
  const t = now.toISOString().slice(0, 19).replace(/:/g, '-');
  return `rollout-${t}-${id}.jsonl`;
}

/** Index just past the JSON object or array that starts at `from` in `text`, or -1 when it does not close. */
function valueEnd(text: string, from: number): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) depth++;
    else if ((c === 125 || c === 93) && --depth === 0) return i + 1;
  }
  return -1;
}

/** The raw JSON text of a record's `payload` (other top-level fields may follow it), checked to parse to an object. */
export function rawPayload(line: string): string | null {
  const at = line.indexOf('"payload":');
  if (at < 0) return null;
  let from = at + '"payload":'.length;
  while (line.charCodeAt(from) === 32) from++;
  const end = valueEnd(line, from);
  if (end < 0) return null;
  const raw = line.slice(from, end);
  try {
    return asObject(JSON.parse(raw)) ? raw : null;
  } catch {
    return null;
  }
}

/** The raw JSON texts of the items of a compacted payload's replacement_history, in order. */
export function rawHistoryItems(payload: string): string[] {
  const at = payload.indexOf('"replacement_history":');
  if (at < 0) return [];
  const open = payload.indexOf('[', at);
  const close = valueEnd(payload, open);
  const items: string[] = [];
  for (let i = open + 1; i > 0 && i < close - 1;) {
    const c = payload.charCodeAt(i);
    if (c === 123) {
      const end = valueEnd(payload, i);
      if (end < 0) break;
      items.push(payload.slice(i, end));
      i = end;
    } else i++;
  }
  return items;
}

async function readRange(file: string, start: number, end: number): Promise<string> {
  return (await readBytes(file, start, end)).toString('utf8');
}

async function readBytes(file: string, start: number, end: number): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(end - start);
    await fh.read(buf, 0, buf.length, start);
    return buf;
  } finally {
    await fh.close();
  }
}

const ASCII_ID = /^[\x20-\x7e]+$/;

/**
 * A session_meta record with the thread id renamed, as bytes. Renamed in its bytes read one character per byte
 * (latin1), so that bytes of the record that are not UTF-8 (kept verbatim by the reader) stay as they were: read as
 * UTF-8, each became U+FFFD in the fork (found by the fuzz's flipped bytes). JSON's own characters and the ids are
 * ASCII, the same in both readings; an id that is not ASCII is renamed in the UTF-8 text.
 */
function forkedMetaBytes(bytes: Buffer, oldId: string, newId: string, where: string): Buffer {
  if (!ASCII_ID.test(oldId) || !ASCII_ID.test(newId))
    return Buffer.from(forkedMetaLine(bytes.toString('utf8'), oldId, newId, where));
  return Buffer.from(forkedMetaLine(bytes.toString('latin1'), oldId, newId, where), 'latin1');
}

/** Call ids whose call has no output, or whose output has no call before it, in a list of response items. */
export function unpairedCalls(items: JsonObject[]): string[] {
  const open = new Set<string>();
  const bad: string[] = [];
  for (const it of items) {
    const id = str(it, 'call_id');
    if (!id) continue;
    if (it.type === 'function_call' || it.type === 'custom_tool_call' || it.type === 'local_shell_call') open.add(id);
    else if (/_output$/.test(str(it, 'type') ?? '')) {
      if (!open.delete(id)) bad.push(id);
    }
  }
  return [...bad, ...open];
}

const OUTPUT_TYPE: Record<string, string> = {
  function_call: 'function_call_output',
  custom_tool_call: 'custom_tool_call_output',
  local_shell_call: 'function_call_output',
};

/**
 * The kept items with every call answered, as Codex itself repairs a history: a call the rollout never answered (an
 * aborted turn) gets an "aborted" output right after it, and an output whose call is not kept is left out.
 */
export function pairCalls(
  items: JsonObject[],
  raws: string[],
): { items: JsonObject[]; raws: string[]; notes: string[] } {
  const answered = new Set<string>();
  const called = new Set<string>();
  for (const it of items) {
    const id = str(it, 'call_id');
    if (!id) continue;
    if (OUTPUT_TYPE[str(it, 'type') ?? '']) called.add(id);
    else if (/_output$/.test(str(it, 'type') ?? '') && called.has(id)) answered.add(id);
  }
  const out: { items: JsonObject[]; raws: string[]; notes: string[] } = { items: [], raws: [], notes: [] };
  items.forEach((it, k) => {
    const id = str(it, 'call_id');
    const type = str(it, 'type') ?? '';
    if (id && /_output$/.test(type) && !called.has(id)) {
      out.notes.push(`the output of call ${id} was left out of the kept history: its call was summarized`);
      return;
    }
    out.items.push(it);
    out.raws.push(raws[k]);
    if (id && OUTPUT_TYPE[type] && !answered.has(id)) {
      const aborted = { type: OUTPUT_TYPE[type], call_id: id, output: 'aborted' };
      out.items.push(aborted);
      out.raws.push(JSON.stringify(aborted));
      out.notes.push(
        `call ${id} was never answered in the rollout (an aborted turn): an "aborted" output follows it, as Codex adds one itself`,
      );
    }
  });
  return out;
}

export interface CodexFacts {
  threadId: string;
  cwd: string | null;
  /** Ordinal of the last record, when the file numbers its records. */
  lastOrdinal: number | null;
  /** window_number of the newest compacted record that has one. */
  lastWindow: number | null;
  /** window_id of the newest compacted record: a UUID string (0.142 on), an integer in older records, or null. */
  lastWindowId: string | number | null;
  /** session_meta records ([start, end) byte ranges) naming the thread id. */
  metaRanges: [number, number][];
}

export async function codexFacts(file: string, analysis: Analysis): Promise<CodexFacts> {
  const entries = analysis.index.entries;
  const metas: number[] = [];
  let lastCompacted = -1;
  for (let i = 0; i < entries.length; i++) {
    if (entries[i].kind === 'session_meta') metas.push(i);
    if (entries[i].kind === 'system' && entries[i].subtype === 'compact_boundary') lastCompacted = i;
  }
  const wanted = [...metas];
  if (entries.length) wanted.push(entries.length - 1);
  if (lastCompacted >= 0) wanted.push(lastCompacted);
  const objects = await loadEntryObjects(file, entries, wanted);
  const firstMeta = asObject(objects.get(metas[0])?.payload);
  const threadId = str(firstMeta, 'id') ?? str(firstMeta, 'session_id');
  if (!threadId)
    throw new CompactError(
      'invalid-output',
      `${basename(file)} has no session_meta record with a thread id, so Codex could not resume it; nothing was written.`,
    );
  const last = objects.get(entries.length - 1);
  const lastOrdinal = typeof last?.ordinal === 'number' ? last.ordinal : null;
  const refusal = codexWriteRefusal(firstMeta, lastOrdinal);
  if (refusal)
    throw new CompactError(
      'unsupported-format',
      `${basename(file)} is not written back: ${refusal}; nothing was written.`,
    );
  const window = lastCompacted >= 0 ? asObject(objects.get(lastCompacted)?.payload)?.window_number : undefined;
  const windowId = lastCompacted >= 0 ? asObject(objects.get(lastCompacted)?.payload)?.window_id : undefined;
  const metaRanges = metas
    .filter((i) =>
      [str(asObject(objects.get(i)?.payload), 'id'), str(asObject(objects.get(i)?.payload), 'session_id')].includes(
        threadId,
      ),
    )
    .map((i): [number, number] => [entries[i].start, entries[i].end]);
  return {
    threadId,
    cwd: str(firstMeta, 'cwd') ?? null,
    lastOrdinal,
    lastWindow: typeof window === 'number' ? window : null,
    lastWindowId: typeof windowId === 'number' || typeof windowId === 'string' ? windowId : null,
    metaRanges,
  };
}

/** The original's first `size` bytes, the thread id replaced in the given session_meta ranges, then `appended`. */
async function* codexOutput(
  file: string,
  size: number,
  patches: { range: [number, number]; text: Buffer }[],
  appended: string,
): AsyncGenerator<Buffer | string> {
  const fh = await open(file, 'r');
  try {
    let pos = 0;
    let lastByte = -1;
    const copy = async function* (to: number): AsyncGenerator<Buffer> {
      const buf = Buffer.allocUnsafe(1 << 20);
      while (pos < to) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, to - pos), pos);
        if (bytesRead === 0) break;
        pos += bytesRead;
        lastByte = buf[bytesRead - 1];
        yield Buffer.from(buf.subarray(0, bytesRead));
      }
    };
    for (const p of patches) {
      yield* copy(p.range[0]);
      yield p.text;
      pos = p.range[1];
    }
    yield* copy(size);
    if (lastByte !== -1 && lastByte !== 10) yield '\n';
  } finally {
    await fh.close();
  }
  yield appended;
}

/** Checks the written rollout as Codex will read it; returns the estimated tokens of its active context. */
export async function checkCodexOutput(tmp: string, appendedLine: number, items: JsonObject[]): Promise<number> {
  const problems: string[] = [];
  const index = await indexTranscript(tmp, UNCAPPED);
  if (index.format.id !== 'codex') problems.push('the result is not read as a Codex rollout');
  const written = index.entries.filter((e) => e.line === appendedLine);
  if (!written.some((e) => e.kind === 'system' && e.subtype === 'compact_boundary'))
    problems.push(`line ${appendedLine} is not read as the compacted record`);
  const unpaired = unpairedCalls(items);
  if (unpaired.length)
    problems.push(`tool calls without their outputs in the kept history: ${unpaired.slice(0, 3).join(', ')}`);
  if (problems.length)
    throw new CompactError(
      'invalid-output',
      `The compacted rollout failed validation, so nothing was written: ${problems.join('; ')}`,
    );
  const report = analyze(index).report;
  return report.rounds.filter((r) => r.inContext).reduce((s, r) => s + r.tokens.estimate, 0);
}

/**
 * The window id of the record after one whose window id is `previous`, of the type the file uses: Codex writes a UUID
 * string (0.142 on); older records hold an integer, continued as the next integer.
 */
export function nextWindowId(previous: string | number | null): string | number {
  return typeof previous === 'number' && Number.isSafeInteger(previous) ? previous + 1 : randomUUID();
}

/** The compacted record, and the file it ends (the original's bytes, thread id renamed for a new id, then it). */
export interface CodexRecord {
  chunks: AsyncGenerator<Buffer | string>;
  /** The record's replacement_history: our summary item, then the kept items with every call answered. */
  history: JsonObject[];
  /** The record's line number in the written file. */
  line: number;
}

/**
 * The `compacted` record that replaces the active context by `summary` and the items of the `kept` rounds (each
 * copied byte for byte from its line), and the output stream it ends. Notes on calls paired go to `notes`.
 */
export async function codexCompactedRecord(
  file: string,
  analysis: Analysis,
  kept: number[],
  summary: string,
  facts: CodexFacts,
  newId: string | null,
  notes: string[],
): Promise<CodexRecord> {
  const index = analysis.index;
  const keptItems: JsonObject[] = [];
  const keptRaw: string[] = [];
  for (const i of kept.flatMap((ri) => analysis.rounds[ri].entries)) {
    const e = index.entries[i];
    if (e.kind !== 'user' && e.kind !== 'assistant') continue;
    if (e.blocks.length === 0) continue; // a token count: usage, not history
    const line = await readRange(file, e.start, e.end);
    const k = e.item;
    const payload = rawPayload(line);
    const raw = k === undefined ? payload : payload === null ? null : (rawHistoryItems(payload)[k] ?? null);
    if (raw === null)
      throw new CompactError(
        'invalid-output',
        `line ${e.line}: cannot copy its response item verbatim; nothing was written.`,
      );
    keptRaw.push(raw);
    keptItems.push(JSON.parse(raw) as JsonObject);
  }
  const paired = pairCalls(keptItems, keptRaw);
  notes.push(...paired.notes);
  const summaryItem = {
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text: SUMMARY_PREFIX + summary }],
  };
  const head: JsonObject = { timestamp: new Date().toISOString() };
  if (facts.lastOrdinal !== null) head.ordinal = facts.lastOrdinal + 1;
  head.type = 'compacted';
  const extra: string[] = [];
  // Rollouts that number their compaction windows get the next window.
  if (facts.lastWindow !== null)
    extra.push(
      `"window_id":${JSON.stringify(nextWindowId(facts.lastWindowId))}`,
      `"window_number":${facts.lastWindow + 1}`,
    );
  const payload = `{"message":${JSON.stringify(summary)},"replacement_history":[${[JSON.stringify(summaryItem), ...paired.raws].join(',')}]${extra.map((x) => ',' + x).join('')},${OUR_MARK}}`;
  const appended = `${JSON.stringify(head).slice(0, -1)},"payload":${payload}}\n`;

  const patches: { range: [number, number]; text: Buffer }[] = [];
  if (newId) {
    for (const range of facts.metaRanges) {
      const bytes = await readBytes(file, range[0], range[1]);
      patches.push({
        range,
        text: forkedMetaBytes(bytes, facts.threadId, newId, `${basename(file)} at byte ${range[0]}`),
      });
    }
  }
  return {
    chunks: codexOutput(file, index.size, patches, appended),
    history: [summaryItem, ...paired.items],
    line: index.lineCount + 1,
  };
}

export const codexWriter: AgentWriter<CodexFacts> = {
  writerName: 'Codex',
  forkPattern: 'rollout-<time>-<new-id>.jsonl',
  prepare: codexFacts,
  // Codex finds a rollout by the thread id in it (and its name): an `--out` file gets a new id too.
  naming: (_given, facts) => ({
    inPlaceId: facts.threadId,
    forkName: (id) => codexRolloutName(id, new Date()),
    outGetsNewId: true,
  }),
  async build({ file, prepared, target, facts }: WriteInput<CodexFacts>): Promise<BuiltOutput> {
    const plan = prepared.details.plan;
    const notes: string[] = [];
    const record = await codexCompactedRecord(
      file,
      prepared.analysis,
      prepared.details.kept,
      prepared.summary,
      facts,
      target.newSessionId ?? null,
      notes,
    );
    return {
      chunks: record.chunks,
      check: async (tmp) => {
        const estimatedTokens = await checkCodexOutput(tmp, record.line, record.history);
        return { estimatedTokens, overTarget: estimatedTokens > plan.messageTarget };
      },
      cwd: facts.cwd,
      summary: prepared.summary,
      notes,
    };
  },
};
