// Steer the compaction by hand from the Rounds tree: Keep Verbatim, Drop, Summarize, Auto on the
// selected rounds (the tree allows many), Summarize Up To Here and Keep From Here on one, Clear
// Decisions. Each changes the store's decisions value (store.ts `decide`: saved with the session, and the plan
// recomputed at once) and returns the new plan, so host tests drive them like a user.
// Called from a tree item: (node, selectedNodes); programmatically: { file, rounds } or { file, round }.
import * as vscode from 'vscode';
import {
  chooseRounds,
  chooseToolResult,
  keepFrom,
  noDecisions,
  summarizeUpTo,
  type ResultChoice,
  type RoundChoice,
  type UserDecisions,
} from '../../core/compact/decisions';
import type { CompactionPlan } from '../../core/compact/types';
import type { Services } from '../services';
import { CommandInputError, fileFromArg, isProgrammatic } from './args';

interface RoundTarget {
  file: string;
  rounds: number[];
}

/** The file and rounds a call names: the clicked node plus the other selected ones, or `{ file, rounds | round }`. */
function roundsFrom(s: Services, arg: unknown, selected: unknown): RoundTarget {
  const nodes = Array.isArray(selected) && selected.length ? (selected as unknown[]) : [arg];
  const file = fileFromArg(arg) ?? s.store.file;
  if (!file) throw new CommandInputError('no transcript is shown');
  const rounds: number[] = [];
  for (const n of nodes) {
    if (!n || typeof n !== 'object') continue;
    const o = n as { file?: unknown; round?: unknown; rounds?: unknown; kind?: unknown };
    if (o.file !== undefined && o.file !== file) continue;
    if (typeof o.round === 'number' && (o.kind === undefined || o.kind === 'round')) rounds.push(o.round);
    if (Array.isArray(o.rounds)) for (const r of o.rounds as unknown[]) if (typeof r === 'number') rounds.push(r);
  }
  if (!rounds.length) throw new CommandInputError('choose one or more rounds in the Rounds view');
  return { file, rounds: [...new Set(rounds)].sort((a, b) => a - b) };
}

/** Applies `change` to the store's decisions of `file` (saved, and replanned); shows a failure unless called by code. */
async function decide(
  s: Services,
  arg: unknown,
  file: string,
  change: (d: UserDecisions) => UserDecisions,
): Promise<CompactionPlan | null> {
  try {
    return await s.store.decide(file, change);
  } catch (err) {
    s.log.error(`Could not save the decision for ${file}`, err);
    if (isProgrammatic(arg)) throw err;
    void vscode.window.showErrorMessage(`Agent Compactor: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
}

function roundChoice(choice: RoundChoice | 'auto') {
  return (s: Services, arg?: unknown, selected?: unknown): Promise<CompactionPlan | null> => {
    const t = roundsFrom(s, arg, selected);
    return decide(s, arg, t.file, (d) => chooseRounds(d, t.rounds, choice));
  };
}

export const keepRoundCommand = roundChoice('keep');
export const dropRoundCommand = roundChoice('drop');
export const summarizeRoundCommand = roundChoice('summarize');
export const autoRoundCommand = roundChoice('auto');

export function summarizeUpToCommand(s: Services, arg?: unknown): Promise<CompactionPlan | null> {
  const t = roundsFrom(s, arg, undefined);
  return decide(s, arg, t.file, (d) => summarizeUpTo(d, t.rounds[t.rounds.length - 1]));
}

export function keepFromCommand(s: Services, arg?: unknown): Promise<CompactionPlan | null> {
  const t = roundsFrom(s, arg, undefined);
  return decide(s, arg, t.file, (d) => keepFrom(d, t.rounds[0]));
}

/** `{ file, toolUseId, choice: 'keep-full' | 'preview' | 'auto' }` (from the tool-result nodes or code). */
export function chooseResultCommand(s: Services, arg?: unknown): Promise<CompactionPlan | null> {
  const o = (arg ?? {}) as { file?: unknown; toolUseId?: unknown; choice?: unknown };
  const file = fileFromArg(arg) ?? s.store.file;
  if (
    !file ||
    typeof o.toolUseId !== 'string' ||
    (o.choice !== 'keep-full' && o.choice !== 'preview' && o.choice !== 'auto')
  ) {
    throw new CommandInputError('chooseToolResult needs { file, toolUseId, choice: keep-full | preview | auto }');
  }
  const id = o.toolUseId;
  const choice: ResultChoice | 'auto' = o.choice;
  return decide(s, arg, file, (d) => chooseToolResult(d, id, choice));
}

export async function clearDecisionsCommand(s: Services, arg?: unknown): Promise<CompactionPlan | null> {
  const file = fileFromArg(arg) ?? s.store.file;
  if (!file) throw new CommandInputError('no transcript is shown');
  return decide(s, arg, file, () => noDecisions());
}
