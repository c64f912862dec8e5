// Every Claude Code session on the machine, cheaply: for each `<projects>/<folder>/<id>.jsonl`, its file stats and
// only the head and the tail of the file (never the whole of it): the project's real path (the `cwd` its lines
// record), a title (a custom title or summary line, else the first prompt), the newest request's context size and
// model, and whether it is being written right now.
import { open, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';

export interface SessionSummary {
  file: string;
  /** The file name without `.jsonl`. */
  id: string;
  /** The project folder's name under the sessions folder (Claude Code's encoding of the path). */
  folder: string;
  /** The project's real path: the `cwd` of its first line that records one (null when none is in the head). */
  cwd: string | null;
  title: string;
  size: number;
  mtimeMs: number;
  /** Context of the newest request in the tail (input + cache creation + cache read), or null. */
  contextTokens: number | null;
  model: string | null;
  /** The model's context window (tokens). */
  contextWindow: number;
  /** Modified within `liveMs` of now: an agent is probably writing it. */
  live: boolean;
}

/** Bytes read from each end at most; a first look reads a quarter of that, and reads more only when it found nothing. */
export const HEAD_BYTES = 64 * 1024;
export const TAIL_BYTES = 64 * 1024;
const FIRST_LOOK = 16 * 1024;
/** A session modified this recently is shown as being written now. */
export const LIVE_MS = 60_000;

/** Context window of a Claude model, in tokens: 1M for the long-context variants (`[1m]`), else 200k. */
export function contextWindowOf(model: string | null | undefined): number {
  return model && /\[1m\]|-1m\b|context-1m/i.test(model) ? 1_000_000 : 200_000;
}

/** Claude Code auto-compacts near this share of the window; warnings start before it. */
export const AUTO_COMPACT_SHARE = 0.92;

function parse(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null;
  try {
    const o: unknown = JSON.parse(line);
    return o && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** First words of a user prompt, or null for tool results, meta lines and command wrappers. */
function promptText(o: Record<string, unknown>): string | null {
  if (o.type !== 'user' || o.isMeta === true || o.isCompactSummary === true || o.isSidechain === true) return null;
  const m = o.message as { content?: unknown } | undefined;
  let text: string | null = null;
  if (typeof m?.content === 'string') text = m.content;
  else if (Array.isArray(m?.content)) {
    const t = (m.content as { type?: string; text?: unknown }[]).find((b) => b?.type === 'text' && typeof b.text === 'string');
    text = t ? (t.text as string) : null;
  }
  if (!text) return null;
  // A slash command is titled by its name and arguments, as Claude Code's own session list does.
  const cmd = /<command-name>([^<]*)<\/command-name>/.exec(text);
  if (cmd) {
    const args = /<command-args>([^<]*)<\/command-args>/.exec(text)?.[1].trim();
    return `${cmd[1].trim()}${args ? ` ${args}` : ''}`.slice(0, 100) || null;
  }
  if (/^\s*<(local-command|command-|system-reminder)/.test(text) || text.startsWith('[Request interrupted')) return null;
  const one = text.replace(/\s+/g, ' ').trim();
  return one ? one.slice(0, 100) : null;
}

async function readSlice(fh: import('node:fs/promises').FileHandle, from: number, length: number): Promise<string> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, from);
  return buf.toString('utf8', 0, bytesRead);
}

/** Reads one session's head and tail. */
export async function summarizeSession(file: string, folder: string, now = Date.now()): Promise<SessionSummary> {
  const st = await stat(file);
  const fh = await open(file, 'r');
  try {
    const first = await summarizeSlices(fh, file, folder, st, FIRST_LOOK, FIRST_LOOK, now);
    const missing = first.cwd === null || first.title === NO_PROMPT || first.contextTokens === null;
    return missing && st.size > 2 * FIRST_LOOK ? await summarizeSlices(fh, file, folder, st, HEAD_BYTES, TAIL_BYTES, now) : first;
  } finally {
    await fh.close();
  }
}

const NO_PROMPT = '(no prompt)';

async function summarizeSlices(fh: import('node:fs/promises').FileHandle, file: string, folder: string, st: { size: number; mtimeMs: number }, headBytes: number, tailBytes: number, now: number): Promise<SessionSummary> {
  const head = await readSlice(fh, 0, Math.min(st.size, headBytes));
  const tail = st.size > headBytes ? await readSlice(fh, Math.max(headBytes, st.size - tailBytes), Math.min(tailBytes, st.size - headBytes)) : '';
  const headLines = head.split('\n');
  if (st.size > headBytes) headLines.pop(); // cut by the slice
  const tailLines = tail ? tail.split('\n').slice(1) : []; // the first is cut by the slice
  let cwd: string | null = null;
  let prompt: string | null = null;
  let summary: string | null = null;
  for (const line of headLines) {
    if (cwd && prompt) break;
    // Only lines that can hold what is looked for are parsed.
    if (!line.includes('"cwd"') && !line.includes('"summary"') && !line.includes('"user"')) continue;
    const o = parse(line);
    if (!o) continue;
    if (!cwd && typeof o.cwd === 'string' && o.isSidechain !== true) cwd = o.cwd;
    if (!summary && o.type === 'summary' && typeof o.summary === 'string') summary = o.summary;
    prompt ??= promptText(o);
  }
  const all = tailLines.length ? [...headLines, ...tailLines] : headLines;
  let custom: string | null = null;
  for (let k = all.length - 1; k >= 0; k--) {
    if (!all[k].includes('"custom-title"')) continue;
    const o = parse(all[k]);
    if (o?.type === 'custom-title' && typeof o.customTitle === 'string') {
      custom = o.customTitle;
      break;
    }
  }
  let contextTokens: number | null = null;
  let model: string | null = null;
  for (let k = all.length - 1; k >= 0 && contextTokens === null; k--) {
    const line = all[k];
    if (!line.includes('"usage"') || !line.includes('"assistant"')) continue;
    const o = parse(line);
    const msg = o?.message as { usage?: Record<string, unknown>; model?: unknown } | undefined;
    if (o?.type === 'assistant' && o.isSidechain !== true && msg?.usage && msg.model !== '<synthetic>') {
      const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
      contextTokens = n(msg.usage.input_tokens) + n(msg.usage.cache_creation_input_tokens) + n(msg.usage.cache_read_input_tokens);
      model = typeof msg.model === 'string' ? msg.model : null;
    }
  }
  return {
    file,
    id: basename(file, '.jsonl'),
    folder,
    cwd,
    title: custom ?? summary ?? prompt ?? NO_PROMPT,
    size: st.size,
    mtimeMs: st.mtimeMs,
    contextTokens,
    model,
    contextWindow: contextWindowOf(model),
    live: now - st.mtimeMs < LIVE_MS,
  };
}

/** Every session directly inside a project folder of `root` (subagent files excluded), newest first. */
export async function scanSessions(root: string, now = Date.now()): Promise<SessionSummary[]> {
  let folders: string[];
  try {
    folders = (await readdir(root, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    return [];
  }
  const jobs: { file: string; folder: string }[] = [];
  await Promise.all(
    folders.map(async (folder) => {
      try {
        for (const d of await readdir(join(root, folder), { withFileTypes: true })) if (d.isFile() && d.name.endsWith('.jsonl')) jobs.push({ file: join(root, folder, d.name), folder });
      } catch {
        /* vanished or unreadable */
      }
    }),
  );
  const out: SessionSummary[] = [];
  // A bounded number of files open at once.
  for (let k = 0; k < jobs.length; k += 64) {
    const batch = await Promise.all(jobs.slice(k, k + 64).map((j) => summarizeSession(j.file, j.folder, now).catch(() => null)));
    for (const s of batch) if (s) out.push(s);
  }
  out.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file));
  return out;
}

export interface ProjectGroup {
  /** The project's real path (or the folder's name when no line records one). */
  project: string;
  sessions: SessionSummary[];
}

/**
 * Sessions grouped by project (real path), newest project first, `first` (the workspace's project) at the top;
 * `filter` keeps the sessions whose title, project, id or model contains it (any case).
 */
export function groupSessions(sessions: SessionSummary[], first?: string | null, filter?: string): ProjectGroup[] {
  const needle = filter?.trim().toLowerCase();
  const groups = new Map<string, SessionSummary[]>();
  for (const s of sessions) {
    const project = s.cwd ?? s.folder;
    if (needle && ![s.title, project, s.id, s.model ?? ''].some((t) => t.toLowerCase().includes(needle))) continue;
    let g = groups.get(project);
    if (!g) groups.set(project, (g = []));
    g.push(s);
  }
  const list = [...groups].map(([project, ss]) => ({ project, sessions: ss }));
  list.sort((a, b) => Number(b.project === first) - Number(a.project === first) || b.sessions[0].mtimeMs - a.sessions[0].mtimeMs);
  return list;
}
