// What the agents whose sessions are one JSON document share: each message becomes entries at the line and byte range
// where it starts, linked one after the other (their messages follow one another, with no links of their own).
import { digestEntry, type Entry } from '../entries';
import { asObject, type JsonObject } from '../json';
import type { DocumentElement } from './agent';

/**
 * The entries of a document's messages, given each message's engine-shaped lines (`shapes(value, k)`): a shape with a
 * `uuid` is linked to the one before it; one without (a record off the conversation) is not.
 */
export function linkedEntries(
  messages: unknown[],
  elements: readonly DocumentElement[],
  shapes: (value: unknown, k: number) => JsonObject[],
): Entry[] {
  const entries: Entry[] = [];
  let parent: string | null = null;
  messages.forEach((value, k) => {
    const el = elements[k];
    shapes(value, k).forEach((shape, part) => {
      const linked = shape.uuid === undefined ? shape : { ...shape, parentUuid: parent };
      if (typeof shape.uuid === 'string') parent = shape.uuid;
      entries.push(digestEntry(linked, el.line, part, el.start, el.end));
    });
  });
  return entries;
}

export interface MessageElement {
  /** Character offsets in the text. */
  from: number;
  to: number;
  /** Byte offsets in the file. */
  start: number;
  end: number;
  line: number;
}

/**
 * The object elements of the document's message array (the top-level array, or the top-level object's `messages`
 * array), with their character and byte ranges and starting line, found in one pass over the text.
 */
export function messageElements(text: string, baseByte: number): MessageElement[] {
  const out: MessageElement[] = [];
  let depth = 0;
  let inString = false;
  let stringStart = -1;
  let lastKey: string | null = null;
  let arrayDepth = -1;
  let byte = baseByte;
  let line = 1;
  let cur: { from: number; start: number; line: number } | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const width = c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : c >= 0xdc00 && c <= 0xdfff ? 0 : 3;
    if (inString) {
      if (c === 92) {
        i++;
        byte += width + 1; // an escape's next char is ASCII
        continue;
      }
      if (c === 34) {
        inString = false;
        if (depth === 1) lastKey = text.slice(stringStart + 1, i);
      }
    } else if (c === 34) {
      inString = true;
      stringStart = i;
    } else if (c === 10) line++;
    else if (c === 123 || c === 91) {
      if (c === 123 && arrayDepth >= 0 && depth === arrayDepth) cur = { from: i, start: byte, line };
      if (c === 91 && arrayDepth < 0 && (depth === 0 || (depth === 1 && lastKey === 'messages')))
        arrayDepth = depth + 1;
      depth++;
    } else if (c === 125 || c === 93) {
      depth--;
      if (c === 125 && cur && depth === arrayDepth) {
        out.push({ from: cur.from, to: i + 1, start: cur.start, end: byte + 1, line: cur.line });
        cur = null;
      }
      if (c === 93 && depth === arrayDepth - 1) arrayDepth = -2; // only the first message array
    }
    byte += width;
  }
  return out;
}

/**
 * The first messages of a document read from its head only (`text`: its first bytes): each complete message element
 * parsed, in order; a message cut by the end of the head is left out.
 */
export function headMessages(text: string): JsonObject[] {
  const out: JsonObject[] = [];
  for (const el of messageElements(text, 0)) {
    try {
      const o = asObject(JSON.parse(text.slice(el.from, el.to)));
      if (o) out.push(o);
    } catch {
      /* not a whole element: skipped */
    }
  }
  return out;
}
