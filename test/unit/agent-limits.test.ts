// Each agent's window, auto-compaction threshold and cost come from that agent (core/limits.ts, Cline's own records),
// on real sessions: a Codex map is drawn against the window its rollout records, a Claude session that compacted
// itself bounds its threshold whatever its model's name says, the status items and the map say the same threshold,
// a read-only map offers no target, the map's target stays within the reachable range, and Cline's cost is its own.
import { strict as assert } from 'node:assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectFile } from '../../src/core/inspect';
import { planCompaction } from '../../src/core/compact/plan';
import { autoCompactText, contextLimits, limitFacts } from '../../src/core/limits';
import { smallestReachableTarget } from '../../src/core/compact/reach';
import { buildMapState } from '../../src/extension/model/mapState';
import { isMapState } from '../../src/webview/mapProtocol';
import { clampTarget, mapGeometry, MAP_SIZE } from '../../src/webview/mapChart';
import { liveStatus } from '../../src/extension/model/liveStatus';
import { statusBarItem } from '../../src/extension/model/contextText';
import { contextNow } from '../../src/core/context';
import { costNotes } from '../../src/core/cost';
import { analysisCost } from '../../src/core/contextMap';
import type { SessionSummary } from '../../src/core/sessionList';
import { agentFixtures, fixture, sharedFixtures } from '../support/fixtures';
import { tempDir } from '../support/temp';

const summary = (over: Partial<SessionSummary>): SessionSummary => ({
  forkOf: null,
  file: '/p/s.jsonl',
  id: 's',
  folder: 'p',
  cwd: '/p',
  title: 'fix the flaky login test in the CI pipeline',
  size: 1,
  mtimeMs: 0,
  contextTokens: 150_000,
  model: 'claude-opus-4-5',
  contextWindow: 200_000,
  live: true,
  ...over,
});

describe("Each agent's window, thresholds and cost", function () {
  this.timeout(120_000);

  it("a Codex map is drawn against the window its rollout records (258,400 / 272,000), not Claude's 200k", async () => {
    for (const [name, window] of [
      ['rollout-0.142.jsonl', 258_400],
      ['rollout-0.36.jsonl', 272_000],
    ] as const) {
      const f = join(sharedFixtures, 'codex', name);
      const analysis = await inspectFile(f, { subagents: false, appendable: false });
      const state = buildMapState(f, analysis, null, undefined);
      assert.equal(state.contextWindow, window, name);
      assert.equal(state.autoCompactAt, Math.round(window * 0.9), name);
      assert.match(state.limitsText, /recorded by Codex \(model_context_window/);
      assert.ok(isMapState(JSON.parse(JSON.stringify(state))));
      // The bars stay under the window drawn.
      assert.ok(analysis.report.totals.currentContextTokens < state.contextWindow);
    }
  });

  it('a Claude session that compacted itself bounds the threshold, even under a 1M model name', async () => {
    const dir = tempDir('ac-limits-');
    try {
      const original = fixture('with-compactions.jsonl');
      const plain = await inspectFile(original, { subagents: false });
      const observed = plain.index.entries.find((e) => e.compactTrigger === 'auto')!.preTokens!;
      assert.equal(observed, 167_174);
      // The same session as if it ran under a 1M model id (a copy in a temporary folder: the fixture is not touched).
      const renamed = join(dir, 'one-m.jsonl');
      writeFileSync(
        renamed,
        readFileSync(original, 'utf8').replace(/"model":"claude-[^"]+"/g, '"model":"claude-opus-4-6-1m"'),
      );
      const analysis = await inspectFile(renamed, { subagents: false });
      const state = buildMapState(renamed, analysis, null, undefined);
      assert.equal(state.contextWindow, 1_000_000);
      assert.equal(state.autoCompactAt, observed, 'not 967k: the session compacted itself at 167k');
      assert.match(state.limitsText, /this session compacted itself at 167,174 tokens/);
      // 200k: the rule (167,000) is below the observation, and stays.
      assert.equal(buildMapState(original, plain, null, undefined).autoCompactAt, 167_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the live status item and the map say the same threshold (one function), name their session, and have a plain accessible name', async () => {
    const s = summary({});
    const limits = contextLimits({ format: 'claude-code', model: s.model, recordedWindow: null, autoCompactions: [] });
    const status = liveStatus(
      { ...s, agent: 'claude-code' },
      { tokens: s.contextTokens, approximate: false, model: s.model, limits },
    )!;
    assert.ok(status.tooltip.includes(autoCompactText(limits)), status.tooltip);
    assert.match(status.tooltip, /auto-compacts near 167k \(84% of 200k\)/);
    assert.doesNotMatch(status.tooltip, /92%/);
    // 150k of 200k is past the warning line below the real threshold (167k), not "normal" as at 92%.
    assert.equal(status.level, 'warning');
    assert.match(status.text, /^◕ live: fix the flaky login tes… 150k \/ 200k · 75%$/);
    // Compact Now's notification says the context once, and the threshold of this session's agent, in words.
    assert.equal(
      status.offer,
      `“${s.title}” holds 150,000 tokens (75% of its 200k window), near where Claude Code compacts it on its own (≈167k), unseen. Compact it now with a preview (as a fork), then resume?`,
    );
    assert.doesNotMatch(status.offer, /live:|◕/);
    const codex = liveStatus(
      { ...s, agent: 'codex' },
      { tokens: s.contextTokens, approximate: false, model: s.model, limits },
    )!;
    assert.match(codex.offer, /where Codex CLI compacts it/);
    assert.match(codex.waiting, /^Waiting for Codex CLI to finish its turn/);
    assert.match(
      status.accessibilityLabel,
      /^Live session fix the flaky login tes…: context 150,000 of 200,000 tokens, 75 percent$/,
    );
    // The shown transcript's item names its file, and its accessible name is plain words.
    const analysis = await inspectFile(fixture('with-compactions.jsonl'), { subagents: false });
    const item = statusBarItem('with-compactions.jsonl', contextNow(analysis.report), analysis.report);
    assert.match(item.text, /^with-compactions.jsonl: context /);
    for (const t of [item.accessibilityLabel, status.accessibilityLabel]) assert.doesNotMatch(t, /&nbsp;|\$\(|\*\*/);
    // The map of the same session draws the threshold the status bar's tooltip names.
    const state = buildMapState(fixture('with-compactions.jsonl'), analysis, null, undefined);
    assert.ok(
      state.limitsText.includes(autoCompactText(contextLimits(limitFacts('claude-code', analysis.index.entries)))),
    );
  });

  it("a read-only (Gemini) map offers no target: the axis is the data's, and the plan line says why", async () => {
    const f = agentFixtures('gemini-cli', /\.json$/)[1];
    const analysis = await inspectFile(f, { subagents: false, appendable: false });
    const state = buildMapState(f, analysis, null, 900_000);
    assert.equal(state.reachable, null);
    assert.ok(state.readOnly);
    assert.match(state.planSummary, /^Read-only: /);
    assert.equal(state.contextWindow, 1_048_576);
    assert.equal(state.autoCompactAt, null);
    assert.ok(isMapState(JSON.parse(JSON.stringify(state))));
    const g = mapGeometry(state, { from: 0, to: state.rounds.length }, MAP_SIZE);
    assert.ok(!g.lines.some((l) => l.kind === 'target') && !g.offChart.includes('target'), 'no target line');
    // The 900k target of the settings does not stretch the axis (the window, 1M, is what sets it here).
    const withTarget = mapGeometry(
      { ...state, reachable: { floor: 0, max: 2_000_000 } },
      { from: 0, to: state.rounds.length },
      MAP_SIZE,
    );
    assert.ok(g.maxY <= withTarget.maxY);
  });

  it("the map's target stays within the reachable range and the floor is drawn", async () => {
    const f = join(sharedFixtures, 'codex', 'rollout-0.142.jsonl');
    const analysis = await inspectFile(f, { subagents: false, appendable: false });
    const plan = await planCompaction(analysis, { targetTokens: 100_000 });
    // The floor is the smallest reachable target (the Preview input's), measured by the store and handed in.
    const floor = await smallestReachableTarget(analysis, { targetTokens: 100_000 });
    const state = buildMapState(f, analysis, plan, undefined, undefined, undefined, undefined, floor);
    assert.ok(state.reachable);
    assert.equal(state.reachable.floor, Math.round(floor));
    assert.equal(state.reachable.max, analysis.report.totals.currentContextTokens);
    assert.match(state.planSummary, /below the 100,000 target: kept verbatim capped at 40k by Keep Recent Tokens/);
    const g = mapGeometry(state, { from: 0, to: state.rounds.length }, MAP_SIZE);
    assert.ok(g.lines.some((l) => l.kind === 'floor' && l.tokens === state.reachable!.floor));
    assert.equal(clampTarget(state.reachable, 1_000), Math.ceil(state.reachable.floor / 1000) * 1000);
    assert.equal(clampTarget(state.reachable, 10_000_000), Math.ceil(state.reachable.max / 1000) * 1000);
    assert.equal(clampTarget(state.reachable, 100_400), 100_000);
  });

  it("Cline: each response priced at the model Cline recorded, and Cline's own recorded cost shown", async () => {
    const f = join(sharedFixtures, 'cline', 'task-opus', 'api_conversation_history.json');
    const analysis = await inspectFile(f, { subagents: false, appendable: false });
    const ui = JSON.parse(readFileSync(join(sharedFixtures, 'cline', 'task-opus', 'ui_messages.json'), 'utf8')) as {
      say?: string;
      text?: string;
    }[];
    const recorded = ui
      .filter((m) => m.say === 'api_req_started')
      .reduce((s, m) => s + ((JSON.parse(m.text!) as { cost?: number }).cost ?? 0), 0);
    const cost = analysisCost(analysis);
    assert.ok(cost.agent, "Cline's own figure is read");
    assert.ok(Math.abs(cost.agent.usd - recorded) < 1e-9, `${cost.agent.usd} vs ${recorded}`);
    assert.ok(cost.total.usd > 0, 'not $0.0000: the responses are priced at claude-opus-4-5');
    assert.deepEqual([...cost.byModel.keys()], ['claude-opus-4-5-20251101']);
    assert.deepEqual(cost.unpriced, []);
    const state = buildMapState(f, analysis, null, undefined);
    assert.equal(state.cost.agentUsd, cost.agent.usd);
    assert.match(state.cost.agentSource!, /ui_messages\.json/);
    assert.equal(state.contextWindow, 200_000);
    assert.equal(state.autoCompactAt, 160_000);
    // Ours and Cline's agree within the tolerance, or the note says by how much.
    const notes = costNotes(cost, 'x');
    if (Math.abs(cost.total.usd - cost.agent.usd) / Math.max(cost.total.usd, cost.agent.usd) > 0.02)
      assert.ok(notes.some((n) => n.includes('apart')));
  });
});
