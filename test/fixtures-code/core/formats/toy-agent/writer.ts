// Writing a compacted Toy Agent session (its AgentWriter, registered in formats/writers.ts). The pipeline (plan,
// decisions, summary, checks, sidecars, commit, undo) is compact.ts's, the same for every agent; this says how a
// toy session is written back: the original's lines untouched (a fork: a new head instead), then one `compaction`
// record holding the summary, then copies of the kept rounds' records.
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import type { Analysis } from '../../analysis';
import { streamOutput } from '../../compact/outputFiles';
import { CompactError } from '../../errors';
import { analyze } from '../../inspect';
import { str } from '../../json';
import { loadEntryObjects } from '../../lines';
import { indexTranscript, UNCAPPED } from '../../transcript';
import type { AgentWriter, BuiltOutput, WriteInput } from '../writer';

/** What the output needs from the file: the session's id, folder and version, from its head. */
export interface ToyFacts {
  sessionId: string;
  cwd: string | null;
  version: string | null;
}

async function toyFacts(file: string, analysis: Analysis): Promise<ToyFacts> {
  const entries = analysis.index.entries;
  const at = entries.findIndex((e) => e.kind === 'session');
  const head = at >= 0 ? (await loadEntryObjects(file, entries, [at])).get(at) : undefined;
  const sessionId = str(head, 'id');
  if (!sessionId)
    throw new CompactError('invalid-output', `${basename(file)} has no session head with an id; nothing was written.`);
  return { sessionId, cwd: str(head, 'cwd') ?? null, version: str(head, 'version') ?? null };
}

/**
 * The kept rounds' records as lines after the compaction `by`: each under a fresh id (the engine groups a response's
 * records by their message id across the whole file, so a copy under its original's id would join the original's
 * round before the compaction) and without its usage (what was paid for it is the original's, and it describes the
 * context before the compaction); an earlier compaction's summary kept as a summary message.
 */
async function keptLines(file: string, analysis: Analysis, kept: readonly number[], by: string): Promise<string[]> {
  const entries = analysis.index.entries;
  const wanted = kept.flatMap((ri) => analysis.rounds[ri].entries).filter((i) => entries[i].uuid !== undefined);
  const records = await loadEntryObjects(file, entries, wanted);
  const lines: string[] = [];
  for (const i of wanted) {
    const record = records.get(i);
    // The record's own id (before any earlier copy's `@`), then this compaction's.
    const id = `${(str(record, 'id') ?? 'record').split('@')[0]}@${by}`;
    if (record?.toy === 'message') {
      const { usage: _paid, ...copy } = record;
      lines.push(JSON.stringify({ ...copy, id }));
    } else if (record?.toy === 'compaction' && entries[i].kind === 'user')
      lines.push(
        JSON.stringify({ toy: 'message', role: 'user', id, text: str(record, 'summary') ?? '', summary: true }),
      );
  }
  return lines;
}

/** Checks the written file as the toy agent reads it: its compaction last, the kept tool calls answered. */
async function checkToyOutput(tmp: string, compactionLine: number): Promise<number> {
  const index = await indexTranscript(tmp, UNCAPPED);
  const problems: string[] = [];
  // A string: the id is registered only in the copy the test builds (kept here, the type knows the others only).
  const agent: string = index.format.id;
  if (agent !== 'toy-agent') problems.push('the result is not read as a Toy Agent session');
  const boundaries = index.entries.filter((e) => e.kind === 'system' && e.subtype === 'compact_boundary');
  if (boundaries.at(-1)?.line !== compactionLine) problems.push(`line ${compactionLine} is not read as the compaction`);
  const analysis = analyze(index);
  const active = analysis.rounds.filter((r) => r.inContext);
  const calls = new Set(active.flatMap((r) => r.toolUses.map((u) => u.id)));
  const orphans = active.flatMap((r) => r.toolResults).filter((t) => !calls.has(t.id));
  if (orphans.length) problems.push(`tool results without their calls: ${orphans.map((t) => t.id).join(', ')}`);
  if (problems.length)
    throw new CompactError(
      'invalid-output',
      `The compacted session failed validation, so nothing was written: ${problems.join('; ')}`,
    );
  return analysis.report.rounds.filter((r) => r.inContext).reduce((s, r) => s + r.tokens.estimate, 0);
}

export const toyWriter: AgentWriter<ToyFacts> = {
  writerName: 'Toy Agent',
  forkPattern: '<new-id>.jsonl',
  prepare: toyFacts,
  // The toy agent finds a session by the id in its head: a fork and an `--out` file get a new one.
  naming: (_given, facts) => ({ inPlaceId: facts.sessionId, forkName: (id) => `${id}.jsonl`, outGetsNewId: true }),
  async build({ file, prepared, target, facts }: WriteInput<ToyFacts>): Promise<BuiltOutput> {
    const { analysis, details, summary } = prepared;
    const id = randomUUID();
    const kept = await keptLines(file, analysis, details.kept, id);
    const compaction = {
      toy: 'compaction',
      id,
      summary,
      trigger: 'agent-compactor',
      // The mark compact.ts's isOurOutput looks for: undo deletes a fork (and --out --force overwrites a file) only
      // when it holds it.
      compactor: 'agent-compactor',
    };
    const fork = target.newSessionId !== undefined;
    const head = fork
      ? [
          JSON.stringify({
            toy: 'session',
            id: target.newSessionId,
            cwd: facts.cwd,
            version: facts.version,
            forkOf: facts.sessionId,
          }),
        ]
      : [];
    const appended = [...head, JSON.stringify(compaction), ...kept].join('\n') + '\n';
    // The compaction's line: after the original's lines in place, after the new head in a fork.
    const compactionLine = fork ? 2 : analysis.index.lineCount + 1;
    return {
      chunks: streamOutput(file, prepared.readSize, Buffer.from(appended), fork),
      check: async (tmp) => {
        const estimatedTokens = await checkToyOutput(tmp, compactionLine);
        return { estimatedTokens, overTarget: estimatedTokens > details.plan.messageTarget };
      },
      cwd: facts.cwd,
      summary,
      // Nothing the plan's notes need: the toy's lines are written as they were read.
      notes: [],
    };
  },
};
