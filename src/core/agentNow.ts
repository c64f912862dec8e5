// What the user's agent sends now with every request it makes, read from the user's own newest sessions of that
// agent: a resume of a compacted session is sent by the agent installed today, not by the one that wrote the file
// (an old file's system prompt and tools, 41.8k, against the 16.6k Claude Code 2.1.330 sends). Read at the edge (the
// CLI, the extension, compactFile's planning step), like the saved decisions, and given to the planner as a value.
// Cheap and bounded: the newest few session files of the agent's sessions folder, and only their head and tail.
// Never an error: a folder or file that cannot be read, or holds nothing recorded, gives nothing (the plan then uses
// the file's own figure and says so).
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { digestEntry, recordedRenderedText, type Entry } from './entries';
import { countTokensInPieces } from './tokens/exact';
import { agentFolders, listAgentSessions, listSessions, sessionsFolder, type SessionFile } from './sessionFolders';
import { attachmentTokens, isAnnouncement } from './reannounced';
import { asObject } from './json';
import { agentModule, agentName } from './formats/registry';
import { codexAgentNowOf, type CodexAgentNow } from './formats/codex/agentNow';

export { codexAgentNowOf, codexResumeOverhead, type CodexAgentNow } from './formats/codex/agentNow';

/** The system prompt and tools the agent sent with one model, as recorded in one of the user's sessions. */
export interface RecordedRequestShape {
  /** The model of the requests that carried it (null: not recorded beside it). */
  model: string | null;
  /** Tokens (o200k_base) of the system prompt blocks and tool definitions. */
  tokens: number;
  /** The agent's version that recorded it. */
  version: string | null;
  /** The session it was recorded in (its file name without `.jsonl`). */
  sessionId: string;
  /** When it was recorded (the record's timestamp, ms since the epoch; 0 when unknown). */
  at: number;
}

/** What the user's agent sends now, as far as their own newest sessions record it. */
export type AgentNow = ClaudeAgentNow | CodexAgentNow;

/** What the user's Claude Code sends now. */
export interface ClaudeAgentNow {
  agent: 'claude-code';
  /** The newest recorded shape for each model, newest first. */
  shapes: RecordedRequestShape[];
  /**
   * The context the agent announces at a session's start (Claude Code 2.1.330: environment, model, tools, agents,
   * skills, date), by attachment kind, in tokens (its rendered text counted with the tokenizer): sent again when a
   * resumed chain holds none of a kind (`context.ts` reannouncedOnResume). Null when no session recorded it.
   */
  announced: { kinds: Record<string, number>; sessionId: string; version: string | null } | null;
  /** Models the agent would not restore on resume and what it used instead, as it recorded (`modelRestriction`). */
  replacedModels: Record<string, string>;
}

/** How many of the newest sessions are looked at, and how much of each end of a file is read. */
export const AGENT_NOW_FILES = 24;
export const AGENT_NOW_END_BYTES = 256 * 1024;

/**
 * Claude Code's sessions folder for `file`: the `projects` folder the file is in when it is one of its sessions
 * (`<config>/projects/<project>/<id>.jsonl`), else the user's (`$CLAUDE_CONFIG_DIR` or `~/.claude`).
 */
export function claudeSessionsFolderOf(file: string, env: NodeJS.ProcessEnv = process.env): string {
  const projects = dirname(dirname(file));
  return basename(projects) === 'projects' ? projects : sessionsFolder(env);
}

/**
 * What the user's agent sends now, for a plan over `analysis` (the file at `file`): Claude Code's from its sessions
 * folder; null for other agents (their files' own figures are used).
 */
export async function readAgentNow(
  file: string,
  analysis: { index: { format: { id: string } } },
  env: NodeJS.ProcessEnv = process.env,
): Promise<AgentNow | null> {
  if (analysis.index.format.id === 'claude-code') return readClaudeAgentNow(file, env);
  if (analysis.index.format.id === 'codex') return readCodexAgentNow(file, env);
  return null;
}

/** What the user's Claude Code sends now, from the sessions folder of `file` (see claudeSessionsFolderOf). */
export async function readClaudeAgentNow(file: string, env: NodeJS.ProcessEnv = process.env): Promise<ClaudeAgentNow> {
  const files: SessionFile[] = await listSessions(claudeSessionsFolderOf(file, env), AGENT_NOW_FILES).catch(() => []);
  return claudeAgentNowOf(await Promise.all(files.map((f) => readEnds(f.file))));
}

/** The head and tail lines of one session file (whole lines only), or nothing when it cannot be read safely. */
export interface SessionEnds {
  file: string;
  head: string[];
  tail: string[];
}

async function readEnds(file: string): Promise<SessionEnds> {
  const none = { file, head: [], tail: [] };
  let fh;
  try {
    // Never through a link, never a FIFO or device (see sidecarFiles.ts): another session's file is read only here.
    fh = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return none;
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return none;
    const headLength = Math.min(st.size, AGENT_NOW_END_BYTES);
    const head = await slice(fh, 0, headLength);
    const headLines = head.split('\n');
    if (headLength < st.size) headLines.pop(); // cut mid-line
    if (st.size <= AGENT_NOW_END_BYTES) return { file, head: headLines, tail: [] };
    const from = Math.max(headLength, st.size - AGENT_NOW_END_BYTES);
    const tailLines = (await slice(fh, from, st.size - from)).split('\n');
    if (from > headLength) tailLines.shift(); // cut mid-line
    return { file, head: headLines, tail: tailLines };
  } catch {
    return none;
  } finally {
    await fh.close();
  }
}

async function slice(fh: import('node:fs/promises').FileHandle, from: number, length: number): Promise<string> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, from);
  return buf.toString('utf8', 0, bytesRead);
}

function parse(line: string): Record<string, unknown> | null {
  try {
    return asObject(JSON.parse(line)) ?? null;
  } catch {
    return null;
  }
}

function timeOf(o: Record<string, unknown>): number {
  const t = typeof o.timestamp === 'string' ? Date.parse(o.timestamp) : NaN;
  return Number.isFinite(t) ? t : 0;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * What the given ends of session files record (pure: the reading is `readClaudeAgentNow`). A request shape
 * (`api-request-shape`) is tied to its model by the request records that name its hash (`api-request`,
 * `params.model`); the newest shape per model wins. The announced context is the newest file's rendered attachments
 * before its first request record.
 */
export function claudeAgentNowOf(ends: readonly SessionEnds[]): ClaudeAgentNow {
  const byModel = new Map<string, RecordedRequestShape>();
  const replacedModels: Record<string, string> = {};
  let announced: ClaudeAgentNow['announced'] = null;
  let announcedAt = -1;
  for (const { file, head, tail } of ends) {
    const sessionId = basename(file, '.jsonl');
    const shapes = new Map<string, { tokens: number; version: string | null; at: number }>();
    const requests: { hash: string; model: string | null; at: number }[] = [];
    const kinds: Record<string, number> = {};
    let beforeFirstRequest = true;
    let firstAt = 0;
    let version: string | null = null;
    for (const [part, lines] of [
      ['head', head],
      ['tail', tail],
    ] as const) {
      for (const line of lines) {
        const isShape = line.includes('"api-request-shape"');
        const isRequest = !isShape && line.includes('"api-request"');
        const isAttachment = part === 'head' && beforeFirstRequest && line.includes('"attachment"');
        const isRestriction = line.includes('"modelRestriction"');
        if (!isShape && !isRequest && !isAttachment && !isRestriction) continue;
        const o = parse(line);
        if (!o) continue;
        if (o.type === 'api-request-shape') {
          const e = digest(o);
          const hash = str(o.shapeHash);
          if (hash && e?.recordedOverheadTokens !== undefined)
            shapes.set(hash, { tokens: e.recordedOverheadTokens, version: str(o.version), at: timeOf(o) });
        } else if (
          o.type === 'api-request' ||
          (o.type === 'attachment' && asObject(o.attachment)?.type === 'prompt_snapshot')
        ) {
          if (part === 'head' && beforeFirstRequest) {
            beforeFirstRequest = false;
            firstAt = timeOf(o);
            version = str(o.version);
          }
          const hash = str(o.shapeHash);
          if (o.type === 'api-request' && hash)
            requests.push({ hash, model: str(asObject(o.params)?.model), at: timeOf(o) });
        } else if (o.type === 'attachment' && isAttachment) {
          const e = digest(o);
          if (e && isAnnouncement(e)) kinds[e.attachmentType!] = renderedTokens(o, e);
        }
        const r = asObject(o.modelRestriction);
        if (r && str(r.requestedModel) && str(r.effectiveModel) && r.at === 'resume')
          replacedModels[str(r.requestedModel)!] = str(r.effectiveModel)!;
      }
    }
    for (const r of requests) {
      const shape = shapes.get(r.hash);
      if (!shape) continue;
      const key = r.model ?? '';
      const at = Math.max(shape.at, r.at);
      const was = byModel.get(key);
      if (!was || was.at < at)
        byModel.set(key, { model: r.model, tokens: shape.tokens, version: shape.version, sessionId, at });
    }
    if (Object.keys(kinds).length > 0 && !beforeFirstRequest && firstAt > announcedAt) {
      announced = { kinds, sessionId, version };
      announcedAt = firstAt;
    }
  }
  const shapes = [...byModel.values()].sort((a, b) => b.at - a.at);
  return { agent: 'claude-code', shapes, announced, replacedModels };
}

/**
 * Tokens of an announcement as it was sent: its recorded rendered text counted with the tokenizer (o200k_base, as the
 * recorded system prompt and tools are), else the estimate of it (uncalibrated).
 */
function renderedTokens(o: Record<string, unknown>, e: Entry): number {
  let text = recordedRenderedText(o);
  if (text === undefined) return attachmentTokens(e);
  // Those rendered for the system role go into one role "system" message, without their reminder wrappers.
  if (o.renderedRole === 'system')
    text = text.replace(/^\s*<system-reminder>\n?/, '').replace(/\n?<\/system-reminder>\s*$/, '');
  return countTokensInPieces(text);
}

function digest(o: Record<string, unknown>): Entry | null {
  try {
    return digestEntry(o, 0, 0, 0, 0);
  } catch {
    return null;
  }
}

/** What a resume of a session whose newest model is `model` sends as system prompt and tools, and where that is from. */
export interface ResumeOverhead {
  tokens: number;
  /** `agent-now`: the user's agent records it for this model; `agent-now-assumed`: recorded for another model. */
  source: 'agent-now' | 'agent-now-assumed';
  shape: RecordedRequestShape;
  /** The model the resume is expected to use (the session's, or what the agent replaces it by). */
  model: string | null;
}

/**
 * The recorded shape a resume is sent with: the one for the model the agent resumes with (the session's newest
 * model, or the model the agent recorded using instead of it), else the newest one recorded (the model the user's
 * agent used last), marked assumed. Null when nothing is recorded.
 */
export function resumeOverhead(now: AgentNow | null | undefined, model: string | null): ResumeOverhead | null {
  if (!now || now.agent !== 'claude-code' || now.shapes.length === 0) return null;
  const resumed = model !== null ? (now.replacedModels[model] ?? model) : null;
  const exact = resumed !== null ? now.shapes.find((s) => s.model === resumed) : undefined;
  if (exact) return { tokens: exact.tokens, source: 'agent-now', shape: exact, model: resumed };
  const newest = now.shapes[0];
  return { tokens: newest.tokens, source: 'agent-now-assumed', shape: newest, model: resumed };
}

/** "as your Claude Code 2.1.330 sends it with claude-opus-5-5, from session 31acf46b…" (and why when assumed). */
export function resumeOverheadLabel(r: ResumeOverhead, agent = 'Claude Code'): string {
  const who = `your ${agent}${r.shape.version ? ` ${r.shape.version}` : ''}`;
  const withModel = r.shape.model ? ` with ${r.shape.model}` : '';
  const from = `from session ${r.shape.sessionId}`;
  if (r.source === 'agent-now') return `as ${who} sends it${withModel}, ${from}`;
  return `as ${who} sends it${withModel} (assumed: none of your recent sessions used ${r.model ?? 'this session’s model'}), ${from}`;
}

/**
 * Codex's sessions folder for `file`: the `sessions` folder of a rollout in it (`<CODEX_HOME>/sessions/YYYY/MM/DD/`),
 * else the user's (`$CODEX_HOME/sessions` or `~/.codex/sessions`).
 */
export function codexSessionsFolderOf(file: string, env: NodeJS.ProcessEnv = process.env): string {
  const day = dirname(file);
  const sessions = dirname(dirname(dirname(day)));
  const dated = [day, dirname(day), dirname(dirname(day))].every((d) => /^\d+$/.test(basename(d)));
  if (dated && basename(sessions) === 'sessions') return sessions;
  return agentFolders(env).find((f) => f.id === 'codex')!.folder;
}

/**
 * What Codex sends a resumed thread of `file`, from the sessions folder of `file`, with what `file` itself adds: null
 * when `file` records its own first request (its own figures are the plan's) or when no rollout of its project and
 * Codex version does (see codexAgentNowOf).
 */
export async function readCodexAgentNow(
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CodexAgentNow | null> {
  const folder = codexSessionsFolderOf(file, env);
  const files = await listAgentSessions(
    { agent: agentName('codex'), id: 'codex', folder, location: agentModule('codex').sessions!.locations[0] },
    AGENT_NOW_FILES,
  ).catch(() => []);
  const heads = await Promise.all(files.map((f) => readEnds(f.file)));
  const own = await readEnds(file);
  return codexAgentNowOf(heads, own.head);
}
