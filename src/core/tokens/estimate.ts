// Cheap, calibrated token estimates: a characters-to-tokens model per content kind
// (no tokenizer pass over 100 MB), scaled per session by what its own usage records show.
import type { Round, RoundContent } from '../rounds';

/**
 * Tokens per character (or per item) by content kind. Fitted against Claude usage deltas
 * of consecutive rounds in real sessions (see bench/RESULTS.md for the accuracy and a
 * leave-one-session-out check). Thinking of a response that continues a tool loop stays in
 * the next request; thinking of a turn-ending response is mostly dropped from later requests.
 */
export const TOKEN_MODEL = {
  prose: 0.2716, // assistant text, user text, rendered attachments
  toolUseInput: 0.377, // JSON of tool inputs
  loopThinking: 0.2857,
  loopSignature: 0.203,
  endThinking: 0.0533,
  endSignature: 0.1207,
  toolResult: 0.3451,
  image: 255.6,
  block: 11.37, // framing per content block
  round: 39.26, // framing per round
} as const;

/** Uncalibrated estimate of the tokens a round adds to the context. */
export function rawEstimate(c: RoundContent, continuesToolLoop: boolean): number {
  const m = TOKEN_MODEL;
  const thinking = continuesToolLoop ? m.loopThinking * c.thinking + m.loopSignature * c.signature : m.endThinking * c.thinking + m.endSignature * c.signature;
  return (
    m.prose * (c.assistantText + c.userText + c.attachment) +
    m.toolUseInput * c.toolUseInput +
    thinking +
    m.toolResult * c.toolResult +
    m.image * c.images +
    m.block * c.blocks +
    m.round
  );
}

/** Rough tokens for a plain string of a given kind (for previews, summaries, budgets). */
export function estimateTextTokens(chars: number, kind: 'prose' | 'toolResult' | 'toolUseInput' = 'prose'): number {
  return Math.round(TOKEN_MODEL[kind] * chars);
}

/**
 * Per-session calibration: the median ratio truth/estimate over the session's earlier
 * scored pairs, shrunk towards 1 so a few odd rounds cannot swing it.
 */
export class SessionCalibration {
  private ratios: number[] = [];
  constructor(private readonly shrink = 10) {}

  get factor(): number {
    const n = this.ratios.length;
    if (n === 0) return 1;
    const sorted = [...this.ratios].sort((a, b) => a - b);
    const median = sorted[Math.floor(n / 2)];
    return (n * median + this.shrink) / (n + this.shrink);
  }

  get samples(): number {
    return this.ratios.length;
  }

  observe(truthDelta: number, raw: number): void {
    if (truthDelta >= 300 && raw > 0) this.ratios.push(truthDelta / raw);
  }
}

export function continuesToolLoop(round: Round): boolean {
  return round.stopReason === 'tool_use' || (round.stopReason === undefined && round.toolUses.length > 0);
}
