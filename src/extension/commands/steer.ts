// Steer the compaction by hand from the Rounds tree: Keep Verbatim, Drop, Summarize, Auto on the
// selected rounds (the tree allows many), Summarize Up To Here and Keep From Here on one, Clear
// Decisions. Each changes the store's decisions value (store.ts `decide`: saved with the session, and the plan
// recomputed at once) and returns the new plan, so host tests drive them like a user.
// Called from a tree item: (node, selectedNodes); by code: { file, rounds } or { file, round }.
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
import { array, int, oneOf, options, str } from '../../webview/validate';
import { fileFromArg } from './args';
import { CommandInputError, optionsOf, type Call } from './call';

/** `{ file, rounds | round }`: the transcript (default: the shown one) and the rounds (by index) to decide on. */
export const ROUNDS_OPTIONS = options({ file: str(4_096, { min: 1 }), rounds: array(int(), 100_000), round: int() });

/** `{ file, toolUseId, choice }`: how one tool result is handled. */
export const TOOL_RESULT_OPTIONS = options({
  file: str(4_096, { min: 1 }),
  toolUseId: str(1_000, { min: 1 }),
  choice: oneOf(['keep-full', 'preview', 'auto']),
});

/** `{ file }`: the transcript whose decisions are cleared (default: the shown one). */
export const CLEAR_DECISIONS_OPTIONS = options({ file: str(4_096, { min: 1 }) });

interface RoundTarget {
  file: string;
  rounds: number[];
}

/** The file and rounds a call names: the clicked node plus the other selected ones, or `{ file, rounds | round }`. */
function roundsFrom(s: Services, title: string, arg: unknown, selected: unknown): RoundTarget {
  optionsOf(ROUNDS_OPTIONS, title, arg);
  const nodes = Array.isArray(selected) && selected.length ? (selected as unknown[]) : [arg];
  const file = fileFromArg(arg) ?? s.store.file;
  if (!file) throw new CommandInputError(`${title}: no transcript is shown`);
  const rounds: number[] = [];
  for (const n of nodes) {
    if (!n || typeof n !== 'object') continue;
    const o = n as { file?: unknown; round?: unknown; rounds?: unknown; kind?: unknown };
    if (o.file !== undefined && o.file !== file) continue;
    if (typeof o.round === 'number' && (o.kind === undefined || o.kind === 'round')) rounds.push(o.round);
    if (Array.isArray(o.rounds)) for (const r of o.rounds as unknown[]) if (typeof r === 'number') rounds.push(r);
  }
  if (!rounds.length) throw new CommandInputError(`${title}: choose one or more rounds in the Rounds view`);
  return { file, rounds: [...new Set(rounds)].sort((a, b) => a - b) };
}

/** Applies `change` to the store's decisions of `file` (saved, and replanned): the use case of every steer command. */
export function decide(
  s: Services,
  file: string,
  change: (d: UserDecisions) => UserDecisions,
): Promise<CompactionPlan | null> {
  return s.store.decide(file, change);
}

function roundChoice(choice: RoundChoice | 'auto', title: string) {
  return (s: Services, arg: unknown, call: Call): Promise<CompactionPlan | null> => {
    const t = roundsFrom(s, title, arg, call.selected);
    return decide(s, t.file, (d) => chooseRounds(d, t.rounds, choice));
  };
}

export const keepRoundCommand = roundChoice('keep', 'Keep Verbatim');
export const dropRoundCommand = roundChoice('drop', 'Drop');
export const summarizeRoundCommand = roundChoice('summarize', 'Summarize');
export const autoRoundCommand = roundChoice('auto', 'Auto');

export async function summarizeUpToCommand(s: Services, arg: unknown): Promise<CompactionPlan | null> {
  const t = roundsFrom(s, 'Summarize Up To Here', arg, undefined);
  return decide(s, t.file, (d) => summarizeUpTo(d, t.rounds[t.rounds.length - 1]));
}

export async function keepFromCommand(s: Services, arg: unknown): Promise<CompactionPlan | null> {
  const t = roundsFrom(s, 'Keep From Here', arg, undefined);
  return decide(s, t.file, (d) => keepFrom(d, t.rounds[0]));
}

/** `{ file, toolUseId, choice: 'keep-full' | 'preview' | 'auto' }` (from code: the Budget Preview decides directly). */
export async function chooseResultCommand(s: Services, arg: unknown): Promise<CompactionPlan | null> {
  const o = optionsOf(TOOL_RESULT_OPTIONS, 'Choose Tool Result Handling', arg);
  const file = fileFromArg(arg) ?? s.store.file;
  const { toolUseId, choice } = o;
  if (!file || toolUseId === undefined || choice === undefined)
    throw new CommandInputError(
      'Choose Tool Result Handling needs { file, toolUseId, choice: keep-full | preview | auto }',
    );
  const chosen: ResultChoice | 'auto' = choice;
  return decide(s, file, (d) => chooseToolResult(d, toolUseId, chosen));
}

export async function clearDecisionsCommand(s: Services, arg: unknown): Promise<CompactionPlan | null> {
  optionsOf(CLEAR_DECISIONS_OPTIONS, 'Clear Decisions', arg);
  const file = fileFromArg(arg) ?? s.store.file;
  if (!file) throw new CommandInputError('Clear Decisions: no transcript is shown');
  return decide(s, file, () => noDecisions());
}
