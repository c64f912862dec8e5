// Cheap, calibrated token estimates (no tokenizer pass over 100 MB):
//  1. `textTokens`: a one-pass character-class proxy for the token count of a text (letters,
//     digits, runs of punctuation, runs of blanks, non-ASCII), computed once per block while
//     indexing and stored beside its character count;
//  2. `TOKEN_MODEL`: what each kind of content adds to the next request, per proxy token
//     (text, tool input, tool results) or per character / item (thinking, signatures,
//     images, framing);
//  3. `SessionCalibration`: a per-session factor from the session's own earlier usage.
// Accuracy, the comparison with chars/4 and with a real tokenizer, and a leave-one-session-out
// check of the fitted weights: bench/RESULTS.md (`npm run bench`; weights from bench/fit-model.ts).
import type { Round, RoundContent } from '../rounds';

export { SCAN_WHOLE, TEXT_TOKENS, textFeatures, textTokens, type TextTokenWeights } from './text';
import { textTokens } from './text';

/**
 * Stage 2: tokens a round adds to the next request. `*Scale` weights multiply proxy tokens
 * (Claude's tokenizer against the o200k-like proxy); the per-character weights apply to
 * characters without proxy counts (content built by hand, text added after indexing) and to
 * thinking, whose signature is the better predictor. Fitted (least absolute relative error)
 * against usage deltas of consecutive rounds of the shared fixtures. Thinking of a response
 * that continues a tool loop stays in the next request (its size shows in the signature);
 * that of a turn-ending response is mostly dropped. Images cost little in later deltas.
 */
export const TOKEN_MODEL = {
  prose: 0.2425, // per char (= proseScale × mean proxy density): assistant text, user text, attachments without proxy counts
  toolUseInput: 0.3337, // per char: JSON of tool inputs (no proxy counts)
  loopThinking: 0.0,
  loopSignature: 0.1878,
  endThinking: 0.0469,
  endSignature: 0.1492,
  toolResult: 0.3441, // per char: tool result text (no proxy counts)
  image: 211.5,
  block: 23.55, // framing per content block
  round: 21.59, // framing per round
  proseScale: 0.9511, // per proxy token
  toolUseInputScale: 1.1736,
  toolResultScale: 1.1284,
} as const;

/** The weights of a token model (TOKEN_MODEL's shape), e.g. refitted ones in the accuracy check. */
export type TokenModel = { -readonly [K in keyof typeof TOKEN_MODEL]: number };

/** Tokens of `chars` characters of one kind, `covered` of which were measured as `proxy` proxy tokens. */
function part(chars: number, proxy: number, covered: number, scale: number, perChar: number): number {
  if (!(covered > 0)) return perChar * chars;
  if (chars <= covered) return chars <= 0 ? 0 : (scale * proxy * chars) / covered;
  return scale * proxy + perChar * (chars - covered);
}

/** The parts of a round's uncalibrated estimate, by kind of content (they sum to `rawEstimate`). */
export interface EstimateParts {
  /** Assistant text, user text and attachments. */
  prose: number;
  toolUseInput: number;
  toolResult: number;
  thinking: number;
  images: number;
  /** Per-block and per-round framing. */
  framing: number;
  /** Opaque content (an encrypted compaction summary): the tokens its agent counts for it. */
  opaque: number;
}

/**
 * Uncalibrated estimate of the tokens a round adds to the context, by kind. Content whose proxy
 * counts are known (`c.proxy`, set while indexing) is sized by them; if a caller changes
 * the character counts afterwards (e.g. a budget replacing a tool result by a preview),
 * the proxy is scaled by the characters left and characters beyond it use the per-char weights.
 */
export function rawEstimateParts(
  c: RoundContent,
  continuesToolLoop: boolean,
  m: TokenModel = TOKEN_MODEL,
): EstimateParts {
  const p = c.proxy;
  return {
    prose: part(
      c.assistantText + c.userText + c.attachment,
      p ? p.prose : 0,
      p ? p.proseChars : 0,
      m.proseScale,
      m.prose,
    ),
    toolUseInput: part(
      c.toolUseInput,
      p ? p.toolUseInput : 0,
      p ? p.toolUseInputChars : 0,
      m.toolUseInputScale,
      m.toolUseInput,
    ),
    toolResult: part(c.toolResult, p ? p.toolResult : 0, p ? p.toolResultChars : 0, m.toolResultScale, m.toolResult),
    thinking: continuesToolLoop
      ? m.loopThinking * c.thinking + m.loopSignature * c.signature
      : m.endThinking * c.thinking + m.endSignature * c.signature,
    images: m.image * c.images,
    framing: m.block * c.blocks + m.round,
    opaque: c.opaque ?? 0,
  };
}

/** Uncalibrated estimate of the tokens a round adds to the context (the sum of `rawEstimateParts`). */
export function rawEstimate(c: RoundContent, continuesToolLoop: boolean, m: TokenModel = TOKEN_MODEL): number {
  const x = rawEstimateParts(c, continuesToolLoop, m);
  // Summed in the order the model was fitted with, so figures stay bit-identical.
  return x.prose + x.toolUseInput + x.toolResult + x.thinking + x.images + m.block * c.blocks + m.round + x.opaque;
}

type TextKind = 'prose' | 'toolResult' | 'toolUseInput';

/**
 * Characters of a given kind that fit in `tokens` by the per-character weights, given the
 * session's calibration (1 for a raw estimate).
 */
export function charsForTokens(tokens: number, kind: TextKind = 'prose', calibration = 1): number {
  return Math.floor(tokens / (TOKEN_MODEL[kind] * calibration));
}

/**
 * Estimated tokens of an actual string of a given kind (uses its character classes, so closer than
 * the per-character weights), times the session's calibration (1 for a raw estimate).
 */
export function estimateStringTokens(text: string, kind: TextKind = 'prose', calibration = 1): number {
  const scale =
    kind === 'prose'
      ? TOKEN_MODEL.proseScale
      : kind === 'toolResult'
        ? TOKEN_MODEL.toolResultScale
        : TOKEN_MODEL.toolUseInputScale;
  return Math.round(scale * textTokens(text) * calibration);
}

/**
 * Per-session calibration: the median ratio truth/estimate over the session's earlier
 * scored pairs, shrunk towards 1 so a few odd rounds cannot swing it.
 */
export class SessionCalibration {
  /** Observed ratios, kept sorted (binary insertion) so `factor` is O(1). */
  private sorted: number[] = [];
  constructor(private readonly shrink = 30) {}

  get factor(): number {
    const n = this.sorted.length;
    if (n === 0) return 1;
    const median = this.sorted[Math.floor(n / 2)];
    return (n * median + this.shrink) / (n + this.shrink);
  }

  get samples(): number {
    return this.sorted.length;
  }

  observe(truthDelta: number, raw: number): void {
    if (!(truthDelta >= 300 && raw > 0)) return;
    const r = truthDelta / raw;
    const a = this.sorted;
    let lo = 0;
    let hi = a.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (a[mid] <= r) lo = mid + 1;
      else hi = mid;
    }
    a.splice(lo, 0, r);
  }

  /** A copy carrying the same observations (for incremental re-inspection). */
  clone(): SessionCalibration {
    const c = new SessionCalibration(this.shrink);
    c.sorted = [...this.sorted];
    return c;
  }
}

export function continuesToolLoop(round: Round): boolean {
  return round.stopReason === 'tool_use' || (round.stopReason === undefined && round.toolUses.length > 0);
}
