// Loads the full JSON of selected entries by re-reading their byte ranges from the file.
import { open } from 'node:fs/promises';
import { splitJoinedObjects, type Entry } from '../entries';
import { isObject, type JsonObject } from '../json';

/**
 * Parsed objects of `entries[i]` for each requested index (reads merged ranges, 4 MB at a time). `shape`, when given,
 * is applied to each object as soon as it is parsed, so that what it drops is never held for the whole set.
 */
export async function loadEntryObjects(
  path: string,
  entries: Entry[],
  indices: number[],
  shape?: (obj: JsonObject, index: number) => JsonObject,
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
        const text = buf.toString('utf8', e.start - first.start, e.end - first.start);
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

/** Text of a tool_result block's content: strings joined, images and other blocks skipped. */
export function toolResultText(content: unknown): { text: string; hasNonText: boolean } {
  if (typeof content === 'string') return { text: content, hasNonText: false };
  if (!Array.isArray(content)) return { text: content == null ? '' : JSON.stringify(content), hasNonText: false };
  const parts: string[] = [];
  let hasNonText = false;
  for (const b of content as unknown[]) {
    const text = isObject(b) && b.type === 'text' ? b.text : undefined;
    if (typeof text === 'string') parts.push(text);
    else hasNonText = true;
  }
  return { text: parts.join('\n'), hasNonText };
}
