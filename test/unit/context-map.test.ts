// The Context Map's figures: per-round breakdowns that sum to the round's estimate on every
// fixture, categories found where the fixtures hold them, cost against figures computed by hand
// from the fixtures' usage, one price per response however many lines repeat it, price lookup
// and overrides, and the CLI's `inspect` output (text and --json), the verb run in this process.
import { strict as assert } from 'node:assert';
import { rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { inspectFile, type Analysis } from '../../src/core/inspect';
import { apportion, breakdownTotal, BREAKDOWN_CATEGORIES } from '../../src/core/breakdown';
import { contextMap, mappedTotal } from '../../src/core/contextMap';
import { costOfUsage, DEFAULT_PRICES, modelKey, priceFor, sessionCost, withPriceOverrides } from '../../src/core/cost';
import { indexTranscript } from '../../src/core/transcript';
import { claudeFixtures, fixture } from '../support/fixtures';
import { runCliInProcess } from '../support/cliInProcess';
import { tempDir } from '../support/temp';

const near = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} ≠ ${b}`);

describe('Context Map figures', function () {
  this.timeout(120_000);
  const analyses = new Map<string, Analysis>();
  before(async () => {
    for (const f of claudeFixtures()) analyses.set(basename(f), await inspectFile(f, { subagents: false }));
  });

  describe('breakdown', () => {
    it('every round of every fixture: whole, non-negative categories summing to its estimate; per-tool figures sum to the tool categories', () => {
      let rounds = 0;
      for (const [name, a] of analyses) {
        const map = contextMap(a);
        assert.equal(map.rounds.length, a.report.rounds.length, name);
        for (let i = 0; i < map.rounds.length; i++) {
          const b = map.rounds[i].breakdown;
          for (const c of BREAKDOWN_CATEGORIES)
            assert.ok(Number.isInteger(b[c]) && b[c] >= 0, `${name} round ${i} ${c} = ${b[c]}`);
          assert.equal(breakdownTotal(b), a.report.rounds[i].tokens.estimate, `${name} round ${i}`);
          const tools = Object.values(b.byTool);
          assert.equal(
            tools.reduce((s, t) => s + t.callTokens, 0),
            b.toolCalls,
            `${name} round ${i} tool calls`,
          );
          assert.equal(
            tools.reduce((s, t) => s + t.resultTokens, 0),
            b.toolResults,
            `${name} round ${i} tool results`,
          );
          assert.equal(
            tools.reduce((s, t) => s + t.calls, 0),
            a.report.rounds[i].toolUses.length,
            `${name} round ${i} calls`,
          );
          rounds++;
        }
        assert.equal(
          mappedTotal(map),
          a.report.rounds.reduce((s, r) => s + r.tokens.estimate, 0),
          name,
        );
      }
      assert.ok(rounds > 600, `${rounds} rounds checked`);
    });

    it('finds each category where the fixtures hold it', () => {
      const sum = (name: string, c: (typeof BREAKDOWN_CATEGORIES)[number]) =>
        contextMap(analyses.get(name)!).rounds.reduce((s, r) => s + r.breakdown[c], 0);
      assert.ok(sum('thinking.jsonl', 'thinking') > 0, 'thinking');
      assert.ok(sum('v2.1.97-images.jsonl', 'images') > 0, 'images');
      assert.ok(sum('with-compactions.jsonl', 'summaries') > 0, 'earlier summaries');
      assert.ok(sum('v2.1.97-live-after.jsonl', 'attachments') > 0, 'attachments');
      for (const [name, a] of analyses) {
        const map = contextMap(a);
        const calls = a.report.totals.toolUses;
        if (calls > 0)
          assert.ok(
            map.rounds.some((r) => r.breakdown.toolCalls > 0),
            `${name}: tool calls`,
          );
        assert.ok(
          map.rounds.some((r) => r.breakdown.userText > 0),
          `${name}: user text`,
        );
        assert.ok(
          map.rounds.some((r) => r.breakdown.assistantText > 0),
          `${name}: assistant text`,
        );
      }
    });

    it('results are attributed to the tool that produced them', () => {
      const map = contextMap(analyses.get('example.jsonl')!);
      const read = map.tools.find((t) => t.name === 'Read');
      assert.ok(read && read.calls > 0 && read.activeTokens > 0, JSON.stringify(map.tools));
      const shares = map.tools.reduce((s, t) => s + t.activeShare, 0);
      assert.ok(shares > 0 && shares <= 1 + 1e-9, `tool shares of the active context: ${shares}`);
      assert.ok(map.largest.length > 0 && map.largest.length <= 20);
      for (let i = 1; i < map.largest.length; i++)
        assert.ok(map.largest[i - 1].tokens >= map.largest[i].tokens, 'largest first');
    });

    it('apportion: whole parts, summing to the total, each within 1 of its exact share (random weights)', () => {
      let seed = 7;
      const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      for (let k = 0; k < 500; k++) {
        const weights = Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => (rnd() < 0.2 ? 0 : rnd() * 1000));
        const total = Math.floor(rnd() * 5000);
        const parts = apportion(weights, total);
        const sum = weights.reduce((a, b) => a + b, 0);
        assert.equal(
          parts.reduce((a, b) => a + b, 0),
          sum > 0 ? total : 0,
        );
        parts.forEach((p, i) => {
          assert.ok(Number.isInteger(p));
          if (sum > 0) assert.ok(Math.abs(p - (weights[i] * total) / sum) < 1, `part ${i}`);
        });
      }
    });
  });

  describe('cost', () => {
    it('matches figures computed by hand for single responses (5-minute and 1-hour cache writes)', () => {
      const example = contextMap(analyses.get('example.jsonl')!);
      const r1 = example.rounds.find(
        (_, i) => analyses.get('example.jsonl')!.report.rounds[i].messageId === 'msg_01CGPMn2gKuNSisSxM4ym5nf',
      );
      // claude-sonnet-4: 4 input × $3 + 91 output × $15 + 10,361 5-minute writes × $3.75 + 4,802 reads × $0.30, per million.
      near(r1!.cost!.usd, (4 * 3 + 91 * 15 + 10361 * 3.75 + 4802 * 0.3) / 1e6, 'example round');
      near(r1!.cost!.cacheWrite, (10361 * 3.75) / 1e6, 'example cache writes');
      assert.equal(r1!.cost!.priceKey, 'claude-sonnet-4');
      const before = analyses.get('v2.1.97-live-before.jsonl')!;
      const i2 = before.report.rounds.findIndex((r) => r.messageId === 'msg_01S2z6RXgS9NZaJoGHMF5BMg');
      // claude-sonnet-4-6: 3 input × $3 + 351 output × $15 + 4,947 1-hour writes × $6 + 11,158 reads × $0.30.
      near(
        contextMap(before).rounds[i2].cost!.usd,
        (3 * 3 + 351 * 15 + 4947 * 6 + 11158 * 0.3) / 1e6,
        'live-before round',
      );
    });

    it('a response written over several lines, retried, or replayed in a sidechain is priced once with its final figures', async () => {
      const dir = tempDir('ac-cost-');
      try {
        const line = (
          uuid: string,
          parent: string | null,
          id: string,
          req: string,
          output: number,
          extra: Record<string, unknown> = {},
        ) =>
          JSON.stringify({
            type: 'assistant',
            uuid,
            parentUuid: parent,
            sessionId: 's',
            requestId: req,
            timestamp: '2026-01-01T00:00:00Z',
            isSidechain: false,
            ...extra,
            message: {
              id,
              role: 'assistant',
              model: 'claude-opus-4-5-20251101',
              content: [{ type: 'text', text: 'x' }],
              usage: {
                input_tokens: 10,
                output_tokens: output,
                cache_creation_input_tokens: 100,
                cache_read_input_tokens: 1000,
              },
            },
          });
        const f = join(dir, 's.jsonl');
        writeFileSync(
          f,
          [
            JSON.stringify({
              type: 'user',
              uuid: 'u0',
              parentUuid: null,
              sessionId: 's',
              message: { role: 'user', content: 'hi' },
            }),
            line('a1', 'u0', 'msg_A', 'req_1', 1), // placeholder output on the first line of the response
            line('a2', 'a1', 'msg_A', 'req_1', 50), // final figures
            line('a3', 'a2', 'msg_A', 'req_1', 50, { isSidechain: true }), // a sidechain replay of the same response
            line('a4', 'a3', 'msg_B', 'req_2', 20),
          ].join('\n') + '\n',
        );
        const c = sessionCost((await indexTranscript(f)).entries);
        assert.equal(c.responses.size, 2);
        const one = (out: number) => (10 * 5 + out * 25 + 100 * 6.25 + 1000 * 0.5) / 1e6;
        near(c.total.usd, one(50) + one(20), 'session');
        near(c.responses.get('msg_A')!.cost.usd, one(50), 'msg_A');
        assert.equal(c.responses.get('msg_A')!.sidechain, false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('long-context rates apply to the whole request above 200,000 input tokens, on models that have them', () => {
      const sonnet = priceFor('claude-sonnet-4-5-20250929')!.price;
      const u = { input: 1000, output: 100, cacheCreation: 0, cacheRead: 200_000 };
      near(costOfUsage(u, sonnet).usd, (1000 * 6 + 100 * 22.5 + 200_000 * 0.6) / 1e6, 'above 200k');
      near(
        costOfUsage({ ...u, cacheRead: 199_000 }, sonnet).usd,
        (1000 * 3 + 100 * 15 + 199_000 * 0.3) / 1e6,
        'at 200k',
      );
      const opus45 = priceFor('claude-opus-4-5-20251101')!.price;
      near(costOfUsage(u, opus45).usd, (1000 * 5 + 100 * 25 + 200_000 * 0.5) / 1e6, 'no long-context rates');
    });

    it('model ids map to their family; unknown models are reported, not guessed', () => {
      assert.equal(modelKey('claude-sonnet-4-20250514'), 'claude-sonnet-4');
      assert.equal(modelKey('claude-opus-4.6-1m'), 'claude-opus-4-6');
      assert.equal(modelKey('us.anthropic.claude-haiku-4-5-20251001-v1:0'), 'claude-haiku-4-5');
      assert.equal(modelKey('claude-sonnet-4-6[1m]'), 'claude-sonnet-4-6');
      assert.equal(priceFor('claude-opus-4-1-20250805')!.key, 'claude-opus-4-1');
      assert.equal(priceFor('claude-opus-4-20250514')!.key, 'claude-opus-4');
      assert.equal(priceFor('llama-4-maverick'), null);
      assert.equal(
        priceFor('claude-sonnet-4-5-20250929', withPriceOverrides({ 'claude-sonnet-4-5': { input: 2 } }))!.price
          .cacheRead,
        0.2,
      );
      const custom = withPriceOverrides({ 'my-model': { input: 1, output: 2 } });
      assert.deepEqual(priceFor('my-model', custom)!.price, {
        input: 1,
        output: 2,
        cacheWrite5m: 1.25,
        cacheWrite1h: 2,
        cacheRead: 0.1,
      });
      assert.match(custom.source, /overridden by settings for my-model/);
      assert.throws(() => withPriceOverrides({ x: { input: -1 } }), /x\.input/);
      assert.throws(() => withPriceOverrides({ y: { cacheRead: 1 } }), /at least input and output/);
      assert.equal(DEFAULT_PRICES.models['claude-opus-4-5'].cacheWrite1h, 10);
    });
  });

  // The verb in this process, as `agent-compactor` runs it (the bundle's own wiring: test/integration/cli.test.ts).
  describe('inspect (the CLI)', () => {
    const run = (args: string[]) => runCliInProcess(args);

    it('--json: a breakdown summing to the estimate and a cost with its price source on each round; the session cost', async () => {
      const r = await run(['inspect', '--json', fixture('example.jsonl')]);
      assert.equal(r.status, 0, r.stderr);
      const j = JSON.parse(r.stdout) as {
        rounds: {
          tokens: { estimate: number };
          breakdown: Record<string, number>;
          cost: { usd: number; priceSource: string } | null;
        }[];
        cost: { total: { usd: number } };
        tools: { name: string }[];
      };
      let sum = 0;
      for (const round of j.rounds) {
        assert.equal(
          BREAKDOWN_CATEGORIES.reduce((s, c) => s + round.breakdown[c], 0),
          round.tokens.estimate,
        );
        if (round.cost) {
          assert.match(round.cost.priceSource, /Anthropic list prices/);
          sum += round.cost.usd;
        }
      }
      near(sum, j.cost.total.usd, 'rounds sum to the session on a file without sidechains');
      assert.ok(j.tools.some((t) => t.name === 'Read'));
    });

    it('text: a per-tool table and the session cost; --prices replaces rates; a bad --prices file exits 2 with one line', async () => {
      const r = await run(['inspect', fixture('example.jsonl')]);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^tool +calls +in context/m);
      const base = /cost: \$([\d.]+) over 13 responses/.exec(r.stdout);
      assert.ok(base, r.stdout);
      const dir = tempDir('ac-prices-');
      try {
        const prices = join(dir, 'p.json');
        writeFileSync(prices, JSON.stringify({ 'claude-sonnet-4': { input: 6, output: 30 } }));
        const doubled = /cost: \$([\d.]+)/.exec(
          (await run(['inspect', '--prices', prices, fixture('example.jsonl')])).stdout,
        );
        assert.ok(Math.abs(Number(doubled![1]) - 2 * Number(base[1])) < 0.001, `${doubled![1]} vs 2 × ${base[1]}`);
        writeFileSync(prices, '{"claude-sonnet-4": {"input": "cheap"}}');
        const bad = await run(['inspect', '--prices', prices, fixture('example.jsonl')]);
        assert.equal(bad.status, 2);
        assert.match(bad.stderr, /claude-sonnet-4\.input/);
        assert.equal(bad.stderr.trim().split('\n').length, 1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
