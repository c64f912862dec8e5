// The webview protocols (Budget Preview, Context Map) through their one validator kit (src/webview/validate.ts):
// every message type of both directions round-trips through postMessage's JSON; a message with a field missing, of
// the wrong kind or one field too many (at any depth), a string or an array past its bound, and a number out of range
// are refused; the kit's own pieces keep their bounds.
import { strict as assert } from 'node:assert';
import { inspectFile } from '../../src/core/inspect';
import { planCompaction } from '../../src/core/compact/plan';
import { buildBudgetState } from '../../src/extension/model/budget';
import { buildMapState } from '../../src/extension/model/mapState';
import {
  BUDGET_MESSAGE_TYPES,
  parseHostToWebview,
  parseWebviewToHost,
  type BudgetState,
  type HostToWebview,
  type WebviewToHost,
} from '../../src/webview/protocol';
import {
  MAP_MESSAGE_TYPES,
  MAX_TARGET,
  parseHostToMap,
  parseMapToHost,
  type HostToMap,
  type MapState,
  type MapToHost,
  type RoundDetail,
} from '../../src/webview/mapProtocol';
import { array, count, int, literal, messages, nullable, object, oneOf, refine, str } from '../../src/webview/validate';
import { fixture } from '../support/fixtures';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Through postMessage as VS Code sends it (JSON). */
const wire = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

/** Every object in `v` (the first element of each array only: its elements share one schema), with its path. */
function objectsOf(v: Json, path: string[] = []): { path: string[]; obj: { [k: string]: Json } }[] {
  if (Array.isArray(v)) return v.length ? objectsOf(v[0], [...path, '0']) : [];
  if (v === null || typeof v !== 'object') return [];
  return [{ path, obj: v }, ...Object.entries(v).flatMap(([k, x]) => objectsOf(x, [...path, k]))];
}

/** A copy of `v` with the object at `path` changed by `change`. */
function changedAt(v: Json, path: string[], change: (o: { [k: string]: Json }) => void): Json {
  const copy = structuredClone(v);
  let at: Json = copy;
  for (const k of path) at = (at as { [k: string]: Json })[k];
  change(at as { [k: string]: Json });
  return copy;
}

/**
 * Every way to spoil one field of `msg` (every field of every object in it, nested ones included): taken away, given a
 * value no schema of the kit accepts for it, or joined by a field the message does not declare. Each must be refused.
 */
function spoiled(msg: Json): { what: string; bad: Json }[] {
  const out: { what: string; bad: Json }[] = [];
  for (const { path, obj } of objectsOf(msg)) {
    const at = path.join('.') || '(top)';
    out.push({ what: `${at} + extra`, bad: changedAt(msg, path, (o) => (o.extra = 'x')) });
    for (const k of Object.keys(obj)) {
      if (path.length === 0 && k === 'type') continue; // another type is another message (checked below)
      out.push({ what: `${at}.${k} missing`, bad: changedAt(msg, path, (o) => delete o[k]) });
      out.push({ what: `${at}.${k} wrong kind`, bad: changedAt(msg, path, (o) => (o[k] = { wrong: true })) });
    }
  }
  return out;
}

function assertRefusesEverySpoil(parseFn: (v: unknown) => unknown, msg: Json, name: string): number {
  let n = 0;
  for (const { what, bad } of spoiled(msg)) {
    assert.equal(parseFn(wire(bad)), null, `${name}: ${what} is refused`);
    n++;
  }
  return n;
}

describe('webview protocols: one validator kit, each message declared once', function () {
  this.timeout(120_000);

  let budgetState: BudgetState;
  let mapState: MapState;
  const detail: RoundDetail = {
    round: 2,
    label: 'Bash <script>alert(1)</script>',
    model: 'claude-opus-4-5',
    costUsd: 0.0123,
    items: [
      {
        kind: 'toolResult',
        line: 14,
        tool: 'Bash',
        text: '<img src=x onerror=alert(1)>',
        chars: 28,
        truncated: false,
        estimate: 9,
        isError: false,
      },
      { kind: 'image', line: 15, tool: null, text: '', chars: 0, truncated: false, estimate: 1600, isError: false },
    ],
  };

  before(async () => {
    const file = fixture('example.jsonl');
    const analysis = await inspectFile(file, { subagents: false });
    const plan = await planCompaction(analysis, { targetTokens: 2_000, keepRecentTokens: 500 });
    budgetState = buildBudgetState(file, analysis, plan);
    mapState = buildMapState(file, analysis, plan, undefined);
    assert.ok(budgetState.chart.points.length > 1 && budgetState.toolResults.length > 0, 'a state with rows');
    assert.ok(mapState.rounds.length > 1 && mapState.series.length > 1, 'a map with rounds and series');
  });

  const budgetToHost: WebviewToHost[] = [
    { type: 'ready' },
    { type: 'revealRound', round: 3 },
    { type: 'revealLine', line: 12 },
    { type: 'compact' },
    { type: 'refresh' },
  ];
  const mapToHost: MapToHost[] = [
    { type: 'ready' },
    { type: 'refresh' },
    { type: 'selectRound', round: 0 },
    { type: 'setTarget', tokens: 50_000 },
    { type: 'revealRound', round: 4 },
    { type: 'revealLine', line: 1 },
    { type: 'dropRound', round: 2 },
    { type: 'previewResult', toolUseId: 'toolu_01ABC' },
  ];
  const budgetFromHost = (): HostToWebview[] => [
    { type: 'state', state: budgetState },
    { type: 'empty', message: 'No transcript is shown.' },
    { type: 'busy', message: 'Reading x.jsonl…' },
  ];
  const mapFromHost = (): HostToMap[] => [
    { type: 'state', state: mapState },
    { type: 'empty', message: 'Cannot show x.jsonl' },
    { type: 'busy', message: 'Reading x.jsonl…' },
    { type: 'round', detail },
    { type: 'exact', round: 2, counts: [7, null] },
  ];

  it('the examples name every message type of both protocols, both ways', () => {
    const types = (list: { type: string }[]) => [...new Set(list.map((m) => m.type))].sort();
    assert.deepEqual(types(budgetToHost), [...BUDGET_MESSAGE_TYPES.webviewToHost].sort());
    assert.deepEqual(types(budgetFromHost()), [...BUDGET_MESSAGE_TYPES.hostToWebview].sort());
    assert.deepEqual(types(mapToHost), [...MAP_MESSAGE_TYPES.mapToHost].sort());
    assert.deepEqual(types(mapFromHost()), [...MAP_MESSAGE_TYPES.hostToMap].sort());
  });

  it('every message round-trips through postMessage and its parser unchanged', () => {
    for (const m of budgetToHost) assert.deepEqual(parseWebviewToHost(wire(m)), m);
    for (const m of budgetFromHost()) assert.deepEqual(parseHostToWebview(wire(m)), m);
    for (const m of mapToHost) assert.deepEqual(parseMapToHost(wire(m)), m);
    for (const m of mapFromHost()) assert.deepEqual(parseHostToMap(wire(m)), m);
  });

  it('a field missing, of the wrong kind or one too many, at any depth, is refused', () => {
    let checked = 0;
    for (const m of budgetToHost) checked += assertRefusesEverySpoil(parseWebviewToHost, m, m.type);
    for (const m of budgetFromHost()) checked += assertRefusesEverySpoil(parseHostToWebview, m, m.type);
    for (const m of mapToHost) checked += assertRefusesEverySpoil(parseMapToHost, m, m.type);
    for (const m of mapFromHost()) checked += assertRefusesEverySpoil(parseHostToMap, m, m.type);
    // Each state has dozens of fields, nested: a few hundred spoiled messages in all.
    assert.ok(checked > 300, `${checked} spoiled messages`);
  });

  it('a message of one protocol or direction is not a message of another, and an unknown type is refused', () => {
    assert.equal(parseMapToHost({ type: 'compact' }), null, 'the map sends no compact');
    assert.equal(parseWebviewToHost({ type: 'setTarget', tokens: 5 }), null, 'the budget sends no target');
    assert.equal(
      parseWebviewToHost({ type: 'state', state: budgetState }),
      null,
      'a host message is not a webview one',
    );
    assert.equal(
      parseHostToWebview(wire({ type: 'state', state: mapState })),
      null,
      'a map state is not a budget state',
    );
    // An own `__proto__` key (JSON.parse makes one) is a field the message does not declare.
    assert.equal(parseMapToHost(JSON.parse('{"type":"dropRound","round":1,"__proto__":{"round":2}}')), null);
    for (const bad of [null, undefined, 'ready', 3, [], [{ type: 'ready' }], { type: 'runCommand', command: 'rm' }, {}])
      for (const p of [parseWebviewToHost, parseHostToWebview, parseMapToHost, parseHostToMap])
        assert.equal(p(bad), null, JSON.stringify(bad));
  });

  it('strings, arrays and numbers past their bounds are refused', () => {
    const over = [
      parseMapToHost({ type: 'previewResult', toolUseId: 'x'.repeat(301) }),
      parseMapToHost({ type: 'previewResult', toolUseId: '' }),
      parseMapToHost({ type: 'setTarget', tokens: MAX_TARGET + 1 }),
      parseMapToHost({ type: 'setTarget', tokens: 0 }),
      parseMapToHost({ type: 'selectRound', round: -1 }),
      parseMapToHost({ type: 'selectRound', round: 1.5 }),
      parseMapToHost({ type: 'revealLine', line: 0 }),
      parseMapToHost({ type: 'selectRound', round: 2 ** 53 }),
      parseWebviewToHost({ type: 'revealRound', round: Number.NaN }),
      parseHostToMap({ type: 'busy', message: 'x'.repeat(10_001) }),
      parseHostToWebview({ type: 'busy', message: 'x'.repeat(10_001) }),
      parseHostToMap({ type: 'exact', round: 1, counts: new Array(5001).fill(1) }),
      parseHostToMap({ type: 'exact', round: 1, counts: [1.5] }),
      parseHostToMap({
        type: 'round',
        detail: { ...detail, items: [{ ...detail.items[0], text: 'x'.repeat(200_001) }] },
      }),
      parseHostToMap({ type: 'state', state: { ...mapState, fileName: 'x'.repeat(1001) } }),
      parseHostToMap({ type: 'state', state: { ...mapState, series: [{ ...mapState.series[0], colour: 16 }] } }),
      parseHostToWebview({ type: 'state', state: { ...budgetState, notes: new Array(1001).fill('n') } }),
      parseHostToWebview({
        type: 'state',
        state: { ...budgetState, chart: { ...budgetState.chart, targetTokens: Number.POSITIVE_INFINITY } },
      }),
      parseHostToWebview({ type: 'state', state: { ...budgetState, version: 2 } }),
    ];
    over.forEach((r, i) => assert.equal(r, null, `case ${i}`));
    // At the bound: accepted.
    assert.ok(parseMapToHost({ type: 'previewResult', toolUseId: 'x'.repeat(300) }));
    assert.ok(parseMapToHost({ type: 'setTarget', tokens: MAX_TARGET }));
    assert.ok(parseHostToMap({ type: 'busy', message: 'x'.repeat(10_000) }));
  });

  it('a rule across fields: every round of a map has one figure per series', () => {
    const narrow = { ...mapState, rounds: [{ ...mapState.rounds[0], stack: mapState.rounds[0].stack.slice(1) }] };
    assert.equal(parseHostToMap({ type: 'state', state: narrow }), null);
    assert.ok(parseHostToMap({ type: 'state', state: { ...mapState, rounds: [mapState.rounds[0]] } }));
  });

  it('the kit: bounds, strict objects, tagged messages', () => {
    assert.ok(
      int()(0) && !int()(-1) && !int()(0.5) && !int()('1') && int({ min: 2, max: 3 })(3) && !int({ max: 3 })(4),
    );
    assert.ok(count()(0.5) && !count()(-0.1) && !count()(Number.NaN) && !count()(Number.POSITIVE_INFINITY));
    assert.ok(str(3)('abc') && !str(3)('abcd') && !str(3, { min: 1 })('') && !str(3)(3));
    assert.ok(literal(1)(1) && !literal(1)('1'));
    assert.ok(oneOf(['a', 'b'] as const)('b') && !oneOf(['a'] as const)('toString'));
    assert.ok(nullable(int())(null) && !nullable(int())(undefined));
    assert.ok(array(int(), 2)([1, 2]) && !array(int(), 2)([1, 2, 3]) && !array(int(), 2)({ length: 0 }));
    const point = object({ x: int(), y: nullable(int()) });
    assert.ok(point({ x: 1, y: null }));
    assert.ok(!point({ x: 1 }), 'missing');
    assert.ok(!point({ x: 1, y: null, z: 0 }), 'extra');
    assert.ok(!point({ x: 1, y: undefined }), 'undefined is not null');
    assert.ok(!point(JSON.parse('{"x":1,"y":null,"__proto__":{"x":2}}')), 'an own __proto__ key is one too many');
    assert.ok(!point([1, null]) && !point(null));
    const ordered = refine(object({ lo: int(), hi: int() }), (r) => r.lo <= r.hi);
    assert.ok(ordered({ lo: 1, hi: 2 }) && !ordered({ lo: 3, hi: 2 }));
    const m = messages({ ping: {}, move: { to: int() } });
    assert.deepEqual(m.types, ['ping', 'move']);
    assert.ok(m({ type: 'ping' }) && m({ type: 'move', to: 1 }));
    assert.ok(
      !m({ type: 'move' }) && !m({ type: 'ping', to: 1 }) && !m({ type: 'toString' }) && !m({ type: 'hasOwnProperty' }),
    );
  });
});
