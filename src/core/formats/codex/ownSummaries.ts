// The compactions Codex made itself in a rollout, as the fidelity measure compares them (compact/agentSummaries.ts).
//
// Codex: a `compacted` record; the span is the response items before it back to the previous `compacted` record (whose
// readable kept text opens the span as an earlier summary). What Codex kept is the record's `message` (the summary a
// local compaction writes) and the messages of its `replacement_history` that are not context Codex adds itself
// (developer, AGENTS.md and environment messages): the user's messages it retains, and the assistant's where it
// retains them. A remote compaction (0.119 on; the default with the OpenAI provider) writes an empty `message`: its
// summary is a `compaction` item whose `encrypted_content` only OpenAI's server can read (`summary: 'encrypted'`),
// and some rollouts record no summary item at all (`summary: 'not-recorded'`, 0.142-alpha). Then the agent's summary
// is measured on what can be read, and "its size" is the size of that readable part:
// - what it keeps is a lower bound (the encrypted part may hold more facts): the comparison favours ours there;
// - its size is a lower bound too (the encrypted part adds to it), and ours is held to it: the comparison is strict
//   on ours there. Codex's own count of the context right after the compaction is no measure of the summary (it
//   counts its context messages and estimates the encrypted blob by its length), so it is not used.
import { arr, asObject, jsonText, obj, str, type JsonObject } from '../../json';
import {
  contentBlocks,
  recordText,
  toolResultText,
  type ConversationMessage,
  type ConversationRecord,
} from '../../conversation';
import { charsForTokens, estimateStringTokens, TOKEN_MODEL } from '../../tokens/estimate';
import type { OwnSummary, OwnSummaryKind } from '../agent';
import { codexItemRecord } from './message';

/** What a `compacted` record kept that can be read (see the header). */
export function codexKeptText(payload: JsonObject): { text: string; kind: OwnSummaryKind } {
  const message = (str(payload, 'message') ?? '').trim();
  let encrypted = false;
  const texts: string[] = [];
  for (const item of arr(payload, 'replacement_history') ?? []) {
    const it = asObject(item);
    if (it?.type === 'compaction' || it?.type === 'compaction_summary') {
      encrypted = true;
      continue;
    }
    const o = it && codexItemRecord(it);
    if (!o || o.meta) continue;
    const t = recordText(o).trim();
    if (t) texts.push(t);
  }
  if (message && !texts.some((t) => t.includes(message))) texts.unshift(message);
  return { text: texts.join('\n\n'), kind: message ? 'text' : encrypted ? 'encrypted' : 'not-recorded' };
}

/** Input tokens of a Codex `token_count` record's newest request, or undefined (no request, or a count of Codex's own). */
function requestTokens(o: JsonObject): number | undefined {
  const payload = asObject(o.payload);
  if (o.type !== 'event_msg' || payload?.type !== 'token_count') return undefined;
  const input = obj(obj(payload, 'info'), 'last_token_usage')?.input_tokens;
  return typeof input === 'number' && input > 0 ? input : undefined;
}

/** Our estimate of a message's tokens: its text as prose, a tool output as one, an image at the model's figure. */
function lineTokens(o: ConversationMessage): number {
  if (typeof o.content === 'string') return estimateStringTokens(o.content);
  let n = 0;
  for (const b of contentBlocks(o)) {
    if (b.type === 'text') n += estimateStringTokens(jsonText(b.text ?? ''));
    else if (b.type === 'image') n += TOKEN_MODEL.image;
    else if (b.type === 'tool_result') n += estimateStringTokens(toolResultText(b.content).text, 'toolResult');
  }
  return n;
}

/** The input lines a request sent after `from` before the model's first item: what the next request adds to the history. */
function inputsFrom(lines: (JsonObject | null)[], from: number): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  for (let i = from; i < lines.length; i++) {
    const o = lines[i];
    const payload = asObject(o?.payload);
    if (!o || !payload || o.type === 'compacted') break;
    if (o.type !== 'response_item') continue;
    const line = codexItemRecord(payload);
    if (!line) continue;
    if (line.role === 'assistant') break;
    out.push(line);
  }
  return out;
}

const sum = (lines: ConversationMessage[]) => lines.reduce((n, o) => n + lineTokens(o), 0);

/**
 * The size of a Codex compaction's kept part (its readable messages and its summary, readable or not) as the next
 * request's own count shows it, without the images it retained: the first request after the compaction, less the
 * inputs added after the record, less the fixed part of the session's first request (that request less the user's
 * first message: instructions, tools, the context messages), less the growth of the context messages between the two.
 * null when the file records either request. Our estimate serves only for the small parts added or taken away.
 */
function measuredKeptTokens(lines: (JsonObject | null)[], at: number, history: ConversationMessage[]): number | null {
  let first: number | undefined;
  let firstAt = -1;
  for (let i = 0; i < at && first === undefined; i++) {
    const o = lines[i];
    first = o ? requestTokens(o) : undefined;
    firstAt = i;
  }
  let next: number | undefined;
  for (let i = at + 1; i < lines.length && next === undefined; i++) {
    const o = lines[i];
    if (o?.type === 'compacted') break;
    next = o ? requestTokens(o) : undefined;
  }
  if (first === undefined || next === undefined) return null;
  const opening = inputsFrom(lines.slice(0, firstAt), 0);
  const context = (ls: ConversationMessage[]) => ls.filter((o) => o.meta);
  const images = history.filter((o) => !o.meta).reduce((n, o) => n + imagesIn(o), 0);
  const kept =
    next -
    sum(inputsFrom(lines, at + 1)) -
    (first - sum(opening.filter((o) => !o.meta))) -
    (sum(context(history)) - sum(context(opening))) -
    images * TOKEN_MODEL.image;
  return Math.round(kept);
}

function imagesIn(o: ConversationMessage): number {
  return contentBlocks(o).filter((b) => b.type === 'image').length;
}

export function codexOwnSummaries(lines: (JsonObject | null)[]): OwnSummary[] {
  const out: OwnSummary[] = [];
  let span: ConversationRecord[] = [];
  let cwd: string | undefined;
  lines.forEach((o, i) => {
    const payload = asObject(o?.payload);
    if (!o || !payload) return;
    if (o.type === 'session_meta' || o.type === 'turn_context') cwd = str(payload, 'cwd') ?? cwd;
    else if (o.type === 'response_item') {
      const line = codexItemRecord(payload);
      if (line) span.push(cwd ? { ...line, cwd } : line);
    } else if (o.type === 'compacted') {
      const kept = codexKeptText(payload);
      if (kept.text) {
        const history = (arr(payload, 'replacement_history') ?? [])
          .map((item) => codexItemRecord(asObject(item) ?? {}))
          .filter((l): l is ConversationMessage => l !== null);
        const measured = kept.kind === 'text' ? null : measuredKeptTokens(lines, i, history);
        // Never below what can be read: the summary that cannot be read is not smaller than nothing.
        const sizeChars =
          measured === null ? kept.text.length : Math.max(kept.text.length, charsForTokens(measured, 'prose'));
        out.push({
          agent: 'codex',
          boundaryLine: i + 1,
          span,
          summary: kept.text,
          summaryKind: kept.kind,
          size:
            measured === null
              ? { chars: sizeChars, basis: 'readable' }
              : { chars: sizeChars, basis: 'next-request', tokens: measured },
        });
      }
      // The next span opens with what this one kept, as a Claude Code span opens with the earlier summary.
      const earlier: ConversationMessage = {
        kind: 'message',
        role: 'user',
        compactSummary: true,
        content: [{ type: 'text', text: kept.text }],
      };
      span = kept.text ? [cwd ? { ...earlier, cwd } : earlier] : [];
    }
  });
  return out;
}
