// Groups the main chain into API rounds: a round starts at each new assistant message.id
// and carries the lines that follow it (tool results, attachments, the next prompt) until
// the next new id, so a round can be kept or dropped without breaking tool_use/tool_result pairs.
import { isCompactBoundary, type Entry } from './entries';
import { textTokens } from './tokens/text';
import type { Chain } from './chain';

export interface ToolUseInfo {
  id: string;
  name: string;
  chars: number;
  line: number;
}

export interface ToolResultInfo {
  id: string;
  chars: number;
  line: number;
  isError: boolean;
  images: number;
  /** Name of the tool that produced it, when its tool_use is known. */
  name?: string;
}

/** Character counts of what a round adds to the context, by content kind. */
export interface RoundContent {
  assistantText: number;
  toolUseInput: number;
  thinking: number;
  signature: number;
  userText: number;
  toolResult: number;
  attachment: number;
  images: number;
  /** Content blocks sent (each costs framing tokens). */
  blocks: number;
  /** Tokens of opaque content (an encrypted compaction summary), as its agent counts them: no readable characters. */
  opaque?: number;
  /** Of `blocks`, the thinking and redacted thinking ones (a compaction strips them from kept rounds, framing and all). */
  thinkingBlocks?: number;
  /** Proxy token counts (tokens/estimate.ts `textTokens`) of the characters above, by kind, with the characters they cover. */
  proxy?: ContentProxy;
}

export interface ContentProxy {
  /** Assistant text, user text and attachments. */
  prose: number;
  proseChars: number;
  toolUseInput: number;
  toolUseInputChars: number;
  toolResult: number;
  toolResultChars: number;
}

export interface Round {
  index: number;
  /** Assistant message id, or null for a preamble (lines before the first response of a segment). */
  messageId: string | null;
  /** Indices into the entry array, in file order. */
  entries: number[];
  firstLine: number;
  lastLine: number;
  model?: string;
  /** Compaction segment: 0 before the first compact boundary, 1 after it, ... */
  segment: number;
  /** True when the round is part of the active context (after the last compact boundary). */
  inContext: boolean;
  /** True when this round begins with a compact boundary. */
  startsAtBoundary: boolean;
  /** Index of the entry carrying the final usage for this response (last line of the id). */
  usageEntry: number;
  toolUses: ToolUseInfo[];
  toolResults: ToolResultInfo[];
  content: RoundContent;
  /** Short description: the tools used, else the reply's first words, else the prompt's. */
  label: string;
  /** First words of the assistant's text reply. */
  replyPreview?: string;
  /** First words of a real user prompt in the round (not tool results, not meta lines). */
  prompt?: string;
  /** True for synthetic API-error responses. */
  synthetic: boolean;
  stopReason?: string | null;
}

function emptyContent(): RoundContent {
  return {
    assistantText: 0,
    toolUseInput: 0,
    thinking: 0,
    signature: 0,
    userText: 0,
    toolResult: 0,
    attachment: 0,
    images: 0,
    blocks: 0,
    opaque: 0,
    thinkingBlocks: 0,
    proxy: { prose: 0, proseChars: 0, toolUseInput: 0, toolUseInputChars: 0, toolResult: 0, toolResultChars: 0 },
  };
}

/**
 * The content of a message holding one user text block, `text`: what a summary adds to a resumed context, sized from
 * its text alone like any round's content (no line needs to be made up for it).
 */
export function userTextContent(text: string): RoundContent {
  const c = emptyContent();
  c.blocks = 1;
  c.userText = text.length;
  c.proxy!.prose = textTokens(text);
  c.proxy!.proseChars = text.length;
  return c;
}

function newRound(
  index: number,
  messageId: string | null,
  segment: number,
  inContext: boolean,
  startsAtBoundary: boolean,
): Round {
  return {
    index,
    messageId,
    entries: [],
    firstLine: 0,
    lastLine: 0,
    segment,
    inContext,
    startsAtBoundary,
    usageEntry: -1,
    toolUses: [],
    toolResults: [],
    content: emptyContent(),
    label: '',
    synthetic: false,
  };
}

function addContent(round: Round, e: Entry, toolNames: Map<string, string>): void {
  const c = round.content;
  const p = c.proxy!;
  if (e.kind === 'assistant') {
    for (const b of e.blocks) {
      c.blocks++;
      if (b.type === 'opaque') c.opaque = (c.opaque ?? 0) + (b.tokens ?? 0);
      else if (b.type === 'text') {
        c.assistantText += b.chars;
        if (b.tokens !== undefined) {
          p.prose += b.tokens;
          p.proseChars += b.chars;
        }
        if (!round.replyPreview && b.preview) round.replyPreview = b.preview;
      } else if (b.type === 'thinking' || b.type === 'redacted_thinking') {
        c.thinking += b.chars;
        c.signature += b.signatureChars ?? 0;
        c.thinkingBlocks = (c.thinkingBlocks ?? 0) + 1;
      } else if (b.type === 'tool_use' || b.type === 'server_tool_use') {
        c.toolUseInput += b.chars + (b.name?.length ?? 0);
        if (b.tokens !== undefined) {
          p.toolUseInput += b.tokens;
          p.toolUseInputChars += b.chars + (b.name?.length ?? 0);
        }
        if (b.toolId) {
          toolNames.set(b.toolId, b.name ?? '?');
          round.toolUses.push({ id: b.toolId, name: b.name ?? '?', chars: b.chars, line: e.line });
        }
      } else {
        c.assistantText += b.chars;
        if (b.tokens !== undefined) {
          p.prose += b.tokens;
          p.proseChars += b.chars;
        }
      }
    }
  } else if (e.kind === 'user') {
    for (const b of e.blocks) {
      c.blocks++;
      if (b.type === 'opaque') c.opaque = (c.opaque ?? 0) + (b.tokens ?? 0);
      else if (b.type === 'tool_result') {
        c.toolResult += b.chars;
        if (b.tokens !== undefined) {
          p.toolResult += b.tokens;
          p.toolResultChars += b.chars;
        }
        c.images += b.images ?? 0;
        if (b.toolId) {
          const r: ToolResultInfo = {
            id: b.toolId,
            chars: b.chars,
            line: e.line,
            isError: b.isError === true,
            images: b.images ?? 0,
          };
          const name = toolNames.get(b.toolId);
          if (name) r.name = name;
          round.toolResults.push(r);
        }
      } else if (b.type === 'image') c.images += 1;
      else {
        c.userText += b.chars;
        if (b.tokens !== undefined) {
          p.prose += b.tokens;
          p.proseChars += b.chars;
        }
        if (!round.prompt && b.preview && !e.isMeta && !e.isCompactSummary) round.prompt = b.preview;
      }
    }
  } else if (e.kind === 'attachment') {
    if (e.attachmentChars) {
      c.attachment += e.attachmentChars;
      if (e.attachmentTokens !== undefined) {
        p.prose += e.attachmentTokens;
        p.proseChars += e.attachmentChars;
      }
      c.blocks++;
    }
  }
}

/** Builds rounds over the chain's main conversation. */
export function buildRounds(entries: Entry[], chain: Chain): Round[] {
  const rounds: Round[] = [];
  const byId = new Map<string, Round>();
  const toolNames = new Map<string, string>();
  let current: Round | null = null;
  let segment = 0;
  const activeFrom = chain.main.length ? chain.main[chain.activeStart] : -1;
  let inContext = chain.activeStart === 0;

  for (const idx of chain.main) {
    const e = entries[idx];
    if (idx === activeFrom) inContext = true;
    if (isCompactBoundary(e)) {
      if (rounds.length > 0 || current) segment++;
      current = newRound(rounds.length, null, segment, inContext, true);
      rounds.push(current);
    } else if (e.kind === 'assistant' && e.messageId) {
      const existing = byId.get(e.messageId);
      if (existing) {
        existing.entries.push(idx);
        noteResponseLine(existing, e, idx);
        addContent(existing, e, toolNames);
        continue;
      }
      current = newRound(rounds.length, e.messageId, segment, inContext, false);
      byId.set(e.messageId, current);
      rounds.push(current);
    } else if (!current) {
      current = newRound(rounds.length, null, segment, inContext, false);
      rounds.push(current);
    }
    current.entries.push(idx);
    if (e.kind === 'assistant') noteResponseLine(current, e, idx);
    addContent(current, e, toolNames);
  }
  for (const r of rounds) {
    r.firstLine = entries[r.entries[0]].line;
    r.lastLine = entries[r.entries[r.entries.length - 1]].line;
    if (r.entries.length > 1) {
      let lo = r.firstLine;
      let hi = r.lastLine;
      for (const i of r.entries) {
        lo = Math.min(lo, entries[i].line);
        hi = Math.max(hi, entries[i].line);
      }
      r.firstLine = lo;
      r.lastLine = hi;
    }
    if (r.startsAtBoundary) r.label = 'compact boundary and summary';
    else if (!r.messageId) r.label = r.prompt ?? 'preamble';
    else if (r.toolUses.length) r.label = summarizeTools(r.toolUses);
    else r.label = r.replyPreview ?? r.prompt ?? 'response';
  }
  return rounds;
}

/**
 * A response is written as one line per content block, each repeating the message's fields as
 * they stood when it was written: the last line that states a field has its final value (the
 * `tool_use` stop reason and the usage sit on the last line; earlier ones say null).
 */
function noteResponseLine(round: Round, e: Entry, idx: number): void {
  if (e.model) round.model = e.model;
  if (e.usage) round.usageEntry = idx;
  round.synthetic = !!e.isApiErrorMessage || e.model === '<synthetic>' || (round.synthetic && !e.model);
  if (e.stopReason !== undefined && e.stopReason !== null) round.stopReason = e.stopReason;
}

function summarizeTools(uses: ToolUseInfo[]): string {
  const counts = new Map<string, number>();
  for (const u of uses) counts.set(u.name, (counts.get(u.name) ?? 0) + 1);
  return [...counts].map(([n, k]) => (k > 1 ? `${n}×${k}` : n)).join(', ');
}
