// The Context Map's state and chart geometry, pure: the stacks add up to the running context the
// Budget Preview draws, every built state passes the webview's validator, malformed messages are
// refused both ways, price settings are checked, and zooming and panning keep the view valid
// through random sequences of operations.
import { strict as assert } from 'node:assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { inspectFile } from '../../src/core/inspect';
import { planCompaction } from '../../src/core/compact/plan';
import { smallestReachableTarget } from '../../src/core/compact/reach';
import { targetPrompt } from '../../src/extension/model/contextText';
import { contextNow } from '../../src/core/context';
import { chartPoints } from '../../src/extension/model/budget';
import { buildMapState, priceTableFromSetting } from '../../src/extension/model/mapState';
import {
  claudeAutoCompactAt as autoCompactAt,
  claudeWindowOf as contextWindowOf,
} from '../../src/core/formats/claude-code/limits';
import {
  clampTarget,
  clampView,
  mapGeometry,
  MAP_SIZE,
  panView,
  stackTotal,
  tokensAtY,
  zoomView,
  type MapView,
} from '../../src/webview/mapChart';
import { isMapState, parseHostToMap, parseMapToHost } from '../../src/webview/mapProtocol';
import { DEFAULT_PRICES } from '../../src/core/cost';
import { agentFixtures, claudeFixtures, fixture } from '../support/fixtures';
import { contextMap } from '../../src/core/contextMap';
import { rootNodes } from '../../src/extension/model/tree';
import { formatUsd } from '../../src/extension/model/format';
import { tempDir } from '../support/temp';

describe('Context Map state', function () {
  this.timeout(120_000);

  it('every fixture: stacks sum to the running context, overhead is constant within a segment, and the state validates', async () => {
    for (const f of claudeFixtures()) {
      const analysis = await inspectFile(f, { subagents: false });
      const plan = await planCompaction(analysis, { targetTokens: 20_000, keepRecentTokens: 2_000 });
      const state = buildMapState(f, analysis, plan, undefined);
      const points = chartPoints(analysis, plan);
      assert.equal(state.rounds.length, points.length);
      let overhead = -1;
      for (let i = 0; i < state.rounds.length; i++) {
        const r = state.rounds[i];
        assert.ok(
          Math.abs(stackTotal(r) - points[i].estimate) <= 1,
          `${basename(f)} round ${i}: ${stackTotal(r)} vs ${points[i].estimate}`,
        );
        assert.equal(r.mark, points[i].mark);
        if (i === 0 || r.boundary) overhead = r.stack[0];
        assert.equal(r.stack[0], overhead, `${basename(f)} round ${i}: overhead`);
        if (i > 0 && !r.boundary)
          r.stack.forEach((v, k) =>
            assert.ok(v >= state.rounds[i - 1].stack[k], `${basename(f)} round ${i} series ${k} grows`),
          );
      }
      assert.ok(isMapState(JSON.parse(JSON.stringify(state))), `${basename(f)}: the webview accepts the state`);
      assert.ok(state.cost.totalUsd >= 0 && state.series[0].key === 'overhead');
    }
  });

  it('the target comes from the plan, else from the settings', async () => {
    const analysis = await inspectFile(fixture('example.jsonl'));
    assert.equal(buildMapState('x', analysis, null, 77_000).targetTokens, 77_000);
    assert.equal(buildMapState('x', analysis, null, 77_000).planned, false);
    const plan = await planCompaction(analysis, { targetTokens: 30_000 });
    assert.equal(buildMapState('x', analysis, plan, 77_000).targetTokens, 30_000);
  });

  it("one floor: the map's floor line and drag minimum are the Preview input's smallest reachable target (issue 37, item 7)", async () => {
    // The Preview input said "about 31,701", the map "floor ≈35.6k", the drag stopped at 36,000: three figures.
    const file = fixture('v2.1.97-images.jsonl');
    const analysis = await inspectFile(file, { subagents: false });
    const settings = { targetTokens: 100_000 };
    const floor = await smallestReachableTarget(analysis, settings);
    const plan = await planCompaction(analysis, settings);
    const state = buildMapState(file, analysis, plan, undefined, DEFAULT_PRICES, Date.now(), undefined, floor);
    assert.equal(state.reachable!.floor, Math.round(floor));
    // The drag stops at the floor's whole thousand above it, and says "the floor" there (map.ts targetHandle).
    assert.equal(clampTarget(state.reachable!, 0), Math.ceil(floor / 1000) * 1000);
    assert.equal(clampTarget(state.reachable!, 0) - floor < 1000, true);
    // The Preview input's prompt names the same figure (its warning is worded from the same number).
    assert.match(
      targetPrompt(contextNow(analysis.report), floor),
      new RegExp(`smallest reachable target is about ${Math.round(floor).toLocaleString('en-US')}\\.`),
    );
    // Not measured yet: no floor is made up (and no target to drag until it is).
    assert.equal(buildMapState(file, analysis, plan, undefined).reachable, null);
  });

  it('context window and auto-compact threshold', () => {
    assert.equal(contextWindowOf('claude-sonnet-4-5-20250929'), 200_000);
    assert.equal(contextWindowOf('claude-opus-4.6-1m'), 1_000_000);
    assert.equal(contextWindowOf('claude-sonnet-4-6[1m]'), 1_000_000);
    assert.equal(autoCompactAt(200_000), 167_000);
  });

  it('the prices setting: empty is the built-in table; invalid ones are reported and ignored', () => {
    assert.equal(priceTableFromSetting(undefined).table, DEFAULT_PRICES);
    assert.equal(priceTableFromSetting({}).table, DEFAULT_PRICES);
    assert.match(priceTableFromSetting([]).error ?? '', /object/);
    assert.match(priceTableFromSetting({ m: 3 }).error ?? '', /agentCompactor\.prices\.m/);
    assert.match(priceTableFromSetting({ m: { input: 'x' } }).error ?? '', /m\.input/);
    assert.equal(
      priceTableFromSetting({ 'claude-opus-4-5': { output: 20 } }).table.models['claude-opus-4-5'].output,
      20,
    );
  });

  it('messages from the webview: only well-formed ones pass', () => {
    assert.deepEqual(parseMapToHost({ type: 'setTarget', tokens: 50_000 }), { type: 'setTarget', tokens: 50_000 });
    assert.deepEqual(parseMapToHost({ type: 'selectRound', round: 3 }), { type: 'selectRound', round: 3 });
    assert.deepEqual(parseMapToHost({ type: 'dropRound', round: 4 }), { type: 'dropRound', round: 4 });
    assert.deepEqual(parseMapToHost({ type: 'previewResult', toolUseId: 'toolu_1' }), {
      type: 'previewResult',
      toolUseId: 'toolu_1',
    });
    for (const bad of [
      { type: 'dropRound', round: -1 },
      { type: 'previewResult', toolUseId: '' },
      { type: 'previewResult', toolUseId: 7 },
      { type: 'previewResult', toolUseId: 'x'.repeat(301) },
      null,
      'ready',
      { type: 'setTarget', tokens: 0 },
      { type: 'setTarget', tokens: 1.5 },
      { type: 'setTarget', tokens: 1e12 },
      { type: 'selectRound', round: '3' },
      { type: 'revealLine', line: 0 },
      { type: 'compact' },
      // Fields the message does not declare: refused, not stripped.
      { type: 'selectRound', round: 3, extra: '<x>' },
      { type: 'previewResult', toolUseId: 'toolu_1', choice: 'keep-full' },
    ]) {
      assert.equal(parseMapToHost(bad), null, JSON.stringify(bad));
    }
  });

  it('messages from the host: a stack of the wrong width or an odd count is refused', async () => {
    const state = buildMapState('x', await inspectFile(fixture('example.jsonl')), null, undefined);
    assert.ok(parseHostToMap({ type: 'state', state }));
    const wrong = { ...state, rounds: [{ ...state.rounds[0], stack: [1] }] };
    assert.equal(parseHostToMap({ type: 'state', state: wrong }), null);
    assert.equal(parseHostToMap({ type: 'exact', round: 1, counts: [1.5] }), null);
    assert.equal(
      parseHostToMap({
        type: 'round',
        detail: { round: 1, label: 'x', model: null, costUsd: null, items: [{ kind: 'script' }] },
      }),
      null,
    );
  });
});

describe('Context Map state kept per analysis', function () {
  this.timeout(120_000);

  it('a sequence of replans and re-pushes gives the same states as cold builds from a fresh inspection', async () => {
    const f = fixture('with-compactions.jsonl');
    const kept = await inspectFile(f);
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let step = 0; step < 8; step++) {
      const target = 5_000 + Math.floor(rand() * 150_000);
      const planned = rand() < 0.75;
      const plan = planned ? await planCompaction(kept, { targetTokens: target }) : null;
      const now = Date.parse('2026-11-25T14:00:00Z'); // one clock for both: the cost line reads the cache state at it
      const warm = buildMapState(f, kept, plan, target, undefined, now);
      const fresh = await inspectFile(f);
      const cold = buildMapState(
        f,
        fresh,
        planned ? await planCompaction(fresh, { targetTokens: target }) : null,
        target,
        undefined,
        now,
      );
      assert.deepEqual(warm, cold, `step ${step}: target ${target}, planned ${planned}`);
      assert.ok(isMapState(warm));
      if (plan) for (const r of plan.rounds) assert.equal(warm.rounds[r.index].mark, r.action);
    }
  });

  it('an analysis that keeps the Round objects of another gets the same breakdowns as a cold one', async () => {
    const f = fixture('v2.1.97-images.jsonl');
    const a = await inspectFile(f);
    const first = contextMap(a);
    const again = contextMap({ ...a, report: { ...a.report } });
    assert.deepEqual(again, first);
    assert.deepEqual(contextMap(await inspectFile(f)), first);
  });

  it("the Rounds tree's round tooltips show the response's cost, as the map prices it", async () => {
    let seen = 0;
    for (const f of claudeFixtures()) {
      const analysis = await inspectFile(f);
      const state = buildMapState(f, analysis, null, undefined);
      for (const node of rootNodes({ file: f, analysis })) {
        if (node.kind !== 'round' || node.round === undefined) continue;
        const cost = state.rounds[node.round].costUsd;
        const line = (node.tooltip ?? '').split('\n').find((l) => l.startsWith('Cost of the response: '));
        const report = analysis.report.rounds[node.round];
        if (cost !== null && cost > 0) {
          assert.equal(
            line,
            `Cost of the response: ${formatUsd(cost)} (default price table)`,
            `${basename(f)} round ${node.round}`,
          );
          seen++;
        } else if (!report.messageId) assert.equal(line, undefined, `${basename(f)} round ${node.round}`);
      }
    }
    assert.ok(seen > 20, `${seen} priced rounds seen`);
  });

  it("an unknown opus version: the map and the round tooltip say the rates are assumed; the agent's own figure and its warning", async () => {
    const dir = tempDir('ac-map-assumed-');
    try {
      const f = join(dir, 's.jsonl');
      writeFileSync(
        f,
        [
          { type: 'user', uuid: 'u0', parentUuid: null, sessionId: 'S', message: { role: 'user', content: 'hi' } },
          {
            type: 'assistant',
            uuid: 'a1',
            parentUuid: 'u0',
            sessionId: 'S',
            requestId: 'r1',
            message: {
              id: 'm1',
              role: 'assistant',
              model: 'claude-opus-4-9',
              content: [{ type: 'text', text: 'ok' }],
              usage: { input_tokens: 100_000, output_tokens: 0 },
            },
          },
          {
            type: 'cost-state',
            sessionId: 'S',
            totalCostUSD: 1.26,
            modelUsage: { 'claude-opus-4-9': { costUSD: 1.26 } },
          },
        ]
          .map((o) => JSON.stringify(o))
          .join('\n') + '\n',
      );
      const analysis = await inspectFile(f);
      const state = buildMapState(f, analysis, null, undefined);
      assert.ok(isMapState(state), 'the state with notes validates');
      assert.equal(state.cost.assumed, true);
      assert.equal(state.cost.agentUsd, 1.26);
      assert.deepEqual(state.cost.notes, [
        'claude-opus-4-9 is not in the price table: assumed at the rates of claude-opus-5-5.',
        'The agent recorded $1.26 for this session, ours is $0.4000 (68% apart). Its figure also counts requests whose figures the file does not record, such as an automatic compaction mid-turn.',
      ]);
      const round = rootNodes({ file: f, analysis }).find(
        (n) => n.kind === 'round' && n.tooltip?.includes('Cost of the response'),
      );
      assert.match(
        round!.tooltip!,
        /Cost of the response: \$0\.4000 \(default price table; claude-opus-4-9 is not in it: assumed at the rates of claude-opus-5-5\)/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Context Map chart geometry', () => {
  it('bars never exceed the plot width at the narrowest bar; bucketing keeps every round in one bar', async () => {
    const analysis = await inspectFile(fixture('with-compactions.jsonl'));
    const floor = await smallestReachableTarget(analysis, {});
    const state = buildMapState('x', analysis, null, undefined, undefined, undefined, undefined, floor);
    const big = {
      ...state,
      rounds: Array.from({ length: 50_000 }, (_, i) => ({ ...state.rounds[i % state.rounds.length], round: i })),
    };
    const g = mapGeometry(big, { from: 0, to: big.rounds.length });
    const plotWidth = MAP_SIZE.width - MAP_SIZE.marginLeft - MAP_SIZE.marginRight;
    assert.ok(g.bars.length <= plotWidth / MAP_SIZE.minBar);
    assert.equal(g.bars[0].first, 0);
    assert.equal(g.bars.at(-1)!.last, big.rounds.length - 1);
    for (let i = 1; i < g.bars.length; i++) assert.equal(g.bars[i].first, g.bars[i - 1].last + 1);
    const target = g.lines.find((l) => l.kind === 'target')!;
    assert.ok(Math.abs(tokensAtY(g, target.y) - big.targetTokens) <= 1000, 'the target line maps back to its tokens');
  });

  it('random sequences of zoom, pan and clamp keep the view inside the rounds, at least one round wide', () => {
    let seed = 11;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let run = 0; run < 50; run++) {
      const n = 1 + Math.floor(rnd() * 5000);
      let v: MapView = { from: 0, to: n };
      for (let step = 0; step < 100; step++) {
        const op = Math.floor(rnd() * 3);
        if (op === 0) v = zoomView(v, n, rnd() < 0.5 ? 0.5 : 2, rnd());
        else if (op === 1) v = panView(v, n, Math.round((rnd() - 0.5) * n));
        else v = clampView({ from: rnd() * n * 2 - n, to: rnd() * n * 2 }, n);
        assert.ok(
          Number.isInteger(v.from) && Number.isInteger(v.to) && v.from >= 0 && v.to <= n && v.to - v.from >= 1,
          `run ${run} step ${step}: ${JSON.stringify(v)} of ${n}`,
        );
      }
    }
  });
});

describe('Context Map colours', function () {
  this.timeout(120_000);
  // Colours were assigned by rank: "Read results" was orange in one session and dark red in another, and the
  // summarize and drop marks reused category colours.
  it('a category has one colour in every session (every agent), no two series of a chart share one, none is a mark colour', async () => {
    const files = [...claudeFixtures(), ...['codex', 'gemini-cli', 'copilot-cli'].flatMap((a) => agentFixtures(a))];
    const colourOf = new Map<string, number>();
    const kindOf = (key: string) =>
      /^tool:(read|read_file|view)$/i.test(key)
        ? 'tool:read-kind'
        : /^tool:(bash|run_shell_command|shell|exec_command)$/i.test(key)
          ? 'tool:shell-kind'
          : key;
    let seen = 0;
    for (const f of files) {
      const analysis = await inspectFile(f, { subagents: false });
      const state = buildMapState(f, analysis, null, undefined);
      const colours = state.series.map((x) => x.colour);
      assert.equal(
        new Set(colours).size,
        colours.length,
        `${basename(f)}: two series share a colour: ${JSON.stringify(state.series)}`,
      );
      for (const x of state.series) {
        const kind = kindOf(x.key);
        if (kind.endsWith('-kind') || !x.key.startsWith('tool:')) {
          const before = colourOf.get(kind);
          if (before !== undefined) assert.equal(x.colour, before, `${basename(f)}: ${x.label} changed colour`);
          else colourOf.set(kind, x.colour);
          seen++;
        }
      }
    }
    assert.ok(
      colourOf.has('tool:read-kind') && colourOf.has('tool:shell-kind') && seen > files.length,
      'reading and shell tools are in the fixtures',
    );
    // No series slot is drawn in the marks' colours (yellow: summarize, red: drop).
    const css = readFileSync(join(__dirname, '../../media/map.css'), 'utf8');
    const slots = [...css.matchAll(/^\.s(\d+) \{([^}]*)\}/gm)];
    assert.equal(slots.length, 16, 'sixteen palette slots');
    for (const [, n, body] of slots) assert.doesNotMatch(body, /yellow|red\b|Red\b|Yellow/i, `slot ${n}: ${body}`);
    assert.match(css, /--ac-summarize: var\(--vscode-charts-yellow/);
    assert.match(css, /--ac-drop: var\(--vscode-charts-red/);
  });
});
