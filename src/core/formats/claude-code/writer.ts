// Writing a compacted Claude Code transcript: the original's lines untouched (or none, for a fresh file), then a
// compact_boundary, the summary as an isCompactSummary message and the kept rounds re-linked with fresh ids
// (compact/writeback.ts), checked the way Claude Code rebuilds it on resume (compact/validate.ts). A fork is
// `<new-id>.jsonl` beside the original: Claude Code finds a session by its file name.
import { basename, dirname, resolve } from 'node:path';
import type { Analysis } from '../../analysis';
import { streamOutput } from '../../compact/outputFiles';
import { loadEntryObjects } from '../../lines';
import { CompactError } from '../../errors';
import { checkResumable } from '../../compact/validate';
import { buildAppendedLines } from '../../compact/writeback';
import { readSessionInfo, sessionIdFromFile } from '../../session';
import type { AgentWriter, BuiltOutput, PreparedOutput, WriteInput } from '../writer';

/** The lines appended after the original's, and the folder the session is resumed in. */
async function appendedLines(
  file: string,
  prepared: PreparedOutput,
  newSessionId: string | undefined,
): Promise<ReturnType<typeof buildAppendedLines> & { cwd: string | null }> {
  const { analysis, readSize, details, made, summary, objects } = prepared;
  const plan = details.plan;
  const lastPrompt = await lastPromptOf(file, analysis);
  // Where the session was started (the folder that names its project folder), not where its last command ran.
  const { cwd } = await readSessionInfo(file, { projectFolder: basename(dirname(resolve(file))) });
  const seed = `${basename(file)}:${readSize}:${analysis.chain.leaf >= 0 ? analysis.index.entries[analysis.chain.leaf].uuid : ''}:${JSON.stringify(plan.settings)}:${newSessionId ?? ''}`;
  const built = buildAppendedLines({
    analysis,
    details,
    summary,
    protectedChars: made.protectedChars,
    verbatimContent: made.verbatimContent,
    sessionId: newSessionId,
    objects,
    seed,
    preTokens: plan.preTokens,
    postTokens: plan.postTokens,
    lastPrompt,
    now: new Date(),
  });
  return { ...built, cwd };
}

/** Checks the written Claude Code temp file resumes; problems other than being over the target refuse it. */
async function checkClaudeOutput(
  tmp: string,
  prepared: PreparedOutput,
  leafUuid: string,
  fresh: boolean,
): Promise<{ estimatedTokens: number; overTarget: boolean }> {
  const { analysis, readSize, details } = prepared;
  const plan = details.plan;
  const check = await checkResumable(tmp, {
    targetTokens: plan.messageTarget,
    calibration: details.calibration,
    announcedNow: details.announced,
    expectLeaf: leafUuid,
    expectSummaryFirst: true,
    prefix: fresh ? undefined : { index: analysis.index, bytes: readSize },
  });
  const fatal = check.problems.filter((p) => !/over the .*target/.test(p));
  if (fatal.length)
    throw new CompactError(
      'invalid-output',
      `The compacted transcript failed validation, so nothing was written: ${fatal.slice(0, 3).join('; ')}`,
    );
  return { estimatedTokens: check.estimatedTokens, overTarget: fatal.length < check.problems.length };
}

async function lastPromptOf(file: string, analysis: Analysis): Promise<{ text: string | null } | null> {
  const entries = analysis.index.entries;
  let at = -1;
  for (let i = entries.length - 1; i >= 0; i--)
    if (entries[i].kind === 'last-prompt') {
      at = i;
      break;
    }
  if (at < 0) return null;
  const lp = (await loadEntryObjects(file, entries, [at])).get(at);
  return { text: typeof lp?.lastPrompt === 'string' ? lp.lastPrompt : null };
}

export const claudeWriter: AgentWriter<null> = {
  writerName: 'an agent',
  forkPattern: '<new-id>.jsonl',
  prepare: () => Promise.resolve(null),
  naming: (given) => ({ inPlaceId: sessionIdFromFile(given), forkName: (id) => `${id}.jsonl`, outGetsNewId: false }),
  async build({ file, prepared, target, output }: WriteInput<null>): Promise<BuiltOutput> {
    const built = await appendedLines(file, prepared, target.newSessionId);
    const appended = prepared.rawBytes.encode(built.lines.join('\n') + '\n');
    const notes = prepared.rawBytes.lossy
      ? [
          `${prepared.rawBytes.escapedLines} kept line(s) hold bytes that are not UTF-8 beside text that looks like an escaped byte, so those bytes were written as U+FFFD`,
        ]
      : [];
    const fresh = output.fresh === true;
    return {
      chunks: streamOutput(file, prepared.readSize, appended, fresh),
      check: (tmp) => checkClaudeOutput(tmp, prepared, built.leafUuid, fresh),
      cwd: built.cwd,
      summary: built.summary,
      notes,
    };
  },
};
