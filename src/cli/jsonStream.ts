// JSON written a piece at a time: the same bytes as `JSON.stringify(value, null, 2)`, without ever holding the
// whole text. A 100 MB transcript's `inspect --json` is about 10 MB of JSON; made as one string and written at once,
// it is held three times over (the string, its flattened copy and the written buffer) at the process's peak.
import { once } from 'node:events';

/** A list whose items are made only as they are written (and all at once when stringified whole, by `toJSON`). */
export class JsonList<T> {
  constructor(
    readonly length: number,
    private readonly item: (i: number) => T,
  ) {}

  *items(): Generator<T> {
    for (let i = 0; i < this.length; i++) yield this.item(i);
  }

  toJSON(): T[] {
    return [...this.items()];
  }
}

const INDENT = '  ';
const CHUNK_CHARS = 1 << 20;

/** `JSON.stringify(value, null, 2)` as it reads at `depth` inside a larger text (undefined: the value is left out). */
function whole(value: unknown, depth: number): string | undefined {
  const text = JSON.stringify(value, null, 2) as string | undefined;
  // Line breaks in the text are structural (a string's own are escaped), so each one takes the outer indentation.
  return text === undefined || depth === 0 ? text : text.replace(/\n/g, '\n' + INDENT.repeat(depth));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/**
 * The text of `value` in pieces: a plain object key by key and a `JsonList` item by item, at any depth where one
 * holds the other; everything else (a list's items included) stringified whole.
 */
export function* jsonPieces(value: unknown, depth = 0): Generator<string> {
  const pad = INDENT.repeat(depth + 1);
  if (value instanceof JsonList) {
    let first = true;
    for (const item of (value as JsonList<unknown>).items()) {
      yield (first ? '[\n' : ',\n') + pad;
      first = false;
      yield whole(item, depth + 1) ?? 'null';
    }
    yield first ? '[]' : '\n' + INDENT.repeat(depth) + ']';
  } else if (isPlainObject(value)) {
    let first = true;
    for (const key of Object.keys(value)) {
      const v = value[key];
      const streamed = v instanceof JsonList || isPlainObject(v);
      const text = streamed ? undefined : whole(v, depth + 1);
      if (!streamed && text === undefined) continue;
      yield (first ? '{\n' : ',\n') + pad + JSON.stringify(key) + ': ';
      first = false;
      if (text !== undefined) yield text;
      else yield* jsonPieces(v, depth + 1);
    }
    yield first ? '{}' : '\n' + INDENT.repeat(depth) + '}';
  } else {
    yield whole(value, depth) ?? 'null';
  }
}

/**
 * Writes `JSON.stringify(value, null, 2) + '\n'` to `out` in chunks of about 1 MB, waiting when the stream asks to;
 * each chunk passed through `encode` first (one that maps each character on its own, as a chunk may end anywhere).
 */
export async function writeJson(
  value: unknown,
  out: NodeJS.WritableStream,
  encode: (text: string) => string = (t) => t,
): Promise<void> {
  let pending = '';
  for (const piece of jsonPieces(value)) {
    pending += piece;
    if (pending.length >= CHUNK_CHARS) {
      if (!out.write(encode(pending))) await once(out, 'drain');
      pending = '';
    }
  }
  if (!out.write(encode(pending + '\n'))) await once(out, 'drain');
}
