// Fork From Before This Compaction: undo a compaction the agent made by itself (an idle or auto compaction that
// discarded working context) without touching the session it made it in. Claude Code appends a compaction to the
// session file: every line written before its compact boundary is the session as it was just before it, its chain
// intact up to the last message the compaction summarized. So the fork is those lines, byte for byte, as a new
// session beside the original (`<new-uuid>.jsonl`, which `claude --resume <uuid>` opens; the agent writes the new id
// on the lines it appends), or, where the lines after that last message would make Claude Code resume from one that
// leaves it out (an attachment or a hook's progress line hanging off the turn before), the lines up to that message
// (forkPoint, which also decides whether the boundary row offers the fork). Our usual safety: the original is read
// under its lock and never written; the fork is written to a temporary file, checked as Claude Code will rebuild it
// (API-valid, carrying that last message), and only then given its name; a file changed meanwhile is refused.
import { randomUUID } from 'node:crypto';
import { chmod, open, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { agentCompactions, type AgentCompaction } from '../agentCompactions';
import type { Analysis } from '../analysis';
import { buildChainWithTables } from '../chain';
import { chainLoaderOf, unsupported } from '../formats/registry';
import type { TranscriptIndex } from '../transcript';
import { commitOutput } from '../io/commit';
import { acquireLock } from '../io/lock';
import { writeTemp } from '../io/atomic';
import { resumeFields } from '../resume';
import type { AgentId } from '../formats/registry';
import { CompactError } from '../errors';
import { checkResumable } from '../compact/validate';
import { inspectFile, readSessionIndex } from '../inspect';
import { activeRegion, diagnose } from './doctor';
import type { Entry } from '../entries';
import { readSessionInfo } from '../session';

export interface ForkBeforeResult {
  /** The new session file. */
  output: string;
  sessionId: string;
  /** The compaction the fork undoes. */
  compaction: AgentCompaction;
  /** Lines copied (every line before the boundary, or up to the last message before it: see forkPoint). */
  lines: number;
  /** Messages the resumed fork sends (as Claude Code rebuilds it), and their estimated tokens. */
  messages: number;
  /** The share of the conversation's messages resume loads (doctor's figure; below 1 when a link was broken before). */
  reachability: number;
  estimatedTokens: number;
  resumeAgent: AgentId;
  resumeCommand: string | null;
  resumeProblem?: string;
}

/**
 * Where a fork before one compaction ends, or why there is none. One function decides both what Fork From Before This
 * Compaction writes and whether it is offered (the Rounds tree's boundary row), so it is never offered and then
 * refused.
 */
export type ForkPoint =
  | {
      ok: true;
      compaction: AgentCompaction;
      /** The fork is the file's first `bytes` bytes: its lines up to `lastLine`. */
      bytes: number;
      lastLine: number;
      /** The last message written before the boundary: the fork's conversation ends with it. */
      leaf: Entry;
    }
  | {
      ok: false;
      compaction: AgentCompaction | undefined;
      code: 'unsupported-format' | 'nothing-to-compact' | 'invalid-output';
      /** Why, in one sentence the user reads (on the boundary row, and in the refusal). */
      reason: string;
    };

const points = new WeakMap<Analysis, Map<number, ForkPoint>>();

/**
 * Where the fork before compaction `number` (1-based, as `inspect` and the Rounds tree number them) of the analysed
 * file ends: every line written before its boundary when Claude Code would resume those from the last message before
 * it (a line after that message, say a hook's progress line hanging off the call before it, can be the leaf Claude Code
 * resumes from and leave that message out), else the lines up to and including that message when they would; or why
 * neither would resume validly.
 */
export function forkPoint(analysis: Analysis, number: number): ForkPoint {
  let known = points.get(analysis);
  if (!known) points.set(analysis, (known = new Map<number, ForkPoint>()));
  let point = known.get(number);
  if (!point) known.set(number, (point = findForkPoint(analysis, number)));
  return point;
}

function findForkPoint(analysis: Analysis, number: number): ForkPoint {
  const { index } = analysis;
  const file = basename(index.path);
  const compactions = agentCompactions(analysis);
  const compaction = compactions.find((c) => c.number === number);
  const why = unsupported(index.format, 'forkBefore');
  if (why) return { ok: false, compaction, code: 'unsupported-format', reason: why };
  if (!compaction)
    return {
      ok: false,
      compaction,
      code: 'nothing-to-compact',
      reason: compactions.length
        ? `${file} has compactions 1 to ${compactions.length}, not ${number}`
        : `${file} records no compaction`,
    };
  const { entries } = index;
  const boundaryIndex = entries.findIndex((e) => e.line === compaction.line);
  // Where the fork's chain ends: the last message of the conversation written before the boundary (the leaf Claude
  // Code resumed from just before it compacted; its logicalParentUuid may name a line it never wrote).
  let leafIndex = -1;
  for (let i = boundaryIndex - 1; i >= 0 && leafIndex === -1; i--) {
    const e = entries[i];
    if ((e.kind === 'user' || e.kind === 'assistant') && !e.isSidechain) leafIndex = i;
  }
  if (boundaryIndex <= 0 || leafIndex === -1)
    return {
      ok: false,
      compaction,
      code: 'nothing-to-compact',
      reason: `compaction ${number} of ${file} has nothing before it to fork from`,
    };
  const leaf = entries[leafIndex];
  // Every line before the boundary; else the lines up to the leaf's (what follows it holds no message of the main
  // conversation: hook progress, turn durations, attachments, snapshots, sidechain lines).
  let afterLeaf = leafIndex + 1;
  while (afterLeaf < boundaryIndex && entries[afterLeaf].line === leaf.line) afterLeaf++;
  const ends = afterLeaf < boundaryIndex ? [boundaryIndex, afterLeaf] : [boundaryIndex];
  let first: string | null = null;
  for (const end of ends) {
    const prefix = prefixIndex(index, end);
    const problem = forkResumeProblem(prefix, leafIndex);
    if (problem === null)
      return { ok: true, compaction, bytes: entries[end].start, lastLine: entries[end].line - 1, leaf };
    first ??= problem;
  }
  return { ok: false, compaction, code: 'invalid-output', reason: `a fork would not resume validly: ${first}` };
}

/** The index of the file's lines before entry `end` (as if the file ended there). */
function prefixIndex(index: TranscriptIndex, end: number): TranscriptIndex {
  const { line, start } = index.entries[end];
  return {
    ...index,
    entries: index.entries.slice(0, end),
    malformed: index.malformed.filter((m) => m.line < line),
    lineCount: line - 1,
    consumedBytes: start,
    size: start,
    unterminatedTail: false,
    reader: null,
  };
}

/**
 * Why the session of `index` would not resume validly from its entry `leaf` as Claude Code loads it (its loader model:
 * the leaf it picks, the walk back, sibling recovery), or null when it would: the request it rebuilds is one the API
 * accepts, and it carries that entry (the last message before the compaction), so nothing of the conversation before
 * it is cut off at its end.
 */
function forkResumeProblem(index: TranscriptIndex, leaf: number): string | null {
  const report = diagnose(index);
  if (!report.apiValid) return 'the request Claude Code would rebuild from it would not be one the API accepts';
  const built = buildChainWithTables(index.entries, chainLoaderOf(index.format));
  const { region } = activeRegion(index.entries, built);
  if (built.chain.main.includes(leaf) && region.includes(leaf)) return null;
  const from = report.leafLine === null ? 'no line' : `line ${report.leafLine}`;
  return `Claude Code would resume it from ${from}, whose chain leaves out line ${index.entries[leaf].line}, the last message before the compaction`;
}

/**
 * Writes a new session holding the chain up to just before compaction `number` (1-based, as `inspect` and the Rounds
 * tree number them) of `file` (see forkPoint). Throws CompactError with what to do: no such compaction, a format it
 * does not write, a file changed while it was read, or a fork that would not resume validly (nothing written).
 */
export async function forkBeforeCompaction(file: string, number: number): Promise<ForkBeforeResult> {
  file = resolve(file);
  const analysis = await inspectFile(file, { subagents: false, appendable: false });
  const { format } = analysis.index;
  const point = forkPoint(analysis, number);
  if (!point.ok)
    throw new CompactError(
      point.code,
      point.code === 'invalid-output'
        ? `compaction ${number} of ${basename(file)}: ${point.reason}; nothing was written.`
        : `${point.reason.replace(/\.$/, '')}; nothing was written.`,
    );
  const { compaction, bytes, leaf } = point;
  const sessionId = randomUUID();
  const out = join(dirname(file), `${sessionId}.jsonl`);
  const lock = await acquireLock(file);
  try {
    const tmp = await writeTemp(out, prefixOf(file, bytes));
    try {
      await chmod(tmp, (await stat(file)).mode & 0o777);
      // As Claude Code will load it, the file written (the same check as forkPoint's, now on the bytes on disk). The
      // lines are the original's, byte for byte: a link the original had broken before its compaction stays as it
      // was, and doctor / repair see it.
      const written = await readSessionIndex(tmp);
      const leafAt = written.entries.findIndex((e) => e.line === leaf.line && e.part === leaf.part);
      const problem = leafAt === -1 ? `line ${leaf.line} was not read back` : forkResumeProblem(written, leafAt);
      if (problem !== null)
        throw new CompactError(
          'invalid-output',
          `the fork before compaction ${number} would not resume validly (${problem}); nothing was written.`,
        );
      const loaded = diagnose(written);
      const check = await checkResumable(tmp);
      await commitOutput(
        {
          file,
          tmp,
          mode: 'fork',
          out,
          readSize: analysis.index.size,
          readMtime: analysis.index.mtimeMs,
          writer: format.agent,
          task: 'compaction',
          progress: () => undefined,
        },
        [],
      );
      const { cwd } = await readSessionInfo(file, { projectFolder: basename(dirname(file)) });
      return {
        output: out,
        sessionId,
        compaction,
        lines: point.lastLine,
        messages: check.messages.length,
        reachability: loaded.reachability,
        estimatedTokens: check.estimatedTokens,
        ...resumeFields(format.id, cwd, sessionId),
      };
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
  } finally {
    await lock.release();
  }
}

/** The first `bytes` bytes of `file`, in chunks; refuses a file that became shorter. */
async function* prefixOf(file: string, bytes: number): AsyncGenerator<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let pos = 0; pos < bytes;) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, bytes - pos), pos);
      if (bytesRead === 0)
        throw new CompactError('changed-on-disk', `${basename(file)} shrank while it was read; nothing was written.`);
      yield buf.subarray(0, bytesRead);
      pos += bytesRead;
    }
  } finally {
    await fh.close();
  }
}
