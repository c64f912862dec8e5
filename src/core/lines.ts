// Loads the full JSON of selected entries by re-reading their byte ranges from the file.
import { isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';
import { splitJoinedObjects, type Entry } from './entries';
import { isObject, type JsonObject } from './json';
import type { ConversationRecord } from './conversation';
import { agentModule, type AgentId } from './formats/registry';

/**
 * Parsed objects of `entries[i]` for each requested index (reads merged ranges, 4 MB at a time). `shape`, when given,
 * is applied to each object as soon as it is parsed, so that what it drops is never held for the whole set.
 */
export async function loadEntryObjects(
  path: string,
  entries: Entry[],
  indices: number[],
  shape?: (obj: JsonObject, index: number) => JsonObject,
  rawBytes?: RawBytes,
): Promise<Map<number, JsonObject>> {
  const out = new Map<number, JsonObject>();
  const sorted = [...new Set(indices)].sort((a, b) => entries[a].start - entries[b].start);
  const fh = await open(path, 'r');
  try {
    let i = 0;
    while (i < sorted.length) {
      // Merge neighbouring ranges into one read of at most ~4 MB (a single line may be larger).
      const first = entries[sorted[i]];
      let j = i;
      let end = first.end;
      while (j + 1 < sorted.length && entries[sorted[j + 1]].end - first.start <= 4 << 20) {
        j++;
        end = Math.max(end, entries[sorted[j]].end);
      }
      const buf = Buffer.allocUnsafe(end - first.start);
      let got = 0;
      while (got < buf.length) {
        const { bytesRead } = await fh.read(buf, got, buf.length - got, first.start + got);
        if (bytesRead === 0) throw new Error(`${path}: file shrank while reading line ${first.line}`);
        got += bytesRead;
      }
      for (let k = i; k <= j; k++) {
        const e = entries[sorted[k]];
        const bytes = buf.subarray(e.start - first.start, e.end - first.start);
        const text = rawBytes?.wanted.has(sorted[k]) ? rawBytes.decode(bytes) : bytes.toString('utf8');
        const obj = parseEntryText(text, e);
        out.set(sorted[k], shape ? shape(obj, sorted[k]) : obj);
      }
      i = j + 1;
    }
  } finally {
    await fh.close();
  }
  return out;
}

/**
 * The records of `indices` read as messages of the engine's model by their agent's module (RecordFormat.message);
 * an entry whose record holds no message is absent.
 */
export async function loadConversation(
  path: string,
  agent: AgentId,
  entries: Entry[],
  indices: number[],
): Promise<Map<number, ConversationRecord>> {
  const out = new Map<number, ConversationRecord>();
  const message = agentModule(agent).records?.message;
  if (!message) return out;
  for (const [i, o] of await loadEntryObjects(path, entries, indices)) {
    const r = message(o, entries[i]);
    if (r) out.set(i, r);
  }
  return out;
}

/**
 * Keeps bytes that are not valid UTF-8 through a parse and re-serialisation, so that lines written again (kept
 * rounds, re-linked with new ids) carry the original's bytes, not U+FFFD. Each such byte b is decoded to the lone
 * surrogate U+DC00+b (Python's "surrogateescape"), which JSON.stringify writes as the escape `\udcXX`; `encode` turns
 * those escapes back into the bytes. That is ambiguous only when a line already holds such an escape as text: then
 * no byte is escaped in this run (the bytes become U+FFFD, as before) and `lossy` says so.
 */
export class RawBytes {
  /** Lines escaped (had invalid UTF-8). */
  escapedLines = 0;
  /** True when invalid UTF-8 had to be replaced by U+FFFD (see the class comment). */
  lossy = false;
  private ambiguous = false;

  /** `wanted`: indices of entries whose lines are written again. */
  constructor(readonly wanted: ReadonlySet<number>) {}

  decode(bytes: Buffer): string {
    if (isUtf8(bytes)) {
      if (ESCAPE_TEXT.test(bytes.toString('latin1'))) this.ambiguous = true;
      return bytes.toString('utf8');
    }
    if (ESCAPE_TEXT.test(bytes.toString('latin1'))) this.ambiguous = true;
    this.escapedLines++;
    return decodeEscapingInvalid(bytes);
  }

  /** The UTF-8 bytes of `text` (serialised JSON lines), with escaped invalid bytes put back. */
  encode(text: string): Buffer {
    if (this.escapedLines === 0) return Buffer.from(text, 'utf8');
    if (this.ambiguous) {
      this.lossy = true;
      return Buffer.from(
        text.replace(ESCAPED_BYTE, (_match: string, slashes: string) => `${slashes}\ufffd`),
        'utf8',
      );
    }
    const parts: Buffer[] = [];
    let last = 0;
    for (const m of text.matchAll(ESCAPED_BYTE)) {
      const at = m.index + m[1].length;
      parts.push(Buffer.from(text.slice(last, at), 'utf8'), Buffer.of(parseInt(m[2], 16) & 0xff));
      last = m.index + m[0].length;
    }
    parts.push(Buffer.from(text.slice(last), 'utf8'));
    return Buffer.concat(parts);
  }
}

/** A `\udc80`–`\udcff` escape in JSON text (an odd number of backslashes before the `u`). */
const ESCAPED_BYTE = /(?<!\\)((?:\\\\)*)\\u(dc[89a-f][0-9a-f])/gi;
const ESCAPE_TEXT = /(?<!\\)(?:\\\\)*\\u[dD][cC][89a-fA-F][0-9a-fA-F]/;

function decodeEscapingInvalid(bytes: Buffer): string {
  let out = '';
  let from = 0;
  let i = 0;
  while (i < bytes.length) {
    const n = utf8SequenceLength(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += bytes.toString('utf8', from, i) + String.fromCharCode(0xdc00 + bytes[i]);
    i++;
    from = i;
  }
  return out + bytes.toString('utf8', from, i);
}

/** Length of the well-formed UTF-8 sequence at `i`, or 0 (RFC 3629: no overlongs, surrogates or > U+10FFFF). */
function utf8SequenceLength(b: Buffer, i: number): number {
  const c = b[i];
  if (c < 0x80) return 1;
  const cont = (k: number) => i + k < b.length && (b[i + k] & 0xc0) === 0x80;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const lo = c === 0xe0 ? 0xa0 : 0x80;
    const hi = c === 0xed ? 0x9f : 0xbf;
    return i + 1 < b.length && b[i + 1] >= lo && b[i + 1] <= hi && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const lo = c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xf4 ? 0x8f : 0xbf;
    return i + 1 < b.length && b[i + 1] >= lo && b[i + 1] <= hi && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

function parseEntryText(text: string, e: Entry): JsonObject {
  try {
    const v: unknown = JSON.parse(text);
    // Entries are only ever made of objects (see entries.ts), so a part-0 line parses to one.
    if (e.part === 0 && isObject(v)) return v;
  } catch {
    /* joined objects below */
  }
  const parts = splitJoinedObjects(text.trim());
  if (!parts || !parts[e.part]) throw new Error(`line ${e.line}: cannot re-read entry part ${e.part}`);
  const v: unknown = JSON.parse(parts[e.part]);
  if (!isObject(v)) throw new Error(`line ${e.line}: entry part ${e.part} is not a JSON object`);
  return v;
}
