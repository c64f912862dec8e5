// Summary detail levels (brief / standard / full, src/core/summaryDetail.ts): measured by the facts of
// src/core/compact/fidelity.ts over the shared fixtures (Claude Code's own compaction spans and seeded random spans of
// every session), the plan's figure for the summary at each level against the summary then written, the request a
// model gets at each level (real @anthropic-ai/sdk against the fake Messages API), and the settings that choose it.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { measureFidelity, spanFacts, type FidelityReport } from '../../src/core/compact/fidelity';
import { agentCompactions } from '../../src/core/compact/agentSummaries';
import { extractiveSummary, shapeForExtractive } from '../../src/core/compact/summarize/extractive';
import { SUMMARY_INSTRUCTIONS, summaryInstructions, summaryRequestText } from '../../src/core/compact/summarize/prompt';
import { summaryCharBudget } from '../../src/core/compact/summary';
import { SUMMARY_DETAILS, SUMMARY_TOKENS_BY_DETAIL, type SummaryDetail } from '../../src/core/summaryDetail';
import { planCompaction, resolveSettings, summaryRoundTokens } from '../../src/core/compact/plan';
import { draftSummary } from '../../src/core/compact/compact';
import { inspectFile } from '../../src/core/inspect';
import { contextNow } from '../../src/core/context';
import { confirmationText } from '../../src/extension/model/planText';
import { readSettings, userScopedValue, USER_ONLY_SETTINGS } from '../../src/extension/model/settings';
import type { JsonObject } from '../../src/core/json';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { claudeFixtures, fixture, repoRoot } from '../support/fixtures';
import { claudeRecords } from '../support/records';
import type { ConversationRecord } from '../../src/core/conversation';
import { tempDir } from '../support/temp';

function parsedLines(file: string): (JsonObject | null)[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      try {
        return JSON.parse(l) as JsonObject;
      } catch {
        return null;
      }
    });
}

/** A seeded generator (mulberry32): the same spans on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Span {
  label: string;
  records: ConversationRecord[];
}

/** Every compaction Claude Code made in the fixtures, and three random spans (20 lines or more) of every fixture. */
function spans(): Span[] {
  const out: Span[] = [];
  const random = seeded(23);
  for (const file of claudeFixtures()) {
    const lines = parsedLines(file);
    for (const c of agentCompactions(lines))
      out.push({ label: `${basename(file)}: Claude Code's compaction at line ${c.boundaryLine}`, records: c.span });
    const objects = lines.filter((o): o is JsonObject => o !== null);
    if (objects.length < 20) continue;
    for (let k = 0; k < 3; k++) {
      const start = Math.floor(random() * (objects.length - 20));
      const end = start + 20 + Math.floor(random() * (objects.length - start - 20));
      out.push({
        label: `${basename(file)}: lines ${start + 1}-${end}`,
        records: claudeRecords(objects.slice(start, end)),
      });
    }
  }
  return out;
}

/** The offline summary of a span at a level, in the room the level reserves, shaped as compact loads the lines. */
function summaryAt(span: Span, detail: SummaryDetail): string {
  return extractiveSummary({
    records: span.records.map((o) => shapeForExtractive(o)),
    maxChars: summaryCharBudget(SUMMARY_TOKENS_BY_DETAIL[detail], 1),
    detail,
  });
}

const keptLabels = (r: FidelityReport, all: string[]) => {
  const missing = new Set(r.missing.map((m) => m.label));
  return all.filter((l) => !missing.has(l));
};

describe('summary detail: brief, standard, full', function () {
  this.timeout(600_000);

  it("over the fixtures (Claude Code's compactions and seeded random spans): brief ≤ standard ≤ full in facts kept and in size, full keeps every fact standard keeps", () => {
    let briefSmaller = 0;
    let fullLarger = 0;
    let briefFewerFacts = 0;
    const all = spans();
    assert.ok(all.length >= 30, `spans measured: ${all.length}`);
    for (const span of all) {
      const facts = spanFacts(span.records);
      const text = Object.fromEntries(SUMMARY_DETAILS.map((d) => [d, summaryAt(span, d)])) as Record<
        SummaryDetail,
        string
      >;
      const report = Object.fromEntries(SUMMARY_DETAILS.map((d) => [d, measureFidelity(facts, text[d])])) as Record<
        SummaryDetail,
        FidelityReport
      >;
      const at = `${span.label} (${facts.length} facts; kept ${SUMMARY_DETAILS.map((d) => `${d} ${report[d].kept}`).join(', ')}; chars ${SUMMARY_DETAILS.map((d) => `${d} ${text[d].length}`).join(', ')})`;
      assert.ok(
        report.brief.kept <= report.standard.kept && report.standard.kept <= report.full.kept,
        `facts kept: ${at}`,
      );
      assert.ok(text.brief.length <= text.standard.length && text.standard.length <= text.full.length, `size: ${at}`);
      const labels = facts.map((f) => f.label);
      const fullKeeps = new Set(keptLabels(report.full, labels));
      for (const l of keptLabels(report.standard, labels))
        assert.ok(fullKeeps.has(l), `full keeps what standard keeps, ${l}: ${at}`);
      for (const d of SUMMARY_DETAILS)
        assert.ok(text[d].length <= summaryCharBudget(SUMMARY_TOKENS_BY_DETAIL[d], 1), `${d} within its room: ${at}`);
      if (text.brief.length < text.standard.length) briefSmaller++;
      if (text.full.length > text.standard.length) fullLarger++;
      if (report.brief.kept < report.standard.kept) briefFewerFacts++;
    }
    // The levels differ: on most spans brief is smaller and full larger, and brief leaves facts out.
    assert.ok(briefSmaller >= all.length / 2, `brief smaller than standard on ${briefSmaller} of ${all.length} spans`);
    assert.ok(fullLarger >= all.length / 2, `full larger than standard on ${fullLarger} of ${all.length} spans`);
    assert.ok(
      briefFewerFacts >= all.length / 4,
      `brief keeps fewer facts than standard on ${briefFewerFacts} of ${all.length} spans`,
    );
  });

  it("on Claude Code's own compaction: full keeps every fact of the span, brief still keeps the requests, files edited, errors and the next step", () => {
    const span = spans().find((s) => /compaction/.test(s.label));
    assert.ok(span, 'the fixtures hold a compaction Claude Code made');
    const facts = spanFacts(span.records);
    const full = measureFidelity(facts, summaryAt(span, 'full'));
    assert.equal(full.kept, full.total, `full misses ${full.missing.map((m) => m.label).join('; ')}`);
    const brief = measureFidelity(facts, summaryAt(span, 'brief'));
    for (const c of ['requests', 'files', 'errors'] as const)
      assert.equal(brief.categories[c].kept, brief.categories[c].total, `brief keeps the ${c}`);
    assert.ok(brief.categories.latest.kept >= 1, 'brief keeps the latest statement (the next step)');
    assert.ok(brief.kept < full.kept, `brief ${brief.kept} < full ${full.kept}`);
  });

  it('the plan predicts the summary size of each level: what the offline summary then takes is 40% to 110% of the figure, on the long sessions', async () => {
    // Long sessions: the summarized part holds many times the fullest summary (at least 40,000 tokens, four times the full reserve), so every level has
    // enough to fill. 110%: the plan sizes the room by the per-character estimate (charsForTokens) and the written
    // summary is counted by its character classes (estimateStringTokens), which differ by up to about a tenth.
    const measured: string[] = [];
    for (const name of ['v2.1.97-images.jsonl', 'v2.1.97-live-after.jsonl', 'v2.1.97-live-before.jsonl']) {
      const file = fixture(name);
      const analysis = await inspectFile(file, { subagents: false });
      const calibration = analysis.report.totals.calibrationFactor || 1;
      const overhead = analysis.report.totals.overheadTokens ?? 0;
      const predicted: number[] = [];
      for (const detail of SUMMARY_DETAILS) {
        const settings = { targetTokens: overhead + 20_000, keepRecentTokens: 5_000, summaryDetail: detail };
        const plan = await planCompaction(analysis, settings);
        const summarizedTokens = plan.rounds.filter((r) => r.action === 'summarize').reduce((s, r) => s + r.tokens, 0);
        assert.ok(summarizedTokens >= 40_000, `${name}: the summarized part holds ${summarizedTokens} tokens`);
        if (detail === 'brief') measured.push(`${name}: ${summarizedTokens} tokens summarized`);
        const figure = plan.postTokens - plan.keptTokens;
        predicted.push(figure);
        const draft = await draftSummary(file, { summarizer: 'extractive', settings });
        const actual = summaryRoundTokens(draft.summary, calibration);
        measured.push(`${name} ${detail}: plan ${figure}, summary ${Math.round(actual)}`);
        assert.ok(
          actual <= figure * 1.1 && actual >= figure * 0.4,
          `${name} ${detail}: the plan counts ${figure} tokens for the summary, which takes ${Math.round(actual)}`,
        );
      }
      assert.ok(
        predicted[0] < predicted[1] && predicted[1] < predicted[2],
        `${name}: the plan's figures grow with the level: ${predicted.join(', ')}`,
      );
    }
    console.log(`      ${measured.join('\n      ')}`);
  });

  it('a size given (summaryTokens) is the reserve at every level; without one, the level sets it; an unknown level is refused by name', () => {
    assert.equal(resolveSettings({ summaryDetail: 'brief' }).summaryTokens, SUMMARY_TOKENS_BY_DETAIL.brief);
    assert.equal(resolveSettings({ summaryDetail: 'full' }).summaryTokens, SUMMARY_TOKENS_BY_DETAIL.full);
    assert.equal(resolveSettings({}).summaryTokens, SUMMARY_TOKENS_BY_DETAIL.standard);
    assert.equal(resolveSettings({}).summaryTokens, 4_000, "standard reserves today's 4,000 tokens");
    assert.ok(
      SUMMARY_TOKENS_BY_DETAIL.brief < SUMMARY_TOKENS_BY_DETAIL.standard &&
        SUMMARY_TOKENS_BY_DETAIL.standard < SUMMARY_TOKENS_BY_DETAIL.full,
    );
    assert.equal(resolveSettings({ summaryDetail: 'full', summaryTokens: 2_500 }).summaryTokens, 2_500);
    assert.throws(
      () => resolveSettings({ summaryDetail: 'verbose' as SummaryDetail }),
      /summaryDetail must be brief, standard or full, got verbose/,
    );
  });

  it("a model is asked for the level's sections: standard is today's request, brief asks for less, full for more", () => {
    assert.equal(summaryInstructions('standard'), SUMMARY_INSTRUCTIONS);
    assert.equal(summaryInstructions(), SUMMARY_INSTRUCTIONS);
    assert.match(summaryInstructions('brief'), /brief summary/);
    assert.match(summaryInstructions('brief'), /Next Step/);
    assert.doesNotMatch(summaryInstructions('brief'), /All User Messages/);
    assert.match(
      summaryInstructions('full'),
      /All User Messages: every user message that is not a tool result, verbatim\./,
    );
    assert.ok(
      summaryInstructions('brief').length < SUMMARY_INSTRUCTIONS.length &&
        SUMMARY_INSTRUCTIONS.length < summaryInstructions('full').length,
    );
    assert.ok(summaryRequestText('keep it in English', { detail: 'brief' }).startsWith(summaryInstructions('brief')));
    assert.match(
      summaryRequestText('keep it in English', { detail: 'brief' }),
      /Additional instructions from the user:\nkeep it in English$/,
    );
  });

  describe('the Anthropic summarizer at each level (real SDK, fake Messages API)', () => {
    let fake: FakeAnthropic | undefined;
    afterEach(async () => {
      await fake?.close();
      fake = undefined;
    });

    it("sends the level's instructions and asks for the level's max_tokens", async () => {
      fake = await startFakeAnthropic();
      const file = fixture('v2.1.97-live-after.jsonl');
      const sent: { detail: SummaryDetail; maxTokens: number; request: string }[] = [];
      for (const detail of SUMMARY_DETAILS) {
        fake.clearRequests();
        const d = await draftSummary(file, {
          summarizer: 'anthropic',
          settings: { targetTokens: 60_000, keepRecentTokens: 10_000, summaryDetail: detail },
          anthropic: { apiKey: 'sk-test-key', baseURL: fake.url, model: 'claude-test', maxRetries: 0 },
        });
        assert.equal(d.summarizer, 'anthropic');
        const [req] = fake.messageRequests();
        const messages = req.body.messages as { role: string; content: string }[];
        sent.push({ detail, maxTokens: req.body.max_tokens as number, request: messages[messages.length - 1].content });
      }
      assert.equal(
        new Set(sent.map((s) => s.maxTokens)).size,
        3,
        `a max_tokens per level: ${sent.map((s) => s.maxTokens).join(', ')}`,
      );
      assert.equal(new Set(sent.map((s) => s.request)).size, 3, 'a request per level');
      for (const s of sent) {
        assert.equal(s.maxTokens, SUMMARY_TOKENS_BY_DETAIL[s.detail], `${s.detail}: max_tokens`);
        assert.ok(
          s.request.endsWith(summaryInstructions(s.detail)),
          `${s.detail}: the request ends with the level's instructions`,
        );
      }
    });
  });

  it('the confirmation dialog names the level of the summary it will write', async () => {
    const analysis = await inspectFile(fixture('v2.1.97-live-after.jsonl'), { subagents: false });
    for (const detail of SUMMARY_DETAILS) {
      const plan = await planCompaction(analysis, {
        targetTokens: 60_000,
        keepRecentTokens: 10_000,
        summaryDetail: detail,
      });
      const offline = confirmationText(plan, contextNow(analysis.report), {
        mode: 'fork',
        summarizer: 'extractive',
        baseUrl: 'https://api.anthropic.com',
      });
      assert.ok(
        offline.detail.includes(`Summary: offline extractive summary, ${detail} detail (nothing leaves this machine).`),
        offline.detail,
      );
      const api = confirmationText(plan, contextNow(analysis.report), {
        mode: 'fork',
        summarizer: 'anthropic',
        model: 'claude-x',
        baseUrl: 'https://api.anthropic.com',
      });
      assert.ok(api.detail.includes(`Summary: written by the Anthropic API (claude-x), ${detail} detail.`), api.detail);
    }
  });

  it('the setting agentCompactor.summaryDetail: read when valid, user-scoped (a workspace value is ignored)', () => {
    assert.ok(USER_ONLY_SETTINGS.includes('summaryDetail'));
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      contributes: {
        configuration: { properties: Record<string, { scope?: string; enum?: string[]; default?: string }> };
      };
    };
    const schema = manifest.contributes.configuration.properties['agentCompactor.summaryDetail'];
    assert.deepEqual(schema.enum, [...SUMMARY_DETAILS]);
    assert.equal(schema.default, 'standard');
    assert.equal(schema.scope, 'application');
    assert.equal(readSettings((k) => (k === 'summaryDetail' ? 'brief' : undefined)).compact.summaryDetail, 'brief');
    assert.equal(readSettings((k) => (k === 'summaryDetail' ? 'verbose' : undefined)).compact.summaryDetail, undefined);
    const inspected = { defaultValue: 'standard', workspaceValue: 'full' };
    assert.equal(
      readSettings((k) => (k === 'summaryDetail' ? userScopedValue(inspected) : undefined)).compact.summaryDetail,
      'standard',
    );
  });
});

describe('summary detail on the command line (the built CLI)', function () {
  this.timeout(600_000);
  const cli = join(repoRoot, 'dist', 'cli.js');
  const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
  const TIGHT = ['--target-tokens', '60000', '--keep-recent-tokens', '10000'];
  let dir = '';
  before(() => {
    dir = tempDir('ac-detail-');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('an unknown --detail is refused with a clear reason, exit 2, by plan and compact; nothing is written', () => {
    const copy = join(dir, 'refused.jsonl');
    copyFileSync(fixture('v2.1.97-live-after.jsonl'), copy);
    for (const verb of ['plan', 'compact']) {
      const r = run([verb, copy, '--detail', 'verbose']);
      assert.equal(r.status, 2, `${verb}: ${r.stderr}`);
      assert.equal(r.stderr, "agent-compactor: --detail must be brief, standard or full, got 'verbose'\n");
      assert.equal(r.stdout, '');
    }
    assert.deepEqual(readdirSync(dir), ['refused.jsonl']);
  });

  it('plan --summary shows the draft at the level; plan shows the level and its figure', () => {
    const file = fixture('v2.1.97-live-after.jsonl');
    const draft = (detail?: string) => {
      const r = run(['plan', file, ...TIGHT, '--summary', ...(detail ? ['--detail', detail] : [])]);
      assert.equal(r.status, 0, r.stderr);
      return r.stdout;
    };
    const [brief, standard, full] = [draft('brief'), draft('standard'), draft('full')];
    assert.equal(draft(), standard, 'standard is the default');
    assert.ok(
      brief.length < standard.length && standard.length < full.length,
      `sizes ${brief.length}, ${standard.length}, ${full.length}`,
    );
    assert.doesNotMatch(brief, /## Other commands run/);
    assert.match(full, /## The assistant's earlier messages/);
    const plan = run(['plan', file, ...TIGHT, '--detail', 'brief']);
    assert.equal(plan.status, 0, plan.stderr);
    assert.match(plan.stdout, /a brief summary of about 1500 included/);
  });

  it('compact --json reports the detail used, and a brief summary is smaller than a full one', () => {
    const sizes: Record<string, number> = {};
    for (const detail of ['brief', 'full']) {
      const copy = join(dir, `${detail}.jsonl`);
      copyFileSync(fixture('v2.1.97-live-after.jsonl'), copy);
      const r = run(['compact', copy, ...TIGHT, '--detail', detail, '--json']);
      assert.equal(r.status, 0, r.stderr);
      const json = JSON.parse(r.stdout) as {
        summaryDetail: string;
        summaryChars: number;
        plan: { settings: { summaryDetail: string } };
      };
      assert.equal(json.summaryDetail, detail);
      assert.equal(json.plan.settings.summaryDetail, detail);
      sizes[detail] = json.summaryChars;
    }
    assert.ok(sizes.brief < sizes.full, `brief ${sizes.brief} < full ${sizes.full} characters`);
  });
});
