// Compaction settings from CLI flags.
import type { CompactSettings } from '../core/compact/types';
import { intOption } from './args';

export const SETTING_FLAGS = {
  'target-tokens': { type: 'string' },
  'keep-recent-tokens': { type: 'string' },
  'max-message-chars': { type: 'string' },
  'max-result-chars': { type: 'string' },
  'summary-tokens': { type: 'string' },
  'exempt-tool': { type: 'string', multiple: true },
  json: { type: 'boolean' },
} as const;

export function settingsFrom(values: Record<string, unknown>): Partial<CompactSettings> {
  const s: Partial<CompactSettings> = {};
  const v = values as Record<string, string | undefined>;
  if (v['target-tokens'] !== undefined) s.targetTokens = intOption(v['target-tokens'], 'target-tokens', 0);
  if (v['keep-recent-tokens'] !== undefined) s.keepRecentTokens = intOption(v['keep-recent-tokens'], 'keep-recent-tokens', 0);
  if (v['max-message-chars'] !== undefined) s.maxToolResultCharsPerMessage = intOption(v['max-message-chars'], 'max-message-chars', 0);
  if (v['max-result-chars'] !== undefined) s.maxToolResultChars = intOption(v['max-result-chars'], 'max-result-chars', 0);
  if (v['summary-tokens'] !== undefined) s.summaryTokens = intOption(v['summary-tokens'], 'summary-tokens', 0);
  const exempt = values['exempt-tool'];
  if (Array.isArray(exempt)) s.exemptTools = exempt as string[];
  return s;
}
