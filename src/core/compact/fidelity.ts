// What a summary keeps: the facts of the summarized span, and which of them a given summary text still holds.
// Pure, deterministic and offline (no model judges anything): the same span and summary always give the same counts.
//
// Facts, per category, taken from the span's records (core/conversation.ts, in chain order, as each agent's module
// reads its records). Tool calls of every agent are read through one function, toolCallsIn in summarize/toolCalls.ts
// (Claude Code's tools; Codex's exec_command, shell_command, shell, local_shell, write_stdin, apply_patch,
// update_plan):
// - requests: each typed user request (userRequests in summarize/extractive.ts: prompts, a slash command's arguments,
//   and what the user said when rejecting a tool use), when it has at least 2 distinctive words.
// - files: each file changed: edited, created, rewritten or deleted (Edit, MultiEdit, Write, NotebookEdit; the files
//   of a Codex apply_patch).
// - workingSet: each file read or changed in the last part of the span (the last fifth of its user and assistant
//   lines, at least the last 10: latestPartStart in summarize/extractive.ts).
// - errors: each distinct error a tool returned (is_error results, not the user's rejections; a Codex output that says
//   its command exited non-zero, codexOutputFailed), by its key line: the first line that says what went wrong
//   (errorKeyLine in summarize/extractive.ts), else its first line; an error that gives only an exit status is left to
//   its command.
// - failedCommands: each distinct shell command whose result was an error (for a Codex write_stdin poll that reports a
//   failure, the command it polled).
// - latest: the latest LATEST_TEXTS assistant texts that say something (latestAssistantTexts in summarize/extractive.ts),
//   with at least 3 distinctive words: where the assistant said the work stood, what it decided and would do next.
// - identifiers: the MAX_IDENTIFIERS code names (camelCase, PascalCase with two humps, snake_case) used most often in the
//   last part's assistant texts and tool inputs' values (latestIdentifiers; not a Codex argument's keys, not a to-do
//   item's status).
// - todos: each open item of the latest to-do list (TodoWrite, update_plan) and of the tasks made since (TaskCreate,
//   TaskUpdate): openPlanItems in summarize/toolCalls.ts.
//
// How a fact counts as kept by a summary:
// - a file (files, workingSet) when the summary names its path, its path relative to the session's directory, or its
//   base name, as a whole word (not inside a longer name);
// - an identifier when the summary contains it exactly (case-sensitive) as a whole word;
// - a text fact (requests, errors, failedCommands, latest, todos) when the summary holds at least half (rounded up) of
//   its distinctive words: its words of 4+ letters (3+ with a digit), lower-cased, not common English or shell words,
//   the rarest in the span first (fewest lines holding them), at most MAX_WORDS. Paraphrases that keep the specific
//   words count; a summary that reduces an error to its tool's name does not.
//
// The limits. The offline summary picks what to show with the same rules (the functions named above), so this measure
// is not independent of it: by construction it scores ours well. Two comparisons are independent of it: the summary
// the agent wrote itself of the same span (agentSummaries.ts), measured alike; and facts a person picked by reading
// three spans, with the words each needs, scored by a rule of their own (bench/fidelity-labels.ts). bench/fidelity.ts
// prints both. They show what this measure does not see: decisions said in the middle of a span (the measure looks at
// the latest texts only) count for nothing here, and on Claude Code's own compaction its summary keeps more of the
// labelled facts than ours while the measure says the reverse. A span is measured back to the previous compaction.
import { basename } from 'node:path';
import {
  contentBlocks,
  messageOf,
  toolResultText,
  type ConversationMessage,
  type ConversationRecord,
} from '../conversation';
import { jsonText } from '../json';
import {
  errorKeyLine,
  EXIT_STATUS,
  latestAssistantTexts,
  latestIdentifiers,
  latestPartStart,
  userRequests,
} from './summarize/extractive';
import { openPlanItems, toolCallsIn, type FileChange } from './summarize/toolCalls';

export const FACT_CATEGORIES = [
  'requests',
  'files',
  'workingSet',
  'errors',
  'failedCommands',
  'latest',
  'identifiers',
  'todos',
] as const;
export type FactCategory = (typeof FACT_CATEGORIES)[number];

/** What the category means, for reports. */
export const CATEGORY_NAMES: Record<FactCategory, string> = {
  requests: 'user requests',
  files: 'files edited or created',
  workingSet: 'working set (last part)',
  errors: 'errors met',
  failedCommands: 'commands that failed',
  latest: 'latest assistant statements (task, decisions, next step)',
  identifiers: 'identifiers of the latest work',
  todos: 'open TODO items',
};

export type FactMatch =
  { kind: 'file'; names: string[] } | { kind: 'identifier'; name: string } | { kind: 'words'; words: string[] };

export interface Fact {
  category: FactCategory;
  /** A short label naming the fact, e.g. "the error in `Bash jq …`: jq: error: Top-level program not given". */
  label: string;
  match: FactMatch;
}

export interface FidelityReport {
  categories: Record<FactCategory, { kept: number; total: number }>;
  kept: number;
  total: number;
  missing: { category: FactCategory; label: string }[];
}

export const LATEST_TEXTS = 3;
export const MAX_WORDS = 10;
export const MAX_IDENTIFIERS = 20;
/** How a file was changed, for labels ("edited `src/a.ts`"). */
const CHANGE_LABELS: Record<FileChange['how'], string> = {
  edited: 'edited',
  created: 'created',
  written: 'created or rewritten',
  deleted: 'deleted',
};

const STOPWORDS = new Set(
  (
    'about above after again also because been before being below between both could does doing down during each from further have having here hers ' +
    'herself himself into itself just more most much must other ours over same shall should some such than that their theirs them then there these ' +
    'they this those through under until very what when where which while whom will with would your yours yourself yourselves the and for are but not ' +
    'you all any can had her was one our out has him his how its may new now old see two way who did get let put say she too use lets want need like ' +
    'make sure okay yeah thanks please think know going well only still already into onto upon within without really maybe something anything ' +
    'everything nothing thing things sudo echo grep head tail then else done true false null undefined'
  ).split(' '),
);

/** The distinctive-word candidates of a text, in order of first appearance (see the header). */
export function wordsOf(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const w of text.toLowerCase().match(/[a-z0-9_]+/g) ?? []) {
    if (seen.has(w) || STOPWORDS.has(w)) continue;
    if (w.length < 4 && !(w.length === 3 && /\d/.test(w))) continue;
    if (/^\d+$/.test(w) && w.length < 3) continue;
    seen.add(w);
    out.push(w);
  }
  return out;
}

/** All strings of a line's message, for the span's word frequencies. */
function lineText(o: ConversationRecord): string {
  const c = messageOf(o)?.content;
  if (typeof c === 'string') return c;
  return contentBlocks(o)
    .map((b) =>
      b.type === 'text'
        ? jsonText(b.text ?? '')
        : b.type === 'tool_use'
          ? JSON.stringify(b.input ?? {})
          : b.type === 'tool_result'
            ? toolResultText(b.content).text
            : '',
    )
    .join('\n');
}

const short = (s: string, n = 90) => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length <= n ? one : `${one.slice(0, n - 1)}…`;
};

/** The conversation lines of a span (user and assistant, not sidechains, not an earlier summary). */
function conversation(records: ConversationRecord[]): ConversationMessage[] {
  return records.filter((o): o is ConversationMessage => o.kind === 'message' && !o.sidechain && !o.compactSummary);
}

/** The facts of a summarized span (see the header); paths are also matched relative to the session's `cwd`. */
export function spanFacts(records: ConversationRecord[]): Fact[] {
  const lines = conversation(records);
  const cwd = records.map((o) => o.cwd).find((c) => c !== undefined);
  // Span frequency of each word: how many lines hold it (rarer words are more distinctive).
  const lineCount = new Map<string, number>();
  for (const o of lines) for (const w of wordsOf(lineText(o))) lineCount.set(w, (lineCount.get(w) ?? 0) + 1);
  const distinctive = (text: string) =>
    wordsOf(text)
      .map((w, i) => ({ w, i, n: lineCount.get(w) ?? 0 }))
      .sort((a, b) => a.n - b.n || a.i - b.i)
      .slice(0, MAX_WORDS)
      .map((x) => x.w);
  const fileNames = (p: string) => {
    const names = new Set([p, basename(p)]);
    if (cwd && p.startsWith(`${cwd}/`)) names.add(p.slice(cwd.length + 1));
    return [...names];
  };
  const shown = (p: string) => (cwd && p.startsWith(`${cwd}/`) ? p.slice(cwd.length + 1) : p);

  const facts: Fact[] = [];
  const textFact = (category: FactCategory, label: string, text: string, min = 2) => {
    const words = distinctive(text);
    if (words.length >= min) facts.push({ category, label, match: { kind: 'words', words } });
  };

  for (const o of lines)
    if (o.role === 'user') for (const r of userRequests(o)) textFact('requests', `the request "${short(r, 80)}"`, r);

  const start = latestPartStart(lines.length);
  const edited = new Map<string, string>();
  const workingSet = new Set<string>();
  const errors = new Set<string>();
  const commands = new Set<string>();
  const calls = toolCallsIn(lines);
  for (const call of calls) {
    const { name, changes, uses } = call.facts;
    for (const c of changes) if (!edited.has(c.path)) edited.set(c.path, CHANGE_LABELS[c.how]);
    if (call.line >= start) {
      for (const c of changes) workingSet.add(c.path);
      for (const u of uses) if (u.file) workingSet.add(u.path);
    }
    if (!call.failed) continue;
    const text = call.result ?? '';
    const key = errorKeyLine(text);
    const path = changes[0]?.path ?? uses.find((u) => u.file)?.path;
    const where = `${name}${path ? ` \`${basename(path)}\`` : call.failedCommand ? ` \`${short(call.failedCommand, 40)}\`` : ''}`;
    // An error that only gives an exit status says nothing beyond its command (counted among failed commands).
    if (key && !EXIT_STATUS.test(key) && !errors.has(key)) {
      errors.add(key);
      textFact('errors', `the error in ${where}: ${short(key)}`, key);
    }
    const command = call.failedCommand;
    if (command && !commands.has(command)) {
      commands.add(command);
      textFact('failedCommands', `the failed command \`${short(command, 80)}\``, command);
    }
  }
  for (const [p, how] of edited)
    facts.push({ category: 'files', label: `${how} \`${shown(p)}\``, match: { kind: 'file', names: fileNames(p) } });
  for (const p of workingSet)
    facts.push({
      category: 'workingSet',
      label: `\`${shown(p)}\` (worked on last)`,
      match: { kind: 'file', names: fileNames(p) },
    });

  for (const t of latestAssistantTexts(lines, LATEST_TEXTS))
    textFact('latest', `the assistant's "${short(t, 80)}"`, t, 3);

  for (const name of latestIdentifiers(lines.slice(start), MAX_IDENTIFIERS))
    facts.push({ category: 'identifiers', label: `\`${name}\``, match: { kind: 'identifier', name } });
  for (const t of openPlanItems(calls)) textFact('todos', `the open TODO "${short(t, 80)}"`, t);
  return facts;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** True when `text` holds `name` not inside a longer name (letters, digits, `_`, and for paths `.`, `/`, `-` around it). */
function holdsWhole(text: string, name: string, pathLike: boolean): boolean {
  const edge = pathLike ? '[A-Za-z0-9_/.-]' : '[A-Za-z0-9_]';
  return new RegExp(`(?<!${edge})${escape(name)}(?!${pathLike ? '[A-Za-z0-9_-]|\\.[A-Za-z0-9_]' : edge})`).test(text);
}

/** Whether `summary` keeps `fact` (see the header); `words` is wordsOf(summary) as a set, made once per summary. */
export function factKept(fact: Fact, summary: string, words: Set<string> = new Set(wordsOf(summary))): boolean {
  const m = fact.match;
  if (m.kind === 'file') return m.names.some((n) => holdsWhole(summary, n, true));
  if (m.kind === 'identifier') return holdsWhole(summary, m.name, false);
  const held = m.words.filter((w) => words.has(w)).length;
  return held >= Math.ceil(m.words.length / 2);
}

/** Per category, how many of `facts` the summary keeps, and the labels of those it misses. */
export function measureFidelity(facts: Fact[], summary: string): FidelityReport {
  const words = new Set(wordsOf(summary));
  const categories = Object.fromEntries(
    FACT_CATEGORIES.map((c) => [c, { kept: 0, total: 0 }]),
  ) as FidelityReport['categories'];
  const missing: FidelityReport['missing'] = [];
  for (const f of facts) {
    const c = categories[f.category];
    c.total++;
    if (factKept(f, summary, words)) c.kept++;
    else missing.push({ category: f.category, label: f.label });
  }
  const kept = facts.length - missing.length;
  return { categories, kept, total: facts.length, missing };
}

/** What `summary` keeps of the facts of `span` (the summarized lines, whole or shaped for the offline summary). */
export function summaryFidelity(span: ConversationRecord[], summary: string): FidelityReport {
  return measureFidelity(spanFacts(span), summary);
}

/** One line for people: how many facts the summary keeps, per category that has any, and the first few it misses. */
export function fidelityText(r: FidelityReport, shownMissing = 5): string {
  const per = FACT_CATEGORIES.filter((c) => r.categories[c].total).map(
    (c) => `${CATEGORY_NAMES[c]} ${r.categories[c].kept}/${r.categories[c].total}`,
  );
  const missing = r.missing.slice(0, shownMissing).map((m) => m.label);
  const more = r.missing.length > shownMissing ? `; and ${r.missing.length - shownMissing} more` : '';
  return `the summary keeps ${r.kept} of ${r.total} facts of the summarized part${per.length ? ` (${per.join(', ')})` : ''}${missing.length ? `; missing: ${missing.join('; ')}${more}` : ''}`;
}
