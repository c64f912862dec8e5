// Rounds and cost in the Sessions view: the figures (as the Rounds tree and the cost table compute them), the
// background queue that reads them one file at a time and keeps them while a file is unchanged, and the text the
// view shows for each state.
import { strict as assert } from 'node:assert';
import { appendFileSync, copyFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sessionCost, ZERO_COST } from '../../src/core/cost';
import { inspectFile } from '../../src/core/inspect';
import type { SessionSummary } from '../../src/core/sessionList';
import { summarizeSession } from '../../src/core/formats/claude-code/sessionSummary';
import { sessionStats, type SessionStats } from '../../src/core/sessionStats';
import { SessionStatsQueue } from '../../src/extension/model/sessionStatsQueue';
import { forkText, sessionNode, statsText, statsTooltip } from '../../src/extension/model/sessionsTree';
import { claudeFixtures, fixture } from '../support/fixtures';
import { tempDir } from '../support/temp';

describe('sessions view: rounds and cost', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => (dir = tempDir('ac-session-stats-')));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('every fixture: rounds as the Rounds tree counts them, cost as the cost table prices the file', async () => {
    for (const f of claudeFixtures()) {
      const s = await sessionStats(f);
      const a = await inspectFile(f, { subagents: false });
      assert.equal(s.rounds, a.report.totals.rounds, f);
      assert.equal(s.costUsd, sessionCost(a.index.entries).total.usd, f);
      assert.equal(s.size, statSync(f).size, f);
    }
    assert.ok(
      (await sessionStats(fixture('v2.1.97-live-after.jsonl'))).costUsd > 0,
      'a session with usage costs something',
    );
  });

  const summary = (file: string, live = false): Promise<SessionSummary> =>
    summarizeSession(file, 'folder', live ? statSync(file).mtimeMs : statSync(file).mtimeMs + 3_600_000);

  it('the queue reads wanted files one at a time, newest request first, keeps figures while the file is unchanged, and says why it has none', async () => {
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    const bad = join(dir, 'bad.jsonl');
    copyFileSync(fixture('example.jsonl'), a);
    copyFileSync(fixture('v2.1.97-live-after.jsonl'), b);
    writeFileSync(bad, 'not a transcript\n');
    const order: string[] = [];
    let running = 0;
    let most = 0;
    const queue = new SessionStatsQueue(
      async (file) => {
        running++;
        most = Math.max(most, running);
        try {
          return await sessionStats(file);
        } finally {
          running--;
        }
      },
      (file) => order.push(file),
    );
    const [sa, sb, sbad] = await Promise.all([summary(a), summary(b), summary(bad)]);
    assert.deepEqual(queue.state(sa), { kind: 'none' });
    queue.want([sa]);
    queue.want([sbad, sb]);
    assert.deepEqual(queue.state(sb), { kind: 'pending' });
    await queue.idle();
    assert.deepEqual(order, [a, bad, b], 'the first file was under way; the later request goes ahead of the rest');
    assert.equal(most, 1, 'one file at a time');
    const ready = queue.state(sb);
    assert.equal(ready.kind, 'ready');
    assert.equal((ready as { stats: SessionStats }).stats.rounds, (await sessionStats(b)).rounds);
    const failed = queue.state(sbad);
    assert.equal(failed.kind, 'failed');
    assert.match((failed as { reason: string }).reason, /not a JSONL transcript/);
    queue.want([sa, sb, sbad]);
    await queue.idle();
    assert.equal(order.length, 3, 'unchanged files are not read again');

    // The file grows: the old figures are shown, marked stale; while it is being written it is not read again.
    appendFileSync(a, readLastLine(a));
    const grownLive = await summary(a, true);
    assert.equal(grownLive.live, true);
    assert.equal((queue.state(grownLive) as { stale: boolean }).stale, true);
    queue.want([grownLive]);
    await queue.idle();
    assert.equal(order.length, 3, 'a live session is not re-read on every append');
    const quiet = await summary(a);
    queue.want([quiet]);
    await queue.idle();
    assert.equal(order.length, 4, 'read again once quiet');
    assert.deepEqual(queue.state(quiet), { kind: 'ready', stats: await sessionStats(a), stale: false });
  });

  it("a fork's line: the agent's own fork names it; copied lines claim no writer the file does not name", () => {
    const id = '302863af-1111-4111-8111-111111111111';
    assert.equal(
      forkText({ sessionId: id, by: 'agent' }, undefined, 'Claude Code'),
      `Fork of session ${id} (not found beside it), written by Claude Code. Open Original Session shows it.`,
    );
    const copied = forkText({ sessionId: id, by: 'compaction' }, undefined, 'Claude Code');
    assert.match(copied, new RegExp(`^Continues session ${id} \\(not found beside it\\): its first lines are copies`));
    assert.match(copied, /so does Claude Code continuing a session/);
    assert.doesNotMatch(copied, /^Fork of|written by a compaction/);
  });

  it('the text: description and tooltip for each state', () => {
    const s: SessionSummary = {
      file: '/p/x.jsonl',
      id: 'x',
      folder: 'f',
      cwd: '/p',
      title: 'Fix the build',
      size: 2_500_000,
      mtimeMs: Date.parse('2026-03-01T10:00:00Z'),
      contextTokens: 80_000,
      model: 'claude-sonnet-4-6',
      contextWindow: 200_000,
      live: false,
      forkOf: null,
    };
    const stats: SessionStats = {
      rounds: 12,
      costUsd: 1.234,
      unpriced: [],
      assumed: [],
      agent: null,
      fastUnknown: [],
      copiedResponses: 0,
      agentIncludesCopies: false,
      unanswered: { compactions: 0, compactionCost: ZERO_COST, subagentResponses: 0, subagentCost: ZERO_COST },
      unrecordedCompactions: [],
      priceDate: '2026-01-15',
      contextTokens: 80_000,
      contextSource: 'usage',
      calibration: 1,
      overhead: 10_000,
      model: 'claude-sonnet-4-6',
      limits: { format: 'claude-code', model: 'claude-sonnet-4-6', recordedWindow: null, autoCompactions: [] },
      cache: {
        status: 'unknown',
        reason: 'the record does not say',
        lastRequestAt: null,
        ttlMs: null,
        expiresAt: null,
        coveredTokens: 0,
        requestTokens: 0,
      },
      expiredResume: null,
      size: s.size,
      mtimeMs: s.mtimeMs,
    };
    const now = s.mtimeMs + 3 * 3_600_000;
    const ready = sessionNode(s, now, { kind: 'ready', stats, stale: false });
    // Fill and cost first, then the whole title: the tree cuts the end of a row at the side bar's width.
    assert.equal(ready.label, `40% · $1.23 · ${s.title}`);
    assert.equal(ready.description, '3 hours ago · 2.4 MiB · 12 rounds');
    assert.ok(ready.tooltip.includes('Context: ▰▰▱▱▱ 80k / 200k · 40%'), ready.tooltip);
    assert.ok(ready.tooltip.includes('Rounds: 12\nCost: $1.23 at list prices of 2026-01-15'), ready.tooltip);
    assert.equal(
      statsText({ kind: 'ready', stats: { ...stats, rounds: 1, costUsd: 0.0042 }, stale: true }),
      '≈1 round · $0.0042',
    );
    assert.match(
      statsTooltip({ kind: 'ready', stats: { ...stats, unpriced: ['my-model'] }, stale: true }),
      /No price for my-model \(counted as \$0\): give one with the setting agentCompactor\.prices\.\n\(as of an earlier size/,
    );
    assert.equal(
      statsText({ kind: 'ready', stats: { ...stats, unpriced: ['my-model'] }, stale: false }),
      '12 rounds · $1.23 (unpriced models)',
    );
    // An unknown version of a known family: its figure is marked assumed, and the tooltip says at whose rates.
    const assumed = { ...stats, assumed: [{ model: 'claude-opus-4-9', priceKey: 'claude-opus-5-5' }] };
    assert.equal(statsText({ kind: 'ready', stats: assumed, stale: false }), '12 rounds · $1.23 (assumed prices)');
    assert.match(
      statsTooltip({ kind: 'ready', stats: assumed, stale: false }),
      /claude-opus-4-9 is not in the price table: assumed at the rates of claude-opus-5-5\./,
    );
    // The agent's own figure beside ours, with the warning when they are more than 2% apart.
    const agentApart = statsTooltip({
      kind: 'ready',
      stats: { ...stats, agent: { usd: 2.5, byModel: [], hasUnknownModelCost: false, line: 9 } },
      stale: false,
    });
    assert.match(
      agentApart,
      /The agent's own figure: \$2\.50\nThe agent recorded \$2\.50 for this session, ours is \$1\.23 \(51% apart\)\./,
    );
    const agentClose = statsTooltip({
      kind: 'ready',
      stats: { ...stats, agent: { usd: 1.24, byModel: [], hasUnknownModelCost: false, line: 9 } },
      stale: false,
    });
    assert.ok(!agentClose.includes('apart'), agentClose);
    const pending = sessionNode(s, now, { kind: 'pending' });
    assert.equal(pending.label, `40% · ${s.title}`);
    assert.equal(pending.description, '3 hours ago · 2.4 MiB');
    assert.ok(pending.tooltip.includes('Rounds and cost: being counted…'));
    assert.ok(
      sessionNode(s, now, { kind: 'failed', reason: 'not a JSONL transcript' }).tooltip.includes(
        'Rounds and cost: not available (not a JSONL transcript)',
      ),
    );
    assert.ok(sessionNode(s, now).tooltip.includes('Rounds and cost: counted when the project is expanded'));
  });
});

function readLastLine(file: string): string {
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  return `\n${lines[lines.length - 1]}`;
}
