// What a compaction costs and saves where the decision is made in VS Code, from the pure model functions: the plan
// node's tooltip and the confirmation dialog (warm / expired, offline / Anthropic summarizer, unpriced), and the
// Sessions view's quiet mark for a large session whose cache has expired (5-minute / 1-hour writes, unknown state,
// small context, figures of an earlier size), all with an injected clock.
import { strict as assert } from 'node:assert';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIVE_MINUTES_MS, ONE_HOUR_MS } from '../../src/core/cache';
import { compactionEconomics, economicsLine } from '../../src/core/compact/economics';
import { DEFAULT_PRICES, priceFor } from '../../src/core/cost';
import { inspectFile, type Analysis } from '../../src/core/inspect';
import { planCompaction } from '../../src/core/compact/plan';
import { type CompactionPlan } from '../../src/core/compact/types';
import { DEFAULT_SETTINGS } from '../../src/core/compactSettings';
import { contextNow } from '../../src/core/context';
import { sessionStats } from '../../src/core/sessionStats';
import { confirmationText, economicsText, planDetail } from '../../src/extension/model/planText';
import { rootNodes } from '../../src/extension/model/tree';
import { cacheExpiryNote, EXPIRED_MARK_TOKENS, sessionNode } from '../../src/extension/model/sessionsTree';
import type { SessionSummary } from '../../src/core/sessionList';
import { buildMapState } from '../../src/extension/model/mapState';
import { nextTurnText } from '../../src/extension/model/cacheText';
import { isMapState } from '../../src/webview/mapProtocol';
import {
  CacheExpiryNotices,
  expiryNoticeText,
  noticeLeadMs,
  type ExpiryWatch,
} from '../../src/extension/model/cacheExpiryNotice';
import { FakeClock } from '../support/fakeClock';
import { agentFixtures, fixture } from '../support/fixtures';
import { tempDir } from '../support/temp';

const T0 = Date.UTC(2026, 10, 25, 14, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();
const price = priceFor('claude-sonnet-4-6', DEFAULT_PRICES)!.price; // $3.75 5-min write, $6 1-hour write
const usd = (tokens: number, rate: number) => (tokens * rate) / 1e6;
const cents = (n: number) => `$${n.toFixed(2)}`;

/** A Claude Code session of one turn whose reply wrote `context` tokens to the cache for the given lifetime at `at`. */
function oneTurn(context: number, at: number, lifetime: '5m' | '1h'): string {
  const usage = {
    input_tokens: 0,
    cache_creation_input_tokens: context,
    cache_read_input_tokens: 0,
    output_tokens: 50,
    cache_creation: {
      ephemeral_5m_input_tokens: lifetime === '5m' ? context : 0,
      ephemeral_1h_input_tokens: lifetime === '1h' ? context : 0,
    },
  };
  const base = { isSidechain: false, sessionId: 's', cwd: '/p', version: '2.1.330', userType: 'external' };
  return (
    [
      JSON.stringify({
        ...base,
        parentUuid: null,
        type: 'user',
        uuid: '00000000-0000-4000-8000-000000000001',
        timestamp: iso(at - 2000),
        message: { role: 'user', content: 'question' },
      }),
      JSON.stringify({
        ...base,
        parentUuid: '00000000-0000-4000-8000-000000000001',
        type: 'assistant',
        uuid: '00000000-0000-4000-8000-000000000002',
        timestamp: iso(at),
        requestId: 'req_1',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-6',
          content: [{ type: 'text', text: 'answer' }],
          stop_reason: 'end_turn',
          usage,
        },
      }),
    ].join('\n') + '\n'
  );
}

describe('cost of a compaction in the extension', function () {
  this.timeout(120_000);

  describe('the plan node and the confirmation dialog', () => {
    let analysis: Analysis;
    let plan: CompactionPlan;
    let at: number;
    before(async () => {
      analysis = await inspectFile(fixture('v2.1.97-live-after.jsonl'));
      plan = await planCompaction(analysis, { ...DEFAULT_SETTINGS, targetTokens: 40_000 });
      const newest = analysis.rounds.filter((r) => r.usageEntry >= 0).at(-1)!;
      at = Date.parse(analysis.index.entries[newest.usageEntry].timestamp!);
    });
    const dialog = (
      economics: ReturnType<typeof compactionEconomics> | undefined,
      summarizer: 'extractive' | 'anthropic' = 'extractive',
    ) =>
      confirmationText(plan, contextNow(analysis.report), {
        mode: 'fork',
        summarizer,
        model: 'claude-sonnet-4-6',
        baseUrl: 'https://api.anthropic.com',
        economics,
      }).detail;

    it('warm and expired, offline: the dialog and the plan tooltip carry the same cost line as the CLI', () => {
      const warm = compactionEconomics(analysis, plan, { now: at + 60_000 })!;
      const cold = compactionEconomics(analysis, plan, { now: at + 2 * ONE_HOUR_MS })!;
      assert.ok(dialog(warm).includes(`\nCost: ${economicsLine(warm)}.\n`), dialog(warm));
      assert.match(
        dialog(warm),
        /Cost: next turn as it is \$[\d.]+ \(cache warm for \d+ min more\), compacted \$[\d.]+; it pays for itself/,
      );
      assert.match(
        dialog(cold),
        /Cost: next turn as it is \$[\d.]+ \(cache expired 60 min ago\), compacted \$[\d.]+; it pays for itself at once; saves ≈/,
      );
      assert.doesNotMatch(dialog(cold), /summary;/, 'offline: no summarizer cost');
      const node = rootNodes({ file: plan.file, analysis, plan, now: at + 2 * ONE_HOUR_MS }).find(
        (n) => n.kind === 'plan',
      )!;
      assert.ok(String(node.tooltip).includes(economicsText(cold)), String(node.tooltip));
    });

    it('the Anthropic summarizer: its cost is named in the dialog, and makes the compacted turn dearer', () => {
      const offline = compactionEconomics(analysis, plan, { now: at + 60_000 });
      const llm = compactionEconomics(analysis, plan, {
        now: at + 60_000,
        summarizer: { summarizer: 'anthropic', model: 'claude-sonnet-4-6' },
      });
      assert.ok(offline?.priced && llm?.priced);
      assert.ok(llm.compactedUsd > offline.compactedUsd);
      assert.match(
        dialog(llm, 'anthropic'),
        /compacted \$[\d.]+, \$[\d.]+ of it the summary by the Anthropic API \(claude-sonnet-4-6; an estimate: /,
      );
    });

    it('unpriced model: the dialog says so and why; without economics (nothing to do, or not given) no cost line', () => {
      const unpriced = compactionEconomics(analysis, plan, {
        now: at,
        prices: { ...DEFAULT_PRICES, models: {} },
        pricesHint: 'the setting agentCompactor.prices',
      });
      assert.match(
        dialog(unpriced),
        /\nCost: next turn not priced \(no price for claude-sonnet-4-6: give one with the setting agentCompactor\.prices\)\.\n/,
      );
      assert.doesNotMatch(dialog(null), /Cost:/);
      assert.doesNotMatch(dialog(undefined), /Cost:/);
      assert.doesNotMatch(planDetail({ ...plan, nothingToDo: true }, contextNow(analysis.report), null), /Cost:/);
    });
  });

  describe("the Context Map's cost section", () => {
    it('without a plan: the cache state and the next turn as it is, warm (read) and expired (written anew) at 5 minutes', async () => {
      const dir = tempDir('ac-cost-map-');
      try {
        const file = join(dir, 's.jsonl');
        writeFileSync(file, oneTurn(152_000, T0, '5m'));
        const analysis = await inspectFile(file);
        const context = contextNow(analysis.report).tokens;
        const warm = buildMapState(file, analysis, null, undefined, DEFAULT_PRICES, T0 + 60_000);
        assert.ok(isMapState(warm));
        assert.equal(
          warm.cost.nextTurn,
          `Prompt cache: cache warm for 4 min more (written for 5 minutes, last used at 14:00 UTC; until 14:05 UTC); the next turn's input as it is ≈ ${cents(usd(152_000, price.cacheRead) + usd(context - 152_000, price.cacheWrite5m))} (at claude-sonnet-4-6 rates).`,
        );
        const cold = buildMapState(file, analysis, null, undefined, DEFAULT_PRICES, T0 + 40 * 60_000);
        assert.match(
          cold.cost.nextTurn,
          /^Prompt cache: cache expired 35 min ago \(written for 5 minutes, last used at 14:00 UTC\); the next turn's input as it is ≈ \$0\.57 \(at claude-sonnet-4-6 rates\)\.$/,
        );
        // With a plan the section carries the plan's economics, the line the dialog shows.
        const plan = await planCompaction(analysis, { targetTokens: 40_000 });
        const planned = buildMapState(file, analysis, plan, undefined, DEFAULT_PRICES, T0 + 40 * 60_000);
        assert.equal(
          planned.cost.nextTurn,
          economicsText(
            compactionEconomics(analysis, plan, {
              now: T0 + 40 * 60_000,
              pricesHint: 'the setting agentCompactor.prices',
            })!,
          ),
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a Codex rollout: state unknown, said so, never guessed', async () => {
      const file = agentFixtures('codex')[0];
      const text = nextTurnText(await inspectFile(file), null, Date.now());
      assert.match(
        text,
        /^Prompt cache: state unknown \(Codex's records do not say how long the provider keeps its cache\)/,
      );
    });
  });

  describe('the Sessions view', () => {
    let dir: string;
    before(() => (dir = tempDir('ac-cost-ui-')));
    after(() => rmSync(dir, { recursive: true, force: true }));

    async function statsOf(context: number, lifetime: '5m' | '1h', name: string, target?: number) {
      const file = join(dir, `${name}.jsonl`);
      writeFileSync(file, oneTurn(context, T0, lifetime));
      return sessionStats(file, DEFAULT_PRICES, T0 + 1000, target);
    }
    const summary = (file: string, size: number, mtimeMs: number): SessionSummary => ({
      file,
      id: 'x',
      folder: 'f',
      cwd: '/p',
      title: 'Fix the build',
      size,
      mtimeMs,
      contextTokens: 152_000,
      model: 'claude-sonnet-4-6',
      contextWindow: 200_000,
      live: false,
      forkOf: null,
    });

    it('5-minute writes, 152k context: warm → no mark, the next turn now and after expiry; 40 min after expiry → mark and the resume costs as it is and compacted first', async () => {
      const stats = await statsOf(152_000, '5m', 'five');
      assert.equal(stats.cache.status, 'warm', 'read one second after the reply');
      assert.equal(stats.cache.expiresAt, T0 + FIVE_MINUTES_MS);
      const warm = cacheExpiryNote({ kind: 'ready', stats, stale: false }, T0 + 60_000)!;
      assert.equal(warm.mark, null, 'warm: no mark');
      // Warm: the next turn reads the covered prefix (152k, all of it here) and writes the rest (nothing).
      assert.equal(
        warm.tooltip,
        `cache warm until 14:05 UTC (4 min more): the next turn ≈ ${cents(usd(152_000, price.cacheRead))} now; after that resuming re-writes 152k tokens, ≈ ${cents(usd(152_000, price.cacheWrite5m))}; compacted first ≈ ${cents(usd(100_000, price.cacheWrite5m))} (to ~100k)`,
      );
      const warmNode = sessionNode(summary(join(dir, 'five.jsonl'), stats.size, stats.mtimeMs), T0 + 60_000, {
        kind: 'ready',
        stats,
        stale: false,
      });
      assert.doesNotMatch(warmNode.description, /cache/);
      assert.ok(warmNode.tooltip.endsWith(`\n${warm.tooltip}`), warmNode.tooltip);
      const later = T0 + FIVE_MINUTES_MS + 40 * 60_000;
      const note = cacheExpiryNote({ kind: 'ready', stats, stale: false }, later)!;
      // Everything written anew at the 5-minute rate; compacted first to the default 100k target.
      const asIs = usd(152_000, price.cacheWrite5m);
      const compacted = usd(DEFAULT_SETTINGS.targetTokens, price.cacheWrite5m);
      assert.equal(
        note.tooltip,
        `cache expired 40 min ago: resuming re-writes 152k tokens, ≈ ${cents(asIs)}; compacted first ≈ ${cents(compacted)} (to ~100k)`,
      );
      const node = sessionNode(summary(join(dir, 'five.jsonl'), stats.size, stats.mtimeMs), later, {
        kind: 'ready',
        stats,
        stale: false,
      });
      assert.match(node.description, / · cache expired$/);
      assert.ok(node.tooltip.endsWith(`\n${note.tooltip}`), node.tooltip);
      assert.equal(
        cacheExpiryNote({ kind: 'ready', stats, stale: true }, later),
        null,
        'figures of an earlier size: no mark',
      );
    });

    it('1-hour writes: still warm at 40 minutes, expired after the hour at the 1-hour rate', async () => {
      const stats = await statsOf(152_000, '1h', 'hour');
      assert.match(
        cacheExpiryNote({ kind: 'ready', stats, stale: false }, T0 + 40 * 60_000)!.tooltip,
        /^cache warm until 15:00 UTC \(20 min more\): the next turn ≈ \$[\d.]+ now; after that resuming re-writes 152k tokens/,
      );
      const note = cacheExpiryNote({ kind: 'ready', stats, stale: false }, T0 + ONE_HOUR_MS + 3 * 3_600_000)!;
      assert.equal(
        note.tooltip,
        `cache expired 3 h ago: resuming re-writes 152k tokens, ≈ ${cents(usd(152_000, price.cacheWrite1h))}; compacted first ≈ ${cents(usd(100_000, price.cacheWrite1h))} (to ~100k)`,
      );
    });

    it('a small context, an unknown state (Codex-like rules), or no figures yet: no mark', async () => {
      // The context figure is the request's usage and the response after it (a few hundred tokens here): under the mark.
      const small = await statsOf(EXPIRED_MARK_TOKENS - 1000, '5m', 'small');
      const smallNote = cacheExpiryNote({ kind: 'ready', stats: small, stale: false }, T0 + ONE_HOUR_MS)!;
      assert.equal(smallNote.mark, null, 'a small context: figures, no mark');
      assert.match(smallNote.tooltip, /^cache expired 55 min ago: resuming re-writes \d+(\.\d)?k tokens/);
      const mid = await statsOf(80_000, '5m', 'mid');
      const midNote = cacheExpiryNote({ kind: 'ready', stats: mid, stale: false }, T0 + ONE_HOUR_MS)!;
      assert.match(
        midNote.tooltip,
        /resuming re-writes 80k tokens, ≈ \$0\.30$/,
        'below the target: no compacted-first figure',
      );
      const big = await statsOf(152_000, '5m', 'big');
      const unknown = { ...big, cache: { ...big.cache, status: 'unknown' as const } };
      assert.equal(cacheExpiryNote({ kind: 'ready', stats: unknown, stale: false }, T0 + ONE_HOUR_MS), null);
      assert.equal(cacheExpiryNote({ kind: 'pending' }, T0 + ONE_HOUR_MS), null);
    });

    it("compacted first is estimated at the user's target, not the default", async () => {
      const stats = await statsOf(152_000, '5m', 'target', 60_000);
      const note = cacheExpiryNote({ kind: 'ready', stats, stale: false }, T0 + ONE_HOUR_MS)!;
      assert.ok(
        note.tooltip.endsWith(`; compacted first ≈ ${cents(usd(60_000, price.cacheWrite5m))} (to ~60k)`),
        note.tooltip,
      );
    });
  });

  describe('the cache-expiry notice (fake clock)', () => {
    let dir: string;
    before(() => (dir = tempDir('ac-cost-notice-')));
    after(() => rmSync(dir, { recursive: true, force: true }));

    async function watchOf(context: number, lifetime: '5m' | '1h', at: number, name = 'live'): Promise<ExpiryWatch> {
      const file = join(dir, `${name}.jsonl`);
      writeFileSync(file, oneTurn(context, at, lifetime));
      const stats = await sessionStats(file, DEFAULT_PRICES, at + 1000);
      return {
        file,
        title: 'Fix the build',
        cache: stats.cache,
        contextTokens: stats.contextTokens,
        expiredResume: stats.expiredResume,
      };
    }

    it('5-minute cache: one notice a minute before it expires, with the cost of writing it anew; none twice for the same lifetime', async () => {
      const w = await watchOf(152_000, '5m', T0);
      const clock = new FakeClock(T0 + 1000);
      const shown: string[] = [];
      const notices = new CacheExpiryNotices(clock, (_, text) => shown.push(text));
      notices.watch(w);
      clock.advance(FIVE_MINUTES_MS - noticeLeadMs(FIVE_MINUTES_MS) - 1000 - 1);
      assert.deepEqual(shown, [], 'not before the lead');
      clock.advance(1);
      assert.deepEqual(shown, [
        `Fix the build: the prompt cache expires at 14:05 UTC. A prompt sent after that re-writes 152k tokens, ≈ ${cents(usd(152_000, price.cacheWrite5m))}; one sent before reads them from the cache.`,
      ]);
      notices.watch(w);
      clock.advance(10 * 60_000);
      assert.equal(shown.length, 1, 'the same lifetime is not announced again');
    });

    it('a newer response moves the notice; a 1-hour cache is announced five minutes ahead; an expired one never', async () => {
      const clock = new FakeClock(T0 + 1000);
      const shown: number[] = [];
      const notices = new CacheExpiryNotices(clock, () => shown.push(clock.now()));
      notices.watch(await watchOf(152_000, '5m', T0));
      clock.advance(2 * 60_000);
      const again = await watchOf(152_000, '5m', T0 + 2 * 60_000); // the agent answered again: the cache lives on
      notices.watch(again);
      clock.advance(10 * 60_000);
      assert.deepEqual(shown, [T0 + 2 * 60_000 + FIVE_MINUTES_MS - 60_000]);
      const hour = await watchOf(152_000, '1h', T0 + 20 * 60_000, 'hour');
      notices.watch(hour);
      clock.advance(2 * ONE_HOUR_MS);
      assert.deepEqual(shown.slice(1), [T0 + 20 * 60_000 + ONE_HOUR_MS - 5 * 60_000]);
      notices.watch(hour); // watched again after expiry: nothing
      clock.advance(ONE_HOUR_MS);
      assert.equal(shown.length, 2);
      notices.dispose();
      assert.equal(clock.pending.size, 0);
    });

    it('a small context, an unknown or expired cache: no notice text', async () => {
      assert.equal(expiryNoticeText(await watchOf(EXPIRED_MARK_TOKENS - 1000, '5m', T0, 'small')), null);
      const big = await watchOf(152_000, '5m', T0, 'big');
      assert.equal(expiryNoticeText({ ...big, cache: { ...big.cache, status: 'unknown' } }), null);
      assert.equal(expiryNoticeText({ ...big, cache: { ...big.cache, status: 'expired' } }), null);
      assert.ok(expiryNoticeText(big));
    });
  });
});
