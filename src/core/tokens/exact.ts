// Exact token counts for what is shown or asked for (a selected round, a summary, a
// budget check): o200k_base over js-tiktoken's bundled ranks (no network), counted as its encoder does (o200k.ts).
// Claude's own tokenizer is not public; o200k_base is the closest openly available one,
// so "exact" means an exact tokenizer pass, not Claude's billing figure (see bench/RESULTS.md).
// The counter (~2 MB of ranks, about 0.2 s of CPU to build) is created on first use only.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { O200kCounter, type BpeRanksFile } from './o200k';

let encoder: O200kCounter | undefined;

/**
 * The ranks' file beside the running bundle (dist/o200k_base.cjs, copied there by scripts/build.mjs), else the
 * package's (running from source). The bundles leave the ranks out: held in a bundle, their 2 MB of source was parsed
 * and kept by every process that loads it, counting or not (inspect's peak RSS on the bench file: 157 → 176 MB).
 */
function ranksModule(): string {
  const beside = join(__dirname, 'o200k_base.cjs');
  return existsSync(beside) ? beside : 'js-tiktoken/ranks/o200k_base';
}

function getEncoder(): O200kCounter {
  if (!encoder) {
    // Required here, lazily: the ranks (~2 MB of source) are only parsed on first use.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ranks = require(ranksModule()) as BpeRanksFile | { default: BpeRanksFile };
    encoder = new O200kCounter('default' in ranks ? ranks.default : ranks);
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
    total += enc.count(text.slice(from, to));
    from = to;
  }
  return total + enc.count(from === 0 ? text : text.slice(from));
}

/** Longest piece `countTokensInPieces` hands to the encoder: byte-pair merging is quadratic in one word's length. */
const BOUNDED_PIECE = 256;
/** Length of the hard-cut pieces of a run without whitespace (short: merging such a run is the costly case). */
const HARD_PIECE = 32;

/**
 * The o200k_base count of `text` fed in pieces of at most BOUNDED_PIECE characters. A piece ends just before a space
 * that follows a non-space (where the pre-tokenizer starts a " word" piece anyway, so ordinary text counts as it
 * would whole), else at the start of a line, else before any whitespace, else (a run without whitespace) hard, every HARD_PIECE characters. A transcript's 100,000-character
 * word then costs linear time instead of minutes. For counts of text a transcript controls (recorded system prompts
 * and tools) and for the test API's usage figures.
 */
export function countTokensInPieces(text: string): number {
  if (text.length < MEMO_MIN_CHARS) return countPieces(text);
  // Keyed by a digest, not the text: a key would hold the text (or the whole line it was sliced from) in memory.
  const key = createHash('sha1').update(text).digest('base64');
  const known = memo.get(key);
  if (known !== undefined) return known;
  const n = countPieces(text);
  if (memo.size >= MEMO_ENTRIES) memo.delete(memo.keys().next().value!);
  memo.set(key, n);
  return n;
}

/**
 * Counts of long texts already counted, by their SHA-1. The same texts are counted again and again: a Codex session's
 * first request (its instructions and environment) and a Claude Code session's recorded system prompt and tools are
 * read on every inspect and every plan of it and of its forks, and by each rollout of the project that speaks for a
 * session (core/agentNow.ts); the encoder costs milliseconds per 1,000 characters, the digest about a microsecond.
 * Bounded (oldest out first): a few hundred KB at most.
 */
const memo = new Map<string, number>();
const MEMO_ENTRIES = 4096;
/** Shorter texts are counted directly (the digest would cost a fair share of the count). */
const MEMO_MIN_CHARS = 1024;

function countPieces(text: string): number {
  let total = 0;
  let from = 0;
  while (text.length - from > BOUNDED_PIECE) {
    const cut = pieceEnd(text, from);
    total += countTokensExact(text.slice(from, cut));
    from = cut;
  }
  return total + countTokensExact(text.slice(from));
}

/** Where the piece starting at `from` ends (see countTokensInPieces). */
function pieceEnd(text: string, from: number): number {
  const limit = from + BOUNDED_PIECE;
  for (let cut = limit; cut > from + 1; cut--) {
    if (text.charCodeAt(cut) === 32 && !isSpace(text.charCodeAt(cut - 1))) return cut;
  }
  // Indented lines (pretty-printed JSON) have no such space: the start of a line is a boundary too, unless the line
  // begins with more of what ends a pre-token at a newline (`[\r\n/]*` after punctuation).
  for (let cut = limit; cut > from + 1; cut--) {
    const next = text.charCodeAt(cut);
    if (text.charCodeAt(cut - 1) === 10 && next !== 10 && next !== 13 && next !== 47) return cut;
  }
  for (let cut = limit; cut > from; cut--) if (isSpace(text.charCodeAt(cut))) return cut;
  return from + HARD_PIECE;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 11 || c === 0xa0;
}

/** True once the encoder has been built (for callers that want to warm it up off the critical path). */
export function exactCounterReady(): boolean {
  return encoder !== undefined;
}
