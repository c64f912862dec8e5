// Every Claude Code session on the machine, cheaply: for each `<projects>/<folder>/<id>.jsonl`, its file stats and
// only the head and the tail of the file (never the whole of it): the project's real path (the `cwd` its lines
// record), a title (a custom title, Claude Code's own generated title or a summary line, else the first prompt), the
// newest request's context size and model, whether it is a fork of another session, and whether it is being written
// right now. The Sessions view, Open Sessions Folder and Open Original Session ask it through the agent's module
// (`claudeSessions.projects`).
import { open, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { contextFromTail, tailRoundEstimates, type ContextTail } from '../../contextTail';
import { LIVE_MS, type ForkOrigin, type SessionSummary } from '../../sessionList';
import { claudeWindowOf } from './limits';
import { inPool } from '../../pool';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The fork's origin from the head's lines (parsed, in order), for the session whose file is named `id`; `ownLines`:
 * whether a line of the file (head or tail) is under that id (a compaction's fork writes its own after the copies).
 */
export function forkOrigin(
  lines: readonly Record<string, unknown>[],
  id: string,
  ownLines: boolean,
): ForkOrigin | null {
  for (const o of lines) {
    const from = o.forkedFrom as { sessionId?: unknown } | undefined;
    if (
      from &&
      typeof from === 'object' &&
      typeof from.sessionId === 'string' &&
      from.sessionId !== id &&
      UUID.test(from.sessionId)
    )
      return { sessionId: from.sessionId, by: 'agent' };
  }
  if (!UUID.test(id)) return null;
  const first = lines.find((o) => typeof o.sessionId === 'string');
  return first && first.sessionId !== id && ownLines && UUID.test(first.sessionId as string)
    ? { sessionId: first.sessionId as string, by: 'compaction' }
    : null;
}

/** Bytes read from each end at most; a first look reads a quarter of that, and reads more only when it found nothing. */
export const HEAD_BYTES = 64 * 1024;
export const TAIL_BYTES = 64 * 1024;
const FIRST_LOOK = 16 * 1024;

function parse(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null;
  try {
    const o: unknown = JSON.parse(line);
    return o && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * First words of a user prompt (`command`: a slash command, titled by its name and arguments), or null for tool
 * results, meta lines and command wrappers.
 */
function promptText(o: Record<string, unknown>): { text: string; command: boolean } | null {
  if (o.type !== 'user' || o.isMeta === true || o.isCompactSummary === true || o.isSidechain === true) return null;
  const m = o.message as { content?: unknown } | undefined;
  let text: string | null = null;
  if (typeof m?.content === 'string') text = m.content;
  else if (Array.isArray(m?.content)) {
    const t = (m.content as { type?: string; text?: unknown }[]).find(
      (b) => b?.type === 'text' && typeof b.text === 'string',
    );
    text = t ? (t.text as string) : null;
  }
  if (!text) return null;
  // A slash command is titled by its name and arguments, as Claude Code's own session list does.
  const cmd = /<command-name>([^<]*)<\/command-name>/.exec(text);
  if (cmd) {
    const args = /<command-args>([^<]*)<\/command-args>/.exec(text)?.[1].trim();
    const title = `${cmd[1].trim()}${args ? ` ${args}` : ''}`.slice(0, 100);
    return title ? { text: title, command: true } : null;
  }
  if (/^\s*<(local-command|command-|system-reminder)/.test(text) || text.startsWith('[Request interrupted'))
    return null;
  const one = text.replace(/\s+/g, ' ').trim();
  return one ? { text: one.slice(0, 100), command: false } : null;
}

/**
 * The session's title from its head's lines (first prompt) and the title lines of its head and tail (newest wins): a
 * custom title, then Claude Code's generated title (`ai-title`), then a summary line, then the first prompt a person
 * typed, and only when there is none, the first slash command. The user line right after a slash command's is that
 * command's output (e.g. "Unknown skill: ralph-loop"), not a prompt.
 */
export function sessionTitle(
  head: readonly Record<string, unknown>[],
  titles: readonly Record<string, unknown>[],
): string | null {
  const newest = (type: string, key: string): string | null => {
    for (let k = titles.length - 1; k >= 0; k--) {
      const v = titles[k][key];
      if (titles[k].type === type && typeof v === 'string' && v.trim()) return v;
    }
    return null;
  };
  const titled = newest('custom-title', 'customTitle') ?? newest('ai-title', 'aiTitle');
  if (titled) return titled;
  // A summary line (Claude Code's title of a conversation's leaf) may be anywhere, often last: the newest wins.
  const summary =
    newest('summary', 'summary') ?? head.find((o) => o.type === 'summary' && typeof o.summary === 'string')?.summary;
  if (typeof summary === 'string') return summary;
  let command: string | null = null;
  let afterCommand = false;
  for (const o of head) {
    if (o.type !== 'user' && o.type !== 'assistant') continue;
    const p = promptText(o);
    const output = afterCommand;
    afterCommand = p?.command === true;
    if (p?.command) command ??= p.text;
    else if (p && !output) return p.text;
  }
  return command;
}

async function readSlice(fh: import('node:fs/promises').FileHandle, from: number, length: number): Promise<string> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, from);
  return buf.toString('utf8', 0, bytesRead);
}

/** What the head and tail tell (the usage and the context figure left out): a first look, then more when it found nothing. */
async function headAndTail(
  fh: import('node:fs/promises').FileHandle,
  file: string,
  folder: string,
  st: { size: number; mtimeMs: number },
  now: number,
): Promise<SessionSummary> {
  const first = await summarizeSlices(fh, file, folder, st, FIRST_LOOK, FIRST_LOOK, now);
  const missing = first.cwd === null || first.title === NO_PROMPT;
  return missing && st.size > 2 * FIRST_LOOK
    ? await summarizeSlices(fh, file, folder, st, HEAD_BYTES, TAIL_BYTES, now)
    : first;
}

/**
 * One session's title and the folder its head records, as `summarizeSession` reads them, without the read back for
 * the newest usage (what the CLI's `sessions` shows of a session).
 */
export async function sessionTitleAndCwd(file: string): Promise<{ title: string; cwd: string | null }> {
  const fh = await open(file, 'r');
  try {
    const st = await fh.stat();
    const { title, cwd } = await headAndTail(fh, file, basename(dirname(file)), st, Date.now());
    return { title, cwd };
  } finally {
    await fh.close();
  }
}

/** Reads one session's head and tail. */
export async function summarizeSession(file: string, folder: string, now = Date.now()): Promise<SessionSummary> {
  const st = await stat(file);
  const fh = await open(file, 'r');
  try {
    const summary = await headAndTail(fh, file, folder, st, now);
    const usage = await newestUsage(fh, st.size);
    return {
      ...summary,
      // The context figure (context.ts) from the tail, calibrated once the whole file has been read (sessionStats).
      contextTokens: usage?.tail ? contextFromTail(usage.tail, 1, null) : (usage?.contextTokens ?? null),
      contextTail: usage?.tail ?? null,
      model: usage?.model ?? null,
      contextWindow: claudeWindowOf(usage?.model),
    };
  } finally {
    await fh.close();
  }
}

const NO_PROMPT = '(no prompt)';

/**
 * Bytes read back from the end at most when looking for the newest request's usage; past that the figure is left
 * unknown here and the background read of the whole file (sessionStats.ts) supplies it.
 */
export const USAGE_SCAN_BYTES = 256 * 1024;
/** The first chunk read back is small (the newest usage is nearly always near the end); each next one is twice as large. */
const USAGE_FIRST_CHUNK = FIRST_LOOK;
const USAGE_MAX_CHUNK = 1024 * 1024;

/**
 * What one line says about the context, read back from the end: the newest main-chain usage, or a compaction after it:
 * the agent's own with its count of what it kept (Claude Code's `postTokens`), or without one (`estimated`: the rounds
 * from the boundary on are the figure), or ours (null: a resume of it sends more than its lines, see `resentTokens`).
 */
function usageOfLine(
  line: string,
):
  | { contextTokens: number; model: string | null; messageId: string | null }
  | { compacted: number | 'estimated' | null }
  | null {
  if (line.includes('"compact_boundary"')) {
    const o = parse(line);
    if (o?.type === 'system' && o.subtype === 'compact_boundary') {
      const meta = o.compactMetadata as { postTokens?: unknown; compactor?: unknown } | undefined;
      if (meta?.compactor !== undefined) return { compacted: null };
      return { compacted: typeof meta?.postTokens === 'number' ? meta.postTokens : 'estimated' };
    }
  }
  if (!line.includes('"usage"') || !line.includes('"assistant"')) return null;
  const o = parse(line);
  const msg = o?.message as { usage?: Record<string, unknown>; model?: unknown; id?: unknown } | undefined;
  // Usage a compaction of ours rewrote for its kept rounds is an estimate, not a request's (entries.ts ignores it too).
  if (o?.type !== 'assistant' || o.isSidechain === true || !msg?.usage || msg.model === '<synthetic>') return null;
  if (o.compactorEstimatedUsage === true) return null;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
  return {
    contextTokens:
      n(msg.usage.input_tokens) + n(msg.usage.cache_creation_input_tokens) + n(msg.usage.cache_read_input_tokens),
    model: typeof msg.model === 'string' ? msg.model : null,
    messageId: typeof msg.id === 'string' ? msg.id : null,
  };
}

/**
 * Only lines that name a usage or a compaction are decoded (most lines read back are long tool results), and not a
 * subagent's progress line (it nests the subagent's responses, usage and all; the literal can only be its own type,
 * since a string inside JSON holds its quotes escaped).
 */
function mayTellUsage(line: Buffer): boolean {
  return (line.includes('"usage"') && !line.includes('"type":"progress"')) || line.includes('"compact_boundary"');
}

/**
 * The file's complete lines from `end` back to `floor` (the first one may start before `floor` when `floor` is 0),
 * newest first, each with the offset it starts at; read a chunk at a time (small first, each next one twice as large).
 */
async function* linesBack(
  fh: import('node:fs/promises').FileHandle,
  end: number,
  floor: number,
): AsyncGenerator<{ start: number; line: Buffer }> {
  // The start of a line cut by the previous chunk (bytes after this chunk, up to the first newline seen).
  let rest = Buffer.alloc(0);
  for (let chunkBytes = USAGE_FIRST_CHUNK; end > floor; chunkBytes = Math.min(USAGE_MAX_CHUNK, chunkBytes * 2)) {
    const from = Math.max(floor, end - chunkBytes);
    const chunk = Buffer.alloc(end - from);
    const { bytesRead } = await fh.read(chunk, 0, chunk.length, from);
    let buf = Buffer.concat([chunk.subarray(0, bytesRead), rest]);
    let cut = buf.length;
    for (let nl = buf.lastIndexOf(0x0a, cut - 1); nl >= 0; nl = nl > 0 ? buf.lastIndexOf(0x0a, nl - 1) : -1) {
      yield { start: from + nl + 1, line: buf.subarray(nl + 1, cut) };
      cut = nl;
    }
    buf = buf.subarray(0, cut);
    if (from === 0) {
      yield { start: 0, line: buf };
      return;
    }
    rest = buf;
    end = from;
  }
}

/** The newest usage found reading back, with what the context figure adds to it (context.ts `ContextTail`). */
export interface NewestUsage {
  /** The newest request's usage; null after a compaction the agent made by itself (`tail` then starts there). */
  contextTokens: number | null;
  model: string | null;
  /** What the context figure is made of from the end; null when it could not be read. */
  tail: ContextTail | null;
}

/**
 * The newest main-chain request's context size and model, read back from the end of the file a chunk at a time until
 * one is found (a long tool result or many progress lines can sit between it and the end, and an early request in
 * the head is not the session's context), with the tail after it (its response's first line to the end). Null when
 * the newest one comes before a compaction (as the full analysis says: that usage is not in the active context), when
 * there is none, or past `USAGE_SCAN_BYTES`.
 */
export async function newestUsage(
  fh: import('node:fs/promises').FileHandle,
  size: number,
): Promise<NewestUsage | null> {
  const floor = Math.max(0, size - USAGE_SCAN_BYTES);
  let found: { contextTokens: number; model: string | null; messageId: string | null } | null = null;
  let at = -1;
  for await (const { start, line } of linesBack(fh, size, floor)) {
    const seen = mayTellUsage(line) ? usageOfLine(line.toString('utf8')) : null;
    if (seen && 'compacted' in seen) {
      // The usage before it is not the active context's: the figure starts from the agent's own count, if it has one.
      if (seen.compacted === null) return null;
      const lines = sliceLines(await readSlice(fh, start, size - start));
      const counted = seen.compacted !== 'estimated';
      return {
        contextTokens: null,
        model: null,
        tail: {
          from: 'compaction',
          tokens: counted ? (seen.compacted as number) : 0,
          raw: tailRoundEstimates(lines, null, counted),
        },
      };
    }
    if (seen) {
      found = seen;
      at = start;
      break;
    }
  }
  if (!found) return null;
  const usage = { contextTokens: found.contextTokens, model: found.model };
  if (found.messageId === null) return { ...usage, tail: null };
  // The response's first line: back until an assistant line of another response (the previous round's).
  let from = floor;
  for await (const { start, line } of linesBack(fh, at, floor)) {
    if (!line.includes('"assistant"') || line.includes(`"${found.messageId}"`)) continue;
    const o = parse(line.toString('utf8'));
    const id = (o?.message as { id?: unknown } | undefined)?.id;
    if (o?.type === 'assistant' && o.isSidechain !== true && typeof id === 'string' && id !== found.messageId) {
      from = start + line.length + 1;
      break;
    }
  }
  const lines = sliceLines(await readSlice(fh, from, size - from));
  return {
    ...usage,
    tail: { from: 'usage', tokens: found.contextTokens, raw: tailRoundEstimates(lines, found.messageId) },
  };
}

/** The lines of a slice that starts at a line (a last one cut by the slice's end is still being written). */
function sliceLines(text: string): string[] {
  return text.split('\n');
}

async function summarizeSlices(
  fh: import('node:fs/promises').FileHandle,
  file: string,
  folder: string,
  st: { size: number; mtimeMs: number },
  headBytes: number,
  tailBytes: number,
  now: number,
): Promise<SessionSummary> {
  const head = await readSlice(fh, 0, Math.min(st.size, headBytes));
  const tail =
    st.size > headBytes
      ? await readSlice(fh, Math.max(headBytes, st.size - tailBytes), Math.min(tailBytes, st.size - headBytes))
      : '';
  const headLines = head.split('\n');
  if (st.size > headBytes) headLines.pop(); // cut by the slice
  const tailLines = tail ? tail.split('\n').slice(1) : []; // the first is cut by the slice
  // Only lines that can hold what is looked for are parsed.
  const wanted = (line: string) =>
    line.includes('"cwd"') ||
    line.includes('"summary"') ||
    line.includes('"user"') ||
    line.includes('"assistant"') ||
    line.includes('"sessionId"');
  const headParsed = headLines.flatMap((l) =>
    wanted(l) ? [parse(l)].filter((o): o is Record<string, unknown> => o !== null) : [],
  );
  const titleLine = (l: string) =>
    l.includes('"custom-title"') || l.includes('"ai-title"') || /"type"\s*:\s*"summary"/.test(l);
  const titles = [...headLines, ...tailLines].flatMap((l) =>
    titleLine(l) ? [parse(l)].filter((o): o is Record<string, unknown> => o !== null) : [],
  );
  const cwdLine = headParsed.find((o) => typeof o.cwd === 'string' && o.isSidechain !== true);
  const cwd = cwdLine ? (cwdLine.cwd as string) : null;
  const id = basename(file, '.jsonl');
  return {
    file,
    id,
    folder,
    cwd,
    title: sessionTitle(headParsed, titles) ?? NO_PROMPT,
    size: st.size,
    mtimeMs: st.mtimeMs,
    contextTokens: null,
    contextTail: null,
    model: null,
    contextWindow: claudeWindowOf(null),
    live: now - st.mtimeMs < LIVE_MS,
    forkOf: forkOrigin(
      headParsed,
      id,
      [...headLines, ...tailLines].some((l) => l.includes(`"sessionId":"${id}"`)),
    ),
  };
}

/**
 * Every session directly inside a project folder of `root` (subagent files excluded), newest first; only those of the
 * named project folders when `only` is given (the live status needs the workspace's project alone).
 */
export async function scanSessions(
  root: string,
  now = Date.now(),
  only?: readonly string[],
): Promise<SessionSummary[]> {
  let folders: string[];
  try {
    folders = (await readdir(root, { withFileTypes: true }))
      .filter((d) => d.isDirectory() && (!only || only.includes(d.name)))
      .map((d) => d.name);
  } catch {
    return [];
  }
  const jobs: { file: string; folder: string }[] = [];
  await Promise.all(
    folders.map(async (folder) => {
      try {
        for (const d of await readdir(join(root, folder), { withFileTypes: true }))
          if (d.isFile() && d.name.endsWith('.jsonl')) jobs.push({ file: join(root, folder, d.name), folder });
      } catch {
        /* vanished or unreadable */
      }
    }),
  );
  // A bounded number of files open at once.
  const read = await inPool(jobs, (j) => summarizeSession(j.file, j.folder, now).catch(() => null), 64);
  const out = read.filter((s): s is SessionSummary => s !== null);
  out.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file));
  return out;
}
