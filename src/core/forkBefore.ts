// Fork From Before This Compaction: undo a compaction the agent made by itself (an idle or auto compaction that
// discarded working context) without touching the session it made it in. Claude Code appends a compaction to the
// session file: every line written before its compact boundary is the session as it was just before it, its chain
// intact up to the last message the compaction summarized. So the fork is those lines, byte for byte, as a new
// session beside the original (`<new-uuid>.jsonl`, which `claude --resume <uuid>` opens; the agent writes the new id
// on the lines it appends). Our usual safety: the original is read under its lock and never written; the fork is
// written to a temporary file, checked as Claude Code will rebuild it (API-valid, resuming from the leaf the
// compaction summarized), and only then given its name; a file changed meanwhile is
// refused.
import { randomUUID } from 'node:crypto';
import { chmod, open, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { agentCompactions, type AgentCompaction } from './agentCompactions';
import { commitOutput } from './io/commit';
import { acquireLock } from './io/lock';
import { writeTemp } from './io/atomic';
import { resumeFields } from './resume';
import type { AgentId } from './formats/registry';
import { CompactError } from './errors';
import { checkResumable } from './compact/validate';
import { inspectFile } from './inspect';
import { doctorFile } from './doctor';
import type { Entry } from './entries';
import { readSessionInfo } from './session';

export interface ForkBeforeResult {
  /** The new session file. */
  output: string;
  sessionId: string;
  /** The compaction the fork undoes. */
  compaction: AgentCompaction;
  /** Lines copied (every line before the boundary). */
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

/** Why a format gets no fork before a compaction, or null when it does. */
function refusal(formatId: string, agent: string): string | null {
  if (formatId === 'claude-code') return null;
  if (formatId === 'codex')
    return 'A Codex rollout keeps the items from before its compaction, so a fork before it is possible, but Agent Compactor does not write one yet (it would need the thread id rewritten in session_meta and in the file name). Nothing was written.';
  return `${agent} sessions are read-only here; nothing was written.`;
}

/**
 * Writes a new session holding the chain up to just before compaction `number` (1-based, as `inspect` and the Rounds
 * tree number them) of `file`. Throws CompactError with what to do: no such compaction, a format it does not write, a
 * file changed while it was read, or a fork that would not resume validly (nothing written).
 */
export async function forkBeforeCompaction(file: string, number: number): Promise<ForkBeforeResult> {
  file = resolve(file);
  const analysis = await inspectFile(file, { subagents: false, appendable: false });
  const { format } = analysis.index;
  const why = refusal(format.id, format.agent);
  if (why) throw new CompactError('unsupported-format', why);
  if (format.container !== 'jsonl')
    throw new CompactError(
      'unsupported-format',
      'This transcript is stored as one JSON array, not as JSON lines; nothing was written.',
    );
  const compactions = agentCompactions(analysis);
  const compaction = compactions.find((c) => c.number === number);
  if (!compaction)
    throw new CompactError(
      'nothing-to-compact',
      compactions.length
        ? `${basename(file)} has compactions 1 to ${compactions.length}, not ${number}; nothing was written.`
        : `${basename(file)} records no compaction; nothing was written.`,
    );
  const { entries } = analysis.index;
  const boundaryIndex = entries.findIndex((e) => e.line === compaction.line);
  const bytes = entries[boundaryIndex].start;
  // Where the fork's chain ends: the last message of the conversation written before the boundary (the leaf Claude
  // Code resumed from just before it compacted; its logicalParentUuid may name a line it never wrote).
  let leaf: Entry | undefined;
  for (let i = boundaryIndex - 1; i >= 0 && !leaf; i--) {
    const e = entries[i];
    if ((e.kind === 'user' || e.kind === 'assistant') && !e.isSidechain) leaf = e;
  }
  if (bytes === 0 || !leaf)
    throw new CompactError(
      'nothing-to-compact',
      `compaction ${number} of ${basename(file)} has nothing before it to fork from; nothing was written.`,
    );
  const sessionId = randomUUID();
  const out = join(dirname(file), `${sessionId}.jsonl`);
  const lock = await acquireLock(file);
  try {
    const tmp = await writeTemp(out, prefixOf(file, bytes));
    try {
      await chmod(tmp, (await stat(file)).mode & 0o777);
      // As Claude Code will load it: from that leaf, a request the API accepts. (The lines are the original's, byte
      // for byte: a link the original had broken before its compaction stays as it was, and doctor / repair see it.)
      const loaded = await doctorFile(tmp);
      if (!loaded.apiValid || loaded.leafLine !== leaf.line)
        throw new CompactError(
          'invalid-output',
          `the fork before compaction ${number} would not resume validly (${loaded.apiValid ? `it would resume from line ${loaded.leafLine}, not ${leaf.line}` : 'the rebuilt request would not be valid'}); nothing was written.`,
        );
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
        lines: entries[boundaryIndex - 1]?.line ?? 0,
        messages: check.messages.length,
        reachability: loaded.reachability,
        estimatedTokens: check.estimatedTokens,
        ...resumeFields('claude-code', cwd, sessionId),
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
