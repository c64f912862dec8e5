// Issue 33, Codex: every figure of a Codex compaction is this session's own (or, when it records none, its project's
// with the same Codex version), and says so.
import { strict as assert } from 'node:assert';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { codexAgentNowOf, codexResumeOverhead } from '../../src/core/formats/codex/agentNow';
import { countTokensInPieces } from '../../src/core/tokens/exact';
import { runCliInProcess } from '../support/cliInProcess';
import { agentFixtures } from '../support/fixtures';
import { tempDir } from '../support/temp';

const codexFixture = (name: string): string => agentFixtures('codex').find((f) => basename(f) === name)!;

/** The `session_meta` payload of a rollout (its first line). */
function metaOf(file: string): { id: string; cwd: string; cli_version: string } {
  const first = readFileSync(file, 'utf8').split('\n', 1)[0];
  return (JSON.parse(first) as { payload: { id: string; cwd: string; cli_version: string } }).payload;
}

/** Places `source` in a Codex sessions folder as Codex names it (`rollout-<time>-<id>.jsonl`, under its day). */
function place(sessions: string, source: string, day: string): string {
  const dir = join(sessions, ...day.split('-'));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `rollout-${day}T10-00-00-${metaOf(source).id}.jsonl`);
  copyFileSync(source, file);
  chmodSync(file, 0o644);
  return file;
}

describe("Codex's figures are the session's own (issue 33)", function () {
  this.timeout(300_000);
  let home: string;
  beforeEach(() => (home = tempDir('ac-codex-own-')));
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  for (const source of agentFixtures('codex')) {
    it(`${basename(source)}: a compaction's context after is the written fork's own figure (inspect), whatever another project's rollout records`, async () => {
      const sessions = join(home, '.codex', 'sessions');
      // A rollout of another project, newer than the session at hand: the newest in the user's sessions folder.
      const other = agentFixtures('codex').find((f) => metaOf(f).cwd !== metaOf(source).cwd)!;
      const file = place(sessions, source, '2026-06-01');
      place(sessions, other, '2026-11-26');
      const env = { HOME: home, CODEX_HOME: undefined, USERPROFILE: home };

      const run = await runCliInProcess(
        ['compact', '--json', '--summarizer', 'extractive', '--target-tokens', '60000', file],
        { env },
      );
      assert.equal(run.status, 0, run.stderr);
      const result = JSON.parse(run.stdout) as {
        output: string;
        delivered: { tokens: number };
        plan: { overheadFrom?: string; notes: string[] };
      };
      const said = [result.plan.overheadFrom ?? '', ...result.plan.notes].join('\n');
      assert.doesNotMatch(said, new RegExp(metaOf(other).id), "another project's rollout is never the reference");
      assert.match(result.plan.overheadFrom ?? '', /this session/, 'the text says which session the figure is from');

      const inspected = await runCliInProcess(['inspect', '--json', result.output], { env });
      assert.equal(inspected.status, 0, inspected.stderr);
      const fork = (JSON.parse(inspected.stdout) as { context: { tokens: number } }).context.tokens;
      const after = result.delivered.tokens;
      assert.ok(
        Math.abs(after - fork) <= 0.02 * fork,
        `the result says ${after} after, the fork's own figure (inspect) is ${fork}`,
      );
    });
  }

  it('without a first request of its own, a session takes the same project and Codex version, never another project', () => {
    const at = (f: string) => readFileSync(f, 'utf8').split('\n').slice(0, 4000);
    const ends = (file: string, lines: string[]) => ({ file, head: lines, tail: [] });
    const own = at(codexFixture('rollout-0.142.jsonl'));
    // The session at hand before its first answer was counted: its head holds no first request.
    const firstCount = own.findIndex((l) => l.includes('"token_count"') && l.includes('last_token_usage'));
    assert.ok(firstCount > 0);
    const young = own.slice(0, firstCount);
    const otherProject = ends('/s/other.jsonl', at(codexFixture('rollout-0.142-alpha-compacted.jsonl')));
    const otherVersion = ends('/s/older.jsonl', at(codexFixture('rollout-0.140.jsonl')));
    // Same project, same version: the session's own earlier copy (a fork shares its original's head).
    const sameBoth = ends('/s/copy.jsonl', own);
    assert.equal(
      codexAgentNowOf([otherProject, otherVersion], young),
      null,
      'another project, or the same project with another Codex version, is not the reference',
    );
    const now = codexAgentNowOf([otherProject, otherVersion, sameBoth], young)!;
    assert.ok(now, 'the same project and version is');
    assert.equal(now.sessionId, metaOf(codexFixture('rollout-0.142.jsonl')).id);
    assert.match(codexResumeOverhead(now, now.model).from, /this project/, 'and the text says so');
    // Its tools, instructions and context are the first request less the prompt the user typed (Codex's `user_message`
    // event): its AGENTS.md instructions are context Codex gives the thread, not lost between the two.
    const records = own
      .slice(0, firstCount + 1)
      .map((l) => JSON.parse(l) as { type: string; payload: Record<string, any> });
    const typed = records.find((r) => r.type === 'event_msg' && r.payload.type === 'user_message')!.payload
      .message as string;
    const input = records[firstCount].payload.info.last_token_usage.input_tokens as number;
    assert.ok(
      Math.abs(now.overheadTokens + now.contextTokens - (input - countTokensInPieces(typed))) <= 5,
      `${now.overheadTokens} + ${now.contextTokens} against ${input} less the typed prompt`,
    );
    // A session whose head holds its own first request is its own reference: nothing else is read as it.
    assert.equal(codexAgentNowOf([otherProject, otherVersion, sameBoth], own), null);
  });
});
