// The options that steer a compaction by hand (plan and compact share them): rounds to keep,
// drop or summarize, tool results to keep in full or replace by a preview, and a summary text.
import { readFile } from 'node:fs/promises';
import type { Analysis } from '../core/analysis';
import {
  chooseRounds,
  chooseToolResult,
  DecisionError,
  parseRoundList,
  resolveRounds,
  type RoundChoice,
  type UserDecisions,
} from '../core/compact/decisions';
import { loadSavedPlanInputs, type SavedPlanInputs } from '../core/compact/savedDecisions';
import { shown, UsageError } from './args';
import { list, str, type OptionSpec, type Values } from './options';

export const STEER_OPTIONS: readonly OptionSpec[] = [
  {
    flag: 'keep',
    type: 'string',
    multiple: true,
    value: 'ROUNDS',
    help: 'keep these rounds verbatim (pinned), e.g. 3,7-9 (round indices as inspect and plan print them)',
    default: 'the plan decides',
  },
  {
    flag: 'drop',
    type: 'string',
    multiple: true,
    value: 'ROUNDS',
    help: 'leave these rounds out: neither kept nor summarized',
    default: 'the plan decides',
  },
  {
    flag: 'summarize',
    type: 'string',
    multiple: true,
    value: 'ROUNDS',
    help: 'fold these rounds into the summary',
    default: 'the plan decides',
  },
  {
    flag: 'keep-result',
    type: 'string',
    multiple: true,
    value: 'ID',
    help: 'keep this tool result (by tool_use_id) in full, over the budget',
    default: 'the budget decides',
  },
  {
    flag: 'preview-result',
    type: 'string',
    multiple: true,
    value: 'ID',
    help: 'replace this tool result (by tool_use_id) by a preview',
    default: 'the budget decides',
  },
  {
    flag: 'summary-file',
    type: 'string',
    value: 'FILE',
    help: 'use the text in FILE as the summary, exactly as written',
    default: 'the summarizer writes it',
  },
];

export const STEER_NOTE =
  'Choices saved with the session (in VS Code) apply too; these options add to them and win where they differ.';

const ROUND_FLAGS: readonly [string, RoundChoice][] = [
  ['keep', 'keep'],
  ['drop', 'drop'],
  ['summarize', 'summarize'],
];

/** The decisions the options name, on top of `base`; conflicting options are a UsageError (exit 2) naming them. */
export function decisionsFromOptions(values: Values, base: UserDecisions): UserDecisions {
  const seen = new Map<number, string>();
  let d = base;
  for (const [flag, choice] of ROUND_FLAGS) {
    const rounds: number[] = [];
    for (const text of list(values, flag)) {
      try {
        rounds.push(...parseRoundList(text, `--${flag}`));
      } catch (err) {
        throw new UsageError(err instanceof Error ? err.message : String(err));
      }
    }
    for (const r of rounds) {
      const other = seen.get(r);
      if (other && other !== flag)
        throw new UsageError(`round ${r} is given to both --${other} and --${flag}; choose one`);
      seen.set(r, flag);
    }
    d = chooseRounds(d, rounds, choice);
  }
  const keepIds = new Set(list(values, 'keep-result'));
  for (const id of list(values, 'preview-result')) {
    if (keepIds.has(id))
      throw new UsageError(`tool result ${shown(id)} is given to both --keep-result and --preview-result; choose one`);
    d = chooseToolResult(d, id, 'preview');
  }
  for (const id of keepIds) d = chooseToolResult(d, id, 'keep-full');
  return d;
}

/**
 * What the plan follows, read here at the edge: the session's saved state, and its saved decisions plus the
 * options, checked against the session (an unknown round is exit 2).
 */
export async function planInputsFor(file: string, analysis: Analysis, values: Values): Promise<SavedPlanInputs> {
  const saved = await loadSavedPlanInputs(file);
  return {
    state: saved.state,
    decisions: checkedDecisions(decisionsFromOptions(values, saved.decisions), analysis, values),
  };
}

function checkedDecisions(d: UserDecisions, analysis: Analysis, values: Values): UserDecisions {
  try {
    resolveRounds(d, analysis);
  } catch (err) {
    if (err instanceof DecisionError) throw new UsageError(err.message);
    throw err;
  }
  const ids = new Set(analysis.rounds.flatMap((r) => r.toolResults.map((t) => t.id)));
  for (const flag of ['keep-result', 'preview-result']) {
    for (const id of list(values, flag))
      if (!ids.has(id)) throw new UsageError(`--${flag}: no tool result with id ${shown(id)} in this session`);
  }
  return d;
}

/** The summary text from --summary-file, exactly as in the file (undefined without the option). */
export async function summaryTextFrom(values: Values): Promise<string | undefined> {
  const path = str(values, 'summary-file');
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(
      `--summary-file ${shown(path)}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (!text.trim()) throw new UsageError(`--summary-file ${shown(path)} is empty; give the summary text to write`);
  return text;
}
