// Offline, deterministic summary: where the work stood first (the latest request, open TODOs, the last error, the edit in
// progress, the files and names of the latest work, the assistant's latest words), then the user's requests verbatim,
// files edited, errors by their key line, failed commands, commands run, files read and tools used. Needs no network,
// so the main job always works. What it keeps is measured by ../fidelity.ts. How much it keeps follows the summary
// detail level (EXTRACTIVE_LEVELS).
import { clipNotingRest } from '../messages';
import { messageOf, type ConversationRecord } from '../../conversation';
import { asObject, jsonText, type JsonObject } from '../../json';
import { DEFAULT_SUMMARY_DETAIL, type SummaryDetail } from '../../summaryDetail';
import { isToolRejection, openPlanItems, toolCallsIn, toolInputObject } from './toolCalls';

export interface ExtractiveInput {
  /** The summarized rounds' records, in chain order. */
  records: ConversationRecord[];
  /** Approximate size limit of the summary, in characters. */
  maxChars: number;
  /** How much the summary keeps (EXTRACTIVE_LEVELS); standard when not given. */
  detail?: SummaryDetail;
}

/** The sections listed after "Where the work stood", in their order. */
type ListedSection =
  'requests' | 'edited' | 'errors' | 'failedCommands' | 'otherCommands' | 'read' | 'tools' | 'earlierMessages';

/** What the offline summary keeps at one detail level. */
export interface ExtractiveLevel {
  /** "Where the work stood": open TODO items, the last edits (how many), the files worked on last. */
  todos: boolean;
  lastEdits: number;
  latestFiles: boolean;
  /** Code names of the latest work listed (0: none). */
  identifiers: number;
  /** The assistant's latest messages quoted (its next step), and the longest quote. */
  latestTexts: number;
  latestTextChars: number;
  /** Longest quote of the last edit's text. */
  editChars: number;
  /** The assistant's messages before the latest ones, quoted in a section of their own as far as room allows (newest kept). */
  earlierTexts: number;
  sections: readonly ListedSection[];
}

/**
 * What each summary detail level keeps, in one place; the size each aims at is SUMMARY_TOKENS_BY_DETAIL
 * (core/summaryDetail.ts), which the caller turns into `maxChars`. Every level keeps the user's latest request and every
 * request verbatim (clipped to share the room), the last error and the assistant's latest words.
 * - brief: the current task (the latest request, open TODOs), the user's requests, files edited, the last error and
 *   the next step (the assistant's latest message);
 * - standard: also the last edit, the files and names of the latest work, the latest three messages, every error,
 *   the commands (failed first), the files read and the tools used, and in the room those leave the twelve messages
 *   before the latest three (where the decisions of the last stretch of work were said);
 * - full: every fact the fidelity measure knows (../fidelity.ts) and more of the latest work: the latest three
 *   messages quoted longer, the last three edits, twice the names, and the assistant's messages before those as far
 *   as room allows, so that a long session's full summary takes about the size reserved for it (the plan's figure).
 * The earlier messages only fill the room the other sections leave (Section.fill), so they never crowd out a fact.
 */
export const EXTRACTIVE_LEVELS: Readonly<Record<SummaryDetail, ExtractiveLevel>> = {
  brief: {
    todos: true,
    lastEdits: 0,
    latestFiles: false,
    identifiers: 0,
    latestTexts: 1,
    latestTextChars: 1_500,
    editChars: 400,
    earlierTexts: 0,
    sections: ['requests', 'edited'],
  },
  standard: {
    todos: true,
    lastEdits: 1,
    latestFiles: true,
    identifiers: 30,
    latestTexts: 3,
    latestTextChars: 1_500,
    editChars: 400,
    earlierTexts: 12,
    sections: ['requests', 'edited', 'errors', 'failedCommands', 'earlierMessages', 'otherCommands', 'read', 'tools'],
  },
  full: {
    todos: true,
    lastEdits: 3,
    latestFiles: true,
    identifiers: 60,
    latestTexts: 3,
    latestTextChars: 3_000,
    editChars: 1_000,
    earlierTexts: 200,
    sections: ['requests', 'edited', 'errors', 'failedCommands', 'otherCommands', 'read', 'tools', 'earlierMessages'],
  },
};

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

function userTexts(o: ConversationRecord): string[] {
  const c = messageOf(o)?.content;
  if (typeof c === 'string') return [c];
  if (!Array.isArray(c)) return [];
  const out: string[] = [];
  for (const item of c) {
    const b = asObject(item);
    if (b?.type === 'text' && typeof b.text === 'string') out.push(b.text);
  }
  return out;
}

/** Prompts typed by the user (not tool results, not injected reminders, command output, interruption notes or image markers). */
function isHumanPrompt(text: string): boolean {
  const t = text.trim();
  if (!t) return false;
  return (
    !/^<(system-reminder|local-command-stdout|local-command-stderr|local-command-caveat|command-name|command-message|command-args)>/.test(
      t,
    ) &&
    !t.startsWith('Caveat: The messages below') &&
    !t.startsWith('[Request interrupted by user') &&
    // Codex wraps an image the user attached in text parts of their own: `<image name=[Image #1]>`, `</image>`.
    !/^<\/?image( name=\[[^\]]*\])?>$/.test(t)
  );
}

/** Text of a tool result's content (string, or its text blocks). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as unknown[]).map((x) => jsonText(asObject(x)?.text ?? '')).join('\n');
}

/**
 * What the user asked in one line: typed prompts, a slash command with its arguments (`/name args`), and what the user
 * said when refusing a tool use. Not meta lines, not compaction summaries.
 */
export function userRequests(o: ConversationRecord): string[] {
  if (o.kind !== 'message' || o.role !== 'user' || o.meta || o.compactSummary) return [];
  const out: string[] = [];
  for (const t of userTexts(o)) {
    if (isHumanPrompt(t)) out.push(t.trim());
    else {
      const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(t)?.[1]?.trim();
      const name = /<command-name>([\s\S]*?)<\/command-name>/.exec(t)?.[1]?.trim();
      if (args && name) out.push(`${name} ${args}`);
    }
  }
  const content = o.content;
  if (Array.isArray(content)) {
    for (const item of content) {
      const b = asObject(item);
      if (b?.type !== 'tool_result' || b.is_error !== true) continue;
      const text = resultText(b.content);
      const said = isToolRejection(text) ? /the user said:\s*([\s\S]+)$/.exec(text)?.[1]?.trim() : undefined;
      if (said) out.push(said);
    }
  }
  return out;
}

const ERROR_LINE =
  /error|fail|cannot|can't|could not|not found|does not exist|no such|undefined|panic|exception|denied|invalid|refused|timed out|expected/i;

/** Lines Codex puts above a command's output (unified exec, shell_command): not what the command said. */
const CODEX_OUTPUT_HEADER = /^(Chunk ID: \S+|Wall time: .*|Original token count: \d+|Output:)$/;
/** A line that only gives an exit status (Claude Code's `Exit code 1`, Codex's `Exit code: 1` or `Process exited with code 1`). */
export const EXIT_STATUS = /^(Exit code:? -?\d+|Process exited with code -?\d+)$/;

/** The key line of an error text: the first line that says what went wrong, else its first non-empty line. */
export function errorKeyLine(text: string): string {
  const lines = text
    .replace(/<\/?tool_use_error>/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !CODEX_OUTPUT_HEADER.test(l));
  const exit = lines.filter((l) => EXIT_STATUS.test(l));
  const said = lines.filter((l) => !EXIT_STATUS.test(l));
  return (said.find((l) => ERROR_LINE.test(l)) ?? said[0] ?? exit[0] ?? '').slice(0, 300);
}

/** Code names in a text: camelCase, PascalCase with two humps, snake_case; at least 4 characters. */
function codeNames(text: string): string[] {
  return (text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).filter(
    (w) => w.length >= 4 && (/[a-z][A-Z]/.test(w) || /[A-Za-z0-9]_[A-Za-z0-9]/.test(w)),
  );
}

/** Every string inside a JSON value (tool inputs), in order, but to-do states. */
function stringsIn(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v as unknown[]) stringsIn(x, out);
  // A to-do item's `status` (`in_progress`) is a state of the list, not a name of the work.
  else if (v && typeof v === 'object')
    for (const [key, x] of Object.entries(v)) if (key !== 'status') stringsIn(x, out);
  return out;
}

/** The strings of a tool input (a Codex argument string read as the JSON it holds, a patch as its text). */
function inputStrings(input: unknown): string[] {
  const parsed = typeof input === 'string' ? toolInputObject(input) : undefined;
  return stringsIn(parsed && Object.keys(parsed).length ? parsed : input);
}

/** The `max` code names used most often in these lines' assistant texts and tool inputs (ties: first used first). */
export function latestIdentifiers(lines: ConversationRecord[], max: number): string[] {
  const counts = new Map<string, number>();
  for (const o of lines) {
    const c = messageOf(o, 'assistant')?.content;
    if (!Array.isArray(c)) continue;
    for (const item of c) {
      const b = asObject(item);
      const texts = b?.type === 'text' ? [jsonText(b.text ?? '')] : b?.type === 'tool_use' ? inputStrings(b.input) : [];
      for (const t of texts) for (const n of codeNames(t)) counts.set(n, (counts.get(n) ?? 0) + 1);
    }
  }
  return [...counts]
    .map(([n, k], i) => ({ n, k, i }))
    .sort((a, b) => b.k - a.k || a.i - b.i)
    .slice(0, max)
    .map((x) => x.n);
}

/** The latest `count` assistant texts that say something (at least 3 words of 4+ letters, not "You good?"), oldest first. */
export function latestAssistantTexts(lines: ConversationRecord[], count: number): string[] {
  const out: string[] = [];
  for (let i = lines.length - 1; i >= 0 && out.length < count; i--) {
    const c = messageOf(lines[i], 'assistant')?.content;
    if (!Array.isArray(c)) continue;
    const t = c
      .map(asObject)
      .filter((b) => b?.type === 'text' && typeof b.text === 'string')
      .map((b) => jsonText(b!.text))
      .join('\n')
      .trim();
    if ((t.match(/[A-Za-z]{4,}/g) ?? []).length >= 3) out.push(t);
  }
  return out.reverse();
}

/**
 * The open to-do items as the span's calls left them (openPlanItems in toolCalls.ts): the latest TodoWrite or Codex
 * update_plan list, and the Claude Code tasks (TaskCreate, TaskUpdate) made since, less those completed or deleted.
 */
export function openTodos(lines: ConversationRecord[]): string[] {
  return openPlanItems(toolCallsIn(lines));
}

/** Longest kept string of a tool input (an edit's text, a command): enough for the names and the gist of the change. */
const INPUT_CHARS = 1_000;
/** The head kept of a result that is not an error: enough for the id a call's result gives (a task's, a running command's). */
const RESULT_HEAD_CHARS = 200;

/**
 * The part of a line the extractive summary reads, made as the line is parsed so that a long session's summarized
 * lines do not all stay in memory whole: tool outputs whole only when they are errors (the head of the others),
 * tool inputs' strings clipped to INPUT_CHARS (to-do lists whole; a Codex argument string as the object it holds; a
 * patch by its file headers and the start of each file's added lines), no thinking, no Claude Code copies of tool
 * results, attachments only by kind and file name. The summary reads every line through it, so whole and shaped
 * lines give the same summary.
 */
export function shapeForExtractive(o: ConversationRecord): ConversationRecord {
  if (o.kind === 'attachment')
    return {
      kind: 'attachment',
      ...(o.type !== undefined && { type: o.type }),
      ...(o.filename !== undefined && { filename: o.filename }),
      text: o.text ? '(attachment)' : null,
      ...(o.cwd !== undefined && { cwd: o.cwd }),
    };
  const { content, role, meta, compactSummary, sidechain, cwd } = o;
  return {
    kind: 'message',
    role,
    meta,
    compactSummary,
    sidechain,
    cwd,
    content:
      typeof content === 'string'
        ? content
        : content
            .map(asObject)
            .filter((b): b is JsonObject => b?.type === 'text' || b?.type === 'tool_use' || b?.type === 'tool_result')
            .map((b): JsonObject => {
              if (b.type === 'tool_result' && b.is_error !== true)
                return {
                  type: 'tool_result',
                  tool_use_id: b.tool_use_id,
                  content: resultText(b.content).slice(0, RESULT_HEAD_CHARS),
                };
              if (b.type === 'tool_use')
                return { type: 'tool_use', id: b.id, name: b.name, input: shapeToolInput(b.name, b.input) };
              return b;
            }),
  };
}

/** A tool input as shapeForExtractive keeps it: an object's fields, a Codex argument string's object, a patch's outline. */
function shapeToolInput(tool: unknown, given: unknown): JsonObject | string {
  if (typeof given === 'string') {
    const parsed = toolInputObject(given);
    return Object.keys(parsed).length ? shapeInput(tool, parsed) : shapePatch(given);
  }
  return shapeInput(tool, asObject(given));
}

/** A patch (or any other text input) with every `*** ` line and each file's first INPUT_CHARS characters of changes. */
function shapePatch(text: string): string {
  const out: string[] = [];
  let used = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('*** ')) {
      out.push(line);
      used = 0;
    } else if (used < INPUT_CHARS) {
      const kept = line.slice(0, INPUT_CHARS - used);
      out.push(kept);
      used += kept.length + 1;
    }
  }
  return out.join('\n');
}

function shapeInput(tool: unknown, given: JsonObject | undefined): JsonObject {
  const input: JsonObject = {};
  if (!given) return input;
  for (const [key, v] of Object.entries(given)) {
    if (typeof v === 'string')
      input[key] = v.includes('*** Begin Patch') ? shapePatch(v) : v.length > INPUT_CHARS ? v.slice(0, INPUT_CHARS) : v;
    else if (typeof v === 'number' || typeof v === 'boolean') input[key] = v;
    else if ((tool === 'TodoWrite' && key === 'todos') || (tool === 'update_plan' && key === 'plan')) input[key] = v;
    else if (key === 'edits' && Array.isArray(v))
      input[key] = (v as unknown[]).map((e) => shapeInput(undefined, asObject(e)));
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string'))
      input[key] = v.map((x) => x.slice(0, INPUT_CHARS));
  }
  return input;
}

interface Section {
  heading: string;
  items: string[];
  /** Share of the budget it asks for when not everything fits. */
  weight: number;
  /** Which items stay when the section is cut: the latest (lists in time order) or the first. */
  keep: 'first' | 'last';
  /** Items are clipped to share the section's room (user requests), instead of dropped. */
  clipItems?: boolean;
  /** Takes only the room the other sections leave (more of the same kind of thing: the assistant's earlier messages). */
  fill?: boolean;
}

/** Least room a filling section is shown in (its heading and one quote); with less it is left out. */
const MIN_FILL_CHARS = 300;

const rendered = (s: Section) => s.heading.length + 1 + s.items.reduce((n, i) => n + i.length + 1, 0);

/** Room for each section: what it needs when it fits its share, the others sharing the rest by weight. */
function allot(sections: Section[], budget: number): number[] {
  const room = sections.map(() => 0);
  let open = sections.map((_, i) => i);
  let left = budget;
  for (;;) {
    const weights = open.reduce((s, i) => s + sections[i].weight, 0);
    const fits = open.filter((i) => rendered(sections[i]) <= (left * sections[i].weight) / weights);
    if (!fits.length) {
      for (const i of open) room[i] = Math.floor((left * sections[i].weight) / weights);
      return room;
    }
    for (const i of fits) {
      room[i] = rendered(sections[i]);
      left -= room[i];
    }
    open = open.filter((i) => !fits.includes(i));
    if (!open.length) return room;
  }
}

function renderSection(s: Section, room: number): string {
  const head = s.heading;
  if (rendered(s) <= room) return `${head}\n${s.items.join('\n')}`;
  if (s.clipItems) return `${head}\n${clipToRoom(s.items, room - head.length - 1).join('\n')}`;
  const order = s.keep === 'last' ? [...s.items].reverse() : s.items;
  const kept: string[] = [];
  let used = head.length + 40;
  for (const item of order) {
    const text =
      kept.length === 0 && used + item.length + 1 > room ? clipNotingRest(item, Math.max(120, room - used - 40)) : item;
    if (used + text.length + 1 > room && kept.length) break;
    kept.push(text);
    used += text.length + 1;
  }
  const left = s.items.length - kept.length;
  const shown = s.keep === 'last' ? kept.reverse() : kept;
  const note = left ? `(${left} ${s.keep === 'last' ? 'earlier' : 'more'} not shown)` : '';
  return `${head}\n${s.keep === 'last' && note ? `${note}\n` : ''}${shown.join('\n')}${s.keep === 'first' && note ? `\n${note}` : ''}`;
}

/** How the file lists say a file was changed (FileChange.how in toolCalls.ts, and an edit outside the agent). */
const CHANGE_VERBS = ['edited', 'created', 'written', 'deleted', 'changed outside the agent'];

/** Shortest share of an item clipped to make room (smaller shares say too little to keep). */
const MIN_ITEM_CHARS = 100;
/** Room for the note clipNotingRest adds and the line break. */
const CLIP_NOTE_CHARS = 32;

/**
 * Items made to fit `room` by clipping the longest: short items stay whole and the long ones share the rest evenly.
 * When even that does not fit with MIN_ITEM_CHARS for each long item, the items after the first are left out from the oldest on (the first
 * says what the work was; the latest say where it stood), with a note of how many.
 */
function clipToRoom(items: string[], room: number): string[] {
  let kept = items.map((text, i) => ({ text, i }));
  const noteChars = 48;
  const least = (k: { text: string }) => Math.min(k.text.length, MIN_ITEM_CHARS) + 1;
  let needed = kept.reduce((n, k) => n + least(k), noteChars);
  while (kept.length > 2 && needed > room) {
    needed -= least(kept[1]);
    kept = [kept[0], ...kept.slice(2)];
  }
  const left = items.length - kept.length;
  let free = Math.max(0, room - (left ? noteChars : 0));
  let open = kept.length;
  const share = new Map<number, number>();
  for (const k of [...kept].sort((a, b) => a.text.length - b.text.length)) {
    const even = Math.floor(free / open);
    const len = k.text.length + 1 <= even ? k.text.length : Math.max(MIN_ITEM_CHARS, even - CLIP_NOTE_CHARS - 1);
    share.set(k.i, len);
    free -= Math.min(even, len + CLIP_NOTE_CHARS + 1);
    open--;
  }
  const out = kept.map((k) => clipNotingRest(k.text, share.get(k.i)!));
  if (left) out.splice(1, 0, `(${left} more in between not shown)`);
  return out;
}

/** Where the latest work starts among `count` user and assistant lines: their last fifth, at least the last 10. */
export function latestPartStart(count: number): number {
  return Math.max(0, Math.min(Math.floor(count * 0.8), count - 10));
}

const HEAD =
  "This is an extractive summary made offline by Agent Compactor: the user's requests and the assistant's latest messages are quoted verbatim; files, errors and commands are listed from the transcript; nothing was paraphrased by a model.";
const SHORT_HEAD =
  'This is an extractive summary made offline by Agent Compactor: requests and latest messages quoted verbatim, the rest listed from the transcript.';
/** Budgets (characters) below which the summary opens with SHORT_HEAD. */
const SHORT_HEAD_BELOW = 4_000;

export function extractiveSummary(input: ExtractiveInput): string {
  const level = EXTRACTIVE_LEVELS[input.detail ?? DEFAULT_SUMMARY_DETAIL];
  const records = input.records.map(shapeForExtractive);
  const requests: string[] = [];
  const earlierSummaries: string[] = [];
  const toolCounts = new Map<string, number>();
  const files = new Map<string, Set<string>>();
  const commands: { command: string; failed: boolean }[] = [];
  const errors: { where: string; key: string; text: string }[] = [];
  const edits: { path: string; text: string }[] = [];
  const cwd = records.map((o) => o.cwd).find((c) => c !== undefined);
  const shown = (p: string) => (cwd && p.startsWith(`${cwd}/`) ? p.slice(cwd.length + 1) : p);
  const fileVerb = (p: string, verb: string) => {
    const verbs = files.get(p) ?? new Set<string>();
    verbs.add(verb);
    files.set(p, verbs);
  };

  for (const o of records) {
    if (o.kind === 'message' && o.role === 'user') {
      if (o.compactSummary) {
        earlierSummaries.push(userTexts(o).join('\n'));
        continue;
      }
      requests.push(...userRequests(o));
    } else if (o.kind === 'attachment') {
      if (o.text && o.type === 'edited_text_file' && o.filename !== undefined)
        fileVerb(o.filename, 'changed outside the agent');
    }
  }
  const conversation = records.filter((o) => o.kind === 'message');
  const latestStart = latestPartStart(conversation.length);
  const latestFiles = new Set<string>();
  for (const call of toolCallsIn(conversation)) {
    const { name, command, changes, uses } = call.facts;
    toolCounts.set(name, (toolCounts.get(name) ?? 0) + 1);
    if (command) commands.push({ command, failed: call.failed });
    else if (call.failedCommand) {
      // A poll of a running command reported its failure: the command failed.
      for (let i = commands.length - 1; i >= 0; i--)
        if (commands[i].command === call.failedCommand) {
          commands[i].failed = true;
          break;
        }
    }
    for (const c of changes) {
      fileVerb(c.path, c.how);
      edits.push({ path: c.path, text: c.text });
    }
    for (const u of uses) fileVerb(u.path, u.verb);
    if (call.line >= latestStart)
      for (const p of [...changes.map((c) => c.path), ...uses.filter((u) => u.file).map((u) => u.path)])
        latestFiles.add(shown(p));
    if (!call.failed) continue;
    const text = (call.result ?? '').replace(/<\/?tool_use_error>/g, '');
    const path = changes[0]?.path ?? uses.find((u) => u.file)?.path;
    const where = `${name}${path ? ` \`${shown(path)}\`` : call.failedCommand ? ` \`${clipNotingRest(oneLine(call.failedCommand), 80)}\`` : ''}`;
    const body = text
      .split('\n')
      .filter((l) => !CODEX_OUTPUT_HEADER.test(l.trim()))
      .join('\n');
    errors.push({ where, key: errorKeyLine(text), text: oneLine(body) });
  }

  const budget = input.maxChars;
  const latest = conversation.slice(latestStart);
  const state: string[] = [];
  const lastRequest = requests[requests.length - 1];
  if (lastRequest) state.push(`- The user's latest request (verbatim): ${clipNotingRest(lastRequest, 1200)}`);
  const todos = level.todos ? openTodos(records) : [];
  if (todos.length)
    state.push(`- Open TODO items:\n${todos.map((t) => `  - ${clipNotingRest(oneLine(t), 300)}`).join('\n')}`);
  // The last error that says what went wrong: a failure that only gives its exit status is listed with its command.
  const lastError = [...errors].reverse().find((e) => !EXIT_STATUS.test(e.key)) ?? errors[errors.length - 1];
  if (lastError)
    state.push(
      `- The last error (${lastError.where}): ${lastError.key}${lastError.text.length > lastError.key.length ? ` — ${clipNotingRest(lastError.text, 400)}` : ''}`,
    );
  const lastEdits = level.lastEdits ? edits.slice(-level.lastEdits) : [];
  if (lastEdits.length === 1)
    state.push(
      `- The last edit, to \`${shown(lastEdits[0].path)}\`: ${clipNotingRest(oneLine(lastEdits[0].text), level.editChars)}`,
    );
  else if (lastEdits.length)
    state.push(
      `- The last ${lastEdits.length} edits (oldest first):`,
      ...lastEdits.map((e) => `  - to \`${shown(e.path)}\`: ${clipNotingRest(oneLine(e.text), level.editChars)}`),
    );
  if (level.latestFiles && latestFiles.size)
    state.push(`- Files worked on last: ${[...latestFiles].map((p) => `\`${p}\``).join(', ')}`);
  const names = level.identifiers ? latestIdentifiers(latest, level.identifiers) : [];
  if (names.length) state.push(`- Names in the latest work: ${names.map((n) => `\`${n}\``).join(', ')}`);
  const said = latestAssistantTexts(records, level.latestTexts);
  if (said.length)
    state.push(
      `- The assistant's latest messages (oldest first), saying where the work stood and what comes next:`,
      ...said.map((t) => `  > ${clipNotingRest(oneLine(t), level.latestTextChars)}`),
    );
  else state.push('- (no assistant text in the summarized part)');

  const changed = (v: Set<string>) => CHANGE_VERBS.some((verb) => v.has(verb));
  const edited = [...files].filter(([, v]) => changed(v));
  const others = [...files].filter(([, v]) => !changed(v));
  // One line per folder: a session's files mostly share a few folders, and the base names are what is looked for.
  const fileItems = (list: [string, Set<string>][]) => {
    const byDir = new Map<string, string[]>();
    for (const [p, v] of list) {
      const path = shown(p);
      const cut = path.lastIndexOf('/') + 1;
      const named = byDir.get(path.slice(0, cut)) ?? [];
      named.push(`${path.slice(cut)} (${[...v].sort().join(', ')})`);
      byDir.set(path.slice(0, cut), named);
    }
    return [...byDir].map(([dir, named]) => `- ${dir || './'}: ${named.join('; ')}`);
  };
  const listed: Record<ListedSection, Section> = {
    requests: {
      heading: '## All user requests (verbatim, oldest first)',
      items: requests.length
        ? requests.map((r, i) => `${i + 1}. ${clipNotingRest(r, 2000)}`)
        : ['(no typed user requests in the summarized part)'],
      weight: 4,
      keep: 'first',
      clipItems: true,
    },
    edited: { heading: '## Files edited or written', items: fileItems(edited), weight: 1, keep: 'last' },
    errors: {
      heading: '## Errors met (tool, then the line saying what went wrong)',
      items: errors.map((e) => `- ${e.where}: ${clipNotingRest(e.key, 240)}`),
      weight: 1.5,
      keep: 'last',
    },
    failedCommands: {
      heading: '## Commands that failed',
      items: commands.filter((c) => c.failed).map((c) => `- ${clipNotingRest(oneLine(c.command), 200)}`),
      weight: 0.7,
      keep: 'last',
    },
    otherCommands: {
      heading: '## Other commands run',
      items: commands.filter((c) => !c.failed).map((c) => `- ${clipNotingRest(oneLine(c.command), 160)}`),
      weight: 0.3,
      keep: 'last',
    },
    read: { heading: '## Files read or searched', items: fileItems(others), weight: 0.3, keep: 'last' },
    earlierMessages: {
      heading: "## The assistant's earlier messages (oldest first)",
      items: latestAssistantTexts(records, level.latestTexts + level.earlierTexts)
        .slice(0, -level.latestTexts)
        .map((t) => `> ${clipNotingRest(oneLine(t), level.latestTextChars)}`),
      weight: 1,
      keep: 'last',
      fill: true,
    },
    tools: {
      heading: '## Tools used',
      items: [
        [...toolCounts]
          .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
          .map(([n, k]) => `${n} ×${k}`)
          .join(', '),
      ],
      weight: 0.2,
      keep: 'first',
    },
  };
  const sections = [
    {
      heading: '## Where the work stood (the latest part)',
      items: state,
      weight: 4,
      keep: 'first',
      clipItems: true,
    } satisfies Section as Section,
    ...level.sections.map((id) => listed[id]),
  ].filter((s) => s.items.length && s.items.some((i) => i));

  // A small summary says what it is in fewer words: the room is the facts'.
  const head = [budget < SHORT_HEAD_BELOW ? SHORT_HEAD : HEAD];
  // Whole: an earlier summary is the only record of what came before it.
  if (earlierSummaries.length)
    head.push(`## Summary of the conversation before an earlier compaction\n${earlierSummaries.join('\n\n')}`);
  const fixed = head.join('\n\n').length + 2 * sections.length + 2;
  const main = sections.filter((s) => !s.fill);
  const mainRoom = allot(main, Math.max(0, budget - fixed));
  const spare = Math.max(0, budget - fixed - main.reduce((n, s, i) => n + Math.min(rendered(s), mainRoom[i]), 0));
  const fillers = sections.filter((s) => s.fill);
  const fillRoom = allot(fillers, spare);
  const room = new Map<Section, number>([
    ...main.map((s, i): [Section, number] => [s, mainRoom[i]]),
    ...fillers.map((s, i): [Section, number] => [s, fillRoom[i]]),
  ]);
  const rendering = sections.filter((s) => !s.fill || room.get(s)! >= MIN_FILL_CHARS);
  let text = [...head, ...rendering.map((s) => renderSection(s, room.get(s)!))].join('\n\n');
  // The note clipNotingRest adds fits in the last 40 characters: the summary stays within its budget.
  if (text.length > budget) text = clipNotingRest(text, Math.max(0, budget - 40));
  return text;
}
