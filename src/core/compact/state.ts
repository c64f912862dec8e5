// Durable budget decisions, kept in a sidecar file beside the transcript so a later pass,
// a resumed session or a fork reproduces the same bytes.
import { basename, dirname, join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { parseDecisions, type UserDecisions } from './decisions';
import { fitName, readSidecar } from '../io/sidecarFiles';

export interface FrozenDecision {
  action: 'kept' | 'replaced';
  originalChars: number;
  /** Exact replacement text (replaced only). */
  preview?: string;
  /** Full original: an absolute path (older state files: relative to the transcript's folder). Replaced only. */
  fullTextPath?: string;
}

export interface BudgetState {
  version: 1;
  decisions: Record<string, FrozenDecision>;
  /** The user's choices for the next compaction of this session (decisions.ts); absent when none. */
  steering?: UserDecisions;
}

export function emptyState(): BudgetState {
  return { version: 1, decisions: {} };
}

/** A deep copy for a fork: changing the clone never touches the original. */
export function cloneState(state: BudgetState): BudgetState {
  return JSON.parse(JSON.stringify(state)) as BudgetState;
}

function sessionBase(file: string): string {
  return basename(file).replace(/\.jsonl$/i, '');
}

export function statePath(file: string): string {
  return join(dirname(file), fitName(sessionBase(file), '.compactor-state.json'));
}

function toolResultsDirName(file: string): string {
  return fitName(sessionBase(file), '.tool-results');
}

/** Absolute folder of a session's saved tool results: previews name files in it, and the agent reads them from its cwd. */
export function toolResultsDir(file: string): string {
  return join(dirname(resolve(file)), toolResultsDirName(file));
}

/** File name for a tool_use_id that cannot escape its folder (`/`, `..`, NUL, drive letters). */
export function safeToolResultName(toolUseId: string): string {
  const clean = toolUseId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100) || 'result';
  if (clean === toolUseId) return `${clean}.txt`;
  const hash = createHash('sha256').update(toolUseId).digest('hex').slice(0, 10);
  return `${clean}-${hash}.txt`;
}

/** True for a name `safeToolResultName` can give: a plain file name in the tool-results folder, nothing else. */
export function isSavedResultName(name: string): boolean {
  return /^[A-Za-z0-9_-]{1,100}(-[0-9a-f]{10})?\.txt$/.test(name);
}

/** A state file holds a decision (with a preview of at most a few KB) per tool result: far less than this. */
export const MAX_STATE_BYTES = 64 << 20;

export async function loadState(file: string): Promise<BudgetState> {
  const bytes = await readSidecar(statePath(file), MAX_STATE_BYTES);
  if (bytes === null) return emptyState();
  const text = bytes.toString('utf8');
  // A corrupt state file is reported with its path and what to do, not as a bare parser error.
  let parsed: BudgetState;
  try {
    parsed = JSON.parse(text) as BudgetState;
  } catch (err) {
    throw new Error(
      `${statePath(file)}: the compactor state file is not valid JSON (${err instanceof Error ? err.message : String(err)}); move it aside and compact again (earlier tool-result decisions will be made afresh)`,
      { cause: err },
    );
  }
  if (parsed?.version !== 1 || typeof parsed.decisions !== 'object' || parsed.decisions === null) {
    throw new Error(`${statePath(file)}: not a compactor state file (version 1)`);
  }
  if (parsed.steering !== undefined) parsed.steering = parseDecisions(parsed.steering, statePath(file));
  return parsed;
}
