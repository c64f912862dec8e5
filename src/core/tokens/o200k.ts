// An o200k_base token counter over js-tiktoken's own ranks file, counting exactly as its encoder does (the same
// pre-tokenizer pattern, the same byte-pair merge: lowest rank first, the leftmost of equal ranks) without building its
// encoder. js-tiktoken's constructor spends about a second of CPU on every process that counts (it builds an object
// of 200,000 base64 keys, decodes each into a byte array and keys a second map by `bytes.join(",")`): two thirds of a
// Codex compaction's CPU, paid again by every CLI run. This map is keyed by the token's bytes as a Latin-1 string
// (one char per byte), decoded straight from the base64 text: about a fifth of the time, and less memory. Counting only:
// the product never needs the token ids. test/integration/tokens-exact.test.ts compares it with js-tiktoken's encoder.

/** js-tiktoken's ranks module (`js-tiktoken/ranks/o200k_base`): the pattern and the ranks, base64 tokens by line. */
export interface BpeRanksFile {
  pat_str: string;
  /** Lines of `<name> <first rank> <token> <token> …`, each token the base64 of its bytes, ranked one after another. */
  bpe_ranks: string;
}

const BASE64 = new Int16Array(128).fill(-1);
for (let i = 0; i < 64; i++)
  BASE64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;

/** The bytes `b64` encodes, one char per byte; padding ends it. */
function base64Latin1(b64: string, from: number, to: number): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (let i = from; i < to; i++) {
    const c = b64.charCodeAt(i);
    if (c === 61) break;
    const v = c < 128 ? BASE64[c] : -1;
    if (v < 0) throw new Error(`o200k ranks: not base64 at ${i}`);
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += String.fromCharCode((acc >> bits) & 0xff);
    }
  }
  return out;
}

/** True when every char of `s` is ASCII (its UTF-8 bytes are its chars). */
function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

export class O200kCounter {
  private readonly ranks = new Map<string, number>();
  private readonly pattern: RegExp;

  constructor(file: BpeRanksFile) {
    this.pattern = new RegExp(file.pat_str, 'gu');
    const text = file.bpe_ranks;
    for (let line = 0; line < text.length;) {
      let end = text.indexOf('\n', line);
      if (end === -1) end = text.length;
      // `<name> <first rank>` then the tokens, each separated by one space.
      const nameEnd = text.indexOf(' ', line);
      if (nameEnd !== -1 && nameEnd < end) {
        let at = text.indexOf(' ', nameEnd + 1);
        if (at === -1 || at > end) at = end;
        let rank = Number.parseInt(text.slice(nameEnd + 1, at), 10);
        while (at < end) {
          let next = text.indexOf(' ', at + 1);
          if (next === -1 || next > end) next = end;
          // A later line's token replaces an earlier one, as js-tiktoken's object of tokens does.
          this.ranks.set(base64Latin1(text, at + 1, next), rank++);
          at = next;
        }
      }
      line = end + 1;
    }
  }

  /** The number of o200k_base tokens of `text`, special-token text counted as ordinary text. */
  count(text: string): number {
    let n = 0;
    for (const match of text.matchAll(this.pattern)) {
      const piece = match[0];
      const bytes = isAscii(piece) ? piece : Buffer.from(piece, 'utf8').toString('latin1');
      n += this.ranks.has(bytes) ? 1 : this.mergedParts(bytes);
    }
    return n;
  }

  /**
   * How many tokens byte-pair merging leaves of `piece` (js-tiktoken's bytePairMerge: merge the adjacent pair whose
   * joined bytes have the lowest rank, the leftmost of equals, until no pair is ranked), each part counted when it is
   * ranked (a lone byte always is in o200k_base).
   */
  private mergedParts(piece: string): number {
    if (piece.length === 1) return 1;
    // Part k is piece[bounds[k], bounds[k + 1]).
    const bounds: number[] = [];
    for (let i = 0; i <= piece.length; i++) bounds.push(i);
    while (bounds.length > 2) {
      let min = Infinity;
      let at = -1;
      for (let i = 0; i < bounds.length - 2; i++) {
        const rank = this.ranks.get(piece.slice(bounds[i], bounds[i + 2]));
        if (rank !== undefined && rank < min) {
          min = rank;
          at = i;
        }
      }
      if (at === -1) break;
      bounds.splice(at + 1, 1);
    }
    let parts = 0;
    for (let k = 0; k < bounds.length - 1; k++) if (this.ranks.has(piece.slice(bounds[k], bounds[k + 1]))) parts++;
    return parts;
  }
}
