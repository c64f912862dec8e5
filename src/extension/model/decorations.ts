// Editor decoration ranges for a compaction plan: the lines of each summarized or dropped
// round, merged into runs of consecutive lines. Pure: no `vscode` import (0-based lines,
// the view turns them into Ranges).
import type { Analysis } from '../../core/analysis';
import type { CompactionPlan, RoundAction } from '../../core/compact/types';

export interface LineRun {
  /** 0-based, inclusive. */
  startLine: number;
  endLine: number;
  round: number;
  reason: string;
  /** True for the run holding the round's first line (gets the text marker). */
  first: boolean;
}

export type DecorationRanges = Record<Exclude<RoundAction, 'keep'>, LineRun[]>;

/**
 * Lines of every round the plan summarizes or drops. A round's own lines are used (not
 * just firstLine..lastLine), so sidechain or off-chain lines in between stay unmarked.
 */
export function decorationRanges(analysis: Analysis, plan: CompactionPlan | null | undefined): DecorationRanges {
  const out: DecorationRanges = { summarize: [], drop: [] };
  if (!plan) return out;
  const rounds = new Map(analysis.rounds.map((r) => [r.index, r]));
  for (const p of plan.rounds) {
    if (p.action === 'keep') continue;
    const round = rounds.get(p.index);
    let lines: number[];
    if (round) {
      lines = [...new Set(round.entries.map((i) => analysis.index.entries[i].line))].sort((a, b) => a - b);
    } else {
      lines = [];
      for (let l = p.firstLine; l <= p.lastLine; l++) lines.push(l);
    }
    let run: LineRun | null = null;
    for (const l of lines) {
      const z = l - 1;
      if (run && z === run.endLine + 1) run.endLine = z;
      else {
        run = { startLine: z, endLine: z, round: p.index, reason: p.reason, first: run === null };
        out[p.action].push(run);
      }
    }
  }
  for (const k of ['summarize', 'drop'] as const) out[k].sort((a, b) => a.startLine - b.startLine);
  return out;
}

/** Total lines marked per action (for tests and tooltips). */
export function markedLineCount(ranges: DecorationRanges): { summarize: number; drop: number } {
  const count = (runs: LineRun[]) => runs.reduce((s, r) => s + r.endLine - r.startLine + 1, 0);
  return { summarize: count(ranges.summarize), drop: count(ranges.drop) };
}
