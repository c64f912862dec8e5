// What Codex records of the requests it sends, read from a rollout's head: its tools and instructions beside a
// thread's first request, the context it gives a thread, and which rollout speaks for a session (the session itself,
// else one of its project and Codex version). Pure: the reading of the files is the edge's (core/agentNow.ts).
import { basename, dirname } from 'node:path';
import type { AgentNow, AgentNowSpec, ResumeBasis } from '../agent';
import { asObject, nonEmptyString, parseObjectLine, timestampMs } from '../../json';
import { countTokensInPieces } from '../../tokens/exact';
import { isContextText } from './reader';

/** The head of one rollout file (whole lines), as the edge read it. */
export interface RolloutHead {
  file: string;
  head: readonly string[];
}

/**
 * What Codex sends with the first request of a thread, beside the thread's items, as a rollout of the same project and
 * Codex version records it, for a session whose own rollout does not (see codexAgentNowOf): its tools and base
 * instructions (`overheadTokens`: the first request's usage less the items recorded before its first answer, counted
 * with the tokenizer; rollouts record neither), and the context it gives a thread (`contextTokens`: its developer
 * message of permissions and skills, its environment message).
 */
export interface CodexAgentNow extends AgentNow {
  agent: 'codex';
  overheadTokens: number;
  contextTokens: number;
  /** The model of that thread (its first `turn_context`): the model a resume is sent with. */
  model: string | null;
  version: string | null;
  /** The thread (its id) the figures were read from. */
  sessionId: string;
  /** The session's own base instructions (`session_meta.base_instructions`), tokens; null when it records none. */
  fileInstructions: number | null;
  /** The session's own tools Codex sends beside its own (`session_meta.dynamic_tools` not deferred), tokens. */
  fileTools: number;
}

/** The figures of one rollout's first request (see CodexAgentNow), from its head; null when its head does not hold them. */
interface CodexFirstRequest {
  at: number;
  version: string | null;
  /** The thread's working folder (`session_meta.cwd`): its project. */
  cwd: string | null;
  sessionId: string;
  model: string | null;
  overheadTokens: number;
  contextTokens: number;
}

const MODEL_OUTPUT = new Set([
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'web_search_call',
  'reasoning',
  'tool_search_call',
]);

function itemText(item: Record<string, unknown>): string {
  const content = item.content;
  if (!Array.isArray(content)) return typeof content === 'string' ? content : '';
  return content.map((c) => (typeof asObject(c)?.text === 'string' ? (asObject(c)!.text as string) : '')).join('');
}

function codexFirstRequest(ends: RolloutHead): CodexFirstRequest | null {
  let meta: Record<string, unknown> | null = null;
  let at = 0;
  let model: string | null = null;
  let before = 0;
  let context = 0;
  let answered = false;
  for (const line of ends.head) {
    const o = parseObjectLine(line);
    if (!o) continue;
    const p = asObject(o.payload);
    if (!p) continue;
    if (o.type === 'session_meta' && !meta) {
      meta = p;
      at = timestampMs(p) || timestampMs(o);
    } else if (o.type === 'turn_context') model ??= nonEmptyString(p.model);
    else if (o.type === 'response_item' && !answered) {
      if (MODEL_OUTPUT.has(String(p.type)) || (p.type === 'message' && p.role === 'assistant')) answered = true;
      else if (p.type === 'message') {
        const text = itemText(p);
        const tokens = countTokensInPieces(text);
        before += tokens;
        // Codex's context for the thread: developer messages, and user messages that are its own (the reader's rule:
        // environment, AGENTS.md and user instructions), not the prompt the user typed.
        if (p.role === 'developer' || (p.role === 'user' && isContextText(text))) context += tokens;
      }
    } else if (o.type === 'event_msg' && p.type === 'token_count' && answered) {
      const input = asObject(asObject(p.info)?.last_token_usage)?.input_tokens;
      if (typeof input !== 'number' || !(input > before)) return null;
      return {
        at,
        version: meta ? nonEmptyString(meta.cli_version) : null,
        cwd: meta ? nonEmptyString(meta.cwd) : null,
        sessionId:
          (meta && (nonEmptyString(meta.id) ?? nonEmptyString(meta.session_id))) || basename(ends.file, '.jsonl'),
        model,
        overheadTokens: input - before,
        contextTokens: context,
      };
    }
  }
  return null;
}

/** A rollout's `session_meta` payload (its first record), when it has one. */
function codexMeta(head: readonly string[]): Record<string, unknown> | undefined {
  const first = head.length ? parseObjectLine(head[0]) : null;
  return first?.type === 'session_meta' ? asObject(first.payload) : undefined;
}

/** Tokens of a session's own recorded base instructions, and of its own tools Codex sends (not deferred). */
function codexFileFacts(head: readonly string[]): { instructions: number | null; tools: number } {
  const meta = codexMeta(head);
  const base = meta ? asObject(meta.base_instructions)?.text : undefined;
  const sent = (tools: unknown): unknown[] =>
    Array.isArray(tools)
      ? tools
          .map((t) => asObject(t))
          .filter((t): t is Record<string, unknown> => !!t && t.deferLoading !== true)
          .map((t) => (Array.isArray(t.tools) ? { ...t, tools: sent(t.tools) } : t))
      : [];
  const dynamic = meta ? sent(meta.dynamic_tools) : [];
  return {
    instructions: typeof base === 'string' && base !== '' ? countTokensInPieces(base) : null,
    tools: dynamic.length ? countTokensInPieces(JSON.stringify(dynamic)) : 0,
  };
}

/**
 * What Codex sends a resumed thread of the session whose head is `ownHead`, where another rollout must say it (pure:
 * the reading is core/agentNow.ts's). The session at hand first: when its own head records its first request, null
 * (the plan counts the session's own figures, as the written result's own figure, `inspect`, counts them). Else the
 * newest thread (by its `session_meta` time; a fork keeps its original's) of the same project (`cwd`) and the same
 * Codex version whose head holds its first request; never another project's (its instructions, skills and
 * environment are not this session's), nor another version's; null when there is none.
 */
export function codexAgentNowOf(heads: readonly RolloutHead[], ownHead: readonly string[]): CodexAgentNow | null {
  if (codexFirstRequest({ file: '', head: ownHead })) return null;
  const meta = codexMeta(ownHead);
  const cwd = meta ? nonEmptyString(meta.cwd) : null;
  const version = meta ? nonEmptyString(meta.cli_version) : null;
  if (cwd === null || version === null) return null;
  let newest: CodexFirstRequest | null = null;
  for (const h of heads) {
    const r = codexFirstRequest(h);
    if (r && r.cwd === cwd && r.version === version && (!newest || r.at > newest.at)) newest = r;
  }
  if (!newest) return null;
  const own = codexFileFacts(ownHead);
  return {
    agent: 'codex',
    overheadTokens: newest.overheadTokens,
    contextTokens: newest.contextTokens,
    model: newest.model,
    version: newest.version,
    sessionId: newest.sessionId,
    fileInstructions: own.instructions,
    fileTools: own.tools,
  };
}

/**
 * What a `codex resume` of a thread whose newest model is `model` sends beside the thread's items, as a rollout of its
 * project and Codex version records it: its tools and instructions, the thread's own tools, the context it gives a
 * resumed thread, and, for a thread that recorded its own base instructions with another model, those instructions
 * (sent first) with its own after them as a model switch (observed with Codex 0.169).
 */
export function codexResumeOverhead(now: CodexAgentNow, model: string | null): { tokens: number; from: string } {
  const switched = now.fileInstructions !== null && model !== null && now.model !== null && model !== now.model;
  const tokens = now.overheadTokens + now.contextTokens + now.fileTools + (switched ? now.fileInstructions! : 0);
  const who = `your Codex CLI${now.version ? ` ${now.version}` : ''}`;
  const parts = [
    `as ${who} sends it${now.model ? ` with ${now.model}` : ''}, its context for a resumed thread included`,
  ];
  if (switched) parts.push(`after this session's own instructions for ${model}`);
  if (now.fileTools) parts.push("with this session's own tools");
  return {
    tokens,
    from: `${parts.join(', ')}, from session ${now.sessionId} of this project (the same Codex version)`,
  };
}

/**
 * Codex's sessions folder for `file`: the `sessions` folder of a rollout in it (`<CODEX_HOME>/sessions/YYYY/MM/DD/`),
 * else the user's (`$CODEX_HOME/sessions` or `~/.codex/sessions`).
 */
function codexSessionsFolderOf(file: string, usersFolder: string): string {
  const day = dirname(file);
  const sessions = dirname(dirname(dirname(day)));
  const dated = [day, dirname(day), dirname(dirname(day))].every((d) => /^\d+$/.test(basename(d)));
  if (dated && basename(sessions) === 'sessions') return sessions;
  return usersFolder;
}

/** The resume's figure from the rollout of its project and Codex version: the context of a resumed thread included. */
function codexResumeBasis(now: AgentNow, model: string | null): ResumeBasis {
  const r = codexResumeOverhead(now as CodexAgentNow, model);
  return { tokens: r.tokens, source: 'agent-now', from: r.from, announced: null, includesResumeContext: true };
}

export const codexAgentNow: AgentNowSpec = {
  folderOf: codexSessionsFolderOf,
  readsOwnFile: true,
  of: (ends, own) => codexAgentNowOf(ends, own?.head ?? []),
  resumeBasis: codexResumeBasis,
};
