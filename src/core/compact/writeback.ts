// Builds what is appended to (or written as) the compacted transcript: a compact_boundary
// (parentUuid null, logicalParentUuid = old leaf), the summary as an isCompactSummary user
// line, then the kept rounds re-linked onto it with fresh, unique uuids and message ids.
import { createHash } from 'node:crypto';
import { contextNow } from '../context';
import type { Analysis } from '../analysis';
import { summaryRoundTokens, type PlanDetails } from './plan';
import { reannouncedAfter } from './planBase';
import { SUMMARY_PREFIX } from './summarize/prompt';
import { asObject, messageContent, obj, type JsonObject } from '../json';

export interface WriteInputs {
  analysis: Analysis;
  details: PlanDetails;
  summary: string;
  /** Parsed objects of the kept rounds' entries and of the leaf. */
  objects: Map<number, JsonObject>;
  /** Seed for deterministic new ids. */
  seed: string;
  preTokens: number;
  postTokens: number;
  /** Text of the last `last-prompt` line's prompt, when the file has one. */
  lastPrompt: { text: string | null } | null;
  now: Date;
  /**
   * Leading characters of `summary` that are an earlier compaction's summary quoted whole: clipping to fit the
   * target never cuts into them (an earlier summary is the only record of what came before it).
   */
  protectedChars?: number;
  /**
   * Exact `message.content` for the summary line instead of our prefix + `summary`: an earlier summary kept
   * verbatim when no round is summarized.
   */
  verbatimContent?: unknown;
  /** Session id for the written lines (a fork's new id); default: the session's own. */
  sessionId?: string;
}

export interface WriteOutput {
  lines: string[];
  boundaryUuid: string;
  summaryUuid: string;
  leafUuid: string;
  /** The summary as written (clipped by `fitSummary` when it would not fit the target). */
  summary: string;
}

export const SUMMARY_CLIPPED_MARKER = '\n[summary clipped to fit the target]';

/**
 * The summary as written: clipped so that the resumed context (the summary round plus the kept rounds, estimated as
 * checkResumable estimates the written file) fits the target. The plan reserves `settings.summaryTokens` for the
 * summary, but when even that reserve does not fit beside the newest response the room actually left is smaller, and a
 * summary that fills the reserve would put the result over a target that a shorter summary meets. Unchanged when it
 * fits, and when nothing can fit (the kept rounds with an empty summary are already over the target).
 */
export function fitSummary(summary: string, details: PlanDetails, protectedChars = 0): string {
  const { plan } = details;
  const cal = details.calibration > 0 ? details.calibration : 1;
  // Room for the summary round: the target minus the kept rounds, what a resume sends again (and a token per round
  // for rounding).
  const room = plan.messageTarget - plan.keptTokens - (plan.resentTokens ?? 0) - details.kept.length - 2;
  const fits = (s: string) => summaryRoundTokens(s, cal) <= room;
  const keep = Math.min(protectedChars, summary.length);
  if (fits(summary) || !fits(summary.slice(0, keep))) return summary;
  const clipped = (n: number) =>
    summary
      .slice(0, n)
      .replace(/[\uD800-\uDBFF]$/, '')
      .trimEnd() + SUMMARY_CLIPPED_MARKER;
  if (!fits(clipped(keep))) return keep > 0 ? summary.slice(0, keep) : '';
  let lo = keep; // clipped(lo) fits
  let hi = summary.length; // clipped(hi) does not
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (fits(clipped(mid))) lo = mid;
    else hi = mid;
  }
  return clipped(lo);
}

function deterministicUuid(seed: string, n: number | string): string {
  const h = createHash('sha256').update(`${seed}:${n}`).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function newId(prefix: string, seed: string, old: string): string {
  const h = createHash('sha256')
    .update(`${seed}:${old}`)
    .digest('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 24);
  return `${prefix}${h}`;
}

const COMMON_FIELDS = ['sessionId', 'cwd', 'version', 'gitBranch', 'userType', 'entrypoint', 'slug'];

export function buildAppendedLines(input: WriteInputs): WriteOutput {
  const { analysis, details, objects, seed } = input;
  const summary =
    input.verbatimContent !== undefined ? input.summary : fitSummary(input.summary, details, input.protectedChars);
  const postTokens =
    summary === input.summary
      ? input.postTokens
      : details.plan.keptTokens +
        Math.round(summaryRoundTokens(summary, details.calibration || 1)) +
        reannouncedAfter(analysis, details.plan.rounds, details.calibration || 1, details.announced);
  let counter = 0;
  const uuid = () => deterministicUuid(seed, counter++);
  const ts = input.now.toISOString();
  const leafObj = analysis.chain.leaf >= 0 ? objects.get(analysis.chain.leaf) : undefined;
  const common: Record<string, unknown> = {};
  for (const k of COMMON_FIELDS) if (leafObj && leafObj[k] !== undefined) common[k] = leafObj[k];
  if (input.sessionId) common.sessionId = input.sessionId;

  const boundaryUuid = uuid();
  const summaryUuid = uuid();
  const overhead = details.plan.overheadTokens;
  const lines = [
    JSON.stringify({
      parentUuid: null,
      logicalParentUuid: leafObj?.uuid ?? null,
      isSidechain: false,
      type: 'system',
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      timestamp: ts,
      uuid: boundaryUuid,
      level: 'info',
      // As Claude Code records it: the whole context (the figure `contextNow` defines), system prompt and tools included.
      compactMetadata: {
        trigger: 'manual',
        preTokens: contextNow(analysis.report).tokens,
        postTokens: postTokens + overhead,
        compactor: 'agent-compactor',
      },
      ...common,
    }),
    JSON.stringify({
      parentUuid: boundaryUuid,
      isSidechain: false,
      type: 'user',
      message: {
        role: 'user',
        content: input.verbatimContent !== undefined ? input.verbatimContent : SUMMARY_PREFIX + summary,
      },
      isVisibleInTranscriptOnly: true,
      isCompactSummary: true,
      uuid: summaryUuid,
      timestamp: ts,
      ...common,
    }),
  ];
  const relink = new Relinker(
    input,
    summaryUuid,
    uuid,
    Math.round(summaryRoundTokens(summary, details.calibration || 1)),
  );
  // One by one: a round of many short lines (250,000 records are read) would overflow the stack as spread arguments.
  for (const ri of details.kept) for (const line of relink.round(ri)) lines.push(line);
  const leafUuid = relink.parent;
  if (input.lastPrompt) {
    lines.push(
      JSON.stringify({
        type: 'last-prompt',
        lastPrompt: input.lastPrompt.text ?? undefined,
        leafUuid,
        sessionId: common.sessionId,
      }),
    );
  }
  return { lines, boundaryUuid, summaryUuid, leafUuid, summary };
}

/**
 * Writes kept rounds again on one linear chain hanging off the summary: fresh uuids and message ids (so the copies
 * never collide with the originals earlier in the file), budgeted tool results replaced by their previews, and usage
 * rewritten to describe the new, smaller context.
 */
class Relinker {
  /** uuid of the last line written (the chain's leaf so far). */
  parent: string;
  private readonly uuidMap = new Map<string, string>();
  private readonly idMap = new Map<string, string>();

  constructor(
    private readonly input: WriteInputs,
    summaryUuid: string,
    private readonly uuid: () => string,
    /** Context size before the next kept round (starts at the summary round). */
    private context: number,
  ) {
    this.parent = summaryUuid;
  }

  /** The lines of kept round `ri`: the response's assistant lines first (parallel tool calls form one message), then the user lines that answer it. */
  round(ri: number): string[] {
    const { analysis, details } = this.input;
    const entries = analysis.index.entries;
    const ordered = [...analysis.rounds[ri].entries].sort((a, b) => {
      const ka = entries[a].kind === 'assistant' ? 0 : 1;
      const kb = entries[b].kind === 'assistant' ? 0 : 1;
      return ka - kb || entries[a].start - entries[b].start || entries[a].part - entries[b].part;
    });
    const strip = details.stripThinking.has(ri);
    const out: string[] = [];
    for (const ei of ordered) {
      const e = entries[ei];
      if (e.kind !== 'user' && e.kind !== 'assistant' && e.kind !== 'attachment') continue;
      if (e.kind === 'user' && e.isCompactSummary) continue;
      const o = structuredClone(this.input.objects.get(ei));
      if (!o) throw new Error(`line ${e.line}: kept entry was not loaded`);
      if (e.kind === 'assistant' && o.message && !this.rewriteResponse(o, strip)) continue;
      if (e.kind === 'user') this.replaceBudgetedResults(o);
      out.push(JSON.stringify(this.relink(o)));
    }
    this.context += details.plan.rounds[ri].tokensAfter;
    return out;
  }

  /** New message and request ids, thinking stripped when the plan says so, usage for the new context; false when nothing is left. */
  private rewriteResponse(o: JsonObject, stripThinking: boolean): boolean {
    const seed = this.input.seed;
    // A `message` that is not an object has none of its fields rewritten (only requestId is).
    const message = obj(o, 'message') ?? {};
    if (stripThinking && Array.isArray(message.content)) {
      const content = (message.content as unknown[]).filter((b) => {
        const type = asObject(b)?.type;
        return type !== 'thinking' && type !== 'redacted_thinking';
      });
      message.content = content;
      if (content.length === 0) return false;
    }
    const id = message.id;
    if (typeof id === 'string') {
      if (!this.idMap.has(id)) this.idMap.set(id, newId('msg_', seed, id));
      message.id = this.idMap.get(id);
    }
    if (typeof o.requestId === 'string') o.requestId = newId('req_', seed, o.requestId);
    const usage = message.usage;
    if (usage && typeof usage === 'object') {
      // The old figures describe the old, larger context; an agent would see a full window.
      // (An array here has no output_tokens: 0, as before.)
      const outputTokens = (usage as JsonObject).output_tokens ?? 0;
      message.usage = {
        input_tokens: this.context,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: outputTokens,
      };
      o.compactorEstimatedUsage = true;
    }
    return true;
  }

  private replaceBudgetedResults(o: JsonObject): void {
    const content = messageContent(o);
    if (!Array.isArray(content)) return;
    const replacements = this.input.details.budget.replacements;
    for (const item of content as unknown[]) {
      const b = asObject(item);
      if (b?.type !== 'tool_result' || typeof b.tool_use_id !== 'string') continue;
      const replaced = replacements.get(b.tool_use_id);
      if (replaced) b.content = replaced.preview;
    }
  }

  /** Puts the line on the new chain: fresh uuid, parent = the previous line, main side, the fork's session id. */
  private relink(o: JsonObject): JsonObject {
    const fresh = this.uuid();
    if (typeof o.uuid === 'string') this.uuidMap.set(o.uuid, fresh);
    o.uuid = fresh;
    o.parentUuid = this.parent;
    delete o.logicalParentUuid;
    o.isSidechain = false;
    if (this.input.sessionId && o.sessionId !== undefined) o.sessionId = this.input.sessionId;
    if (typeof o.sourceToolAssistantUUID === 'string') {
      const mapped = this.uuidMap.get(o.sourceToolAssistantUUID);
      if (mapped) o.sourceToolAssistantUUID = mapped;
      else delete o.sourceToolAssistantUUID;
    }
    this.parent = fresh;
    return o;
  }
}
