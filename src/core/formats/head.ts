// The first lines of a session file, read from its head only (never the whole file): what session lists and resume
// commands read of agents that record their id, folder and first prompt near the start.
import { open } from 'node:fs/promises';
import { asObject, type JsonObject } from '../json';

/** The JSON objects of the complete lines among the first `bytes` bytes of `file` (a line cut by the slice is left out). */
export async function headObjects(file: string, bytes: number): Promise<JsonObject[]> {
  const { text, cut } = await headText(file, bytes);
  const lines = text.split('\n');
  if (cut) lines.pop();
  const out: JsonObject[] = [];
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    try {
      const o = asObject(JSON.parse(line));
      if (o) out.push(o);
    } catch {
      /* not a whole JSON line: skipped */
    }
  }
  return out;
}

/** A prompt as a title: its first words on one line (at most 100 characters), or null when it is blank. */
export function titleOf(text: string | null | undefined): string | null {
  const one = (text ?? '').replace(/\s+/g, ' ').trim();
  return one ? one.slice(0, 100) : null;
}

/** The first `bytes` bytes of `file` as text (without a BOM), and whether the file goes on after them. */
export async function headText(file: string, bytes: number): Promise<{ text: string; cut: boolean }> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return { text: buf.toString('utf8', 0, bytesRead).replace(/^\uFEFF/, ''), cut: bytesRead === bytes };
  } finally {
    await fh.close();
  }
}
