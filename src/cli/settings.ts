// Compaction settings from CLI flags: the table shared by `plan` and `compact`.
import { DEFAULT_SETTINGS, type CompactSettings } from '../core/compactSettings';
import {
  DEFAULT_SUMMARY_DETAIL,
  isSummaryDetail,
  SUMMARY_DETAIL_CHOICES,
  SUMMARY_DETAILS,
  SUMMARY_TOKENS_BY_DETAIL,
} from '../core/summaryDetail';
import { intOption, UsageError } from './args';
import { sanitizeForTerminal } from './format';
import { list, str, type OptionSpec, type Values } from './options';

const n = (x: number) => String(x);

export const SETTING_OPTIONS: readonly OptionSpec[] = [
  {
    flag: 'target-tokens',
    type: 'string',
    value: 'N',
    help: 'target size of the resumed context in tokens, system prompt and tools included',
    default: n(DEFAULT_SETTINGS.targetTokens),
  },
  {
    flag: 'keep-recent-tokens',
    type: 'string',
    value: 'N',
    help: 'tokens of the newest rounds kept verbatim, at least 1; the newest round is kept whatever its size',
    default: n(DEFAULT_SETTINGS.keepRecentTokens),
  },
  {
    flag: 'max-message-chars',
    type: 'string',
    value: 'N',
    help: 'most characters of tool results in one message; the largest beyond it are replaced by previews',
    default: n(DEFAULT_SETTINGS.maxToolResultCharsPerMessage),
  },
  {
    flag: 'max-result-chars',
    type: 'string',
    value: 'N',
    help: 'most characters of one tool result; a longer one is replaced by a preview, the full text saved beside the session',
    default: n(DEFAULT_SETTINGS.maxToolResultChars),
  },
  {
    flag: 'detail',
    type: 'string',
    value: 'LEVEL',
    help: 'how much the summary keeps: brief (the task, requests, files edited, last error, next step), standard, or full (every fact and more of the latest work)',
    default: DEFAULT_SUMMARY_DETAIL,
  },
  {
    flag: 'summary-tokens',
    type: 'string',
    value: 'N',
    help: 'tokens reserved for the summary within the target',
    default: `by --detail: ${SUMMARY_DETAILS.map((d) => `${d} ${n(SUMMARY_TOKENS_BY_DETAIL[d])}`).join(', ')}`,
  },
  {
    flag: 'exempt-tool',
    type: 'string',
    multiple: true,
    value: 'NAME',
    help: "never replace this tool's results by previews",
    default: 'none',
  },
];

const NUMERIC: readonly [string, keyof CompactSettings][] = [
  ['target-tokens', 'targetTokens'],
  ['keep-recent-tokens', 'keepRecentTokens'],
  ['max-message-chars', 'maxToolResultCharsPerMessage'],
  ['max-result-chars', 'maxToolResultChars'],
  ['summary-tokens', 'summaryTokens'],
];

/** The settings the flags give; numbers are whole and at least 1, as the core requires (it refuses 0). */
export function settingsFrom(values: Values): Partial<CompactSettings> {
  const s: Partial<CompactSettings> = {};
  for (const [flag, key] of NUMERIC) {
    const v = str(values, flag);
    if (v !== undefined) (s as Record<string, number>)[key] = intOption(v, flag);
  }
  const detail = str(values, 'detail');
  if (detail !== undefined) {
    if (!isSummaryDetail(detail))
      throw new UsageError(`--detail must be ${SUMMARY_DETAIL_CHOICES}, got '${sanitizeForTerminal(detail)}'`);
    s.summaryDetail = detail;
  }
  const exempt = list(values, 'exempt-tool');
  if (exempt.length) s.exemptTools = exempt;
  return s;
}
