// The compaction's settings and their defaults. Below the compactor (core/compact/), because more than the compactor
// reads them: the sessions list estimates "compacted first" at the default target without planning.
import { DEFAULT_SUMMARY_DETAIL, SUMMARY_TOKENS_BY_DETAIL, type SummaryDetail } from './summaryDetail';

export interface CompactSettings {
  /** Target size of the resumed context, in tokens. */
  targetTokens: number;
  /** Tokens of the most recent rounds to keep verbatim (before budgeting). */
  keepRecentTokens: number;
  /** Max characters of tool_result content per outbound user (wire) message. */
  maxToolResultCharsPerMessage: number;
  /** Max characters of a single tool result. */
  maxToolResultChars: number;
  /** Tools whose results are never replaced. */
  exemptTools: string[];
  /** Bytes of a replaced result's preview. */
  previewBytes: number;
  /** Tokens reserved for the summary in the target; when not given, the size of the summary detail level (summaryDetail.ts). */
  summaryTokens: number;
  /** How much the summary keeps: brief, standard (the default) or full. */
  summaryDetail: SummaryDetail;
}

export const DEFAULT_SETTINGS: CompactSettings = {
  targetTokens: 100_000,
  keepRecentTokens: 40_000,
  maxToolResultCharsPerMessage: 200_000,
  maxToolResultChars: 50_000,
  exemptTools: [],
  previewBytes: 2_000,
  summaryTokens: SUMMARY_TOKENS_BY_DETAIL[DEFAULT_SUMMARY_DETAIL],
  summaryDetail: DEFAULT_SUMMARY_DETAIL,
};
