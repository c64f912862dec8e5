// The summarizer's own cost, decided by one function (core/compact/summarizerCost.ts) for every surface: offline free;
// the Anthropic API at its model's rates; the user's Claude Code and Codex at the session's model, with who pays named;
// the request modelled as sent (span + summarizing request + system text in; summary + <analysis> out), and said to
// be an estimate. The plan line, the Context Map, the status bar and the confirmation carry the same line for the
// same settings, and `plan --summarizer` prints it too.
import { strict as assert } from 'node:assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  compactionEconomics,
  economicsLine,
  type CompactionEconomics,
  type PlanEconomics,
} from '../../src/core/compact/economics';
import { priceFor } from '../../src/core/cost';
import { inspectFile, type Analysis } from '../../src/core/inspect';
import { planCompaction } from '../../src/core/compact/plan';
import { type CompactionPlan } from '../../src/core/compact/types';
import { DEFAULT_SETTINGS } from '../../src/core/compactSettings';
import {
  loginPlanOf,
  summarizedSpanTokens,
  summarizerCostFor,
  SUMMARY_REQUEST_MAX_INPUT,
} from '../../src/core/compact/summarizerCost';
import { summaryRequestText } from '../../src/core/compact/summarize/prompt';
import { estimateStringTokens } from '../../src/core/tokens/estimate';
import { contextNow } from '../../src/core/context';
import { confirmationText, economicsText } from '../../src/extension/model/planText';
import { rootNodes } from '../../src/extension/model/tree';
import { buildMapState } from '../../src/extension/model/mapState';
import { nextTurnText } from '../../src/extension/model/cacheText';
import { DEFAULT_PRICES } from '../../src/core/cost';
import { agentFixtures, fixture } from '../support/fixtures';
import { runCliInProcess } from '../support/cliInProcess';
import { tempDir } from '../support/temp';

const near = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} != ${b}`);

function priced(e: PlanEconomics | null): CompactionEconomics {
  assert.ok(e && e.priced, `priced: ${JSON.stringify(e && !e.priced ? e.reason : e)}`);
  return e;
}

describe("the summarizer's own cost: one function, every surface", function () {
  this.timeout(120_000);
  let claude: Analysis;
  let claudePlan: CompactionPlan;
  let at: number;
  before(async () => {
    claude = await inspectFile(fixture('v2.1.97-live-after.jsonl'));
    claudePlan = await planCompaction(claude, { ...DEFAULT_SETTINGS, targetTokens: 40_000 });
    const newest = claude.rounds.filter((r) => r.usageEntry >= 0).at(-1)!;
    at = Date.parse(claude.index.entries[newest.usageEntry].timestamp!) + 60_000;
  });

  it('offline costs nothing and the line names no summary', () => {
    const c = summarizerCostFor(claude, claudePlan, { summarizer: 'extractive' });
    assert.equal(c.usd, 0);
    assert.equal(c.label, 'offline');
    assert.doesNotMatch(economicsLine(priced(compactionEconomics(claude, claudePlan, { now: at }))), /summary by/);
  });

  it('the Anthropic API: the span and the summarizing request in, the summary and its <analysis> out, at its model', () => {
    const c = summarizerCostFor(claude, claudePlan, { summarizer: 'anthropic', model: 'claude-sonnet-4-6' });
    const span = summarizedSpanTokens(claudePlan);
    assert.ok(span > 0 && span < SUMMARY_REQUEST_MAX_INPUT, `one request: ${span}`);
    const request = estimateStringTokens(summaryRequestText(undefined, { detail: claudePlan.settings.summaryDetail }));
    assert.equal(c.inputTokens, span + request);
    assert.equal(c.outputTokens, 2 * claudePlan.settings.summaryTokens, 'the summary and an <analysis> as long');
    const rates = priceFor('claude-sonnet-4-6')!.price;
    near(c.usd, (c.inputTokens * rates.input + c.outputTokens * rates.output) / 1e6, 'at its rates');
    // What was counted before: the span in and the summary alone out.
    assert.ok(c.usd > (span * rates.input + claudePlan.settings.summaryTokens * rates.output) / 1e6);
    assert.equal(c.billing, 'billed to your Anthropic API key');
    const e = priced(
      compactionEconomics(claude, claudePlan, {
        now: at,
        summarizer: { summarizer: 'anthropic', model: 'claude-sonnet-4-6' },
      }),
    );
    near(e.summarizerUsd, c.usd, 'counted in the compacted turn');
    assert.match(
      economicsLine(e),
      /of it the summary by the Anthropic API \(claude-sonnet-4-6; an estimate: ~\d+k tokens in, ~8k out;/,
    );
  });

  it("your Claude Code: priced at the session's model (not $0), both ways of paying named", () => {
    const c = summarizerCostFor(claude, claudePlan, { summarizer: 'claude-cli' });
    const model = claude.rounds.filter((r) => r.usageEntry >= 0).at(-1)!.model!;
    assert.equal(c.model, model);
    assert.ok(c.usd > 0, 'the agent CLI summary has a cost');
    assert.ok(c.inputTokens > summarizedSpanTokens(claudePlan), 'our system prompt and the request are sent too');
    assert.match(
      c.billing!,
      /^billed to your Claude plan when your Claude Code is logged in with a subscription, else to its API key$/,
    );
    const offline = priced(compactionEconomics(claude, claudePlan, { now: at }));
    const cli = priced(compactionEconomics(claude, claudePlan, { now: at, summarizer: { summarizer: 'claude-cli' } }));
    near(cli.compactedUsd - offline.compactedUsd, c.usd, 'the difference is the summary');
  });

  it("your Codex: priced at the rollout's model, billed to the ChatGPT plan the rollout records", async () => {
    const file = agentFixtures('codex').find((f) => f.endsWith('rollout-0.142-alpha-compacted.jsonl'))!;
    const codex = await inspectFile(file);
    const plan = await planCompaction(codex, { ...DEFAULT_SETTINGS, targetTokens: 60_000 });
    assert.equal(plan.nothingToDo, false);
    assert.ok(loginPlanOf(codex.index.entries), 'the rollout records its login plan');
    const c = summarizerCostFor(codex, plan, { summarizer: 'codex-cli' });
    assert.equal(c.model, 'gpt-5.5');
    assert.ok(c.usd > 0);
    assert.ok(c.inputTokens >= Math.min(summarizedSpanTokens(plan), SUMMARY_REQUEST_MAX_INPUT) + plan.overheadTokens);
    assert.match(c.billing!, /^billed to your Codex plan \(ChatGPT \w+, the login this session records\)$/);
    const e = priced(compactionEconomics(codex, plan, { now: Date.now(), summarizer: { summarizer: 'codex-cli' } }));
    assert.equal(e.cache.status, 'unknown');
    assert.match(
      economicsLine(e),
      /of it the summary by your Codex \(gpt-5\.5; an estimate: .*billed to your Codex plan/,
    );
    assert.match(economicsLine(e), /\(input tokens at gpt-5\.5 rates\)$/);
  });

  it("an agent's CLI on the other agent's session is not priced: compact would refuse it", () => {
    const c = summarizerCostFor(claude, claudePlan, { summarizer: 'codex-cli' });
    assert.equal(c.usd, 0);
    assert.equal(c.unpriced, 'your Codex summarizes Codex sessions only');
    const e = priced(compactionEconomics(claude, claudePlan, { now: at, summarizer: { summarizer: 'codex-cli' } }));
    assert.match(
      economicsLine(e),
      /the summary by your Codex is not priced \(your Codex summarizes Codex sessions only;/,
    );
  });

  it('the plan line, the Context Map, the status bar and the confirmation say the same line for the same summarizer', () => {
    for (const summarizer of [
      { summarizer: 'anthropic' as const, model: 'claude-sonnet-4-6' },
      { summarizer: 'claude-cli' as const },
    ]) {
      const hint = 'the setting agentCompactor.prices';
      const line = economicsText(
        compactionEconomics(claude, claudePlan, { now: at, prices: DEFAULT_PRICES, summarizer, pricesHint: hint })!,
      );
      assert.match(line, /of it the summary by/);
      const node = rootNodes({ file: claudePlan.file, analysis: claude, plan: claudePlan, now: at, summarizer }).find(
        (n) => n.kind === 'plan',
      )!;
      assert.ok(String(node.tooltip).includes(line), `plan line: ${String(node.tooltip)}`);
      const map = buildMapState(claudePlan.file, claude, claudePlan, undefined, DEFAULT_PRICES, at, summarizer);
      assert.equal(map.cost.nextTurn, line, 'Context Map');
      assert.equal(nextTurnText(claude, claudePlan, at, DEFAULT_PRICES, summarizer), line, 'status bar');
      const dialog = confirmationText(claudePlan, contextNow(claude.report), {
        mode: 'fork',
        summarizer: summarizer.summarizer,
        model: summarizer.model,
        baseUrl: 'https://api.anthropic.com',
        economics: compactionEconomics(claude, claudePlan, {
          now: at,
          prices: DEFAULT_PRICES,
          summarizer,
          pricesHint: hint,
        }),
      }).detail;
      assert.ok(dialog.includes(`\n${line}\n`), `dialog: ${dialog}`);
    }
  });

  it('an unpriced session says so on the plan line, the map and the status bar (never left out)', () => {
    const none = { ...DEFAULT_PRICES, models: {} };
    const node = rootNodes({ file: claudePlan.file, analysis: claude, plan: claudePlan, now: at, prices: none }).find(
      (n) => n.kind === 'plan',
    )!;
    assert.match(
      String(node.tooltip),
      /Cost: next turn not priced \(no price for [\w-]+: give one with the setting agentCompactor\.prices\)\./,
    );
    const map = buildMapState(claudePlan.file, claude, null, undefined, none, at);
    assert.match(
      map.cost.nextTurn,
      /the next turn is not priced \(no price for [\w-]+: give one with the setting agentCompactor\.prices\)\.$/,
    );
  });

  // The verb in this process, as `agent-compactor` runs it (the bundle's own wiring: test/integration/cli.test.ts).
  it('the CLI: plan --summarizer prices the summary; an unpriced session says so in text and --json', async function () {
    const cli = (args: string[]) => runCliInProcess(args);
    const file = fixture('v2.1.97-live-after.jsonl');
    const llm = await cli(['plan', file, '--target-tokens', '40000', '--summarizer', 'claude-cli']);
    assert.equal(llm.status, 0, llm.stderr);
    assert.match(llm.stdout, /\nnext turn as it is \$[\d.]+ .*of it the summary by your Claude Code \(/);
    const codex = agentFixtures('codex').find((f) => f.endsWith('rollout-0.140.jsonl'))!;
    const codexPlan = await cli(['plan', codex, '--target-tokens', '20000']);
    assert.equal(codexPlan.status, 0, codexPlan.stderr);
    assert.match(
      codexPlan.stdout,
      /\nnext turn as it is \$[\d.]+ \(cache state unknown: .*\(input tokens at gpt-5\.5 rates\)\n$/,
    );
    const wrong = await cli(['plan', file, '--summarizer', 'gpt']);
    assert.equal(wrong.status, 2);
    const dir = tempDir('ac-unpriced-');
    try {
      const unpriced = join(dir, 'unpriced.jsonl');
      writeFileSync(unpriced, readFileSync(file, 'utf8').replace(/"model":"claude-[^"]+"/g, '"model":"mythos-1"'));
      const text = await cli(['plan', unpriced, '--target-tokens', '40000']);
      assert.equal(text.status, 0, text.stderr);
      assert.match(text.stdout, /\nnext turn not priced \(no price for mythos-1: give one with --prices FILE\)\n$/);
      const json = JSON.parse((await cli(['plan', unpriced, '--target-tokens', '40000', '--json'])).stdout) as {
        nextTurn: { priced: boolean; model: string; reason: string };
      };
      assert.deepEqual(
        { priced: json.nextTurn.priced, model: json.nextTurn.model },
        { priced: false, model: 'mythos-1' },
      );
      const prices = join(dir, 'prices.json');
      writeFileSync(prices, JSON.stringify({ 'mythos-1': { input: 1, output: 5 } }));
      const given = await cli(['plan', unpriced, '--target-tokens', '40000', '--prices', prices]);
      assert.match(given.stdout, /\nnext turn as it is \$[\d.]+ .*\(input tokens at mythos-1 rates\)\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
