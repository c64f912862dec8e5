// Exact token counts for what is shown or asked for (a selected round, a summary, a
// budget check): js-tiktoken's o200k_base encoder with its bundled ranks (no network).
// Claude's own tokenizer is not public; o200k_base is the closest openly available one,
// so "exact" means an exact tokenizer pass, not Claude's billing figure (see bench/RESULTS.md).
// The encoder (~2 MB of ranks, a few hundred ms to build) is created on first use only.
import type { Tiktoken, TiktokenBPE } from 'js-tiktoken/lite' with { 'resolution-mode': 'import' };

let encoder: Tiktoken | undefined;

function getEncoder(): Tiktoken {
  if (!encoder) {
    // js-tiktoken ships CommonJS builds (its "require" exports) but declares ESM types, so the
    // modules are required here, lazily: the ranks (~2 MB) are only parsed on first use.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const lite = require('js-tiktoken/lite') as { Tiktoken: new (ranks: TiktokenBPE) => Tiktoken };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ranks = require('js-tiktoken/ranks/o200k_base') as TiktokenBPE | { default: TiktokenBPE };
    encoder = new lite.Tiktoken('default' in ranks ? ranks.default : ranks);
  }
  return encoder;
}

/** Texts longer than this are encoded in pieces (bounds the working set of one encode call). */
const PIECE = 1 << 16;

/**
 * Where a long text can be cut without changing its tokens: just after a "\n" that is
 * followed by an ASCII letter. o200k's pre-tokenizer never lets a piece span that point
 * (letters cannot join a whitespace or punctuation piece, and a word piece cannot start
 * with a newline), so the pieces' counts add up to the whole text's count.
 */
function cutPoint(text: string, from: number, limit: number): number {
  for (let nl = text.lastIndexOf('\n', limit - 1); nl > from; nl = text.lastIndexOf('\n', nl - 1)) {
    const c = text.charCodeAt(nl + 1) | 0x20;
    if (c >= 0x61 && c <= 0x7a) return nl + 1;
  }
  return -1;
}

/** Exact o200k_base token count of `text` (special-token text is counted as ordinary text). */
export function countTokensExact(text: string): number {
  if (text.length === 0) return 0;
  const enc = getEncoder();
  let total = 0;
  let from = 0;
  while (text.length - from > PIECE) {
    const to = cutPoint(text, from, from + PIECE);
    if (to === -1) break;
    total += enc.encode(text.slice(from, to), [], []).length;
    from = to;
  }
  return total + enc.encode(from === 0 ? text : text.slice(from), [], []).length;
}

/** True once the encoder has been built (for callers that want to warm it up off the critical path). */
export function exactCounterReady(): boolean {
  return encoder !== undefined;
}
