// How many bytes of a written session the agent reads on resume: from the last compact boundary line to the end.
// The rest is history kept in the file for the record. Read from the end backwards, so a long history costs nothing.
import { open } from 'node:fs/promises';

const CHUNK = 1 << 20;
const MARK = Buffer.from('"subtype":"compact_boundary"');

/** Bytes from the start of the last line holding a compact boundary to the end of `file`; null when it has none. */
export async function bytesAfterLastBoundary(file: string): Promise<number | null> {
  const fh = await open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    let end = size;
    let tail = Buffer.alloc(0);
    while (end > 0) {
      const start = Math.max(0, end - CHUNK);
      const chunk = Buffer.alloc(end - start);
      await fh.read(chunk, 0, chunk.length, start);
      // The tail carries over so a mark split across two chunks is still found.
      const buf = Buffer.concat([chunk, tail.subarray(0, MARK.length)]);
      const at = buf.lastIndexOf(MARK);
      if (at >= 0) {
        const lineStart = buf.lastIndexOf(0x0a, at) + 1;
        if (lineStart > 0 || start === 0) return size - (start + lineStart);
        // The line began in an earlier chunk: find its start there.
        return size - (await lineStartBefore(fh, start));
      }
      tail = chunk;
      end = start;
    }
    return null;
  } finally {
    await fh.close();
  }
}

async function lineStartBefore(fh: import('node:fs/promises').FileHandle, pos: number): Promise<number> {
  let end = pos;
  while (end > 0) {
    const start = Math.max(0, end - CHUNK);
    const chunk = Buffer.alloc(end - start);
    await fh.read(chunk, 0, chunk.length, start);
    const nl = chunk.lastIndexOf(0x0a);
    if (nl >= 0) return start + nl + 1;
    end = start;
  }
  return 0;
}
