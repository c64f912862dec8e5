// What the user decided about a session's compaction, as one typed value: per round keep
// (pinned) / drop / summarize (absent = auto, the plan decides), two ranges, and per tool result
// keep-in-full / replace-by-preview. Operations return a new value (last decision wins), so the
// editor, the CLI and tests build decisions the same way; the planner (steer.ts) honours them.
import type { Analysis } from '../analysis';
import { ownValue, setOwn } from '../json';

export type RoundChoice = 'keep' | 'drop' | 'summarize';
export type ResultChoice = 'keep-full' | 'preview';

export interface UserDecisions {
  /** Explicit per-round choices by round index (as inspect and plan print it). */
  rounds: Record<string, RoundChoice>;
  /** Every active round up to and including this index is summarized (unless chosen otherwise one by one). */
  summarizeUpTo: number | null;
  /** Every active round from this index on is kept verbatim (unless chosen otherwise one by one). */
  keepFrom: number | null;
  /** Per tool result, by tool_use_id. */
  toolResults: Record<string, ResultChoice>;
  /**
   * The uuid of each named round's first line when the choice was made: a choice whose round no longer starts with
   * that line (the file was rewritten) is stale and ignored, with a note, instead of applying to other content.
   */
  anchors?: Record<string, string>;
}

export function noDecisions(): UserDecisions {
  return { rounds: {}, summarizeUpTo: null, keepFrom: null, toolResults: {} };
}

export function hasRoundDecisions(d: UserDecisions | undefined | null): boolean {
  return !!d && (Object.keys(d.rounds).length > 0 || d.summarizeUpTo !== null || d.keepFrom !== null);
}

export function isEmptyDecisions(d: UserDecisions | undefined | null): boolean {
  return !d || (!hasRoundDecisions(d) && Object.keys(d.toolResults).length === 0);
}

/** Decisions that cannot all hold (e.g. overlapping ranges, an unknown round); the message names them. */
export class DecisionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DecisionError';
  }
}

function copy(d: UserDecisions): UserDecisions {
  return {
    rounds: { ...d.rounds },
    summarizeUpTo: d.summarizeUpTo,
    keepFrom: d.keepFrom,
    toolResults: { ...d.toolResults },
    ...(d.anchors ? { anchors: { ...d.anchors } } : {}),
  };
}

/** Sets (or, with 'auto', removes) the choice for each of `rounds`. */
export function chooseRounds(d: UserDecisions, rounds: number[], choice: RoundChoice | 'auto'): UserDecisions {
  const next = copy(d);
  for (const r of rounds) {
    if (choice === 'auto') delete next.rounds[r];
    else next.rounds[r] = choice;
  }
  return next;
}

/** "Summarize up to here": a later range wins over an earlier one it overlaps, and over one-by-one choices inside it. */
export function summarizeUpTo(d: UserDecisions, round: number | null): UserDecisions {
  const next = copy(d);
  next.summarizeUpTo = round;
  if (round !== null) {
    if (next.keepFrom !== null && next.keepFrom <= round) next.keepFrom = null;
    for (const k of Object.keys(next.rounds)) if (Number(k) <= round) delete next.rounds[k];
  }
  return next;
}

/** "Keep from here": a later range wins over an earlier one it overlaps, and over one-by-one choices inside it. */
export function keepFrom(d: UserDecisions, round: number | null): UserDecisions {
  const next = copy(d);
  next.keepFrom = round;
  if (round !== null) {
    if (next.summarizeUpTo !== null && next.summarizeUpTo >= round) next.summarizeUpTo = null;
    for (const k of Object.keys(next.rounds)) if (Number(k) >= round) delete next.rounds[k];
  }
  return next;
}

/** Sets (or, with 'auto', removes) the choice for a tool result. */
export function chooseToolResult(d: UserDecisions, toolUseId: string, choice: ResultChoice | 'auto'): UserDecisions {
  const next = copy(d);
  if (choice === 'auto') delete next.toolResults[toolUseId];
  else setOwn(next.toolResults, toolUseId, choice);
  return next;
}

/** Records the first line's uuid of every round named, so a later reader can tell the choices still apply. */
export function anchored(d: UserDecisions, analysis: Analysis): UserDecisions {
  const next = copy(d);
  const anchors: Record<string, string> = {};
  const named = [...Object.keys(d.rounds).map(Number), d.summarizeUpTo, d.keepFrom].filter(
    (n): n is number => n !== null,
  );
  for (const n of named) {
    const uuid = firstUuid(analysis, n);
    if (uuid) anchors[n] = uuid;
  }
  next.anchors = anchors;
  return next;
}

function firstUuid(analysis: Analysis, round: number): string | null {
  const r = analysis.rounds[round];
  if (!r) return null;
  for (const e of r.entries) {
    const uuid = analysis.index.entries[e].uuid;
    if (uuid) return uuid;
  }
  return null;
}

/** Why a choice applies to a round (for the plan's reason), or null when the plan decides. */
export interface ResolvedChoice {
  choice: RoundChoice;
  /** "you pinned it", "you chose to summarize up to round 12", ... */
  why: string;
}

export interface Resolution {
  /** By round index, active rounds only. */
  choices: Map<number, ResolvedChoice>;
  /** Choices that no longer apply (stale anchors, rounds outside the active context), said plainly. */
  ignored: string[];
}

/**
 * The choice for each active round. Throws DecisionError for decisions that contradict each other or name rounds
 * that do not exist (the caller's input is wrong); stale saved choices are ignored and reported instead.
 */
export function resolveRounds(d: UserDecisions, analysis: Analysis): Resolution {
  const ignored: string[] = [];
  const choices = new Map<number, ResolvedChoice>();
  const total = analysis.rounds.length;
  if (d.summarizeUpTo !== null && d.keepFrom !== null && d.summarizeUpTo >= d.keepFrom) {
    throw new DecisionError(
      `"summarize up to round ${d.summarizeUpTo}" and "keep from round ${d.keepFrom}" overlap (rounds ${d.keepFrom}-${d.summarizeUpTo} cannot be both)`,
    );
  }
  const usable = (n: number, what: string): boolean => {
    if (!Number.isInteger(n) || n < 0 || n >= total)
      throw new DecisionError(`${what}: there is no round ${n} (this session has rounds 0-${total - 1})`);
    const anchor = ownValue(d.anchors, String(n));
    if (anchor !== undefined && firstUuid(analysis, n) !== anchor) {
      ignored.push(
        `${what} no longer applies: round ${n} is not the round it was made for (the session was rewritten); ignored`,
      );
      return false;
    }
    if (!analysis.rounds[n].inContext) {
      ignored.push(
        `${what} does not apply: round ${n} is before an earlier compact boundary, outside the active context`,
      );
      return false;
    }
    return true;
  };
  const active = analysis.rounds.filter((r) => r.inContext).map((r) => r.index);
  if (d.summarizeUpTo !== null && usable(d.summarizeUpTo, `"summarize up to round ${d.summarizeUpTo}"`)) {
    for (const i of active)
      if (i <= d.summarizeUpTo)
        choices.set(i, { choice: 'summarize', why: `you chose to summarize up to round ${d.summarizeUpTo}` });
  }
  if (d.keepFrom !== null && usable(d.keepFrom, `"keep from round ${d.keepFrom}"`)) {
    for (const i of active)
      if (i >= d.keepFrom) choices.set(i, { choice: 'keep', why: `you chose to keep from round ${d.keepFrom}` });
  }
  const words: Record<RoundChoice, string> = {
    keep: 'you pinned it (keep verbatim)',
    drop: 'you dropped it',
    summarize: 'you chose to summarize it',
  };
  for (const [key, choice] of Object.entries(d.rounds)) {
    const n = Number(key);
    if (usable(n, `your choice to ${choice === 'keep' ? 'keep' : choice} round ${key}`))
      choices.set(n, { choice, why: words[choice] });
  }
  return { choices, ignored };
}

/** Checks a value read from disk or a message: throws with what is wrong. */
export function parseDecisions(value: unknown, where: string): UserDecisions {
  const fail = (what: string): never => {
    throw new Error(`${where}: ${what}`);
  };
  if (typeof value !== 'object' || value === null) fail('decisions must be an object');
  const v = value as Record<string, unknown>;
  const rounds: Record<string, RoundChoice> = {};
  const toolResults: Record<string, ResultChoice> = {};
  if (typeof v.rounds !== 'object' || v.rounds === null) fail('decisions.rounds must be an object');
  for (const [k, c] of Object.entries(v.rounds as Record<string, unknown>)) {
    if (!/^\d+$/.test(k) || (c !== 'keep' && c !== 'drop' && c !== 'summarize'))
      fail(`decisions.rounds[${k}] must be keep, drop or summarize`);
    rounds[k] = c as RoundChoice;
  }
  if (typeof v.toolResults !== 'object' || v.toolResults === null) fail('decisions.toolResults must be an object');
  for (const [k, c] of Object.entries(v.toolResults as Record<string, unknown>)) {
    if (c !== 'keep-full' && c !== 'preview') fail(`decisions.toolResults[${k}] must be keep-full or preview`);
    setOwn(toolResults, k, c as ResultChoice);
  }
  const range = (x: unknown, name: string): number | null => {
    if (x === null || x === undefined) return null;
    if (typeof x !== 'number' || !Number.isInteger(x) || x < 0) fail(`decisions.${name} must be a round index or null`);
    return x as number;
  };
  const out: UserDecisions = {
    rounds,
    summarizeUpTo: range(v.summarizeUpTo, 'summarizeUpTo'),
    keepFrom: range(v.keepFrom, 'keepFrom'),
    toolResults,
  };
  if (v.anchors !== undefined) {
    if (typeof v.anchors !== 'object' || v.anchors === null) fail('decisions.anchors must be an object');
    const anchors: Record<string, string> = {};
    for (const [k, u] of Object.entries(v.anchors as Record<string, unknown>))
      if (typeof u === 'string') setOwn(anchors, k, u);
    out.anchors = anchors;
  }
  return out;
}

/**
 * Parses a round list as the CLI takes it: comma-separated indices and ranges, e.g. `3,7-9`. Throws DecisionError
 * naming the bad part.
 */
export function parseRoundList(text: string, flag: string): number[] {
  const out: number[] = [];
  for (const raw of text.split(',')) {
    const part = raw.trim();
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new DecisionError(`${flag}: '${part}' is not a round index or range (write e.g. 3,7-9)`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a) throw new DecisionError(`${flag}: range '${part}' runs backwards`);
    if (b - a > 1_000_000) throw new DecisionError(`${flag}: range '${part}' is too long`);
    for (let i = a; i <= b; i++) out.push(i);
  }
  return out;
}
