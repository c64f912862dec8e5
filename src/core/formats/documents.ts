// Sessions stored as one JSON document rather than JSON lines (Gemini CLI chats, Cline / Roo Code tasks, Claude Code
// transcripts re-serialised as one array): the document is parsed whole, the agent whose document it is is asked
// (registry.ts), and each message becomes common entries at the byte range and line where it starts, so the tree,
// rounds and figures work as for JSONL. These formats are read-only (nothing is written back).
import { open, readFile, stat } from 'node:fs/promises';
import { asObject } from '../json';
import { MAX_TRANSCRIPT_RECORDS, tooLargeDocument, tooManyMessages, type TranscriptIndex } from '../transcript';
import { messageElements } from './document';
import type { AgentModule } from './agent';
import { documentAgentOf, formatOf, type AgentId } from './registry';

export { messageElements, type MessageElement } from './document';

/** Documents larger than this are refused (they are parsed whole: a real one takes about 3 times its size). */
const MAX_DOCUMENT_BYTES = 512 << 20;

/** True when the file is one JSON document (an array, or an object with a `messages` array), not JSON lines. */
export async function isJsonDocument(path: string): Promise<boolean> {
  const st = await stat(path);
  if (!st.isFile() || st.size === 0) return false;
  const fh = await open(path, 'r');
  let head: string;
  try {
    const buf = Buffer.alloc(Math.min(st.size, 64 << 10));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    head = buf
      .subarray(0, bytesRead)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
  } finally {
    await fh.close();
  }
  const first = head.trimStart();
  if (first.startsWith('[')) return true;
  if (!first.startsWith('{')) return false;
  const firstLine = first.split('\n', 1)[0];
  try {
    const o = asObject(JSON.parse(firstLine));
    // One line that is a whole object: a document only when it is a chat with a `messages` array.
    return o !== undefined && Array.isArray(o.messages) && o.type === undefined;
  } catch {
    // A first line that is not a whole object: pretty-printed JSON (a JSONL file's bad first line parses neither way).
    return firstLine.trim() === '{' || !first.includes('\n');
  }
}

/**
 * The agent whose JSON-array session `head` (the first characters of a document, e.g. what an editor holds) begins,
 * judged by the messages wholly inside it; null when none of them is an agent's. What decides which `.json` files
 * outside the agents' own folders are followed as sessions, without reading them whole. Only arrays: an object
 * document (a Gemini CLI chat) is told by fields its head may not reach, and is followed by its folder.
 */
export function documentAgentOfHead(head: string): AgentModule<AgentId> | null {
  const text = head.replace(/^\uFEFF/, '');
  if (!text.trimStart().startsWith('[')) return null;
  const messages: unknown[] = [];
  for (const el of messageElements(text, 0)) {
    try {
      messages.push(JSON.parse(text.slice(el.from, el.to)));
    } catch {
      return null;
    }
  }
  return messages.length ? documentAgentOf(messages) : null;
}

/** Reads a JSON-document session into an index of common entries; null when the document is no session we know. */
export async function indexJsonDocument(path: string): Promise<TranscriptIndex | null> {
  const st = await stat(path);
  if (st.size > MAX_DOCUMENT_BYTES) throw tooLargeDocument(path, st.size, MAX_DOCUMENT_BYTES);
  const bytes = await readFile(path);
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const text = bytes.subarray(bom ? 3 : 0).toString('utf8');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  const agent = documentAgentOf(doc);
  if (!agent?.document) return null;
  const found = messageElements(text, bom ? 3 : 0);
  const messages = agent.document.messages(doc);
  // The cap of JSON lines (transcript.ts) on what the index holds, before any message is digested.
  if (messages.length > MAX_TRANSCRIPT_RECORDS) throw tooManyMessages(path, messages.length);
  // A message the scan did not place (never in a document JSON.parse accepts) stands for the whole file.
  const elements = messages.map((_, k) => found[k] ?? { start: 0, end: bytes.length, line: 1 });
  const entries = await agent.document.read(path, messages, elements);
  const lines = text.split('\n').length;
  return {
    path,
    entries,
    malformed: [],
    lineCount: lines,
    consumedBytes: bytes.length,
    size: st.size,
    mtimeMs: st.mtimeMs,
    bom,
    crlfLines: 0,
    unterminatedTail: false,
    // A JSON document is read again whole on every change (inspect.ts `reinspect`): no fingerprint is needed.
    prefixDigest: '',
    reader: null,
    format: formatOf(agent.id, 'json', agent.document.version(messages)),
  };
}
