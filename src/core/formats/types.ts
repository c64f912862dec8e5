// The session formats the engine reads, and what it can do with each. A format reader turns its agent's records
// into the common entries (entries.ts) that the chain, rounds, budgets and plan work on.
import type { Entry } from '../entries';

export type FormatId = 'claude-code' | 'codex' | 'gemini-cli' | 'cline' | 'copilot-cli';

/** What the product does with a format: inspect always; plan and compact only where the write-back exists. */
export interface FormatCapabilities {
  inspect: true;
  plan: boolean;
  compact: boolean;
}

export interface FormatInfo {
  id: FormatId;
  /** The agent's own name, for headers and messages. */
  agent: string;
  /** The agent's version as the file records it, when it does. */
  version: string | null;
  /** How the file stores it: one JSON value per line, or one JSON document. */
  container: 'jsonl' | 'json';
}

const AGENTS: Record<FormatId, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex CLI',
  'gemini-cli': 'Gemini CLI',
  cline: 'Cline / Roo Code',
  'copilot-cli': 'GitHub Copilot CLI',
};

export function agentName(id: FormatId): string {
  return AGENTS[id];
}

const WHY_NOT: Partial<Record<FormatId, string>> = {
  'gemini-cli':
    'Gemini CLI sessions are read-only for now: Agent Compactor inspects them but does not write them back.',
  cline: 'Cline / Roo Code tasks are read-only for now: Agent Compactor inspects them but does not write them back.',
  'copilot-cli':
    'GitHub Copilot CLI sessions are read-only for now: Agent Compactor inspects them but does not write them back.',
};

/** What can be done with a file of this format; a Claude Code transcript stored as one JSON array is inspect-only. */
export function capabilitiesOf(format: Pick<FormatInfo, 'id' | 'container'>): FormatCapabilities {
  const writable = (format.id === 'claude-code' || format.id === 'codex') && format.container === 'jsonl';
  return { inspect: true, plan: writable, compact: writable };
}

/** Why plan and compact are not offered for a format (null when they are). */
export function unsupportedReason(format: Pick<FormatInfo, 'id' | 'container'>): string | null {
  if (capabilitiesOf(format).compact) return null;
  if (format.id === 'claude-code')
    return 'This Claude Code transcript is stored as one JSON array, not as JSON lines: Agent Compactor inspects it but writes back only the JSONL files Claude Code resumes.';
  return WHY_NOT[format.id] ?? 'This format is read-only for now.';
}

/**
 * Reads the records of one JSONL format, one parsed JSON value at a time, in file order. Readers may keep state
 * between records (a Codex response spans several records); `snapshot`/`restore` let the index re-read an
 * unterminated last line without that state drifting.
 */
export interface RecordReader {
  readonly format: FormatId;
  /** Entries for one JSON value found on a line; throws when the value is not an object. */
  digest(value: unknown, line: number, part: number, start: number, end: number): Entry[];
  version(): string | null;
  snapshot(): unknown;
  restore(snapshot: unknown): void;
}
