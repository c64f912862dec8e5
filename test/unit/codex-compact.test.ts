// Property test of Codex compaction over sequences of operations: every Codex fixture × targets, compacted to a fork
// and then the fork compacted again in place. After each step: the input is byte-identical (a fork) or kept as a
// backup (in place), the result is the input plus one `compacted` record (thread id renamed in a fork), the record's
// history starts with our summary and holds the kept items byte for byte with every call answered, and the resumed
// context is under the target unless the plan says why not.
import { strict as assert } from 'node:assert';
import { chmodSync, copyFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { compactFile, draftSummary } from '../../src/core/compact/compact';
import { pairCalls, rawPayload, unpairedCalls } from '../../src/core/formats/codex/writer';
import { CompactError, type CompactResult } from '../../src/core/compact/types';
import { SUMMARY_PREFIX } from '../../src/core/compact/summarize/prompt';
import { inspectFile } from '../../src/core/inspect';
import { agentFixtures } from '../support/fixtures';
import { tempDir } from '../support/temp';

const TARGETS = [30_000, 60_000];

/** Checks one compaction of `before` (the input's bytes) into `result`; returns the written record. */
async function checkStep(before: Buffer, result: CompactResult, threadId: string): Promise<Record<string, any>> {
  const out = readFileSync(result.output);
  const text = out.toString('utf8');
  const lastLine = text.trimEnd().split('\n').pop()!;
  const record = JSON.parse(lastLine);
  assert.equal(record.type, 'compacted');
  // The input, thread id renamed when the result has a new one, then the record.
  const renamed = result.sessionId === threadId ? out : Buffer.from(text.split(result.sessionId!).join(threadId));
  assert.ok(renamed.subarray(0, before.length).equals(before), 'the result does not start with the input');
  assert.equal(
    out.length,
    before.length + (before[before.length - 1] === 10 ? 0 : 1) + Buffer.byteLength(lastLine) + 1,
  );
  // Our summary first, then the kept items, each the exact bytes of a line of the input (or an added "aborted" output).
  const history = record.payload.replacement_history as Record<string, any>[];
  assert.ok(history[0].content[0].text.startsWith(SUMMARY_PREFIX));
  const raw = rawPayload(lastLine)!;
  const source = before.toString('utf8');
  for (const item of history.slice(1)) {
    const bytes = JSON.stringify(item);
    assert.ok(
      source.includes(bytes) || item.output === 'aborted' || raw.includes(bytes),
      `a kept item is not copied verbatim: ${bytes.slice(0, 120)}`,
    );
  }
  assert.deepEqual(unpairedCalls(history), []);
  // Read back: a Codex rollout whose active context starts at our record and fits the target (or the plan says not).
  const reread = await inspectFile(result.output, { subagents: false });
  assert.equal(reread.report.format.id, 'codex');
  const lastBoundary = reread.report.compactBoundaries[reread.report.compactBoundaries.length - 1];
  assert.equal(lastBoundary.line, reread.index.lineCount);
  const active = reread.report.rounds.filter((r) => r.inContext);
  assert.ok(
    active.length >= 1 && active.every((r) => r.firstLine === reread.index.lineCount),
    'the active context is our record alone',
  );
  assert.equal(
    active.filter((r) => r.messageId !== null).length,
    new Set(active.map((r) => r.messageId).filter(Boolean)).size,
  );
  const over = result.plan.notes.some((n) => /over the target|cannot reach/.test(n));
  if (!over)
    assert.ok(
      result.postTokens <= result.plan.messageTarget,
      `${result.postTokens} tokens over the ${result.plan.messageTarget}-token transcript target`,
    );
  assert.ok(result.postTokens < result.preTokens);
  return record;
}

describe('Codex compaction: every fixture × targets, fork then in place', function () {
  this.timeout(300_000);
  let dir: string;
  beforeEach(() => (dir = tempDir('ac-codex-')));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const source of agentFixtures('codex')) {
    for (const target of TARGETS) {
      it(`${basename(source)} at ${target} tokens`, async () => {
        const file = join(dir, basename(source));
        copyFileSync(source, file);
        chmodSync(file, 0o644);
        const original = readFileSync(file);
        const meta = JSON.parse(original.toString('utf8').split('\n', 1)[0]);
        const threadId: string = meta.payload.id;

        // Step 1: a fork, the original untouched.
        let fork: CompactResult;
        try {
          fork = await compactFile(file, { summarizer: 'extractive', settings: { targetTokens: target } });
        } catch (err) {
          // Only a session already within the target may be refused, and then nothing is written.
          assert.ok(err instanceof CompactError && err.code === 'nothing-to-compact', String(err));
          assert.deepEqual(readdirSync(dir), [basename(source)]);
          return;
        }
        assert.ok(readFileSync(file).equals(original), 'the original changed');
        assert.equal(fork.mode, 'fork');
        assert.ok(basename(fork.output).endsWith(`-${fork.sessionId}.jsonl`));
        assert.notEqual(fork.sessionId, threadId);
        const forkMeta = JSON.parse(readFileSync(fork.output, 'utf8').split('\n', 1)[0]);
        assert.equal(forkMeta.payload.id, fork.sessionId);
        await checkStep(original, fork, threadId);

        // Step 2: the fork compacted again in place with a smaller target; a backup holds what it was.
        const forkBytes = readFileSync(fork.output);
        let again: CompactResult;
        try {
          again = await compactFile(fork.output, {
            summarizer: 'extractive',
            inPlace: true,
            settings: { targetTokens: Math.round(target / 2), keepRecentTokens: Math.round(target / 6) },
          });
        } catch (err) {
          assert.ok(err instanceof CompactError && err.code === 'nothing-to-compact', String(err));
          assert.ok(readFileSync(fork.output).equals(forkBytes));
          return;
        }
        assert.equal(again.output, fork.output);
        assert.ok(again.backup && readFileSync(again.backup).equals(forkBytes), 'the backup is not the fork as it was');
        await checkStep(forkBytes, again, fork.sessionId!);
        if (process.env.AC_VERBOSE) console.log(`      ${fork.preTokens} → ${fork.postTokens} → ${again.postTokens}`);
      });
    }
  }

  it("the offline summary of a Codex rollout keeps its Codex facts: patched files (named from the session's folder), failed commands, open plan steps", async () => {
    const facts = async (name: string, targetTokens: number) => {
      const file = join(dir, name);
      copyFileSync(
        agentFixtures('codex').find((f) => f.endsWith(name))!,
        file,
      );
      const draft = await draftSummary(file, { summarizer: 'extractive', settings: { targetTokens } });
      assert.ok(draft.fidelity, 'no fidelity report');
      return { draft, counts: draft.fidelity.categories };
    };
    const a = await facts('rollout-0.140.jsonl', 60_000);
    assert.ok(
      a.counts.files.total >= 4 && a.counts.todos.total >= 1 && a.counts.failedCommands.total >= 1,
      JSON.stringify(a.counts),
    );
    assert.equal(
      a.draft.fidelity!.kept,
      a.draft.fidelity!.total,
      a.draft.fidelity!.missing.map((m) => m.label).join('; '),
    );
    // 0.119 patches files by absolute path inside the session's folder: the summary names them from the folder.
    const b = await facts('rollout-0.119-compacted-images.jsonl', 30_000);
    assert.ok(b.counts.files.total >= 1, JSON.stringify(b.counts));
    assert.match(b.draft.summary, /## Files edited or written\n- src\//);
    assert.doesNotMatch(
      b.draft.summary,
      /Files edited or written\n- \/Users\/savekirk\/dev\/ai\/entire\/session-bridge\//,
    );
  });

  it('pairs calls as Codex does: an unanswered call gets an "aborted" output, an output without its call is left out', () => {
    const items = [
      { type: 'function_call_output', call_id: 'gone', output: 'x' },
      { type: 'function_call', call_id: 'a', name: 'f', arguments: '{}' },
      { type: 'function_call', call_id: 'b', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'b', output: 'ok' },
    ];
    const out = pairCalls(
      items,
      items.map((i) => JSON.stringify(i)),
    );
    assert.deepEqual(
      out.items.map((i) => `${i.type as string}:${i.call_id as string}`),
      ['function_call:a', 'function_call_output:a', 'function_call:b', 'function_call_output:b'],
    );
    assert.deepEqual(unpairedCalls(out.items), []);
    assert.equal(out.notes.length, 2);
  });
});
