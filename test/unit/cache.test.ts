// The prompt cache's state from a session's own records, and the next turn's cost with and without a compaction:
// the timing rules with an injected clock (warm / expired, 5-minute / 1-hour writes, reads that refresh a write's
// lifetime, agents whose records do not say), and the break-even over warm / expired, 5-minute / 1-hour and
// offline / LLM summarizer cases, each checked against the figures worked out by hand from the price table.
import type { AgentId } from '../../src/core/formats/registry';
import { strict as assert } from 'node:assert';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheState, nextTurnCost, FIVE_MINUTES_MS, ONE_HOUR_MS, type CacheState } from '../../src/core/cache';
import {
  compactionEconomics,
  economicsLine,
  type CompactionEconomics,
  type PlanEconomics,
} from '../../src/core/compact/economics';
import { DEFAULT_PRICES, priceFor } from '../../src/core/cost';
import { inspectFile } from '../../src/core/inspect';
import { agentFixtures, claudeFixtures, fixture } from '../support/fixtures';
import { planCompaction } from '../../src/core/compact/plan';
import { DEFAULT_SETTINGS } from '../../src/core/compactSettings';
import { runCliInProcess } from '../support/cliInProcess';
import { tempDir } from '../support/temp';

const T0 = Date.UTC(2026, 10, 25, 14, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

interface Turn {
  at: number;
  read: number;
  m5?: number;
  h1?: number;
  /** Usage written without the lifetime split (older Claude Code). */
  plainWrite?: number;
}

/** A small Claude Code session: one prompt and one reply per turn, each reply with the given usage and time. */
function session(turns: Turn[]): string[] {
  const lines: string[] = [];
  let parent: string | null = null;
  let n = 0;
  const push = (o: Record<string, unknown>, at: number) => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    lines.push(
      JSON.stringify({
        parentUuid: parent,
        isSidechain: false,
        sessionId: 's',
        cwd: '/p',
        version: '2.1.330',
        userType: 'external',
        ...o,
        uuid,
        timestamp: iso(at),
      }),
    );
    parent = uuid;
  };
  turns.forEach((t, k) => {
    push({ type: 'user', message: { role: 'user', content: `question ${k}` } }, t.at - 2000);
    const split = t.plainWrite === undefined;
    const write = split ? (t.m5 ?? 0) + (t.h1 ?? 0) : t.plainWrite;
    const usage: Record<string, unknown> = {
      input_tokens: 3,
      cache_creation_input_tokens: write,
      cache_read_input_tokens: t.read,
      output_tokens: 50,
    };
    if (split) usage.cache_creation = { ephemeral_5m_input_tokens: t.m5 ?? 0, ephemeral_1h_input_tokens: t.h1 ?? 0 };
    push(
      {
        type: 'assistant',
        requestId: `req_${k}`,
        message: {
          id: `msg_${k}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-6',
          content: [{ type: 'text', text: `answer ${k}` }],
          stop_reason: 'end_turn',
          usage,
        },
      },
      t.at,
    );
  });
  return lines;
}

describe('prompt cache state and the next turn cost', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => (dir = tempDir('ac-cache-')));
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function stateOf(turns: Turn[], now: number, agent: AgentId = 'claude-code'): Promise<CacheState> {
    const file = join(dir, `s${Math.random().toString(36).slice(2)}.jsonl`);
    writeFileSync(file, session(turns).join('\n') + '\n');
    const a = await inspectFile(file);
    return cacheState(a.index.entries, a.rounds, agent, now);
  }

  it('5-minute writes: warm until 5 minutes after the newest response, expired after; a read refreshes the lifetime', async () => {
    const turns: Turn[] = [
      { at: T0, read: 0, m5: 20_000 },
      { at: T0 + 60_000, read: 20_000, m5: 1_000 },
    ];
    const last = T0 + 60_000;
    const warm = await stateOf(turns, last + FIVE_MINUTES_MS - 1);
    assert.equal(warm.status, 'warm', warm.reason);
    assert.equal(warm.ttlMs, FIVE_MINUTES_MS);
    assert.equal(warm.expiresAt, last + FIVE_MINUTES_MS);
    assert.equal(warm.coveredTokens, 21_000);
    assert.equal(warm.requestTokens, 21_003);
    assert.match(
      warm.reason,
      /^cache warm for 1 min more \(written for 5 minutes, last used at 14:01 UTC; until 14:06 UTC\)$/,
    );
    const cold = await stateOf(turns, last + FIVE_MINUTES_MS);
    assert.equal(cold.status, 'expired', cold.reason);
    assert.match(cold.reason, /^cache expired 1 min ago \(written for 5 minutes/);
    assert.match((await stateOf(turns, last + FIVE_MINUTES_MS + 40 * 60_000)).reason, /^cache expired 40 min ago/);
    assert.match((await stateOf(turns, last + FIVE_MINUTES_MS + 3 * 86_400_000)).reason, /^cache expired 3 days ago/);
    // A newest request that only read the cache keeps the lifetime its prefix was written with, from its own time.
    const readOnly = await stateOf(
      [
        { at: T0, read: 0, m5: 20_000 },
        { at: T0 + 240_000, read: 20_000 },
      ],
      T0 + 400_000,
    );
    assert.equal(readOnly.status, 'warm', 'read at 4 min, so warm until 9 min although the write was at 0');
    assert.equal(readOnly.expiresAt, T0 + 240_000 + FIVE_MINUTES_MS);
  });

  it('1-hour writes: warm for the hour; an older 1-hour write under a newer read-only request still counts', async () => {
    const turns: Turn[] = [
      { at: T0, read: 0, h1: 30_000 },
      { at: T0 + 120_000, read: 30_000 },
    ];
    const at40 = await stateOf(turns, T0 + 120_000 + 40 * 60_000);
    assert.equal(at40.status, 'warm');
    assert.equal(at40.ttlMs, ONE_HOUR_MS);
    const at61 = await stateOf(turns, T0 + 120_000 + 61 * 60_000);
    assert.equal(at61.status, 'expired');
    // The newest write decides: a 5-minute write after a 1-hour one makes the prefix's tail live 5 minutes.
    const mixed = await stateOf(
      [
        { at: T0, read: 0, h1: 30_000 },
        { at: T0 + 60_000, read: 30_000, m5: 2_000 },
      ],
      T0 + 60_000 + 10 * 60_000,
    );
    assert.equal(mixed.status, 'expired');
    assert.equal(mixed.ttlMs, FIVE_MINUTES_MS);
  });

  it('an unsplit write is the default 5 minutes; no cache use, no usage, no time, or an agent whose records do not say: unknown', async () => {
    const plain = await stateOf([{ at: T0, read: 0, plainWrite: 9_000 }], T0 + 60_000);
    assert.equal(plain.status, 'warm');
    assert.equal(plain.ttlMs, FIVE_MINUTES_MS);
    const uncached = await stateOf([{ at: T0, read: 0 }], T0 + 1000);
    assert.equal(uncached.status, 'unknown');
    assert.match(uncached.reason, /neither read nor wrote/);
    const codexRules = await stateOf([{ at: T0, read: 0, m5: 9_000 }], T0 + 1000, 'codex');
    assert.equal(codexRules.status, 'unknown');
    assert.match(codexRules.reason, /Codex's records do not say/);
    const other = await stateOf([{ at: T0, read: 0, m5: 9_000 }], T0 + 1000, 'gemini-cli');
    assert.equal(other.status, 'unknown');
    assert.equal(cacheState([], [], 'claude-code', T0).status, 'unknown');
  });

  it('every fixture of every agent: a state with a reason, never a throw; Codex rollouts are unknown', async () => {
    const files = [...claudeFixtures(), ...agentFixtures('codex')];
    let warmOrExpired = 0;
    for (const f of files) {
      const a = await inspectFile(f);
      const s = cacheState(a.index.entries, a.rounds, a.index.format.id, Date.now());
      assert.ok(s.reason.length > 0, f);
      if (a.index.format.id === 'codex') assert.equal(s.status, 'unknown', f);
      if (s.status !== 'unknown') {
        warmOrExpired++;
        assert.ok(s.expiresAt !== null && s.lastRequestAt !== null && s.expiresAt > s.lastRequestAt, f);
        assert.ok(s.coveredTokens > 0 && s.coveredTokens <= s.requestTokens, f);
      }
    }
    assert.ok(warmOrExpired >= 5, `${warmOrExpired} fixtures with a known cache state`);
  });

  describe('the next turn', () => {
    const price = priceFor('claude-sonnet-4-6', DEFAULT_PRICES)!.price; // $3 input, $3.75 5-min write, $6 1-hour write, $0.30 read
    const state = (status: CacheState['status'], ttlMs: number, covered: number): CacheState => ({
      status,
      reason: '',
      lastRequestAt: T0,
      ttlMs,
      expiresAt: T0 + ttlMs,
      coveredTokens: covered,
      requestTokens: covered,
    });
    const usd = (tokens: number, rate: number) => (tokens * rate) / 1e6;
    const near = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} vs ${b}`);

    it('warm, 5-minute, offline: resuming reads the covered prefix; compacting writes the smaller context after the kept system prompt', () => {
      const c = nextTurnCost({
        cache: state('warm', FIVE_MINUTES_MS, 150_000),
        contextTokens: 152_000,
        overheadTokens: 20_000,
        afterTokens: 40_000,
        summarizerUsd: 0,
        price,
      });
      near(c.asIsUsd, usd(150_000, 0.3) + usd(2_000, 3.75), 'as is');
      near(c.compactedUsd, usd(20_000, 0.3) + usd(20_000, 3.75), 'compacted');
      near(c.savedPerTurnUsd, usd(112_000, 0.3), 'per turn');
      // The compacted first turn costs 0.081 − 0.0525 = $0.0285 more; each later turn saves $0.0336: 1 turn.
      assert.equal(c.breakEvenTurns, 1);
      near(c.savedOverHorizonUsd, 20 * usd(112_000, 0.3) - (c.compactedUsd - c.asIsUsd), 'over 20');
      assert.equal(c.warm, true);
    });

    it('expired, 5-minute, offline: both write everything, so the smaller context pays at once', () => {
      const c = nextTurnCost({
        cache: state('expired', FIVE_MINUTES_MS, 150_000),
        contextTokens: 152_000,
        overheadTokens: 20_000,
        afterTokens: 40_000,
        summarizerUsd: 0,
        price,
      });
      near(c.asIsUsd, usd(152_000, 3.75), 'as is');
      near(c.compactedUsd, usd(40_000, 3.75), 'compacted');
      assert.equal(c.breakEvenTurns, 0);
      assert.equal(c.warm, false);
    });

    it('1-hour writes are priced at the 1-hour rate, warm and expired', () => {
      const warm = nextTurnCost({
        cache: state('warm', ONE_HOUR_MS, 100_000),
        contextTokens: 100_000,
        overheadTokens: 10_000,
        afterTokens: 30_000,
        summarizerUsd: 0,
        price,
      });
      near(warm.compactedUsd, usd(10_000, 0.3) + usd(20_000, 6), '1-hour compacted');
      const cold = nextTurnCost({
        cache: state('expired', ONE_HOUR_MS, 100_000),
        contextTokens: 100_000,
        overheadTokens: 10_000,
        afterTokens: 30_000,
        summarizerUsd: 0,
        price,
      });
      near(cold.asIsUsd, usd(100_000, 6), '1-hour as is');
    });

    it('an LLM summarizer adds its own cost and moves the break-even; a compaction that saves nothing never pays', () => {
      const summarizer = usd(120_000, 3) + usd(8_000, 15); // reads the span, writes its analysis and the summary
      const offline = nextTurnCost({
        cache: state('warm', FIVE_MINUTES_MS, 150_000),
        contextTokens: 152_000,
        overheadTokens: 20_000,
        afterTokens: 40_000,
        summarizerUsd: 0,
        price,
      });
      const llm = nextTurnCost({
        cache: state('warm', FIVE_MINUTES_MS, 150_000),
        contextTokens: 152_000,
        overheadTokens: 20_000,
        afterTokens: 40_000,
        summarizerUsd: summarizer,
        price,
      });
      near(llm.compactedUsd - offline.compactedUsd, summarizer, 'the summarizer is the difference');
      assert.ok(
        llm.breakEvenTurns !== null && offline.breakEvenTurns !== null && llm.breakEvenTurns > offline.breakEvenTurns,
        `${llm.breakEvenTurns} > ${offline.breakEvenTurns}`,
      );
      assert.equal(llm.breakEvenTurns, Math.ceil((llm.compactedUsd - llm.asIsUsd) / llm.savedPerTurnUsd));
      const useless = nextTurnCost({
        cache: state('warm', FIVE_MINUTES_MS, 50_000),
        contextTokens: 50_000,
        overheadTokens: 10_000,
        afterTokens: 50_000,
        summarizerUsd: summarizer,
        price,
      });
      assert.equal(useless.breakEvenTurns, null);
      assert.ok(useless.savedOverHorizonUsd < 0);
    });

    it('a plan on a real session: the line names both costs, the cache and the break-even; an LLM summarizer costs more than offline', async () => {
      const file = fixture('v2.1.97-live-after.jsonl');
      const a = await inspectFile(file);
      const plan = await planCompaction(a, { ...DEFAULT_SETTINGS, targetTokens: 40_000 });
      const newest = a.rounds.filter((r) => r.usageEntry >= 0).at(-1)!;
      const at = Date.parse(a.index.entries[newest.usageEntry].timestamp!);
      const priced = (e: PlanEconomics | null): CompactionEconomics => {
        assert.ok(e && e.priced, 'priced');
        return e;
      };
      const warm = priced(compactionEconomics(a, plan, { now: at + 60_000 }));
      const cold = priced(compactionEconomics(a, plan, { now: at + 2 * ONE_HOUR_MS }));
      assert.equal(warm.cache.status, 'warm');
      assert.equal(cold.cache.status, 'expired');
      assert.equal(warm.afterTokens, plan.postTokens + plan.overheadTokens);
      assert.ok(warm.asIsUsd < cold.asIsUsd, 'a warm cache makes resuming cheaper');
      assert.equal(warm.summarizerUsd, 0);
      const llm = priced(
        compactionEconomics(a, plan, {
          now: at + 60_000,
          summarizer: { summarizer: 'anthropic', model: 'claude-sonnet-4-6' },
        }),
      );
      assert.ok(llm.summarizerUsd > 0 && llm.compactedUsd > warm.compactedUsd);
      const line = economicsLine(cold);
      assert.match(
        line,
        /^next turn as it is \$\d+\.\d+ \(cache expired 60 min ago\), compacted \$\d+\.\d+; it pays for itself (at once|after \d+ turns?); saves ≈ \$\d+\.\d+ over the next 20 \(input tokens at claude-sonnet-4-6 rates\)$/,
        line,
      );
      assert.match(
        economicsLine(llm),
        /, \$\d+\.\d+ of it the summary by the Anthropic API \(claude-sonnet-4-6; an estimate: ~\d+k tokens in, ~8k out; billed to your Anthropic API key\);/,
      );
      assert.equal(
        compactionEconomics(a, { ...plan, nothingToDo: true }, { now: at }),
        null,
        'nothing to compact: no figures',
      );
    });

    it('unknown cache state is costed as not warm (no read is promised)', () => {
      const c = nextTurnCost({
        cache: state('unknown', FIVE_MINUTES_MS, 150_000),
        contextTokens: 152_000,
        overheadTokens: 20_000,
        afterTokens: 40_000,
        summarizerUsd: 0,
        price,
      });
      near(c.asIsUsd, usd(152_000, 3.75), 'as is');
      assert.equal(c.warm, false);
    });
  });
  // The verbs in this process, as `agent-compactor` runs them (the bundle's own wiring: test/integration/cli.test.ts).
  it('the CLI: inspect says the cache state (text and --json), plan adds the next turn both ways (text and --json)', async function () {
    const cli = (args: string[]) => runCliInProcess(args);
    const file = fixture('v2.1.97-live-after.jsonl');
    const text = await cli(['inspect', file]);
    assert.equal(text.status, 0, text.stderr);
    assert.match(
      text.stdout,
      /\nprompt cache: cache expired \d+ days ago \(written for 1 hour, last used at \d\d:\d\d UTC\)\nthe next turn's input as it is ≈ \$[\d.]+ \(at claude-sonnet-4-6 rates\); nothing to compact at the default target of 100\.0k\n$/,
    );
    const json = await cli(['inspect', file, '--json']);
    const parsed = JSON.parse(json.stdout) as {
      cache: CacheState;
      nextTurn: null;
      nextTurnAsIs: { priced: boolean; asIsUsd: number };
      nextTurnCompaction: { targetTokens: number; nothingToDo: boolean };
    };
    const cache = parsed.cache;
    assert.equal(cache.status, 'expired');
    assert.equal(cache.ttlMs, ONE_HOUR_MS);
    assert.equal(parsed.nextTurn, null);
    assert.ok(parsed.nextTurnAsIs.priced && parsed.nextTurnAsIs.asIsUsd > 0);
    assert.deepEqual(parsed.nextTurnCompaction, { targetTokens: 100_000, nothingToDo: true, readOnly: null });
    // A session the default settings compact: inspect gives the next turn both ways, as plan does.
    const big = agentFixtures('codex').find((f) => f.endsWith('rollout-0.142-alpha-compacted.jsonl'))!;
    const bigText = await cli(['inspect', big]);
    assert.equal(bigText.status, 0, bigText.stderr);
    assert.match(
      bigText.stdout,
      /\nnext turn as it is \$[\d.]+ \(cache state unknown: [^)]*\), compacted \$[\d.]+; it .*\(input tokens at gpt-5\.5 rates\); compacted with the default settings \(target 100\.0k\)\n$/,
    );
    const bigJson = JSON.parse((await cli(['inspect', big, '--json'])).stdout) as {
      nextTurn: { priced: boolean; asIsUsd: number; compactedUsd: number };
    };
    const bigPlan = JSON.parse((await cli(['plan', big, '--json'])).stdout) as {
      nextTurn: { asIsUsd: number; compactedUsd: number };
    };
    assert.equal(bigJson.nextTurn.priced, true);
    assert.equal(bigJson.nextTurn.compactedUsd, bigPlan.nextTurn.compactedUsd, 'inspect and plan agree');
    const plan = await cli(['plan', file, '--target-tokens', '40000']);
    assert.equal(plan.status, 0, plan.stderr);
    assert.match(
      plan.stdout,
      /\nnext turn as it is \$[\d.]+ \(cache expired \d+ days ago\), compacted \$[\d.]+; it pays for itself/,
    );
    const planJson = JSON.parse((await cli(['plan', file, '--target-tokens', '40000', '--json'])).stdout) as {
      nextTurn: { asIsUsd: number; compactedUsd: number; cache: CacheState };
      postTokens: number;
    };
    assert.ok(
      planJson.nextTurn.asIsUsd > planJson.nextTurn.compactedUsd,
      'an expired cache: the smaller context is the cheaper next turn',
    );
    assert.equal(planJson.nextTurn.cache.status, 'expired');
    const nothing = JSON.parse((await cli(['plan', file, '--target-tokens', '900000', '--json'])).stdout) as {
      nextTurn: unknown;
      nothingToDo: boolean;
    };
    assert.equal(nothing.nothingToDo, true);
    assert.equal(nothing.nextTurn, null);
  });
});
