// A transcript index: every entry summary and every malformed line of a file, built by
// streaming and extendable incrementally when the file grows (a live session).
import { createHash } from 'node:crypto';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { decodeLine, readLineBatches, DEFAULT_MAX_LINE_BYTES } from './reader';
import { isKindOnly, parseLine, type DigestFn, type Entry, type Malformed } from './entries';
import type { RecordReader } from './formats/agent';
import { agentModule, fallbackRecordAgent, formatOf, recordAgentOf, type FormatInfo } from './formats/registry';

export interface TranscriptIndex {
  path: string;
  entries: Entry[];
  malformed: Malformed[];
  /** Number of physical lines read (including blank and malformed ones). */
  lineCount: number;
  /** Byte offset up to which complete lines were consumed; an unterminated tail is re-read next time. */
  consumedBytes: number;
  /** File size when last read. */
  size: number;
  /** Modification time (ms) when last read. */
  mtimeMs: number;
  /** True if the file started with a UTF-8 BOM. */
  bom: boolean;
  /** Count of CRLF-terminated lines. */
  crlfLines: number;
  /** The last line had no newline (maybe still being written); it is not in `entries` unless it parsed. */
  unterminatedTail: boolean;
  /** Fingerprint of the first `consumedBytes` bytes (`prefixFingerprint`), to tell an append from a rewrite. */
  prefixDigest: string;
  /** The agent that wrote the file, decided by its first JSON object (Claude Code until one is read). */
  format: FormatInfo;
  /** The format's record reader and its state, to continue reading appended lines (null: not started, or a copy). */
  reader: ReaderSlot | null;
}

/**
 * Most lines of one transcript read. Every line of a JSON object keeps an entry, however little it holds (a `{}` line
 * about 70 bytes: `isKindOnly`), so the line count bounds what the index holds: 4,000,000 of them keep a compaction
 * under about 600 MB. Real sessions hold tens of thousands of lines.
 */
export const MAX_TRANSCRIPT_LINES = 4_000_000;

/**
 * Most records of one transcript held: entries that hold more than their kind (messages, events, anything with a
 * uuid), and malformed lines. Each takes about 1 KB in the index and 2 to 3 KB more in the analysis and a compaction
 * (at the peak, about 4 KB a record for tiny user/assistant records, 3 KB a line for real sessions): at the cap, about
 * 1 GB. This bounds the memory of a transcript of many short records, the line cap that of a transcript of empty
 * ones. A real session of 100 MB holds about 30,000.
 */
export const MAX_TRANSCRIPT_RECORDS = 250_000;

/**
 * No caps: for a file this process wrote from one it read under them (a compaction's output: the original and the
 * lines the compaction added, bounded by its target), which must not fail its own check when the original was just
 * under a cap.
 */
export const UNCAPPED: Readonly<IndexOptions> = { maxLines: Infinity, maxRecords: Infinity };

export interface IndexOptions {
  maxLineBytes?: number;
  /** Lines read at most (default MAX_TRANSCRIPT_LINES); one more refuses the file (`NotATranscriptError`, too-large). */
  maxLines?: number;
  /** Records held at most (default MAX_TRANSCRIPT_RECORDS); one more refuses the file (`NotATranscriptError`, too-large). */
  maxRecords?: number;
  /** Called every ~8 MB with bytes read so far, for progress displays. */
  onProgress?: (bytesRead: number, totalBytes: number) => void;
  /** Yield to the event loop every N lines so callers on a shared thread stay responsive. */
  yieldEvery?: number;
}

export class NotATranscriptError extends Error {
  /**
   * `empty`: the file has no lines yet (a session not written to: nothing is wrong with it). `too-large`: over a cap
   * (MAX_TRANSCRIPT_LINES, MAX_TRANSCRIPT_RECORDS); the file was not read further.
   */
  constructor(
    message: string,
    readonly reason: 'empty' | 'unrecognised' | 'too-large' = 'unrecognised',
  ) {
    super(message);
  }
}

function emptyIndex(path: string): TranscriptIndex {
  return {
    path,
    entries: [],
    malformed: [],
    lineCount: 0,
    consumedBytes: 0,
    size: 0,
    mtimeMs: 0,
    bom: false,
    crlfLines: 0,
    unterminatedTail: false,
    prefixDigest: '',
    format: formatOf(fallbackRecordAgent().id, 'jsonl'),
    reader: null,
  };
}

/** The record reader of an index and its state before an unterminated last line (re-read when the file grows). */
export interface ReaderSlot {
  reader: RecordReader | null;
  /** Reader state before the unterminated tail was read; `null` reader: the tail was the first object. */
  beforeTail: { reader: RecordReader | null; state: unknown } | null;
}

function slotOf(index: TranscriptIndex): ReaderSlot {
  // An index copied from another one (validate.ts, with `reader: null`) continues in the format already decided.
  index.reader ??= {
    reader: index.entries.length ? (agentModule(index.format.id).records?.reader() ?? null) : null,
    beforeTail: null,
  };
  return index.reader;
}

/** The digest for the index's next lines: the first JSON object decides the format. */
function digestFor(index: TranscriptIndex, slot: ReaderSlot): DigestFn {
  return (value, line, part, start, end) => {
    if (!slot.reader) {
      const agent = recordAgentOf(value);
      slot.reader = agent.records.reader();
      index.format = formatOf(agent.id, 'jsonl');
    }
    return slot.reader.digest(value, line, part, start, end);
  };
}

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Reads a whole transcript into an index. */
export async function indexTranscript(path: string, options: IndexOptions = {}): Promise<TranscriptIndex> {
  const index = emptyIndex(path);
  await extendIndex(index, options);
  return index;
}

/** Prefixes up to this size are fingerprinted whole; larger ones by sampled windows (see `prefixFingerprint`): about 0.6 MB read per check, so re-reading a live 100 MB session stays cheap. */
const WHOLE_PREFIX_BYTES = 4 << 20;
const EDGE_BYTES = 256 << 10;
const SAMPLES = 32;
const SAMPLE_BYTES = 4096;

/**
 * A digest of the file's first `end` bytes. Up to 4 MiB that is every byte, so any change is
 * seen. Beyond, reading the whole prefix on every append would make re-reading a live 100 MB
 * session cost as much as reading it afresh: the digest covers the first and last 256 KiB before
 * `end` (where rewrites by tools, and compactions, change bytes) and 32 evenly spaced 4 KiB
 * windows; a same-length rewrite that changes only bytes outside all of them goes unseen.
 */
export async function prefixFingerprint(path: string, end: number): Promise<string> {
  const hash = createHash('sha1');
  hash.update(String(end));
  if (end === 0) return hash.digest('hex');
  const fh = await open(path, 'r');
  try {
    const windows: [number, number][] = [];
    if (end <= WHOLE_PREFIX_BYTES) windows.push([0, end]);
    else {
      windows.push([0, EDGE_BYTES]);
      const span = end - 2 * EDGE_BYTES;
      for (let k = 0; k < SAMPLES; k++) {
        const at = EDGE_BYTES + Math.floor((span * k) / SAMPLES);
        windows.push([at, Math.min(at + SAMPLE_BYTES, end - EDGE_BYTES)]);
      }
      windows.push([end - EDGE_BYTES, end]);
    }
    const total = windows.reduce((n, [from, to]) => n + to - from, 0);
    // Up to 1 MiB (the sampled windows: 640 KiB) is read at once, the reads overlapping in the thread pool,
    // then hashed in order: one round trip instead of 34 on every append to a live session.
    const buf = Buffer.allocUnsafe(Math.min(total, 1 << 20));
    if (total <= buf.length) {
      let into = 0;
      const reads = windows.map(([from, to]) => readFully(fh, buf.subarray(into, (into += to - from)), from));
      if ((await Promise.all(reads)).includes(false)) return 'short'; // the file is shorter than `end` now
      hash.update(buf);
    } else {
      for (const [from, to] of windows) {
        for (let at = from; at < to; at += buf.length) {
          const part = buf.subarray(0, Math.min(buf.length, to - at));
          if (!(await readFully(fh, part, at))) return 'short';
          hash.update(part);
        }
      }
    }
    return hash.digest('hex');
  } finally {
    await fh.close();
  }
}

/** Fills `target` from the file at `position`; false when the file ends first. */
async function readFully(fh: FileHandle, target: Buffer, position: number): Promise<boolean> {
  for (let done = 0; done < target.length;) {
    const { bytesRead } = await fh.read(target, done, target.length - done, position + done);
    if (bytesRead === 0) return false;
    done += bytesRead;
  }
  return true;
}

/** True when the bytes the index was built from are still the file's first bytes (it was at most appended to). */
export async function prefixUnchanged(index: TranscriptIndex): Promise<boolean> {
  if (index.consumedBytes === 0) return true;
  const st = await stat(index.path);
  return (
    st.size >= index.consumedBytes && (await prefixFingerprint(index.path, index.consumedBytes)) === index.prefixDigest
  );
}

/**
 * The read chunk for `bytes` to read: at most 1 MiB, so that fewer lines (and their decoded text) wait in a batch long
 * enough to be moved to the old generation (a 4 MiB chunk made `inspect`'s peak about 10 MB higher on a 100 MB file),
 * and an append of a few KB to a large file reads with a buffer of its own size.
 */
function chunkFor(bytes: number): number {
  let size = 64 << 10;
  while (size < bytes && size < 1 << 20) size *= 2;
  return size;
}

/**
 * Reads only what was appended since the index was built (O(appended bytes), plus the prefix
 * fingerprint). If the bytes already read changed in any way an append cannot explain (the
 * file shrank, or was rewritten: see `prefixFingerprint`), the index is rebuilt from scratch
 * and `rebuilt` is true.
 */
export async function extendIndex(
  index: TranscriptIndex,
  options: IndexOptions = {},
): Promise<{ rebuilt: boolean; newEntries: number; droppedEntries: number }> {
  let rebuilt = false;
  if (!(await prefixUnchanged(index))) {
    Object.assign(index, emptyIndex(index.path));
    rebuilt = true;
  }
  const slot = slotOf(index);
  // A previously unterminated tail is re-read: drop what it produced.
  const lengthBefore = index.entries.length;
  if (index.unterminatedTail) {
    const tailLine = index.lineCount;
    while (index.entries.length && index.entries[index.entries.length - 1].line === tailLine) index.entries.pop();
    while (index.malformed.length && index.malformed[index.malformed.length - 1].line === tailLine)
      index.malformed.pop();
    index.lineCount--;
    index.unterminatedTail = false;
    if (slot.beforeTail) {
      slot.reader = slot.beforeTail.reader;
      slot.reader?.restore(slot.beforeTail.state);
      slot.beforeTail = null;
    }
  }
  const digest = digestFor(index, slot);
  const before = index.entries.length;
  const st = await stat(index.path);
  const droppedEntries = rebuilt ? 0 : lengthBefore - before;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const maxLines = options.maxLines ?? MAX_TRANSCRIPT_LINES;
  const maxRecords = options.maxRecords ?? MAX_TRANSCRIPT_RECORDS;
  // Records held, counted (one pass) only once the index holds more entries and malformed lines than the cap: most
  // files never get there, and kind-only entries do not count.
  let held: number | null = null;
  const yieldEvery = options.yieldEvery ?? 0;
  let sinceYield = 0;
  let nextProgress = index.consumedBytes + (8 << 20);
  for await (const batch of readLineBatches(index.path, {
    fromOffset: index.consumedBytes,
    firstLine: index.lineCount + 1,
    maxLineBytes,
    chunkSize: chunkFor(st.size - index.consumedBytes),
  })) {
    for (const raw of batch) {
      if (raw.line > maxLines) throw tooManyLines(index.path, maxLines);
      const entriesBefore = index.entries.length;
      const malformedBefore = index.malformed.length;
      if (raw.line === 1 && raw.start === 3) index.bom = true;
      index.lineCount = raw.line;
      if (raw.crlf) index.crlfLines++;
      if (raw.unterminated) index.unterminatedTail = true;
      else index.consumedBytes = raw.end + (raw.crlf ? 2 : 1);
      if (raw.oversize) {
        index.malformed.push({
          line: raw.line,
          start: raw.start,
          end: raw.end,
          error: `line is ${raw.end - raw.start} bytes, over the ${maxLineBytes}-byte limit; kept verbatim, not parsed`,
          recovered: 0,
        });
      } else {
        const { text, invalidUtf8 } = decodeLine(raw.bytes);
        if (raw.unterminated) slot.beforeTail = { reader: slot.reader, state: slot.reader?.snapshot() };
        const parsed = parseLine(text, raw.line, raw.start, raw.end, digest);
        for (const e of parsed.entries) index.entries.push(e);
        if (parsed.malformed) {
          if (raw.unterminated)
            parsed.malformed.error = `unterminated last line (still being written?): ${parsed.malformed.error}`;
          index.malformed.push(parsed.malformed);
        } else if (invalidUtf8) {
          index.malformed.push({
            line: raw.line,
            start: raw.start,
            end: raw.end,
            error: 'invalid UTF-8 bytes (kept verbatim)',
            recovered: parsed.entries.length,
          });
        }
      }
      if (held !== null) held += recordsHeld(index, entriesBefore, malformedBefore);
      else if (index.entries.length + index.malformed.length > maxRecords) held = recordsHeld(index, 0, 0);
      if (held !== null && held > maxRecords) throw tooManyRecords(index.path, raw.line, maxRecords);
      if (options.onProgress && raw.end >= nextProgress) {
        options.onProgress(raw.end, st.size);
        nextProgress = raw.end + (8 << 20);
      }
      if (yieldEvery && ++sinceYield >= yieldEvery) {
        sinceYield = 0;
        await yieldNow();
      }
    }
  }
  index.size = st.size;
  index.mtimeMs = st.mtimeMs;
  if (slot.reader) index.format = { ...index.format, version: slot.reader.version() };
  index.prefixDigest = await prefixFingerprint(index.path, index.consumedBytes);
  return { rebuilt, newEntries: index.entries.length - before, droppedEntries };
}

/** Entries (not kind-only) and malformed lines of the index from entry `entry` and malformed line `malformed` on. */
function recordsHeld(index: TranscriptIndex, entry: number, malformed: number): number {
  let n = index.malformed.length - malformed;
  for (let i = entry; i < index.entries.length; i++) if (!isKindOnly(index.entries[i])) n++;
  return n;
}

const count = (n: number) => n.toLocaleString('en-US');

/** Why a memory cap applies: said by every refusal, so the user knows it is the file's size, not its content. */
const CAP_REASON = "so that one file cannot use up the memory of the process (or of VS Code's extension host)";

function tooManyLines(path: string, max: number): NotATranscriptError {
  return new NotATranscriptError(
    `${path}: too large: line ${count(max + 1)} is over the limit of ${count(max)} lines; Agent Compactor reads no more of one transcript, ${CAP_REASON}`,
    'too-large',
  );
}

function tooManyRecords(path: string, line: number, max: number): NotATranscriptError {
  return new NotATranscriptError(
    `${path}: too large: by line ${count(line)} it holds over ${count(max)} records (messages, events and malformed lines), the most Agent Compactor holds of one transcript, ${CAP_REASON}`,
    'too-large',
  );
}

/** The refusal of a JSON document of more messages than the cap of records. */
export function tooManyMessages(path: string, messages: number): NotATranscriptError {
  return new NotATranscriptError(
    `${path}: too large: it holds ${count(messages)} messages, over ${count(MAX_TRANSCRIPT_RECORDS)}, the most Agent Compactor holds of one transcript, ${CAP_REASON}`,
    'too-large',
  );
}

/** The refusal of a JSON document larger than the documents read (they are parsed whole). */
export function tooLargeDocument(path: string, bytes: number, max: number): NotATranscriptError {
  return new NotATranscriptError(
    `${path}: too large: one JSON document of ${count(bytes)} bytes, over ${count(max)}, the most Agent Compactor parses at once, ${CAP_REASON}`,
    'too-large',
  );
}

/** Throws NotATranscriptError with a one-line reason when the file is not a session of a format the engine reads. */
export function assertTranscript(index: TranscriptIndex): void {
  if (index.lineCount === 0 || (index.entries.length === 0 && index.malformed.length === 0)) {
    throw new NotATranscriptError(`${index.path}: empty file, no transcript lines`, 'empty');
  }
  if (index.entries.length === 0) {
    const m = index.malformed[0];
    throw new NotATranscriptError(`${index.path}: not a JSONL transcript (line ${m.line}: ${m.error})`);
  }
  // The agent's own check: its reader read every line, and none is a record of a session.
  const records = agentModule(index.format.id).records;
  const why = records
    ? records.notASession(index.path, index.entries)
    : index.entries.some((e) => e.uuid !== undefined)
      ? null
      : `${index.path}: recognised as a ${index.format.agent} file, but it holds no conversation records`;
  if (why) throw new NotATranscriptError(why);
}
