// What a tool call did, in terms every agent shares: the shell command it ran, the files it changed (with the new
// text), the other files it named, the to-do list it wrote, the task it made or moved. The offline summary and the
// fidelity measure read tool calls only through toolCallFacts, so a tool of any agent counts the same way.
//
// Claude Code's tools take a JSON object (Bash, Edit, MultiEdit, Write, NotebookEdit, Read, TodoWrite, TaskCreate,
// TaskUpdate…). Codex's function calls take their arguments as a JSON string (exec_command `cmd`, shell_command
// `command`, shell `command` as an argv, write_stdin, update_plan `plan`), apply_patch a patch text (a custom tool's
// input, or an older function call's `input` argument), local_shell an `action` object with an argv.
import { contentBlocks, messageOf, toolResultText, type ConversationRecord } from '../../conversation';
import { asObject, jsonText, str, type JsonObject } from '../../json';

export interface FileChange {
  path: string;
  /** edited, created (a new file, Codex `Add File`), written (Claude Code Write: created or rewritten), deleted. */
  how: 'edited' | 'created' | 'written' | 'deleted';
  /** The new text (an edit's new string, a written file's content, a patch's added lines), as given. */
  text: string;
}

export interface PlanItem {
  text: string;
  /** pending, in_progress, completed (or whatever the agent wrote). */
  status: string;
}

export interface ToolCallFacts {
  name: string;
  /** The input as an object (a Codex argument string parsed; {} when it is not a JSON object). */
  input: JsonObject;
  /** The shell command it ran. */
  command?: string;
  /** Files it changed. */
  changes: FileChange[];
  /**
   * Other paths it named, with a verb for lists ("read", or the tool's name); `file` when the input named it as a
   * file (`file_path`, `notebook_path`), not a folder to search (`path`).
   */
  uses: { path: string; verb: string; file: boolean }[];
  /** A whole to-do list it wrote (TodoWrite, update_plan). */
  plan?: PlanItem[];
  /** A task it created (TaskCreate): its text; the id is in its result ("Task #N created…"). */
  createdTask?: string;
  /** A task it changed (TaskUpdate): the id and the new status or text. */
  updatedTask?: { id: string; status?: string; text?: string };
  /** write_stdin: the id of the running command it polls or feeds (a failure it reports is that command's). */
  stdinSession?: number;
}

const EDIT_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']);
const SHELL_ARGV_TOOLS = new Set(['shell', 'local_shell', 'container.exec']);

/** A tool input as an object: Claude Code's as it is, a Codex argument string parsed when it holds a JSON object. */
export function toolInputObject(input: unknown): JsonObject {
  const o = asObject(input);
  if (o) return o;
  if (typeof input !== 'string') return {};
  const t = input.trim();
  if (!t.startsWith('{')) return {};
  try {
    return asObject(JSON.parse(t)) ?? {};
  } catch {
    return {};
  }
}

/** A command given as an argv (Codex `shell`, `local_shell`): the script of `bash -lc <script>`, else the words joined. */
function argvCommand(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return undefined;
  const argv = v;
  if (argv.length === 3 && /(^|\/)(ba|z|da)?sh$/.test(argv[0]) && /^-l?c$/.test(argv[1])) return argv[2];
  return argv.join(' ');
}

/** The files a patch in Codex's apply_patch format changes, each with its added lines. */
export function patchChanges(patch: string): FileChange[] {
  const out: FileChange[] = [];
  let current: FileChange | undefined;
  for (const line of patch.split('\n')) {
    const header = /^\*\*\* (Update|Add|Delete) File: (.+)$/.exec(line);
    if (header) {
      current = {
        path: header[2].trim(),
        how: header[1] === 'Add' ? 'created' : header[1] === 'Delete' ? 'deleted' : 'edited',
        text: '',
      };
      out.push(current);
      continue;
    }
    const moved = /^\*\*\* Move to: (.+)$/.exec(line);
    if (moved && current) {
      current.path = moved[1].trim();
      continue;
    }
    if (current && line.startsWith('+')) current.text += `${current.text ? '\n' : ''}${line.slice(1)}`;
  }
  return out;
}

/** The patch text of an apply_patch call: a custom tool's input, or an older function call's `input` argument. */
function patchText(input: unknown, parsed: JsonObject): string | undefined {
  if (typeof input === 'string' && input.includes('*** Begin Patch')) return input;
  const given = str(parsed, 'input') ?? str(parsed, 'patch');
  return given?.includes('*** Begin Patch') ? given : undefined;
}

function planItems(v: unknown, textKey: string): PlanItem[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return (v as unknown[])
    .map(asObject)
    .filter((t): t is JsonObject => t !== undefined && typeof t[textKey] === 'string')
    .map((t) => ({ text: jsonText(t[textKey]), status: str(t, 'status') ?? 'pending' }));
}

/** What a tool call did (see the header); `name` and `input` as the transcript's tool_use block holds them. */
export function toolCallFacts(name: string, input: unknown): ToolCallFacts {
  const parsed = toolInputObject(input);
  const facts: ToolCallFacts = { name, input: parsed, changes: [], uses: [] };
  const path = str(parsed, 'file_path') ?? str(parsed, 'notebook_path');
  if (EDIT_TOOLS.has(name) && path) {
    const text =
      str(parsed, 'new_string') ??
      str(parsed, 'content') ??
      str(parsed, 'new_source') ??
      (Array.isArray(parsed.edits)
        ? (parsed.edits as unknown[]).map((e) => str(asObject(e), 'new_string') ?? '').join('\n')
        : '');
    facts.changes.push({ path, how: name === 'Write' ? 'written' : 'edited', text });
  } else {
    for (const key of ['file_path', 'notebook_path', 'path']) {
      const p = str(parsed, key);
      if (p) facts.uses.push({ path: p, verb: name === 'Read' ? 'read' : name.toLowerCase(), file: key !== 'path' });
    }
  }
  const patch = name === 'apply_patch' || name.endsWith('.apply_patch') ? patchText(input, parsed) : undefined;
  if (patch) facts.changes.push(...patchChanges(patch));

  if (name === 'Bash' || name === 'shell_command') facts.command = str(parsed, 'command');
  else if (name === 'exec_command') facts.command = str(parsed, 'cmd') ?? str(parsed, 'command');
  else if (SHELL_ARGV_TOOLS.has(name)) facts.command = argvCommand(parsed.command);
  else if (name === 'write_stdin' && typeof parsed.session_id === 'number') facts.stdinSession = parsed.session_id;

  if (name === 'TodoWrite') facts.plan = planItems(parsed.todos, 'content');
  else if (name === 'update_plan') facts.plan = planItems(parsed.plan, 'step');
  else if (name === 'TaskCreate') {
    const subject = str(parsed, 'subject');
    if (subject) facts.createdTask = subject;
  } else if (name === 'TaskUpdate') {
    const id = parsed.taskId;
    if (typeof id === 'string' || typeof id === 'number')
      facts.updatedTask = { id: String(id), status: str(parsed, 'status'), text: str(parsed, 'subject') };
  }
  return facts;
}

/** The task id a TaskCreate result names ("Task #3 created successfully: …"), or undefined. */
export function createdTaskId(resultText: string): string | undefined {
  return /^Task #(\w+) created/.exec(resultText.trim())?.[1];
}

/** The session id a Codex unified-exec output says its process keeps running under, or undefined. */
export function runningSession(resultText: string): number | undefined {
  const m = /Process running with session ID (\d+)/.exec(resultText.slice(0, 400));
  return m ? Number(m[1]) : undefined;
}

/**
 * The open items of a to-do list as the calls left it, oldest call first: the latest whole list (TodoWrite,
 * update_plan), then every task made since (TaskCreate) with its latest status (TaskUpdate), less the completed and
 * deleted ones. `calls` are in order, each with the text of its result when the result was kept.
 */
export function openPlanItems(calls: { facts: ToolCallFacts; result?: string }[]): string[] {
  let list: PlanItem[] = [];
  const tasks = new Map<string, PlanItem>();
  let made = 0;
  for (const { facts, result } of calls) {
    if (facts.plan) {
      list = facts.plan;
      tasks.clear();
    } else if (facts.createdTask !== undefined) {
      // Claude Code numbers the tasks of a list 1, 2, 3…: the result says which; without it, the order does.
      made++;
      const id = (result !== undefined ? createdTaskId(result) : undefined) ?? String(made);
      tasks.set(id, { text: facts.createdTask, status: 'pending' });
    } else if (facts.updatedTask) {
      const t = tasks.get(facts.updatedTask.id);
      if (!t) continue;
      if (facts.updatedTask.status) t.status = facts.updatedTask.status;
      if (facts.updatedTask.text) t.text = facts.updatedTask.text;
    }
  }
  return [...list, ...tasks.values()]
    .filter((t) => t.status !== 'completed' && t.status !== 'deleted')
    .map((t) => `${t.text}${t.status === 'in_progress' ? ' (in progress)' : ''}`);
}

/** A tool result that is the user's refusal of the tool use (or an interruption), not an error the tool met. */
export function isToolRejection(text: string): boolean {
  return /^(The user doesn't want to (proceed|take this action)|\[Request interrupted by user)/.test(text.trim());
}

/** What a tool returned, as text: Codex's JSON-wrapped outputs (`{"output": …, "metadata": …}`) by their output. */
export function toolOutputText(content: unknown): string {
  const text = toolResultText(content).text;
  if (!text.startsWith('{"output"')) return text;
  try {
    const output = asObject(JSON.parse(text))?.output;
    return typeof output === 'string' ? output : text;
  } catch {
    return text;
  }
}

/** One tool call of a span, with what came of it. */
export interface ToolCall {
  facts: ToolCallFacts;
  /** Index, in the lines given, of the assistant line that made the call. */
  line: number;
  /** The text of its result, when a line holds it (the offline summary's shaped lines keep errors whole, and the head of the others). */
  result?: string;
  /** The result is an error the tool met (not the user's refusal). */
  failed: boolean;
  /** The result is the user's refusal of the call (or an interruption). */
  refused: boolean;
  /** For a failure: the shell command that failed (its own, or for a Codex write_stdin poll the command it polled). */
  failedCommand?: string;
}

/** Every tool call of `lines` (a span's records, in order), each with its result. */
export function toolCallsIn(lines: ConversationRecord[]): ToolCall[] {
  const calls: ToolCall[] = [];
  const byId = new Map<string, ToolCall>();
  // Codex unified exec: a command still running is polled by write_stdin under the session id its output gave.
  const running = new Map<number, string>();
  lines.forEach((o, i) => {
    const role = messageOf(o)?.role;
    for (const b of contentBlocks(o)) {
      if (role === 'assistant' && b.type === 'tool_use') {
        const call: ToolCall = {
          facts: toolCallFacts(jsonText(b.name ?? 'tool'), b.input),
          line: i,
          failed: false,
          refused: false,
        };
        calls.push(call);
        if (typeof b.id === 'string' && b.id) byId.set(b.id, call);
      } else if (role === 'user' && b.type === 'tool_result') {
        const call = typeof b.tool_use_id === 'string' ? byId.get(b.tool_use_id) : undefined;
        if (!call) continue;
        const text = toolOutputText(b.content);
        call.result = text;
        if (b.is_error === true) {
          call.refused = isToolRejection(text);
          call.failed = !call.refused;
        }
        const session = runningSession(text);
        if (session !== undefined && call.facts.command) running.set(session, call.facts.command);
        if (call.failed)
          call.failedCommand =
            call.facts.command ??
            (call.facts.stdinSession !== undefined ? running.get(call.facts.stdinSession) : undefined);
      }
    }
  });
  return calls;
}
