// Issue 33, items 2, 5 and 7: a session's cost is the responses its file itself received (a copy of another file's
// lines costs nothing of its own: a Codex fork, a fork before a compaction), plus what its agent paid for beside them
// (its subagents' responses, its own compactions' summary requests), one figure on every surface (the Sessions row,
// the Context Map, `inspect` and `inspect --json`), whose per-model shares add up to it. Sessions built from the
// shared fixtures.
import { strict as assert } from 'node:assert';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { analysisCost } from '../../src/core/contextMap';
import { forkBeforeCompaction } from '../../src/core/repair/forkBefore';
import { inspectFile } from '../../src/core/inspect';
import { sessionStats } from '../../src/core/sessionStats';
import { runCliInProcess } from '../support/cliInProcess';
import { agentFixtures, fixture } from '../support/fixtures';
import { tempDir } from '../support/temp';

const near = (a: number, b: number, what: string) =>
  assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b)), `${what}: ${a} != ${b}`);

/** The session's cost on every surface: the Sessions row, the map (the analysis's cost) and `inspect --json`. */
async function surfaces(file: string) {
  const row = await sessionStats(file);
  const map = analysisCost(await inspectFile(file));
  const run = await runCliInProcess(['inspect', '--json', file]);
  assert.equal(run.status, 0, run.stderr);
  const cli = (
    JSON.parse(run.stdout) as {
      cost: { total: { usd: number }; byModel: { model: string; usd: number }[]; copiedResponses: number };
    }
  ).cost;
  return { row, map, cli };
}

/** The one figure: the three surfaces agree, and each one's shares by model add up to it. */
async function oneFigure(file: string): Promise<Awaited<ReturnType<typeof surfaces>>> {
  const s = await surfaces(file);
  near(s.row.costUsd, s.map.total.usd, `${basename(file)}: the Sessions row and the map`);
  near(s.cli.total.usd, s.map.total.usd, `${basename(file)}: inspect --json and the map`);
  near(
    [...s.map.byModel.values()].reduce((a, c) => a + c.usd, 0),
    s.map.total.usd,
    `${basename(file)}: the map's shares by model`,
  );
  near(
    s.cli.byModel.reduce((a, m) => a + m.usd, 0),
    s.cli.total.usd,
    `${basename(file)}: inspect --json's byModel`,
  );
  return s;
}

/** The session id a Claude Code fixture's lines are written under (each of these fixtures has one). */
const claudeSessionOf = (text: string) => /"sessionId":"([0-9a-f-]{36})"/.exec(text)![1];

const FORK_ID = '01a22371-c138-7ab0-bb72-281195287584';
const FORKED_AT = '2026-11-28T18:36:27.320Z';

/**
 * A Codex fork of `original` as Codex CLI 0.169 writes a legacy thread's (observed with `codex exec fork` on
 * rollout-0.140.jsonl): its own session_meta naming `forked_from_id`, then every record of the original as it was.
 */
function codexFork(originalText: string, ownTurn: string[] = []): string {
  const originalId = (JSON.parse(originalText.split('\n')[0]) as { payload: { id: string } }).payload.id;
  const meta = JSON.stringify({
    timestamp: FORKED_AT,
    type: 'session_meta',
    payload: {
      id: FORK_ID,
      forked_from_id: originalId,
      timestamp: FORKED_AT,
      cwd: '/work/p',
      originator: 'codex_exec',
      cli_version: '0.169.0',
      source: 'exec',
    },
  });
  return [meta, ...originalText.trimEnd().split('\n'), ...ownTurn].join('\n') + '\n';
}

/** A turn the fork made itself, as 0.169 writes one (its records name the thread; the turn starts after the fork). */
function codexOwnTurn(model: string): string[] {
  const at = '2026-11-28T18:40:00.000Z';
  const rec = (type: string, payload: Record<string, unknown>) => JSON.stringify({ timestamp: at, type, payload });
  const usage = { input_tokens: 48_000, cached_input_tokens: 40_000, output_tokens: 900, reasoning_output_tokens: 300 };
  return [
    rec('event_msg', { type: 'thread_settings_applied', thread_id: FORK_ID, thread_settings: { model } }),
    rec('event_msg', { type: 'task_started', turn_id: 't-own', started_at: Date.parse(at) / 1000 }),
    rec('turn_context', { turn_id: 't-own', cwd: '/work/p', model }),
    rec('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'and now?' }] }),
    rec('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] }),
    rec('event_msg', {
      type: 'token_count',
      info: { last_token_usage: { ...usage, total_tokens: 48_900 }, total_token_usage: { total_tokens: 99_999_999 } },
    }),
    rec('event_msg', { type: 'task_complete', turn_id: 't-own' }),
  ];
}

describe('a session costs the responses its own file received (issue 33, item 2)', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = tempDir('ac-cost-copies-')));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const original of agentFixtures('codex')) {
    it(`a Codex fork of ${basename(original)} that made no request costs $0 on every surface; its original keeps its cost`, async () => {
      const text = readFileSync(original, 'utf8');
      const fork = join(dir, `rollout-2026-11-28T18-36-27-${FORK_ID}.jsonl`);
      writeFileSync(fork, codexFork(text));
      const theirs = analysisCost(await inspectFile(original));
      assert.ok(theirs.total.usd > 0, 'the original has a cost');
      const s = await oneFigure(fork);
      assert.equal(s.map.total.usd, 0, `the fork made no request: ${s.map.total.usd}`);
      assert.equal(s.map.responses.size, 0);
      assert.equal(s.map.copiedResponses, theirs.responses.size, "every response is the original's");
      assert.equal(s.cli.copiedResponses, theirs.responses.size);
    });

    it(`a Codex fork of ${basename(original)} with a turn of its own costs that turn: original + fork = the whole conversation, each response once`, async () => {
      const text = readFileSync(original, 'utf8');
      const model = 'gpt-5.4';
      const fork = join(dir, `rollout-2026-11-28T18-36-27-${FORK_ID}.jsonl`);
      writeFileSync(fork, codexFork(text, codexOwnTurn(model)));
      // The same conversation in one file: the original's records, then the turn.
      const whole = join(dir, 'whole.jsonl');
      writeFileSync(whole, text.trimEnd() + '\n' + codexOwnTurn(model).join('\n') + '\n');
      const theirs = analysisCost(await inspectFile(original)).total.usd;
      const all = analysisCost(await inspectFile(whole)).total.usd;
      const s = await oneFigure(fork);
      assert.ok(s.map.total.usd > 0, 'its own turn has a cost');
      assert.equal(s.map.responses.size, 1, 'one response of its own');
      near(theirs + s.map.total.usd, all, 'original + fork');
    });
  }

  it('a fork before a compaction (Claude Code) costs $0 until it is resumed; the original keeps its cost', async () => {
    const text = readFileSync(fixture('with-compactions.jsonl'), 'utf8');
    const id = claudeSessionOf(text);
    const original = join(dir, `${id}.jsonl`);
    writeFileSync(original, text);
    const before = await oneFigure(original);
    assert.ok(before.map.total.usd > 0);
    const fork = await forkBeforeCompaction(original, 1);
    const copied = await oneFigure(fork.output);
    assert.equal(copied.map.total.usd, 0, `the fork made no request: ${copied.map.total.usd}`);
    assert.equal(copied.row.costUsd, 0);
    assert.equal(copied.cli.total.usd, 0);
    assert.ok(copied.map.copiedResponses > 0, 'its responses are counted as copies');
    const after = await oneFigure(original);
    near(after.map.total.usd, before.map.total.usd, 'the original');

    // Resumed: Claude Code appends its turns under the fork's id (the file's name). Those are the fork's cost: here the
    // original's turns after its compaction, appended again under the fork's id, so the fork now costs what the
    // original's file cost beyond the lines the fork copied.
    const lines = text.trimEnd().split('\n');
    const boundary = lines.findIndex((l) => l.includes('"subtype":"compact_boundary"'));
    const tail = lines
      .slice(boundary + 1)
      .map((l) => l.replaceAll(`"sessionId":"${id}"`, `"sessionId":"${fork.sessionId}"`));
    writeFileSync(fork.output, readFileSync(fork.output, 'utf8') + tail.join('\n') + '\n');
    const prefix = join(dir, 'prefix.jsonl');
    writeFileSync(prefix, lines.slice(0, boundary).join('\n') + '\n');
    const prefixCost = analysisCost(await inspectFile(prefix)).total.usd;
    const resumed = await oneFigure(fork.output);
    assert.ok(resumed.map.total.usd > 0);
    near(resumed.map.total.usd + prefixCost, before.map.total.usd, "the resumed fork's own + the copied lines'");
  });

  it('a copy of a session under another session file name costs nothing of its own', async () => {
    const text = readFileSync(fixture('v2.1.97-images.jsonl'), 'utf8');
    const copy = join(dir, '00000000-0000-4000-8000-000000000001.jsonl');
    writeFileSync(copy, text);
    const s = await oneFigure(copy);
    assert.equal(s.map.total.usd, 0);
    // Responses, not lines: a response of several content blocks is written as several lines under one message id.
    const theirs = analysisCost(await inspectFile(fixture('v2.1.97-images.jsonl')));
    assert.equal(s.map.copiedResponses, theirs.responses.size, "each of the original's responses, once");
    assert.equal(s.cli.copiedResponses, theirs.responses.size);
  });
});

describe("the Sessions row's cost is the session's: one figure, shares by model adding up to it (issue 33, item 5)", function () {
  this.timeout(120_000);
  it('a session with a subagent on another model: the row, the map and inspect agree, and byModel adds up to the total', async () => {
    const dir = tempDir('ac-cost-row-');
    try {
      const text = readFileSync(fixture('with-compactions.jsonl'), 'utf8');
      const id = claudeSessionOf(text);
      const main = join(dir, `${id}.jsonl`);
      writeFileSync(main, text);
      mkdirSync(join(dir, id, 'subagents'), { recursive: true });
      copyFileSync(fixture('v2.1.63-subagent.jsonl'), join(dir, id, 'subagents', 'agent-a5fbbcd7128650af3.jsonl'));
      const alone = analysisCost(await inspectFile(main, { subagents: false })).total.usd;
      const sub = analysisCost(await inspectFile(fixture('v2.1.63-subagent.jsonl'))).total.usd;
      assert.ok(sub > 0);
      const s = await oneFigure(main);
      near(s.map.total.usd, alone + sub, "the session's own responses and its subagent's");
      assert.ok(s.map.byModel.size >= 2, 'the subagent model has its share');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('what the agent paid for beside its responses: its own compaction (issue 33, item 7)', function () {
  this.timeout(120_000);
  const text = readFileSync(fixture('with-compactions.jsonl'), 'utf8');
  const lines = text.trimEnd().split('\n');
  const boundary = lines.findIndex((l) => l.includes('"subtype":"compact_boundary"'));
  const sessionId = claudeSessionOf(text);
  const model = 'claude-opus-4-5-20251101';
  /** A `cost-state` line as Claude Code 2.1.330 writes its running total (tokens and cost by model). */
  const costState = (usd: number, t: { input: number; output: number; cacheRead: number }) =>
    JSON.stringify({
      type: 'cost-state',
      sessionId,
      totalCostUSD: usd,
      modelUsage: {
        [model]: {
          inputTokens: t.input,
          outputTokens: t.output,
          cacheReadInputTokens: t.cacheRead,
          cacheCreationInputTokens: 0,
          costUSD: usd,
        },
      },
      hasUnknownModelCost: false,
    });
  let dir: string;
  beforeEach(() => (dir = tempDir('ac-cost-compaction-')));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("recorded on both sides of the boundary: counted in the total and in its model's share, and said beside the figure", async () => {
    // The running total before the boundary and after it, nothing between: the summary request read 150,000 tokens
    // from the cache and answered 2,000 (Opus 4.5's list prices: $0.50 and $25 per million, $0.075 + $0.05).
    const file = join(dir, `${sessionId}.jsonl`);
    writeFileSync(
      file,
      [
        ...lines.slice(0, boundary),
        costState(10, { input: 1000, output: 5000, cacheRead: 1_000_000 }),
        lines[boundary],
        costState(10.125, { input: 1000, output: 7000, cacheRead: 1_150_000 }),
        ...lines.slice(boundary + 1),
      ].join('\n') + '\n',
    );
    const plain = join(dir, 'plain.jsonl');
    writeFileSync(plain, text);
    const without = analysisCost(await inspectFile(plain)).total.usd;
    const s = await oneFigure(file);
    near(s.map.total.usd - without, (150_000 * 0.5 + 2_000 * 25) / 1e6, "the compaction's summary request");
    near(s.map.byModel.get(model)!.usd, s.map.total.usd, "its model's share counts it");
    const run = await runCliInProcess(['inspect', file]);
    assert.match(
      run.stdout,
      /Counted beside the file's responses: the agent's own compaction \(\$0\.1250: a summary request leaves no response line/,
    );
  });

  it("not recorded (no running total on both sides of it): both figures, and the compaction's line named as why they differ", async () => {
    const file = join(dir, `${sessionId}.jsonl`);
    const ours = analysisCost(await inspectFile(fixture('with-compactions.jsonl'))).total.usd;
    writeFileSync(file, text.trimEnd() + '\n' + costState(ours * 1.1, { input: 1, output: 1, cacheRead: 1 }) + '\n');
    const boundaryLine = boundary + 1;
    const row = await sessionStats(file);
    assert.deepEqual(row.unrecordedCompactions, [boundaryLine]);
    const run = await runCliInProcess(['inspect', file]);
    assert.match(
      run.stdout,
      new RegExp(
        `The agent recorded \\$\\d+\\.\\d+ for this session, ours is \\$\\d+\\.\\d+ \\(9% apart\\)\\. Its figure also counts the summary request of its compaction at line ${boundaryLine}, whose cost the file does not record`,
      ),
    );
  });
});
