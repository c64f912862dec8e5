// How much a summary keeps: brief, standard or full. Every summarizer follows the level (the offline one picks what
// it lists by it, summarize/extractive.ts; a model is told by summaryInstructions in summarize/prompt.ts), and the plan
// reserves the level's size for the summary, so its figures predict what the summary then takes.

export const SUMMARY_DETAILS = ['brief', 'standard', 'full'] as const;
export type SummaryDetail = (typeof SUMMARY_DETAILS)[number];

/** Today's summary: what every summary was before there were levels. */
export const DEFAULT_SUMMARY_DETAIL: SummaryDetail = 'standard';

/**
 * Tokens reserved for the summary at each level when no size is given (`summaryTokens`): what the plan counts for the
 * summary, the room the offline summary fills and the model's max_tokens. A brief summary is about a third of a
 * standard one; a full one has room for every fact of a long span and more of the latest work.
 */
export const SUMMARY_TOKENS_BY_DETAIL: Readonly<Record<SummaryDetail, number>> = {
  brief: 1_500,
  standard: 4_000,
  full: 10_000,
};

export function isSummaryDetail(value: unknown): value is SummaryDetail {
  return typeof value === 'string' && (SUMMARY_DETAILS as readonly string[]).includes(value);
}

/** "brief, standard or full", for messages. */
export const SUMMARY_DETAIL_CHOICES = `${SUMMARY_DETAILS.slice(0, -1).join(', ')} or ${SUMMARY_DETAILS[SUMMARY_DETAILS.length - 1]}`;
