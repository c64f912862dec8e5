// What the user's Claude Code sends now with every request, as their own newest sessions record it (its request
// shapes, the context it announces at a session's start, the models it would not restore), and the resume's system
// prompt and tools a plan promises from it. Pure: the reading of the files is the edge's (core/agentNow.ts).
import { basename, dirname } from 'node:path';
import { digestEntry, recordedRenderedText, type Entry } from '../../entries';
import { countTokensInPieces } from '../../tokens/exact';
import { attachmentTokens, isAnnouncement } from '../../announcements';
import { asObject, nonEmptyString, parseObjectLine, timestampMs } from '../../json';
import type { AgentNow, AgentNowSpec, ResumeBasis, SessionEnds } from '../agent';

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

/** What the user's Claude Code sends now. */
export interface ClaudeAgentNow extends AgentNow {
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

/**
 * Claude Code's sessions folder for `file`: the `projects` folder the file is in when it is one of its sessions
 * (`<config>/projects/<project>/<id>.jsonl`), else the user's (`$CLAUDE_CONFIG_DIR/projects` or `~/.claude/projects`).
 */
function claudeSessionsFolderOf(file: string, usersFolder: string): string {
  const projects = dirname(dirname(file));
  return basename(projects) === 'projects' ? projects : usersFolder;
}

/**
 * What the given ends of session files record (pure: the reading is core/agentNow.ts's). A request shape
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
        const o = parseObjectLine(line);
        if (!o) continue;
        if (o.type === 'api-request-shape') {
          const e = digest(o);
          const hash = nonEmptyString(o.shapeHash);
          if (hash && e?.recordedOverheadTokens !== undefined)
            shapes.set(hash, {
              tokens: e.recordedOverheadTokens,
              version: nonEmptyString(o.version),
              at: timestampMs(o),
            });
        } else if (
          o.type === 'api-request' ||
          (o.type === 'attachment' && asObject(o.attachment)?.type === 'prompt_snapshot')
        ) {
          if (part === 'head' && beforeFirstRequest) {
            beforeFirstRequest = false;
            firstAt = timestampMs(o);
            version = nonEmptyString(o.version);
          }
          const hash = nonEmptyString(o.shapeHash);
          if (o.type === 'api-request' && hash)
            requests.push({ hash, model: nonEmptyString(asObject(o.params)?.model), at: timestampMs(o) });
        } else if (o.type === 'attachment' && isAttachment) {
          const e = digest(o);
          if (e && isAnnouncement(e)) kinds[e.attachmentType!] = renderedTokens(o, e);
        }
        const r = asObject(o.modelRestriction);
        if (r && nonEmptyString(r.requestedModel) && nonEmptyString(r.effectiveModel) && r.at === 'resume')
          replacedModels[nonEmptyString(r.requestedModel)!] = nonEmptyString(r.effectiveModel)!;
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
export interface ClaudeResumeShape {
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
export function claudeResumeShape(
  now: ClaudeAgentNow | null | undefined,
  model: string | null,
): ClaudeResumeShape | null {
  if (!now || now.shapes.length === 0) return null;
  const resumed = model !== null ? (now.replacedModels[model] ?? model) : null;
  const exact = resumed !== null ? now.shapes.find((s) => s.model === resumed) : undefined;
  if (exact) return { tokens: exact.tokens, source: 'agent-now', shape: exact, model: resumed };
  const newest = now.shapes[0];
  return { tokens: newest.tokens, source: 'agent-now-assumed', shape: newest, model: resumed };
}

/** "as your Claude Code 2.1.330 sends it with claude-opus-5-5, from session 31acf46b…" (and why when assumed). */
export function claudeResumeShapeLabel(r: ClaudeResumeShape, agent = 'Claude Code'): string {
  const who = `your ${agent}${r.shape.version ? ` ${r.shape.version}` : ''}`;
  const withModel = r.shape.model ? ` with ${r.shape.model}` : '';
  const from = `from session ${r.shape.sessionId}`;
  if (r.source === 'agent-now') return `as ${who} sends it${withModel}, ${from}`;
  return `as ${who} sends it${withModel} (assumed: none of your recent sessions used ${r.model ?? 'this session’s model'}), ${from}`;
}

/**
 * The resume's system prompt and tools: as the user's Claude Code sends them today with the model the resume uses
 * (their own newest sessions record it); else the file's own record of them; else as it sends them with another
 * model (assumed); else the file's usage-based estimate. With what it announces today, whichever figure is used.
 */
function claudeResumeBasis(now: AgentNow, model: string | null, own: ResumeBasis): ResumeBasis {
  const claudeNow = now as ClaudeAgentNow;
  const announced = claudeNow.announced?.kinds ?? null;
  const shape = claudeResumeShape(claudeNow, model);
  if (shape && (shape.source === 'agent-now' || own.source !== 'recorded'))
    return { tokens: shape.tokens, source: shape.source, from: claudeResumeShapeLabel(shape), announced };
  return { ...own, announced };
}

export const claudeAgentNow: AgentNowSpec = {
  folderOf: claudeSessionsFolderOf,
  readsOwnFile: false,
  of: (ends) => claudeAgentNowOf(ends),
  resumeBasis: claudeResumeBasis,
};
