// Where a compaction's result goes: a fork beside the session (a new id), an explicit output path (never the original,
// an existing file only with force and only an earlier Agent Compactor output), or the original in place.
import { lstat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { OutputNaming, OutputTarget } from '../formats/writer';
import type { OutputOptions } from './options';
import { CompactError } from './types';
import { sameFile } from '../io/atomic';
import { sessionIdFromFile } from '../session';
import { fileChunks, openSidecar } from '../io/sidecarFiles';

/**
 * Where the result goes. `given` is the path the user named, which differs from `file` when it is a symbolic link:
 * the agent finds sessions where the link is (its folder, its name), so a fork goes beside the link, not beside the
 * link's target (which may be outside the agent's sessions folder), and in place the session keeps the link's id.
 */
export async function resolveOutput(
  file: string,
  given: string,
  options: OutputOptions,
  naming: OutputNaming,
): Promise<OutputTarget> {
  if (options.inPlace) return { out: file, mode: 'in-place', sessionId: naming.inPlaceId };
  if (options.out === undefined) {
    const id = randomUUID();
    return { out: join(dirname(given), naming.forkName(id)), mode: 'fork', sessionId: id, newSessionId: id };
  }
  const out = await checkOutputPath(options.out, file, options.force === true);
  if (!naming.outGetsNewId) return { out, mode: 'out', sessionId: sessionIdFromFile(out) };
  const id = randomUUID();
  return { out, mode: 'out', sessionId: id, newSessionId: id };
}

/**
 * An explicit output path, resolved, when it may be written: never the original, and an existing file only with
 * `force` and only when it is an earlier Agent Compactor output.
 */
export async function checkOutputPath(path: string, file: string, force: boolean): Promise<string> {
  const out = resolve(path);
  if (await sameFile(out, file))
    throw new CompactError(
      'unsafe-path',
      'The output would overwrite the original; use in-place mode (it keeps a backup) or another output path.',
    );
  const existing = await lstat(out).catch(() => null);
  if (existing) {
    if (!force)
      throw new CompactError(
        'exists',
        `${out} already exists; nothing was written. Choose another output path, or use --force to replace an earlier Agent Compactor output.`,
      );
    if (!existing.isFile() || !(await isOurOutput(out))) {
      throw new CompactError(
        'exists',
        `${out} exists and is not an Agent Compactor output, so it is not replaced even with --force; nothing was written.`,
      );
    }
  }
  return out;
}

/**
 * True when `path` is a regular file holding a compaction Agent Compactor wrote (Claude Code's compact_boundary or
 * Codex's compacted record, both marked so), streamed, never the whole file in memory; a link or anything else that
 * is not a regular file is refused (sidecarFiles.ts), false when nothing is there.
 */
export async function isOurOutput(path: string): Promise<boolean> {
  const needle = Buffer.from('"compactor":"agent-compactor"');
  const opened = await openSidecar(path);
  if (!opened) return false;
  try {
    let tail = Buffer.alloc(0);
    for await (const chunk of fileChunks(opened.fh)) {
      const buf = Buffer.concat([tail, chunk]);
      if (buf.includes(needle)) return true;
      tail = buf.subarray(Math.max(0, buf.length - needle.length));
    }
    return false;
  } finally {
    await opened.fh.close();
  }
}
