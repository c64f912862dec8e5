// The context after a compaction, promised and delivered: the plan promises it from its parts (system prompt and
// tools, the kept rounds, the summary's reserve, what a resume sends again), the run delivers the same parts measured
// in the written file (the summary as written), and the written file's own context figure (context.ts) is that
// delivered figure. Where the two differ, `promiseGap` says which part differs and by how much, in numbers.
import type { CompactionPlan, ContextAfter } from './types';

/** The context a plan promises (its parts as the plan sizes them): what the dialog, the plan line and the CLI show. */
export function promisedContext(plan: CompactionPlan): ContextAfter {
  const resent = plan.resentTokens ?? 0;
  const kept = plan.keptTokens;
  return {
    tokens: Math.round(plan.postTokens + plan.overheadTokens),
    overhead: plan.overheadTokens,
    kept,
    keptRounds: keptRoundsOf(plan),
    summary: Math.max(0, Math.round(plan.postTokens - kept - resent)),
    resent,
    measured: 0,
  };
}

/**
 * The context a run delivered: the final plan's parts with the summary as written (`summaryTokens`, sized as the plan
 * sizes its reserve) and the written file's transcript as checked (`writtenTokens`: kept rounds, summary and what a
 * resume sends again, as the written file's own context figure counts them).
 */
export function deliveredContext(plan: CompactionPlan, summaryTokens: number, writtenTokens: number): ContextAfter {
  const resent = plan.resentTokens ?? 0;
  const kept = plan.keptTokens;
  return {
    tokens: Math.round(writtenTokens + plan.overheadTokens),
    overhead: plan.overheadTokens,
    kept,
    keptRounds: keptRoundsOf(plan),
    summary: summaryTokens,
    resent,
    measured: Math.round(writtenTokens - kept - summaryTokens - resent),
  };
}

function keptRoundsOf(plan: CompactionPlan): number {
  return plan.rounds.filter((r) => r.inContext && r.action === 'keep').length;
}

/**
 * Why the delivered context is not the promised one, part by part, e.g. "the summary came out at 2,431, below its
 * 4,000 reserve; 1 more recent round kept verbatim (+312)"; null when they are the same figure.
 */
export function promiseGap(
  promised: ContextAfter,
  delivered: ContextAfter,
  format: (n: number) => string,
): string | null {
  if (promised.tokens === delivered.tokens) return null;
  const signed = (n: number) => `${n > 0 ? '+' : '−'}${format(Math.abs(n))}`;
  const parts: string[] = [];
  let explained = 0;
  if (delivered.summary !== promised.summary) {
    const word = delivered.summary < promised.summary ? 'below' : 'above';
    parts.push(
      promised.summary === 0
        ? `the summary line (${format(delivered.summary)}), which the plan did not count`
        : `the summary came out at ${format(delivered.summary)}, ${word} its ${format(promised.summary)} reserve`,
    );
    explained += delivered.summary - promised.summary;
  }
  if (delivered.kept !== promised.kept || delivered.keptRounds !== promised.keptRounds) {
    const more = delivered.keptRounds - promised.keptRounds;
    const rounds =
      more === 0
        ? 'the rounds kept verbatim'
        : `${Math.abs(more)} ${more > 0 ? 'more' : 'fewer'} recent round${Math.abs(more) === 1 ? '' : 's'} kept verbatim`;
    parts.push(`${rounds} (${signed(delivered.kept - promised.kept)})`);
    explained += delivered.kept - promised.kept;
  }
  if (delivered.resent !== promised.resent) {
    parts.push(`what a resume sends again ${format(promised.resent)} → ${format(delivered.resent)}`);
    explained += delivered.resent - promised.resent;
  }
  if (delivered.overhead !== promised.overhead) {
    parts.push(`system prompt and tools ${format(promised.overhead)} → ${format(delivered.overhead)}`);
    explained += delivered.overhead - promised.overhead;
  }
  const rest = delivered.tokens - promised.tokens - explained;
  if (rest !== 0) parts.push(`${signed(rest)} as measured in the written file`);
  return parts.join('; ');
}
