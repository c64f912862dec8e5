// The raw lines of one round, read by their byte offsets (for showing a round of a file too large to open whole).
import { open } from 'node:fs/promises';
import type { Analysis } from './analysis';

export interface RoundLine {
  line: number;
  text: string;
}

/** Lines of round `index` in file order, each clipped to `maxChars` characters (saying how much was left out). */
export async function readRoundLines(analysis: Analysis, index: number, maxChars = 20_000): Promise<RoundLine[]> {
  const round = analysis.rounds.find((r) => r.index === index);
  if (!round) throw new Error(`no round #${index}`);
  const entries = analysis.index.entries;
  // Joined objects share a line: read each physical line once.
  const byLine = new Map<number, { start: number; end: number }>();
  for (const i of round.entries) {
    const e = entries[i];
    const seen = byLine.get(e.line);
    byLine.set(
      e.line,
      seen ? { start: Math.min(seen.start, e.start), end: Math.max(seen.end, e.end) } : { start: e.start, end: e.end },
    );
  }
  const fh = await open(analysis.index.path, 'r');
  try {
    const out: RoundLine[] = [];
    for (const [line, { start, end }] of [...byLine].sort((a, b) => a[0] - b[0])) {
      // Read at most what the clipped text can show (4 bytes per character at worst).
      const want = Math.min(end - start, maxChars * 4);
      const buf = Buffer.alloc(want);
      const { bytesRead } = await fh.read(buf, 0, want, start);
      const text = buf.toString('utf8', 0, bytesRead);
      const whole = end - start <= want && text.length <= maxChars;
      out.push({
        line,
        text: whole
          ? text
          : `${text.slice(0, maxChars)} […clipped: the line is ${(end - start).toLocaleString('en-US')} bytes]`,
      });
    }
    return out;
  } finally {
    await fh.close();
  }
}
