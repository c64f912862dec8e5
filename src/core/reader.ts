// Streaming, lossless line reader: yields every physical line of a file with its byte
// offsets, never holding more than one chunk plus one line in memory.
import { open } from 'node:fs/promises';

export interface RawLine {
  /** 1-based physical line number. */
  line: number;
  /** Byte offset of the first byte of the line (after a BOM on line 1). */
  start: number;
  /** Byte offset just past the line's content (excluding `\r\n` / `\n`). */
  end: number;
  /** Raw bytes of the line, without the line terminator. Valid only until the next iteration. */
  bytes: Buffer;
  /** True when the line ended with `\r\n`. */
  crlf: boolean;
  /** True when the line has no terminator (last line of the file, maybe still being written). */
  unterminated: boolean;
}

export interface ReadOptions {
  /** Byte offset to start from (must be a line start); used for incremental re-reads. */
  fromOffset?: number;
  /** First line number to report when starting at `fromOffset`. */
  firstLine?: number;
  /** Chunk size for reads. */
  chunkSize?: number;
  /** Lines longer than this many bytes are reported without their bytes (bytes is empty, oversize true). */
  maxLineBytes?: number;
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** Most lines in one batch of `readLineBatches`. */
const MAX_BATCH_LINES = 4096;
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Reads `path` line by line. A line longer than `maxLineBytes` is yielded with empty `bytes`
 * and `oversize: true` (its offsets stay exact) so a hostile file cannot exhaust memory.
 */
export async function* readLines(
  path: string,
  options: ReadOptions = {},
): AsyncGenerator<RawLine & { oversize?: boolean }> {
  for await (const batch of readLineBatches(path, options)) yield* batch;
}

/**
 * The lines of `path` in batches of up to 4,096 lines of one chunk read (same lines and offsets as
 * `readLines`; a batch's `bytes` stay valid until the next batch is requested). Lets a
 * caller process many lines per `await`.
 */
export async function* readLineBatches(
  path: string,
  options: ReadOptions = {},
): AsyncGenerator<(RawLine & { oversize?: boolean })[]> {
  const chunkSize = options.chunkSize ?? 4 << 20;
  const maxLine = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const fh = await open(path, 'r');
  try {
    let position = options.fromOffset ?? 0;
    let lineNo = options.firstLine ?? 1;
    let pending: Buffer[] = [];
    let pendingLen = 0;
    let lineStart = position;
    let oversize = false;
    let first = position === 0;
    const buf = Buffer.allocUnsafe(chunkSize);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, chunkSize, position);
      if (bytesRead === 0) break;
      let chunk = buf.subarray(0, bytesRead);
      let chunkBase = position;
      position += bytesRead;
      if (first) {
        first = false;
        if (chunk.length >= 3 && chunk.subarray(0, 3).equals(UTF8_BOM)) {
          chunk = chunk.subarray(3);
          chunkBase += 3;
          lineStart = chunkBase;
        }
      }
      let from = 0;
      let batch: (RawLine & { oversize?: boolean })[] = [];
      for (;;) {
        // A chunk of tiny lines holds hundreds of thousands (a 1 MiB chunk of `{}`: 350,000), each with a view of its
        // bytes: handed on in smaller batches, they are garbage before the next ones are made. The chunk is read
        // again only when every line of it is handed on, so the views stay valid.
        if (batch.length >= MAX_BATCH_LINES) {
          yield batch;
          batch = [];
        }
        const nl = chunk.indexOf(10, from);
        if (nl === -1) {
          const rest = chunk.subarray(from);
          if (!oversize && pendingLen + rest.length > maxLine) {
            oversize = true;
            pending = [];
            pendingLen = 0;
          }
          if (!oversize && rest.length > 0) {
            pending.push(Buffer.from(rest));
            pendingLen += rest.length;
          }
          break;
        }
        const piece = chunk.subarray(from, nl);
        const absEnd = chunkBase + nl;
        let bytes: Buffer;
        if (oversize || pendingLen + piece.length > maxLine) {
          bytes = Buffer.alloc(0);
          oversize = true;
        } else if (pendingLen === 0) {
          bytes = piece;
        } else {
          pending.push(piece);
          bytes = Buffer.concat(pending, pendingLen + piece.length);
        }
        let end = absEnd;
        let crlf = false;
        if (absEnd > lineStart && (bytes.length > 0 ? bytes[bytes.length - 1] === 13 : false)) {
          crlf = true;
          end = absEnd - 1;
          bytes = bytes.subarray(0, bytes.length - 1);
        }
        const out: RawLine & { oversize?: boolean } = {
          line: lineNo,
          start: lineStart,
          end,
          bytes,
          crlf,
          unterminated: false,
        };
        if (oversize) out.oversize = true;
        batch.push(out);
        lineNo++;
        lineStart = absEnd + 1;
        pending = [];
        pendingLen = 0;
        oversize = false;
        from = nl + 1;
      }
      if (batch.length) yield batch;
    }
    if (pendingLen > 0 || oversize) {
      const bytes = oversize ? Buffer.alloc(0) : Buffer.concat(pending, pendingLen);
      const out: RawLine & { oversize?: boolean } = {
        line: lineNo,
        start: lineStart,
        end: position,
        bytes,
        crlf: false,
        unterminated: true,
      };
      if (oversize) out.oversize = true;
      yield [out];
    }
  } finally {
    await fh.close();
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes a line; reports invalid UTF-8 instead of silently replacing it. */
export function decodeLine(bytes: Buffer): { text: string; invalidUtf8: boolean } {
  const text = bytes.toString('utf8');
  if (text.indexOf('\uFFFD') === -1) return { text, invalidUtf8: false };
  try {
    strictUtf8.decode(bytes);
    return { text, invalidUtf8: false };
  } catch {
    return { text, invalidUtf8: true };
  }
}
