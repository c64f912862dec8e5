// Configuration values → engine settings, with validation. Pure: the vscode side passes a
// getter over `workspace.getConfiguration('agentCompactor')`.
import type { CompactSettings } from '../../core/compactSettings';
import { isSummaryDetail } from '../../core/summaryDetail';
import type { AgentPrograms } from '../../core/formats/agent';

export type Summarizer = 'extractive' | 'anthropic' | 'claude-cli' | 'codex-cli';

const SUMMARIZERS: readonly Summarizer[] = ['extractive', 'anthropic', 'claude-cli', 'codex-cli'];

/** Summarizers that send the summarized rounds somewhere (the Anthropic API, or the user's agent CLI and its API). */
export function sendsContent(summarizer: Summarizer): boolean {
  return summarizer !== 'extractive';
}
/**
 * fork: a new session `<new-uuid>.jsonl` beside the original (untouched), resumable by its id;
 * inPlace: the original is replaced after a backup. The former `newFile` value reads as fork.
 */
export type WriteMode = 'fork' | 'inPlace';

/** A write mode from settings or a caller; the deprecated `newFile` and anything unknown mean fork. */
export function normalizeWriteMode(v: unknown): WriteMode {
  return v === 'inPlace' ? 'inPlace' : 'fork';
}

export const DEFAULT_CLAUDE_PATH = 'claude';
export const DEFAULT_CODEX_PATH = 'codex';

/**
 * Settings that decide where transcript content and the API key go, or which program runs, or that take away a check
 * the user relies on or change the figures they decide by: a workspace's `.vscode/settings.json` (which comes with a
 * shared repository) must not set them (package.json gives them the "application" or "machine" scope, and
 * getSettings / getPrices read them through userScopedValue so a workspace value is ignored even if one is present).
 * `writeMode`: a workspace must not make compaction replace the original. `reviewSummary`: nor skip the review of
 * what is written. `prices`: nor change the costs shown (a session made to look cheap, or dear). The sizes
 * (`targetTokens`, …) stay per workspace: they only shape a plan the user sees before anything is written.
 */
export const USER_ONLY_SETTINGS: readonly string[] = [
  'summarizer',
  'summaryDetail',
  'model',
  'baseUrl',
  'claudePath',
  'codexPath',
  'writeMode',
  'reviewSummary',
  'prices',
];

/** The parts of `WorkspaceConfiguration.inspect()` a value can come from (vscode's shape, without importing it). */
export interface InspectedSetting {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
  [other: string]: unknown;
}

/** The user's (or the machine's) value, else the default: whatever a workspace or folder sets is ignored. */
export function userScopedValue(inspected: InspectedSetting | undefined): unknown {
  if (!inspected) return undefined;
  return inspected.globalValue !== undefined ? inspected.globalValue : inspected.defaultValue;
}

/** The Anthropic SDK's own default address, used when neither the setting nor ANTHROPIC_BASE_URL names one. */
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/** The address the summary request goes to, as the Anthropic SDK picks it: the setting, else the environment, else its default. */
export function anthropicBaseUrl(configured: string | undefined, envValue: string | undefined): string {
  return configured ?? nonEmpty(envValue) ?? DEFAULT_ANTHROPIC_BASE_URL;
}

/** The host (with a port when one is given) that a base URL sends to, for the confirmation dialog. */
export function baseUrlHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host || baseUrl;
  } catch {
    return baseUrl;
  }
}

export interface ExtensionSettings {
  /** Only the values the user set validly; the engine fills in DEFAULT_SETTINGS for the rest. */
  compact: Partial<CompactSettings>;
  summarizer: Summarizer;
  /** Anthropic model for summaries (undefined: the engine's default). */
  model?: string;
  /** Anthropic API base URL (undefined: the SDK's default). */
  baseUrl?: string;
  writeMode: WriteMode;
  /** Compact Transcript writes the summary first and opens it for review (edit, then Apply or Discard). */
  reviewSummary: boolean;
  /** The Claude Code executable that Resume in Claude Code runs and the claude-cli summarizer uses (machine setting). */
  claudePath: string;
  /** The Codex executable the codex-cli summarizer uses (machine setting). */
  codexPath: string;
  /** Compute and show the compaction plan whenever a transcript loads. */
  previewOnOpen: boolean;
}

const NUMERIC: (keyof CompactSettings)[] = [
  'targetTokens',
  'keepRecentTokens',
  'maxToolResultCharsPerMessage',
  'maxToolResultChars',
];

function positiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined;
}

/** The agents' programs as the settings name them: what resuming and the agent-CLI summarizers run. */
export function agentPrograms(s: Pick<ExtensionSettings, 'claudePath' | 'codexPath'>): AgentPrograms {
  return { claudePath: s.claudePath, codexPath: s.codexPath };
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

export function readSettings(get: (key: string) => unknown): ExtensionSettings {
  const compact: Partial<CompactSettings> = {};
  for (const k of NUMERIC) {
    const v = positiveInt(get(k));
    if (v !== undefined) (compact as Record<string, number>)[k] = v;
  }
  // How much of the transcript the summary carries is the user's choice, like the summarizer (read user-scoped).
  const detail = get('summaryDetail');
  if (isSummaryDetail(detail)) compact.summaryDetail = detail;
  const exempt = get('exemptTools');
  if (Array.isArray(exempt)) compact.exemptTools = exempt.filter((x): x is string => typeof x === 'string' && x !== '');
  const baseUrl = nonEmpty(get('baseUrl'));
  return {
    compact,
    summarizer: SUMMARIZERS.find((x) => x === get('summarizer')) ?? 'extractive',
    model: nonEmpty(get('model')),
    baseUrl: baseUrl && /^https?:\/\//i.test(baseUrl) ? baseUrl : undefined,
    writeMode: normalizeWriteMode(get('writeMode')),
    reviewSummary: get('reviewSummary') !== false,
    claudePath: nonEmpty(get('claudePath')) ?? DEFAULT_CLAUDE_PATH,
    codexPath: nonEmpty(get('codexPath')) ?? DEFAULT_CODEX_PATH,
    previewOnOpen: get('previewOnOpen') === true,
  };
}

/** Parses a target typed in the quick input: "120000", "120k", "1.5M", "120,000". */
export function parseTokenCount(text: string): number | null {
  const m = /^\s*([0-9][0-9_,]*(?:\.[0-9]+)?)\s*([kKmM]?)\s*(?:tokens?)?\s*$/.exec(text);
  if (!m) return null;
  const base = Number(m[1].replace(/[_,]/g, ''));
  if (!Number.isFinite(base)) return null;
  const mult = m[2].toLowerCase() === 'k' ? 1_000 : m[2].toLowerCase() === 'm' ? 1_000_000 : 1;
  const n = Math.round(base * mult);
  return n >= 1_000 && n <= 10_000_000 ? n : null;
}
