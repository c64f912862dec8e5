// A Codex rollout is compacted as its plan says: the per-round steering flags `plan` shows are the ones `compact`
// applies (through the CLI as `agent-compactor` runs it, in this process, on a real rollout), the given summary is
// written verbatim, an in-place run leaves no saved decisions behind about content it replaced, --fresh is refused
// rather than ignored, and a preview choice that a Codex rollout cannot follow is said in the plan instead of shown as
// done.
import { strict as assert } from 'node:assert';
import { chmodSync, copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { rawPayload } from '../../src/core/formats/codex/writer';
import { chooseRounds, chooseToolResult, noDecisions } from '../../src/core/compact/decisions';
import { planCompaction } from '../../src/core/compact/plan';
import { loadDecisions, saveDecisions } from '../../src/core/compact/savedDecisions';
import { statePath } from '../../src/core/compact/state';
import { SUMMARY_PREFIX } from '../../src/core/compact/summarize/prompt';
import { CompactError, type CompactResult, type CompactionPlan } from '../../src/core/compact/types';
import { inspectFile, type Analysis } from '../../src/core/inspect';
import { agentFixtures } from '../support/fixtures';
import { runCliInProcess } from '../support/cliInProcess';
import { tempDir } from '../support/temp';

const ROLLOUT = agentFixtures('codex').find((f) => basename(f) === 'rollout-0.142.jsonl')!;

/** The verb without any Anthropic variable (runCliInProcess removes them; the bundle's own wiring: cli.test.ts). */
function run(args: string[]) {
  return runCliInProcess(args);
}

/** The compacted record our compaction appended (the written file's last line), with its raw text. */
function lastRecord(file: string): { line: string; record: Record<string, any> } {
  const line = readFileSync(file, 'utf8').trimEnd().split('\n').pop()!;
  return { line, record: JSON.parse(line) };
}

/** The raw payloads of a round's message lines in the original (what a kept round's items are copied from). */
function roundPayloads(file: string, analysis: Analysis, round: number): string[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  return analysis.rounds[round].entries
    .map((i) => analysis.index.entries[i])
    .filter((e) => (e.kind === 'user' || e.kind === 'assistant') && e.blocks.length > 0)
    .map((e) => rawPayload(lines[e.line - 1])!);
}

describe('Codex: compact applies the plan the user saw', function () {
  this.timeout(300_000);
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir('ac-codex-steer-');
    file = join(dir, basename(ROLLOUT));
    copyFileSync(ROLLOUT, file);
    chmodSync(file, 0o644);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('CLI: `plan` and `compact --json` agree on --keep, --drop and --summarize, and the file holds exactly the kept rounds', async () => {
    const analysis = await inspectFile(file, { subagents: false });
    const active = analysis.rounds.filter((r) => r.inContext).map((r) => r.index);
    const newest = active[active.length - 1];
    // Round 0 is the oldest (the plan alone would summarize it); the round before the newest would be kept.
    const steer = ['--target-tokens', '30000', '--keep', '0', '--drop', '5', '--summarize', String(newest - 1)];
    const shownRun = await run(['plan', file, ...steer, '--json']);
    assert.equal(shownRun.status, 0, shownRun.stderr);
    const shown = JSON.parse(shownRun.stdout) as CompactionPlan;
    const text = await run(['plan', file, ...steer]);
    assert.match(text.stdout, /^0 +3-7 +◆ keep \(you\)/m);
    const applied = await run(['compact', file, ...steer, '--json']);
    assert.equal(applied.status, 0, applied.stderr);
    const result = JSON.parse(applied.stdout) as CompactResult;

    const decided = (p: CompactionPlan) => p.rounds.filter((r) => r.by === 'user').map((r) => `${r.index}:${r.action}`);
    assert.deepEqual(decided(shown), ['0:keep', '5:drop', `${newest - 1}:summarize`]);
    assert.deepEqual(
      decided(result.plan),
      decided(shown),
      'compact applies the rounds the user decided as plan shows them',
    );

    const { line, record } = lastRecord(result.output);
    assert.equal(record.type, 'compacted');
    for (const p of roundPayloads(file, analysis, 0))
      assert.ok(line.includes(p), `kept round 0 is written verbatim: ${p.slice(0, 80)}`);
    for (const r of [5, newest - 1]) {
      for (const u of analysis.rounds[r].toolUses)
        assert.ok(
          !line.includes(JSON.stringify(u.id)),
          `round ${r} (${result.plan.rounds[r].action}) left its call ${u.id} out`,
        );
    }
    for (const r of result.plan.rounds.filter((x) => x.inContext && x.action === 'keep')) {
      for (const p of roundPayloads(file, analysis, r.index))
        assert.ok(line.includes(p), `kept round ${r.index} is written verbatim`);
    }
  });

  it('CLI: --summary-file is written verbatim as the summary', async () => {
    const summary = 'Summary by hand: ünïcödé ✓, "quoted" \\ text\nsecond line\n';
    const summaryFile = join(dir, 'summary.txt');
    writeFileSync(summaryFile, summary);
    const applied = await run(['compact', file, '--target-tokens', '30000', '--summary-file', summaryFile, '--json']);
    assert.equal(applied.status, 0, applied.stderr);
    const result = JSON.parse(applied.stdout) as CompactResult;
    assert.equal(result.summarizer, 'given');
    const { record } = lastRecord(result.output);
    assert.equal(record.payload.message, summary);
    assert.equal(record.payload.replacement_history[0].content[0].text, SUMMARY_PREFIX + summary);
  });

  it('in place: saved decisions are applied, then cleared with the rest of the state (the backup keeps them)', async () => {
    const saved = chooseRounds(noDecisions(), [0], 'keep');
    await saveDecisions(file, saved);
    const result = await compactFile(file, {
      summarizer: 'extractive',
      inPlace: true,
      settings: { targetTokens: 30_000 },
    });
    assert.equal(result.plan.rounds[0].by, 'user');
    assert.equal(result.plan.rounds[0].action, 'keep');
    assert.deepEqual(
      await loadDecisions(file),
      noDecisions(),
      'no saved decision is left about rounds the compaction replaced',
    );
    assert.equal(JSON.parse(readFileSync(statePath(file), 'utf8')).steering, undefined);
    assert.ok(result.backup);
    assert.deepEqual(await loadDecisions(result.backup), saved, 'the backup keeps the decisions it was compacted with');
  });

  it('--fresh is refused with a reason, and nothing is written', async () => {
    const before = readdirSync(dir);
    await assert.rejects(
      compactFile(file, { summarizer: 'extractive', fresh: true, settings: { targetTokens: 30_000 } }),
      (err: unknown) =>
        err instanceof CompactError &&
        err.code === 'unsupported-format' &&
        /fresh/.test(err.message) &&
        /Codex/.test(err.message),
    );
    assert.deepEqual(readdirSync(dir), before);
    assert.ok(!existsSync(statePath(file)));
  });

  it('a preview choice on a Codex tool output is a conflict in the plan, and the output is written whole', async () => {
    const analysis = await inspectFile(file, { subagents: false });
    // The newest round with a tool output: kept verbatim by the plan.
    const newest = analysis.rounds.filter((r) => r.inContext && r.toolResults.length > 0).pop()!;
    const id = newest.toolResults[0].id;
    const decisions = chooseToolResult(noDecisions(), id, 'preview');
    const plan = await planCompaction(analysis, { targetTokens: 30_000 }, undefined, decisions);
    assert.notEqual(plan.toolResults.find((t) => t.toolUseId === id)?.action, 'replaced');
    assert.deepEqual(
      plan.conflicts.map((c) => [c.round, c.decision]),
      [[newest.index, `replace tool result ${id} by a preview`]],
    );
    const result = await compactFile(file, { summarizer: 'extractive', decisions, settings: { targetTokens: 30_000 } });
    assert.deepEqual(result.plan.conflicts, plan.conflicts);
    const out = await inspectFile(result.output, { subagents: false });
    const written = out.rounds
      .filter((r) => r.inContext)
      .flatMap((r) => r.toolResults)
      .find((t) => t.id === id);
    assert.equal(written?.chars, newest.toolResults[0].chars, 'the tool output is written whole');
  });
});
