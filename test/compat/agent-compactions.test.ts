// Claude Code's own /compact as today's CLI writes it (the real, pinned CLI, offline against the fake; see
// test/support/today-sessions.ts), read by core/agentCompactions.ts: the trigger, preTokens and postTokens its boundary
// records, the cost of its summary request from the agent's running total (checked against the request the fake
// answered for /compact: its true size), and the first request after it (checked against the request the fake got).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import { inspectFile } from '../../src/core/inspect';
import { agentCompactions, compactionLine } from '../../src/core/agentCompactions';
import { isCompactRequest } from '../support/claude-code';
import { countRequestTokens } from '../support/fake-anthropic';
import { generateTodaySession, TODAY_STEPS, type TodaySession } from '../support/today-sessions';

describe("Claude Code's own /compact, read as a compaction the file records (real CLI, generated)", function () {
  let session: TodaySession;
  let lines: any[];

  before(async function () {
    session = await generateTodaySession({
      steps: TODAY_STEPS.slice(0, TODAY_STEPS.findIndex((s) => s.name === 'turn:after-compact') + 1),
    });
    lines = fs
      .readFileSync(session.sessionFile, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));
  });
  after(() => session?.cleanup());

  it("the manual compaction: its record, its summary request's cost and the first request after it", async () => {
    const analysis = await inspectFile(session.sessionFile, { subagents: false });
    const found = agentCompactions(analysis);
    assert.equal(found.length, 1, JSON.stringify(found));
    const [c] = found;
    const boundaryLine = lines.findIndex((o) => o.type === 'system' && o.subtype === 'compact_boundary') + 1;
    const meta = lines[boundaryLine - 1].compactMetadata;
    assert.equal(c.line, boundaryLine);
    assert.equal(c.by, 'agent');
    assert.equal(c.trigger, 'manual');
    assert.equal(c.preTokens, meta.preTokens);
    assert.equal(c.postTokens, meta.postTokens);
    assert.ok(c.postTokens! > 0 && c.postTokens! < c.preTokens!, `${c.preTokens} → ${c.postTokens}`);
    assert.equal(c.durationMs, meta.durationMs);

    // The summary request: the one request of the /compact step, a compaction request; the running total's difference
    // across the boundary is its cost, its input tokens the size the fake counted for it.
    const compactStep = session.steps.find((s) => s.name === 'compact')!;
    const summaryRequests = compactStep.requests.filter((r) => isCompactRequest(r.body));
    assert.equal(summaryRequests.length, 1, 'one summary request');
    assert.equal(compactStep.requests.length, 1, 'and nothing else was asked in that step');
    assert.ok(c.cost, `the cost is recorded: ${compactionLine(c)}`);
    assert.equal(c.cost.tokens?.input, countRequestTokens(summaryRequests[0].body).total);
    assert.ok(c.cost.usd > 0);
    const totalAt = (line: number) => lines[line - 1].totalCostUSD as number;
    assert.ok(Math.abs(c.cost.usd - (totalAt(c.cost.toLine) - totalAt(c.cost.fromLine))) < 1e-12);
    assert.ok(c.cost.fromLine < c.line && c.cost.toLine > c.line);

    // The first request after it: the first of the next step, as its response's usage records it.
    const after = session.steps.find((s) => s.name === 'turn:after-compact')!;
    assert.ok(c.nextRequest, 'a request was made after it');
    assert.equal(c.nextRequest.tokens, countRequestTokens(after.requests[0].body).total);
    assert.ok(c.nextRequest.line > c.line);
    assert.match(
      compactionLine(c),
      new RegExp(
        `^line ${c.line}: manual compaction by Claude Code: ${c.preTokens!.toLocaleString('en-US')} → ${c.postTokens!.toLocaleString('en-US')}; next request ${c.nextRequest.tokens.toLocaleString('en-US')} \\(\\+[\\d,]+ more than it left\\); cost \\$`,
      ),
    );
  });
});

// Claude Code compacts by itself when the context passes its auto-compact threshold; headless, the real 2.1.330 does
// so with a small window (CLAUDE_CODE_AUTO_COMPACT_WINDOW) and threshold (CLAUDE_AUTOCOMPACT_PCT_OVERRIDE, percent).
const AUTO_COMPACT_ENV = { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '100000', CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '1' };

describe('Claude Code compacting by itself, read as compactions the file records (real CLI, generated)', function () {
  let session: TodaySession;
  let lines: any[];

  before(async function () {
    session = await generateTodaySession({
      steps: TODAY_STEPS.filter((s) => s.name === 'turn:read' || s.name === 'turn:bash'),
      env: AUTO_COMPACT_ENV,
    });
    lines = fs
      .readFileSync(session.sessionFile, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));
  });
  after(() => session?.cleanup());

  it('each automatic compaction: trigger auto, its figures as recorded, the next request, and no cost read from a total that holds other responses', async () => {
    const boundaryLines = lines.flatMap((o, i) =>
      o.type === 'system' && o.subtype === 'compact_boundary' ? [i + 1] : [],
    );
    assert.ok(boundaryLines.length >= 1, 'Claude Code compacted by itself');
    const found = agentCompactions(await inspectFile(session.sessionFile, { subagents: false }));
    assert.deepEqual(
      found.map((c) => c.line),
      boundaryLines,
    );
    const isResponse = (o: any) => o.type === 'assistant' && o.message?.usage;
    for (const c of found) {
      const meta = lines[c.line - 1].compactMetadata;
      assert.equal(c.trigger, 'auto');
      assert.equal(meta.trigger, 'auto');
      assert.equal(c.by, 'agent');
      assert.equal(c.preTokens, meta.preTokens);
      assert.equal(c.postTokens, meta.postTokens);
      const next = lines.findIndex((o, i) => i >= c.line && isResponse(o));
      if (next < 0) assert.equal(c.nextRequest, null);
      else {
        const u = lines[next].message.usage;
        assert.deepEqual(c.nextRequest, {
          line: next + 1,
          tokens: u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens,
        });
      }
      // Mid-turn, the running total is written at the end of the turn: the responses after the compaction are in its
      // difference too, so the compaction's own cost is not recorded apart.
      const totalAfter = lines.findIndex((o, i) => i >= c.line && o.type === 'cost-state');
      assert.ok(
        totalAfter < 0 || lines.slice(c.line, totalAfter).some(isResponse),
        'a response lies between the boundary and the next total',
      );
      assert.equal(c.cost, null);
      assert.match(
        compactionLine(c),
        /^line \d+: auto compaction by Claude Code: [\d,]+ → [\d,]+; .*; cost not recorded$/,
      );
    }
  });
});
