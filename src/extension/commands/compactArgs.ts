// What Compact Transcript is asked (from the palette, the tree, a notification or another extension), in one type that
// Review Summary and Apply Summary share with it.
import type { ContextAfter } from '../../core/compact/types';
import type { CompactSettings } from '../../core/compactSettings';
import { SUMMARY_DETAILS } from '../../core/summaryDetail';
import { normalizeWriteMode, type Summarizer, type WriteMode } from '../model/settings';
import { array, bool, int, oneOf, options, str } from '../../webview/validate';

export interface CompactArgs {
  file?: string;
  /** false: no confirmation dialog (a call from code). */
  confirm?: boolean;
  /**
   * 'extractive' forces the offline summary. Any other value is honoured only when the
   * `agentCompactor.summarizer` setting is that value (content leaves the machine only then).
   */
  summarizer?: Summarizer;
  /** fork (default setting) | inPlace; the deprecated 'newFile' means fork. */
  writeMode?: WriteMode | 'newFile';
  /** Output path instead of a fork (not with inPlace); an existing file is refused unless `force`. */
  out?: string;
  force?: boolean;
  targetTokens?: number;
  settings?: Partial<CompactSettings>;
  instructions?: string;
  /** Open the result in an editor (default true). */
  open?: boolean;
  /** The summary to write, exactly as given (Apply Summary passes the reviewed text). */
  summaryText?: string;
  /**
   * The context after that the user was promised where they confirmed the compaction (Apply Summary passes the
   * dialog's): the result says how what it delivered differs from it. Default: the plan the run applies.
   */
  promised?: ContextAfter;
}

/** A target in tokens, as the input box and the setting take it. */
export const TARGET_TOKENS = int({ min: 1_000, max: 10_000_000 });

/**
 * The options object of Compact Transcript and Review Summary, checked against CompactArgs' fields (`promised` is
 * passed within the extension only, never by a caller).
 */
export const COMPACT_OPTIONS = options({
  file: str(4_096, { min: 1 }),
  confirm: bool,
  summarizer: oneOf(['extractive', 'anthropic', 'claude-cli', 'codex-cli']),
  writeMode: oneOf(['fork', 'inPlace', 'newFile']),
  out: str(4_096, { min: 1 }),
  force: bool,
  targetTokens: TARGET_TOKENS,
  settings: options({
    targetTokens: TARGET_TOKENS,
    keepRecentTokens: int(),
    maxToolResultCharsPerMessage: int(),
    maxToolResultChars: int(),
    exemptTools: array(str(200), 1_000),
    previewBytes: int(),
    summaryTokens: int(),
    summaryDetail: oneOf(SUMMARY_DETAILS),
  }),
  instructions: str(100_000),
  open: bool,
  summaryText: str(50_000_000),
});

/** Where a run writes, from the arguments over the setting: in place, or a fork (or `out`, replaced only with `force`). */
export function writeTargetOf(
  o: Partial<CompactArgs>,
  configured: WriteMode,
): { mode: WriteMode; out?: string; force?: true } {
  const mode: WriteMode = o.writeMode !== undefined ? normalizeWriteMode(o.writeMode) : configured;
  const out = mode !== 'inPlace' && typeof o.out === 'string' && o.out ? o.out : undefined;
  return { mode, out, ...(out && o.force === true ? { force: true as const } : {}) };
}
