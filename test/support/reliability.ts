// Helpers shared by the reliability suites (fuzz, crash, failing API, paths, secrets):
// a seeded PRNG, directory snapshots, a hand-made transcript builder, and time guards.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Seeded PRNG (mulberry32): the same seed gives the same mutations on every machine. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 1;
  }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

export interface FileState {
  type: 'file' | 'dir' | 'symlink' | 'other';
  size: number;
  sha256?: string;
  link?: string;
  mode: number;
}

/** Every path under `root` (recursive, symlinks not followed) with a content hash. */
export function snapshotDir(root: string): Map<string, FileState> {
  const out = new Map<string, FileState>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      const rel = relative(root, full);
      const st = lstatSync(full);
      if (st.isSymbolicLink())
        out.set(rel, { type: 'symlink', size: st.size, link: readlinkSync(full), mode: st.mode });
      else if (st.isDirectory()) {
        out.set(rel, { type: 'dir', size: 0, mode: st.mode });
        walk(full);
      } else if (st.isFile()) out.set(rel, { type: 'file', size: st.size, sha256: sha256File(full), mode: st.mode });
      else out.set(rel, { type: 'other', size: st.size, mode: st.mode });
    }
  };
  if (existsSync(root)) walk(root);
  return out;
}

export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export interface SnapshotDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

export function diffSnapshots(before: Map<string, FileState>, after: Map<string, FileState>): SnapshotDiff {
  const added: string[] = [];
  const removed: string[] = [];
  const changed: string[] = [];
  for (const [k, v] of after) {
    const b = before.get(k);
    if (!b) added.push(k);
    else if (
      b.type !== v.type ||
      b.sha256 !== v.sha256 ||
      b.link !== v.link ||
      b.size !== v.size ||
      (b.type === 'file' && b.mode !== v.mode)
    )
      changed.push(k);
  }
  for (const k of before.keys()) if (!after.has(k)) removed.push(k);
  return { added: added.sort(), removed: removed.sort(), changed: changed.sort() };
}

/** Rejects with a clear message when `p` does not settle within `ms` (a hang). */
export async function withTimeout<T>(p: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`HANG: ${label} did not settle within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------
// A hand-made Claude Code transcript: N rounds of prompt → tool_use → tool_result → answer.

export interface BuildOptions {
  rounds?: number;
  sessionId?: string;
  /** tool_use_id of each round's tool call (default `toolu_<n>`). */
  toolId?: (round: number) => string;
  /** Characters of each round's tool result (default 400). */
  resultChars?: (round: number) => number;
  /** Characters of each prompt / answer (default 600), to reach a token size. */
  textChars?: number;
}

const FILLER = 'The quick brown fox jumps over the lazy dog while the compiler reports nothing unusual. ';
function filler(n: number, salt: string): string {
  let s = `${salt} `;
  while (s.length < n) s += FILLER;
  return s.slice(0, n);
}

/** Lines of a valid, linear transcript (every tool_use answered). */
export function buildTranscript(opts: BuildOptions = {}): string[] {
  const rounds = opts.rounds ?? 12;
  const sid = opts.sessionId ?? '11111111-2222-4333-8444-555555555555';
  const textChars = opts.textChars ?? 600;
  const lines: string[] = [];
  let parent: string | null = null;
  let n = 0;
  const ts = (k: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, k)).toISOString();
  const common = {
    isSidechain: false,
    sessionId: sid,
    cwd: '/home/u/project',
    version: '2.1.97',
    userType: 'external',
  };
  const push = (o: Record<string, unknown>) => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    lines.push(JSON.stringify({ parentUuid: parent, ...common, ...o, uuid, timestamp: ts(n) }));
    parent = uuid;
    return uuid;
  };
  let ctx = 3000;
  for (let r = 0; r < rounds; r++) {
    const toolId = opts.toolId ? opts.toolId(r) : `toolu_${String(r).padStart(4, '0')}`;
    const resultChars = opts.resultChars ? opts.resultChars(r) : 400;
    push({
      type: 'user',
      message: { role: 'user', content: filler(textChars, `Request ${r}: please look at file${r}.ts and fix it.`) },
    });
    const usage = (out: number) => ({
      input_tokens: 10,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: ctx,
      output_tokens: out,
    });
    push({
      type: 'assistant',
      requestId: `req_${r}a`,
      message: {
        id: `msg_${r}a`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'tool_use', id: toolId, name: 'Read', input: { file_path: `/home/u/project/file${r}.ts` } }],
        stop_reason: 'tool_use',
        usage: usage(40),
      },
    });
    ctx += Math.round(textChars / 4) + 40;
    push({
      type: 'user',
      message: {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: toolId, content: filler(resultChars, `contents of file${r}.ts`) },
        ],
      },
      toolUseResult: { type: 'text' },
    });
    ctx += Math.round(resultChars / 4);
    push({
      type: 'assistant',
      requestId: `req_${r}b`,
      message: {
        id: `msg_${r}b`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: filler(textChars, `Answer ${r}: fixed file${r}.ts.`) }],
        stop_reason: 'end_turn',
        usage: usage(150),
      },
    });
    ctx += Math.round(textChars / 4) + 150;
  }
  return lines;
}

/** Seconds with millisecond precision, for timing lines. */
export function secs(ms: number): string {
  return (ms / 1000).toFixed(2);
}

/**
 * A backup manifest (version 2) as someone planting one beside a backup would write it: the backup's true size and
 * sha256, which anyone holding the backup can compute, and the sidecar record `sidecars` (null: none).
 */
export function plantedManifest(backup: string, sidecars: object | null): string {
  const bytes = readFileSync(backup);
  return JSON.stringify({ version: 2, backup: { size: bytes.length, sha256: sha256(bytes) }, sidecars });
}
