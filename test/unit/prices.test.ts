// The price lookup for today's model ids (exact, dated, unknown versions of a known family, unknown families), the
// agent's own figure from Claude Code's `cost-state` lines beside ours, and a fork's copied responses left out.
import { strict as assert } from 'node:assert';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  agentCostGap,
  costFigure,
  costNotes,
  costOfUsage,
  DEFAULT_PRICES,
  priceFor,
  sessionCost,
  withPriceOverrides,
} from '../../src/core/cost';
import { parseLine } from '../../src/core/entries';
import { indexTranscript } from '../../src/core/transcript';
import { agentFixtures } from '../support/fixtures';
import { runCliInProcess } from '../support/cliInProcess';
import { tempDir } from '../support/temp';

const near = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} != ${b}`);

function assistant(
  uuid: string,
  parent: string,
  id: string,
  model: string,
  usage: Record<string, number>,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    type: 'assistant',
    uuid,
    parentUuid: parent,
    sessionId: 'S1',
    requestId: `req_${id}`,
    message: {
      id,
      role: 'assistant',
      model,
      content: [{ type: 'text', text: 'ok' }],
      usage: {
        input_tokens: 0,
        output_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        ...usage,
      },
    },
    ...extra,
  });
}
const user = (uuid: string, parent: string | null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'user',
    uuid,
    parentUuid: parent,
    sessionId: 'S1',
    message: { role: 'user', content: 'hi' },
    ...extra,
  });
const costState = (usd: number, byModel: Record<string, number>, sessionId = 'S1') =>
  JSON.stringify({
    type: 'cost-state',
    sessionId,
    totalCostUSD: usd,
    modelUsage: Object.fromEntries(Object.entries(byModel).map(([m, c]) => [m, { inputTokens: 1, costUSD: c }])),
    hasUnknownModelCost: false,
  });

async function costOfLines(lines: string[]) {
  const dir = tempDir('ac-prices-');
  try {
    const f = join(dir, 's.jsonl');
    writeFileSync(f, lines.join('\n') + '\n');
    return sessionCost((await indexTranscript(f)).entries);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("price lookup for today's model ids", () => {
  it('a known id, exact or dated, has its own rates, not assumed', () => {
    const exact = priceFor('claude-opus-5-5')!;
    assert.deepEqual(
      [exact.key, exact.assumed, exact.price.input, exact.price.output, exact.price.cacheRead],
      ['claude-opus-5-5', false, 4, 20, 0.2],
    );
    const dated = priceFor('claude-haiku-4-5-20251001')!;
    assert.deepEqual([dated.key, dated.assumed], ['claude-haiku-4-5', false]);
    // Legacy ids keep their own (legacy) rates when that is the id.
    for (const id of [
      'claude-opus-4',
      'claude-opus-4-20250514',
      'claude-opus-4-0',
      'claude-opus-4-1',
      'claude-opus-4-1-20250805',
    ]) {
      const p = priceFor(id)!;
      assert.deepEqual([p.price.input, p.price.output, p.assumed], [15, 75, false], id);
    }
  });

  it("an unknown version of a known family is priced at the family's newest rates and marked assumed", () => {
    const opus = priceFor('claude-opus-4-9')!;
    assert.deepEqual([opus.key, opus.assumed, opus.price.input, opus.price.output], ['claude-opus-5-5', true, 4, 20]);
    assert.equal(priceFor('claude-opus-6-20270101')!.key, 'claude-opus-5-5');
    assert.deepEqual(
      [priceFor('claude-sonnet-6')!.key, priceFor('claude-sonnet-6')!.assumed],
      ['claude-sonnet-5-5', true],
    );
    assert.equal(priceFor('claude-haiku-4-7')!.key, 'claude-haiku-5-5');
    // A tagged variant of a known model takes that model's rates, assumed.
    assert.deepEqual(
      [priceFor('claude-opus-4-6-fast')!.key, priceFor('claude-opus-4-6-fast')!.assumed],
      ['claude-opus-4-6', true],
    );
    // A user's newer model becomes the family's newest.
    const table = withPriceOverrides({ 'claude-opus-7': { input: 7, output: 70 } });
    assert.equal(priceFor('claude-opus-6', table)!.key, 'claude-opus-7');
    assert.deepEqual(
      [priceFor('claude-opus-7', table)!.assumed, priceFor('claude-opus-7', table)!.price.input],
      [false, 7],
    );
  });

  it('claude-haiku-5-5 costs five times its rates for a request over 100,000 input tokens, as Claude Code charges it', () => {
    const haiku = priceFor('claude-haiku-5-5')!.price;
    near(costOfUsage({ input: 100_000, output: 0, cacheCreation: 0, cacheRead: 0 }, haiku).usd, 0.01, 'at 100,000');
    near(costOfUsage({ input: 100_001, output: 0, cacheCreation: 0, cacheRead: 0 }, haiku).usd, 0.0500005, 'above');
    // Cache tokens count towards the threshold (Claude Code's figure for this usage: $0.04274325).
    near(
      costOfUsage(
        { input: 12_345, output: 6_789, cacheCreation: 23_456, cacheRead: 98_765, cacheWrite: { m5: 0, h1: 0 } },
        haiku,
      ).usd,
      0.04274325,
      'mixed',
    );
  });

  it('cache writes without a lifetime breakdown are priced at the 5-minute rate (Claude Code writes a zero breakdown when the API sent none)', () => {
    const opus = priceFor('claude-opus-5-5')!.price;
    near(
      costOfUsage({ input: 0, output: 0, cacheCreation: 1_000_000, cacheRead: 0, cacheWrite: { m5: 0, h1: 0 } }, opus)
        .usd,
      5,
      'zero breakdown',
    );
    near(
      costOfUsage(
        { input: 0, output: 0, cacheCreation: 1_000_000, cacheRead: 0, cacheWrite: { m5: 400_000, h1: 600_000 } },
        opus,
      ).usd,
      0.4 * 5 + 0.6 * 8,
      'broken down',
    );
  });

  it('an unknown family is unpriced, and the note names the override', async () => {
    assert.equal(priceFor('llama-4-maverick'), null);
    assert.equal(priceFor('claude-mythos-1'), null);
    const c = await costOfLines([
      user('u0', null),
      assistant('a1', 'u0', 'msg_1', 'claude-mythos-1', { input_tokens: 100 }),
    ]);
    assert.deepEqual(c.unpriced, ['claude-mythos-1']);
    assert.equal(c.total.usd, 0);
    assert.deepEqual(costNotes(c, 'the setting agentCompactor.prices'), [
      'No price for claude-mythos-1 (counted as $0): give one with the setting agentCompactor.prices.',
    ]);
    assert.equal(costFigure(c), '$0.0000 (unpriced models)');
  });

  it('a session of an unknown opus version is priced at the newest opus rates and says so', async () => {
    const c = await costOfLines([
      user('u0', null),
      assistant('a1', 'u0', 'msg_1', 'claude-opus-4-9', { input_tokens: 1_000_000, output_tokens: 100_000 }),
    ]);
    near(c.total.usd, 4 + 2, 'total');
    assert.deepEqual(c.assumed, [{ model: 'claude-opus-4-9', priceKey: 'claude-opus-5-5' }]);
    assert.equal(c.responses.get('msg_1')!.assumed, true);
    assert.deepEqual(costNotes(c, '--prices'), [
      'claude-opus-4-9 is not in the price table: assumed at the rates of claude-opus-5-5.',
    ]);
    assert.equal(costFigure(c), '$6.00 (assumed prices)');
  });
});

describe('Codex rollouts are priced at the OpenAI rates of their model', () => {
  it('every model of the Codex fixtures has its own rates: no "No price" note, a cost above zero', async () => {
    for (const file of agentFixtures('codex')) {
      const c = sessionCost((await indexTranscript(file)).entries);
      assert.deepEqual(c.unpriced, [], `${file}: ${c.unpriced.join(', ')}`);
      assert.deepEqual(c.assumed, [], file);
      assert.ok(c.total.usd > 0, `${file}: $${c.total.usd}`);
      assert.deepEqual(costNotes(c, '--prices FILE'), [], file);
    }
  });

  it("a token count's input holds its cached part and its output its reasoning: input − cached at the input rate, cached at the cached rate, all output at the output rate", async () => {
    const file = join(tempDir('ac-codex-price-'), 'rollout.jsonl');
    try {
      const count = (input: number, cached: number, output: number, reasoning: number, total: number) =>
        JSON.stringify({
          timestamp: '2026-11-20T10:00:02.000Z',
          type: 'event_msg',
          payload: {
            type: 'token_count',
            info: {
              total_token_usage: {
                input_tokens: input,
                cached_input_tokens: cached,
                output_tokens: output,
                total_tokens: total,
              },
              last_token_usage: {
                input_tokens: input,
                cached_input_tokens: cached,
                output_tokens: output,
                reasoning_output_tokens: reasoning,
                total_tokens: input + output,
              },
            },
          },
        });
      const lines = [
        JSON.stringify({
          timestamp: '2026-11-20T10:00:00.000Z',
          type: 'session_meta',
          payload: { id: '0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee', cwd: '/p', cli_version: '0.169.0' },
        }),
        JSON.stringify({
          timestamp: '2026-11-20T10:00:01.000Z',
          type: 'turn_context',
          payload: { cwd: '/p', model: 'gpt-5.5' },
        }),
        count(100_000, 60_000, 2_000, 1_500, 102_000),
        JSON.stringify({
          timestamp: '2026-11-20T10:00:03.000Z',
          type: 'response_item',
          payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] },
        }),
      ];
      writeFileSync(file, lines.join('\n') + '\n');
      const c = sessionCost((await indexTranscript(file)).entries);
      near(c.total.usd, (40_000 * 5 + 60_000 * 0.5 + 2_000 * 30) / 1e6, 'gpt-5.5');
      near(c.total.cacheRead, (60_000 * 0.5) / 1e6, 'cached part');
      near(c.total.output, (2_000 * 30) / 1e6, 'reasoning inside the output');
    } finally {
      rmSync(join(file, '..'), { recursive: true, force: true });
    }
  });

  it('past 272,000 input tokens the whole request is at the long-context rates (2× input, 1.5× output)', () => {
    const p = priceFor('gpt-5.4')!.price;
    const u = (input: number) => ({ input, output: 1000, cacheCreation: 0, cacheRead: 0 });
    near(costOfUsage(u(272_000), p).usd, (272_000 * 2.5 + 1000 * 15) / 1e6, 'at 272,000');
    near(costOfUsage(u(272_001), p).usd, (272_001 * 5 + 1000 * 22.5) / 1e6, 'at 272,001');
  });

  it("OpenAI ids keep their dots; dated and prefixed ids find their model; an unknown tier or version is assumed at its family's newest", () => {
    assert.equal(priceFor('gpt-5.4-2026-03-05')!.key, 'gpt-5.4');
    assert.equal(priceFor('openai/gpt-5.5')!.key, 'gpt-5.5');
    assert.deepEqual(
      { key: priceFor('gpt-6.1-terra')!.key, assumed: priceFor('gpt-6.1-terra')!.assumed },
      { key: 'gpt-5.6-terra', assumed: true },
    );
    assert.deepEqual(
      { key: priceFor('gpt-5.7')!.key, assumed: priceFor('gpt-5.7')!.assumed },
      { key: 'gpt-5.5', assumed: true },
    );
    assert.equal(priceFor('gpt-5.5')!.assumed, false);
    assert.equal(priceFor('claude-opus-4-7')!.key, 'claude-opus-4-7');
  });
});

describe("the agent's own cost (cost-state) beside ours", () => {
  const usage = { input_tokens: 100_000 }; // $0.40 at claude-opus-5-5's rates

  it('reads the last cost-state line and agrees within 2% when the figures match', async () => {
    const c = await costOfLines([
      user('u0', null),
      assistant('a1', 'u0', 'msg_1', 'claude-opus-5-5', usage),
      costState(0.4, { 'claude-opus-5-5': 0.4 }),
      user('u1', 'a1'),
      assistant('a2', 'u1', 'msg_2', 'claude-opus-5-5', usage),
      costState(0.8, { 'claude-opus-5-5': 0.8 }),
      JSON.stringify({ type: 'some-future-record', what: 1 }),
    ]);
    near(c.total.usd, 0.8, 'ours');
    assert.deepEqual(
      [c.agent!.usd, c.agent!.line, c.agent!.byModel],
      [0.8, 6, [{ model: 'claude-opus-5-5', usd: 0.8 }]],
    );
    assert.equal(agentCostGap(c), 0);
    assert.deepEqual(costNotes(c, '--prices'), []);
  });

  it('warns when the two differ by more than 2%', async () => {
    const c = await costOfLines([
      user('u0', null),
      assistant('a1', 'u0', 'msg_1', 'claude-opus-5-5', usage),
      costState(1.26, { 'claude-opus-5-5': 1.26 }),
    ]);
    assert.ok(agentCostGap(c)! > 0.02);
    assert.deepEqual(costNotes(c, '--prices'), [
      'The agent recorded $1.26 for this session, ours is $0.4000 (68% apart). Its figure also counts requests whose figures the file does not record, such as an automatic compaction mid-turn.',
    ]);
    const close = await costOfLines([
      user('u0', null),
      assistant('a1', 'u0', 'msg_1', 'claude-opus-5-5', usage),
      costState(0.405, {}),
    ]);
    assert.deepEqual(costNotes(close, '--prices'), [], 'a 1.2% difference is within tolerance');
  });

  it('odd cost-state lines are no error and give no figure', async () => {
    for (const odd of [
      { type: 'cost-state' },
      { type: 'cost-state', totalCostUSD: 'x' },
      { type: 'cost-state', totalCostUSD: -1, modelUsage: [] },
    ]) {
      const parsed = parseLine(JSON.stringify(odd), 1, 0, 10);
      assert.equal(parsed.malformed, undefined);
      assert.equal(parsed.entries[0].agentCost, undefined);
    }
    const c = await costOfLines([
      user('u0', null),
      JSON.stringify({ type: 'cost-state', totalCostUSD: 2, modelUsage: { m: null, n: { costUSD: 'x' } } }),
    ]);
    assert.deepEqual([c.agent!.usd, c.agent!.byModel], [2, []]);
  });

  it('a fork counts only the responses after its fork point, and only its own cost-state records', async () => {
    // The original's lines (session S1), then a compaction's boundary and kept round under the fork's id S2, then a
    // turn Claude Code added when resuming the fork (its running total started afresh, as 2.1.330 does in a fork).
    const c = await costOfLines([
      user('u0', null),
      assistant('a1', 'u0', 'msg_1', 'claude-opus-5-5', usage),
      costState(0.4, { 'claude-opus-5-5': 0.4 }),
      user('u1', 'a1'),
      assistant('a2', 'u1', 'msg_2', 'claude-opus-5-5', usage),
      costState(0.8, { 'claude-opus-5-5': 0.8 }),
      JSON.stringify({
        type: 'system',
        subtype: 'compact_boundary',
        uuid: 'b',
        parentUuid: null,
        logicalParentUuid: 'a2',
        sessionId: 'S2',
        compactMetadata: { trigger: 'manual', preTokens: 10 },
      }),
      user('s', 'b', { sessionId: 'S2', isCompactSummary: true }),
      user('u2', 's', { sessionId: 'S2' }),
      assistant('a3', 'u2', 'msg_3', 'claude-opus-5-5', usage, { sessionId: 'S2' }),
      costState(0.4, { 'claude-opus-5-5': 0.4 }, 'S2'),
    ]);
    assert.equal(c.copiedResponses, 2);
    assert.deepEqual([...c.responses.keys()], ['msg_3']);
    near(c.total.usd, 0.4, 'ours');
    assert.deepEqual([c.agent!.usd, c.agent!.line], [0.4, 11]);
    assert.deepEqual(costNotes(c, '--prices'), []);
    // Before Claude Code resumed it, the fork has no cost of its own and no cost-state record of its own.
    const fresh = await costOfLines([
      user('u0', null),
      assistant('a1', 'u0', 'msg_1', 'claude-opus-5-5', usage),
      costState(0.4, { 'claude-opus-5-5': 0.4 }),
      JSON.stringify({ type: 'system', subtype: 'compact_boundary', uuid: 'b', parentUuid: null, sessionId: 'S2' }),
      user('s', 'b', { sessionId: 'S2', isCompactSummary: true }),
    ]);
    assert.deepEqual([fresh.total.usd, fresh.agent, fresh.copiedResponses], [0, null, 1]);
  });

  it('a file compacted in place (one session id) counts every response', async () => {
    const c = await costOfLines([
      user('u0', null),
      assistant('a1', 'u0', 'msg_1', 'claude-opus-5-5', usage),
      JSON.stringify({ type: 'system', subtype: 'compact_boundary', uuid: 'b', parentUuid: null, sessionId: 'S1' }),
      user('u2', 'b'),
      assistant('a3', 'u2', 'msg_3', 'claude-opus-5-5', usage),
    ]);
    assert.equal(c.copiedResponses, 0);
    near(c.total.usd, 0.8, 'ours');
  });

  it('the price table says where and when its rates come from', () => {
    assert.match(DEFAULT_PRICES.source, /Claude Code 2\.1\.330/);
    assert.match(DEFAULT_PRICES.date, /^\d{4}-\d{2}-\d{2}$/);
  });
});

// The verb in this process, as `agent-compactor` runs it (the bundle's own wiring: test/integration/cli.test.ts).
describe("inspect (the CLI) shows assumed rates, unpriced models and the agent's own figure", () => {
  it('text and --json', async () => {
    const dir = tempDir('ac-prices-cli-');
    try {
      const f = join(dir, 's.jsonl');
      writeFileSync(
        f,
        [
          user('u0', null),
          assistant('a1', 'u0', 'msg_1', 'claude-opus-4-9', { input_tokens: 100_000 }),
          user('u1', 'a1'),
          assistant('a2', 'u1', 'msg_2', 'claude-mythos-1', { input_tokens: 100_000 }),
          costState(1.26, { 'claude-opus-4-9': 1.26 }),
        ].join('\n') + '\n',
      );
      const run = (args: string[]) => runCliInProcess(['inspect', ...args, f]);
      const text = await run([]);
      assert.equal(text.status, 0, text.stderr);
      assert.match(text.stdout, /^cost: \$0\.4000 \(assumed prices\) over 2 responses/m);
      assert.match(text.stdout, /the agent's own figure: \$1\.26 \(cost-state, line 5\)/);
      assert.match(text.stdout, /claude-opus-4-9 is not in the price table: assumed at the rates of claude-opus-5-5\./);
      assert.match(text.stdout, /No price for claude-mythos-1 \(counted as \$0\): give one with --prices FILE\./);
      assert.match(
        text.stdout,
        /The agent recorded \$1\.26 for this session, ours is \$0\.4000 \(68% apart\)\. Its figure also counts/,
      );
      const json = await run(['--json']);
      assert.equal(json.status, 0, json.stderr);
      const cost = (
        JSON.parse(json.stdout) as {
          cost: { assumed: unknown; unpriced: unknown; agent: { usd: number }; agentGap: number; notes: string[] };
        }
      ).cost;
      assert.deepEqual(cost.assumed, [{ model: 'claude-opus-4-9', priceKey: 'claude-opus-5-5' }]);
      assert.deepEqual(cost.unpriced, ['claude-mythos-1']);
      assert.equal(cost.agent.usd, 1.26);
      assert.ok(Math.abs(cost.agentGap - (1.26 - 0.4) / 1.26) < 1e-9);
      assert.equal(cost.notes.length, 3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
