// The conversation an agent rebuilds on resume, as readable text: each message with its role,
// then its text, thinking, tool calls and tool results (the summary is the first user message
// after a compaction). Before and after a compaction, side by side in a diff, this shows what the
// agent will see; the raw JSON lines tell a person little. Text only: transcripts are untrusted.
import { indexTranscript } from '../transcript';
import { agentModule } from '../formats/registry';
import { analyze } from '../inspect';
import type { Analysis } from '../analysis';
import { loadConversation, loadEntryObjects } from '../lines';
import { toolResultText } from '../conversation';
import { toApiMessages, type ApiBlock } from './messages';
import { toolInputObject } from './summarize/toolCalls';

const LONG = 4_000;

function clip(text: string): string {
  return text.length <= LONG
    ? text
    : `${text.slice(0, LONG)}\n[… ${(text.length - LONG).toLocaleString('en-US')} more characters]`;
}

function indent(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

/**
 * A tool call's input as a person reads it. Codex records a function call's arguments as a JSON string and a custom
 * tool's (apply_patch) as plain text: shown as the object they hold, or as the text, not as an escaped string.
 */
function toolInputText(input: unknown): string {
  if (typeof input !== 'string') return JSON.stringify(input ?? {}, null, 1);
  const parsed = toolInputObject(input);
  return Object.keys(parsed).length > 0 ? JSON.stringify(parsed, null, 1) : input;
}

function renderBlock(b: ApiBlock): string {
  switch (b.type) {
    case 'text':
      return indent(clip(typeof b.text === 'string' ? b.text : ''));
    case 'thinking':
      return `  (thinking)\n${indent(clip(typeof b.thinking === 'string' ? b.thinking : ''))}`;
    case 'redacted_thinking':
      return '  (redacted thinking)';
    case 'tool_use':
      return `  → tool call ${String(b.name)} [${String(b.id)}]\n${indent(clip(toolInputText(b.input)))}`;
    case 'tool_result': {
      const { text } = toolResultText(b.content);
      return `  ← tool result [${String(b.tool_use_id)}]${b.is_error ? ' (error)' : ''}\n${indent(clip(text))}`;
    }
    case 'image':
      return '  [image]';
    case 'opaque':
      return `  [${typeof b.label === 'string' ? b.label : 'opaque content'}: not readable here]`;
    default:
      return `  [${b.type}]`;
  }
}

/** The active context of `file` (after its last compact boundary), as the agent would resume it, in readable text. */
export async function readableConversation(file: string): Promise<string> {
  const index = await indexTranscript(file);
  const { chain } = analyze(index);
  const active = chain.main.slice(chain.activeStart);
  const records = await loadConversation(file, index.format.id, index.entries, active);
  const messages = toApiMessages(active.map((i) => records.get(i)));
  const out: string[] = [];
  messages.forEach((m, i) => {
    out.push(`── ${i + 1}. ${m.role === 'user' ? 'User' : 'Assistant'} ${'─'.repeat(40)}`);
    for (const b of m.content) out.push(renderBlock(b));
    out.push('');
  });
  return out.join('\n');
}

/** The heading of a line's part in a readable round: what `readableRound` writes and a reveal looks for. */
export function readableLineHeading(line: number): string {
  return `── line ${line} `;
}

/**
 * One round of `analysis` as readable text, line by line of the file (a line's JSON can be a single line of tens of
 * thousands of characters, which an editor shows unwrapped): each line's role, then its text, thinking, tool calls and
 * tool results, long texts clipped. Lines that hold no message (system records, metadata) are named by their type.
 */
export async function readableRound(analysis: Analysis, index: number): Promise<string> {
  const round = analysis.rounds.find((r) => r.index === index);
  if (!round) throw new Error(`no round #${index}`);
  const entries = analysis.index.entries;
  const objects = await loadEntryObjects(analysis.index.path, entries, round.entries);
  const message = agentModule(analysis.index.format.id).records?.message;
  const out: string[] = [
    `Round #${index}: lines ${round.firstLine}–${round.lastLine} (readable form; the raw lines are in the transcript)`,
    '',
  ];
  for (const i of round.entries) {
    const o = objects.get(i);
    if (!o) continue;
    const [m] = toApiMessages([message?.(o, entries[i])]);
    const who = m ? (m.role === 'user' ? 'User' : 'Assistant') : `(${typeof o.type === 'string' ? o.type : 'record'})`;
    out.push(`${readableLineHeading(entries[i].line)}· ${who} ${'─'.repeat(30)}`);
    if (m) for (const b of m.content) out.push(renderBlock(b));
    out.push('');
  }
  return out.join('\n');
}
