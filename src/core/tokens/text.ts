// Stage 1 of the token estimates (estimate.ts): a one-pass character-class proxy for the token count of a text. A
// leaf module: the transcript's indexer (entries.ts) computes it per block while reading, before rounds exist.

/**
 * Stage 1: tokens of a text ≈ Σ weight × count over its character classes. Fitted (least
 * squares, relative) to o200k_base token counts of the text blocks, tool inputs and tool
 * results of the shared fixtures; usage figures play no part in it.
 */
export const TEXT_TOKENS = {
  char: 0.1203,
  digit: 0.8,
  punctRun: 1.0238, // a run of ASCII punctuation
  blankRun: 0.364, // a run of spaces / tabs
  nonAscii: 0.4071,
  upper: 0.1072,
} as const;

export type TextTokenWeights = { -readonly [K in keyof typeof TEXT_TOKENS]: number };

// Character classes of ASCII: 0 lower letter, 1 upper letter, 2 digit, 3 blank, 4 line break, 5 punctuation.
const CLASS = new Uint8Array(128).fill(5);
for (let c = 97; c <= 122; c++) CLASS[c] = 0;
for (let c = 65; c <= 90; c++) CLASS[c] = 1;
for (let c = 48; c <= 57; c++) CLASS[c] = 2;
CLASS[32] = 3;
CLASS[9] = 3;
CLASS[10] = 4;
CLASS[13] = 4;

/** Texts up to this length are scanned whole; longer ones on fixed windows (see `scanText`). */
export const SCAN_WHOLE = 2048;
const HEAD = 512;
const TAIL = 512;
const WINDOWS = 4;
const WINDOW = 256;

// Scan accumulators: [digits, punctRuns, blankRuns, nonAscii, upper] (module-level to avoid allocation).
const acc = new Float64Array(5);

function scanRange(s: string, from: number, to: number): void {
  let digits = 0;
  let punctRuns = 0;
  let blankRuns = 0;
  let nonAscii = 0;
  let upper = 0;
  let prev = -1;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128) {
      nonAscii++;
      prev = 6;
      continue;
    }
    const k = CLASS[c];
    if (k === 0) {
      prev = 0;
      continue;
    }
    if (k === 2) digits++;
    else if (k === 1) upper++;
    else if (k === 5) {
      if (prev !== 5) punctRuns++;
    } else if (k === 3 && prev !== 3) blankRuns++;
    prev = k;
  }
  acc[0] += digits;
  acc[1] += punctRuns;
  acc[2] += blankRuns;
  acc[3] += nonAscii;
  acc[4] += upper;
}

/**
 * Fills `acc` with the class counts of `s`. Texts longer than SCAN_WHOLE are measured on a
 * fixed set of windows (head, tail and evenly spaced pieces, 8 K characters in all) and the
 * counts scaled to the whole length: a proxy needs the mix of a long tool result, not every
 * character of it, and this keeps indexing cost flat for huge outputs.
 */
function scanText(s: string): void {
  acc.fill(0);
  const n = s.length;
  if (n <= SCAN_WHOLE) {
    scanRange(s, 0, n);
    return;
  }
  scanRange(s, 0, HEAD);
  scanRange(s, n - TAIL, n);
  const span = n - HEAD - TAIL - WINDOW;
  for (let w = 0; w < WINDOWS; w++) {
    const from = HEAD + Math.floor((span * (w + 0.5)) / WINDOWS);
    scanRange(s, from, from + WINDOW);
  }
  const scale = n / (HEAD + TAIL + WINDOWS * WINDOW);
  for (let j = 0; j < acc.length; j++) acc[j] *= scale;
}

/** Class counts of a text, in TEXT_TOKENS key order: [chars, digits, punctRuns, blankRuns, nonAscii, upper] (scaled from windows for long texts). */
export function textFeatures(s: string): number[] {
  scanText(s);
  return [s.length, acc[0], acc[1], acc[2], acc[3], acc[4]];
}

/** Proxy token count of a text (stage 1): one pass (or fixed windows of a long text), no allocation. */
export function textTokens(s: string, w: TextTokenWeights = TEXT_TOKENS): number {
  if (s.length === 0) return 0;
  scanText(s);
  return (
    w.char * s.length +
    w.digit * acc[0] +
    w.punctRun * acc[1] +
    w.blankRun * acc[2] +
    w.nonAscii * acc[3] +
    w.upper * acc[4]
  );
}
