// Offline, deterministic summary: where the work stood first (the latest request, open TODOs, the last error, the edit in
// progress, the files and names of the latest work, the assistant's latest words), then the user's requests verbatim,
// files edited, errors by their key line, failed commands, commands run, files read and tools used. Needs no network,
// so the main job always works. What it keeps is measured by ../fidelity.ts. How much it keeps follows the summary
// detail level (EXTRACTIVE_LEVELS).
import { attachmentText, clipNotingRest } from '../messages';
import { asObject, jsonText, messageContent, obj, str, type JsonObject } from '../../json';
import { DEFAULT_SUMMARY_DETAIL, type SummaryDetail } from '../summaryDetail';

export interface ExtractiveInput {
  /** Entry objects of the summarized rounds, in chain order. */
  objects: JsonObject[];
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
 * (summaryDetail.ts), which the caller turns into `maxChars`. Every level keeps the user's latest request and every
 * request verbatim (clipped to share the room), the last error and the assistant's latest words.
 * - brief: the current task (the latest request, open TODOs), the user's requests, files edited, the last error and
 *   the next step (the assistant's latest message);
 * - standard: today's summary: also the last edit, the files and names of the latest work, the latest three messages,
 *   every error, the commands (failed first), the files read and the tools used;
 * - full: every fact the fidelity measure knows (../fidelity.ts) and more of the latest work: the latest six messages
 *   quoted longer, the last three edits, twice the names, and the assistant's messages before those as far as room
 *   allows, so that a long session's full summary takes about the size reserved for it (the plan's figure).
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
    earlierTexts: 0,
    sections: ['requests', 'edited', 'errors', 'failedCommands', 'otherCommands', 'read', 'tools'],
  },
  full: {
    todos: true,
    lastEdits: 3,
    latestFiles: true,
    identifiers: 60,
    latestTexts: 6,
    latestTextChars: 3_000,
    editChars: 1_000,
    earlierTexts: 200,
    sections: ['requests', 'edited', 'errors', 'failedCommands', 'otherCommands', 'read', 'tools', 'earlierMessages'],
  },
};

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

function userTexts(o: JsonObject): string[] {
  const c = messageContent(o);
  if (typeof c === 'string') return [c];
  if (!Array.isArray(c)) return [];
  const out: string[] = [];
  for (const item of c as unknown[]) {
    const b = asObject(item);
    if (b?.type === 'text' && typeof b.text === 'string') out.push(b.text);
  }
  return out;
}

/** Prompts typed by the user (not tool results, not injected reminders, command output or interruption notes). */
function isHumanPrompt(text: string): boolean {
  const t = text.trim();
  if (!t) return false;
  return (
    !/^<(system-reminder|local-command-stdout|local-command-stderr|local-command-caveat|command-name|command-message|command-args)>/.test(
      t,
    ) &&
    !t.startsWith('Caveat: The messages below') &&
    !t.startsWith('[Request interrupted by user')
  );
}

/** A tool result that is the user's refusal of the tool use (or an interruption), not an error the tool met. */
export function isToolRejection(text: string): boolean {
  return /^(The user doesn't want to (proceed|take this action)|\[Request interrupted by user)/.test(text.trim());
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
export function userRequests(o: JsonObject): string[] {
  if (o.type !== 'user' || o.isMeta || o.isCompactSummary) return [];
  const out: string[] = [];
  for (const t of userTexts(o)) {
    if (isHumanPrompt(t)) out.push(t.trim());
    else {
      const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(t)?.[1]?.trim();
      const name = /<command-name>([\s\S]*?)<\/command-name>/.exec(t)?.[1]?.trim();
      if (args && name) out.push(`${name} ${args}`);
    }
  }
  const content = messageContent(o);
  if (Array.isArray(content)) {
    for (const item of content as unknown[]) {
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

/** The key line of an error text: the first line that says what went wrong, else its first non-empty line. */
export function errorKeyLine(text: string): string {
  const lines = text
    .replace(/<\/?tool_use_error>/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^Exit code \d+$/.test(l));
  return (lines.find((l) => ERROR_LINE.test(l)) ?? lines[0] ?? '').slice(0, 300);
}

/** Code names in a text: camelCase, PascalCase with two humps, snake_case; at least 4 characters. */
function codeNames(text: string): string[] {
  return (text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).filter(
    (w) => w.length >= 4 && (/[a-z][A-Z]/.test(w) || /[A-Za-z0-9]_[A-Za-z0-9]/.test(w)),
  );
}

/** Every string inside a JSON value (tool inputs), in order. */
function stringsIn(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v as unknown[]) stringsIn(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) stringsIn(x, out);
  return out;
}

/** The `max` code names used most often in these lines' assistant texts and tool inputs (ties: first used first). */
export function latestIdentifiers(lines: JsonObject[], max: number): string[] {
  const counts = new Map<string, number>();
  for (const o of lines) {
    if (o.type !== 'assistant') continue;
    const c = messageContent(o);
    if (!Array.isArray(c)) continue;
    for (const item of c as unknown[]) {
      const b = asObject(item);
      const texts = b?.type === 'text' ? [jsonText(b.text ?? '')] : b?.type === 'tool_use' ? stringsIn(b.input) : [];
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
export function latestAssistantTexts(lines: JsonObject[], count: number): string[] {
  const out: string[] = [];
  for (let i = lines.length - 1; i >= 0 && out.length < count; i--) {
    const c = lines[i].type === 'assistant' ? messageContent(lines[i]) : undefined;
    if (!Array.isArray(c)) continue;
    const t = (c as unknown[])
      .map(asObject)
      .filter((b) => b?.type === 'text' && typeof b.text === 'string')
      .map((b) => jsonText(b!.text))
      .join('\n')
      .trim();
    if ((t.match(/[A-Za-z]{4,}/g) ?? []).length >= 3) out.push(t);
  }
  return out.reverse();
}

/** The items of the latest TodoWrite list that are not completed. */
export function openTodos(lines: JsonObject[]): string[] {
  for (let i = lines.length - 1; i >= 0; i--) {
    const c = lines[i].type === 'assistant' ? messageContent(lines[i]) : undefined;
    if (!Array.isArray(c)) continue;
    for (let j = c.length - 1; j >= 0; j--) {
      const b = asObject(c[j]);
      if (b?.type !== 'tool_use' || b.name !== 'TodoWrite') continue;
      const todos = obj(b, 'input')?.todos;
      if (!Array.isArray(todos)) continue;
      return (todos as unknown[])
        .map(asObject)
        .filter((t) => t && t.status !== 'completed' && typeof t.content === 'string')
        .map((t) => `${jsonText(t!.content)}${t!.status === 'in_progress' ? ' (in progress)' : ''}`);
    }
  }
  return [];
}

/** Longest kept string of a tool input (an edit's text, a command): enough for the names and the gist of the change. */
const INPUT_CHARS = 1_000;

/**
 * The part of a line the extractive summary reads, made as the line is parsed so that a long session's summarized
 * lines do not all stay in memory whole: tool outputs only when they are errors, tool inputs' strings clipped to
 * INPUT_CHARS (TodoWrite lists whole), no thinking, no Claude Code copies of tool results, attachments only by kind
 * and file name. The summary reads every line through it, so whole and shaped lines give the same summary.
 */
export function shapeForExtractive(o: JsonObject): JsonObject {
  const out: JsonObject = { type: o.type };
  if (o.isCompactSummary) out.isCompactSummary = true;
  if (o.isMeta) out.isMeta = true;
  if (typeof o.cwd === 'string') out.cwd = o.cwd;
  const content = messageContent(o);
  if (typeof content === 'string') out.message = { content };
  else if (Array.isArray(content)) {
    out.message = {
      content: (content as unknown[])
        .map(asObject)
        .filter((b): b is JsonObject => b?.type === 'text' || b?.type === 'tool_use' || b?.type === 'tool_result')
        .map((b): JsonObject => {
          if (b.type === 'tool_result' && b.is_error !== true)
            return { type: 'tool_result', tool_use_id: b.tool_use_id };
          if (b.type === 'tool_use')
            return { type: 'tool_use', id: b.id, name: b.name, input: shapeInput(b.name, obj(b, 'input')) };
          return b;
        }),
    };
  }
  const a = o.attachment;
  if (o.type === 'attachment' && a && typeof a === 'object') {
    // An array here has neither field: both come out undefined, as they always did.
    const fields = a as JsonObject;
    out.attachment = {
      type: fields.type,
      filename: fields.filename,
      content: attachmentText(o) ? '(attachment)' : undefined,
    };
  }
  return out;
}

function shapeInput(tool: unknown, given: JsonObject | undefined): JsonObject {
  const input: JsonObject = {};
  if (!given) return input;
  for (const [key, v] of Object.entries(given)) {
    if (typeof v === 'string') input[key] = v.length > INPUT_CHARS ? v.slice(0, INPUT_CHARS) : v;
    else if (tool === 'TodoWrite' && key === 'todos') input[key] = v;
    else if (key === 'edits' && Array.isArray(v))
      input[key] = (v as unknown[]).map((e) => shapeInput(undefined, asObject(e)));
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
}

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

function latestPart(lines: JsonObject[]): JsonObject[] {
  const conv = lines.filter((o) => o.type === 'user' || o.type === 'assistant');
  return conv.slice(latestPartStart(conv.length));
}

export function extractiveSummary(input: ExtractiveInput): string {
  const level = EXTRACTIVE_LEVELS[input.detail ?? DEFAULT_SUMMARY_DETAIL];
  const objects = input.objects.map(shapeForExtractive);
  const requests: string[] = [];
  const earlierSummaries: string[] = [];
  const toolCounts = new Map<string, number>();
  const files = new Map<string, Set<string>>();
  const commands: { command: string; failed: boolean }[] = [];
  const errors: { where: string; key: string; text: string }[] = [];
  const uses = new Map<string, { name: string; input: JsonObject; command?: (typeof commands)[number] }>();
  const edits: { path: string; text: string }[] = [];
  const cwd = objects.map((o) => str(o, 'cwd')).find((c) => c !== undefined);
  const shown = (p: string) => (cwd && p.startsWith(`${cwd}/`) ? p.slice(cwd.length + 1) : p);

  for (const o of objects) {
    if (o.type === 'user') {
      if (o.isCompactSummary) {
        earlierSummaries.push(userTexts(o).join('\n'));
        continue;
      }
      requests.push(...userRequests(o));
      const content = messageContent(o);
      if (!Array.isArray(content)) continue;
      for (const item of content as unknown[]) {
        const b = asObject(item);
        if (b?.type !== 'tool_result' || b.is_error !== true) continue;
        const text = resultText(b.content).replace(/<\/?tool_use_error>/g, '');
        if (isToolRejection(text)) continue;
        const use = typeof b.tool_use_id === 'string' ? uses.get(b.tool_use_id) : undefined;
        if (use?.command) use.command.failed = true;
        const path = use && (str(use.input, 'file_path') ?? str(use.input, 'notebook_path'));
        const where = use
          ? `${use.name}${path ? ` \`${shown(path)}\`` : use.command ? ` \`${clipNotingRest(oneLine(use.command.command), 80)}\`` : ''}`
          : 'a tool';
        errors.push({ where, key: errorKeyLine(text), text: oneLine(text) });
      }
    } else if (o.type === 'assistant') {
      const content = messageContent(o);
      if (!Array.isArray(content)) continue;
      for (const item of content as unknown[]) {
        const b = asObject(item);
        if (b?.type !== 'tool_use') continue;
        const name = jsonText(b.name ?? 'tool');
        const input = obj(b, 'input') ?? {};
        toolCounts.set(name, (toolCounts.get(name) ?? 0) + 1);
        const command = typeof input.command === 'string' ? { command: input.command, failed: false } : undefined;
        if (command) commands.push(command);
        if (typeof b.id === 'string') uses.set(b.id, { name, input, command });
        for (const key of ['file_path', 'notebook_path', 'path']) {
          const p = input[key];
          if (typeof p !== 'string' || !p) continue;
          const verbs = files.get(p) ?? new Set<string>();
          verbs.add(
            /^(Edit|MultiEdit|Write|NotebookEdit)$/.test(name)
              ? name === 'Write'
                ? 'written'
                : 'edited'
              : name === 'Read'
                ? 'read'
                : name.toLowerCase(),
          );
          files.set(p, verbs);
        }
        const edited = /^(Edit|MultiEdit|Write|NotebookEdit)$/.test(name)
          ? (str(input, 'file_path') ?? str(input, 'notebook_path'))
          : undefined;
        if (edited) {
          const change =
            str(input, 'new_string') ??
            str(input, 'content') ??
            str(input, 'new_source') ??
            stringsIn(input.edits).join('\n');
          edits.push({ path: edited, text: change });
        }
      }
    } else if (o.type === 'attachment') {
      const a = obj(o, 'attachment');
      const filename = str(a, 'filename');
      if (a?.content && a.type === 'edited_text_file' && filename !== undefined) {
        const verbs = files.get(filename) ?? new Set<string>();
        verbs.add('changed outside the agent');
        files.set(filename, verbs);
      }
    }
  }

  const budget = input.maxChars;
  const latest = latestPart(objects);
  const latestFiles = new Set<string>();
  for (const o of latest) {
    const c = messageContent(o);
    if (o.type !== 'assistant' || !Array.isArray(c)) continue;
    for (const item of c as unknown[]) {
      const b = asObject(item);
      const p =
        b?.type === 'tool_use'
          ? (str(obj(b, 'input'), 'file_path') ?? str(obj(b, 'input'), 'notebook_path'))
          : undefined;
      if (p) latestFiles.add(shown(p));
    }
  }
  const state: string[] = [];
  const lastRequest = requests[requests.length - 1];
  if (lastRequest) state.push(`- The user's latest request (verbatim): ${clipNotingRest(lastRequest, 1200)}`);
  const todos = level.todos ? openTodos(objects) : [];
  if (todos.length)
    state.push(`- Open TODO items:\n${todos.map((t) => `  - ${clipNotingRest(oneLine(t), 300)}`).join('\n')}`);
  const lastError = errors[errors.length - 1];
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
  const said = latestAssistantTexts(objects, level.latestTexts);
  if (said.length)
    state.push(
      `- The assistant's latest messages (oldest first), saying where the work stood and what comes next:`,
      ...said.map((t) => `  > ${clipNotingRest(oneLine(t), level.latestTextChars)}`),
    );
  else state.push('- (no assistant text in the summarized part)');

  const edited = [...files].filter(
    ([, v]) => v.has('edited') || v.has('written') || v.has('changed outside the agent'),
  );
  const others = [...files].filter(
    ([, v]) => !(v.has('edited') || v.has('written') || v.has('changed outside the agent')),
  );
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
      items: latestAssistantTexts(objects, level.latestTexts + level.earlierTexts)
        .slice(0, -level.latestTexts)
        .map((t) => `> ${clipNotingRest(oneLine(t), level.latestTextChars)}`),
      weight: 1,
      keep: 'last',
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

  const head = [
    "This is an extractive summary made offline by Agent Compactor: the user's requests and the assistant's latest messages are quoted verbatim; files, errors and commands are listed from the transcript; nothing was paraphrased by a model.",
  ];
  // Whole: an earlier summary is the only record of what came before it.
  if (earlierSummaries.length)
    head.push(`## Summary of the conversation before an earlier compaction\n${earlierSummaries.join('\n\n')}`);
  const fixed = head.join('\n\n').length + 2 * sections.length + 2;
  const room = allot(sections, Math.max(0, budget - fixed));
  let text = [...head, ...sections.map((s, i) => renderSection(s, room[i]))].join('\n\n');
  // The note clipNotingRest adds fits in the last 40 characters: the summary stays within its budget.
  if (text.length > budget) text = clipNotingRest(text, Math.max(0, budget - 40));
  return text;
}
