// The extension's pure logic (no `vscode`): the Rounds tree model, plan marks, editor
// decoration ranges, plan text, the Budget Preview state and its message validation, chart
// geometry, the webview HTML/CSP, settings, redaction and error advice. Real fixtures.
import { strict as assert } from 'node:assert';
import { mkdirSync, rmSync, writeFileSync, utimesSync } from 'node:fs';
import { basename, join } from 'node:path';
import { inspectFile, type Analysis } from '../../src/core/inspect';
import { planCompaction } from '../../src/core/compact/plan';
import { CompactError, type CompactionPlan, type CompactResult } from '../../src/core/compact/types';
import {
  childNodes,
  parentNode,
  rootNodes,
  roundChildren,
  roundNodeByIndex,
  snapshot,
  markOf,
  MARK_TEXT,
  type TreeNodeModel,
} from '../../src/extension/model/tree';
import { decorationRanges, markedLineCount } from '../../src/extension/model/decorations';
import { planBound } from '../../src/core/compact/bound';
import {
  confirmationText,
  fileSizeText,
  planFigures,
  planSummary,
  resultResumeCommand,
  resultSummary,
  resultTarget,
  summarizerText,
  writeTarget,
} from '../../src/extension/model/planText';
import {
  copyableResumeCommand,
  isDirectory,
  isInside,
  resumeProblem,
  resumeShellLine,
  terminalName,
} from '../../src/extension/model/resume';
import { projectFolderName, projectFolderOf, readSessionInfo, sessionIdFromFile } from '../../src/core/session';
import { noResumeReason, resumeAgentOf } from '../../src/core/resume';
import { buildBudgetState, chartPoints, cutAfterRound } from '../../src/extension/model/budget';
import { budgetHtml, contentSecurityPolicy } from '../../src/extension/model/budgetHtml';
import {
  anthropicBaseUrl,
  DEFAULT_ANTHROPIC_BASE_URL,
  normalizeWriteMode,
  parseTokenCount,
  readSettings,
} from '../../src/extension/model/settings';
import { redact } from '../../src/extension/model/redact';
import { adviceFor } from '../../src/extension/model/errors';
import { listSessions, sessionsFolder, timeAgo } from '../../src/extension/model/sessions';
import {
  baseName,
  formatChars,
  formatNumber,
  formatTokens,
  oneLine,
  plainLabel,
  shortNumber,
} from '../../src/extension/model/format';
import { isBudgetState, parseHostToWebview, parseWebviewToHost, type BudgetState } from '../../src/webview/protocol';
import { chartGeometry, chartLayout, niceScale, shortTokens } from '../../src/webview/chart';
import { agentFixtures, claudeFixtures, fixture } from '../support/fixtures';
import { contextNow } from '../../src/core/context';
import {
  contextFigureText,
  contextText,
  statusBarText,
  targetPrompt,
  transcriptOfContextText,
} from '../../src/extension/model/contextText';
import { bytesAfterLastBoundary } from '../../src/core/compact/activePart';
import { tempDir } from '../support/temp';

/** Settings that make every sizeable fixture need compaction, with some results replaced. */
const TIGHT = {
  targetTokens: 60_000,
  keepRecentTokens: 5_000,
  maxToolResultChars: 2_000,
  maxToolResultCharsPerMessage: 20_000,
};

const cache = new Map<string, Analysis>();
async function analysisOf(name: string): Promise<Analysis> {
  let a = cache.get(name);
  if (!a) cache.set(name, (a = await inspectFile(fixture(name))));
  return a;
}

describe('extension model: Rounds tree', () => {
  for (const file of claudeFixtures()) {
    const name = basename(file);
    it(`${name}: one node per round, boundaries as separators, figures with their source`, async () => {
      const analysis = await analysisOf(name);
      const nodes = rootNodes({ file, analysis });
      const report = analysis.report;
      // Active rounds at the root; rounds before the last compact boundary inside collapsed history groups.
      const rounds: TreeNodeModel[] = [];
      for (const n of nodes) {
        if (n.kind === 'round') rounds.push(n);
        if (n.kind === 'history') {
          const kids = childNodes({ file, analysis }, n);
          assert.ok(
            kids.length > 0 &&
              kids.every((k) => k.kind === 'round' && !report.rounds[k.round!].inContext && k.segment === n.segment),
          );
          for (const k of kids) assert.deepEqual(parentNode({ file, analysis }, k), n);
          rounds.push(...kids);
        }
      }
      assert.ok(nodes.filter((n) => n.kind === 'round').every((n) => report.rounds[n.round!].inContext));
      assert.equal(rounds.length, report.rounds.length);
      rounds.forEach((n, i) => {
        const r = report.rounds[i];
        assert.equal(n.round, r.index);
        // Tokens added first (with "~" for an estimate), then the round number and its text without markdown.
        const added = `+${r.tokens.source === 'estimate' ? '~' : ''}${formatNumber(r.tokens.added)}`;
        assert.ok(n.label.startsWith(`${added} · #${r.index} `), n.label);
        assert.ok(!/\*\*|```/.test(n.label), n.label);
        assert.equal(n.description, `context ${formatTokens(r.cumulative.tokens, r.cumulative.source)}`);
        assert.ok((n.tooltip ?? '').includes(`Adds ${formatTokens(r.tokens.added, r.tokens.source)} tokens`));
        assert.deepEqual(n.command?.args, [{ file, round: r.index }]);
        assert.equal(n.contextValue, 'round.keep');
        assert.equal(n.collapsible, 'collapsed');
      });
      // A separator before every round that starts at a compact boundary, in order.
      const seps = nodes.filter((n) => n.kind === 'boundary');
      assert.equal(seps.length, report.rounds.filter((r) => r.startsAtBoundary).length);
      for (const sep of seps) {
        const next = nodes[nodes.indexOf(sep) + 1];
        if (next.kind === 'history') assert.equal(childNodes({ file, analysis }, next)[0].line, sep.line);
        else {
          assert.equal(next.kind, 'round');
          assert.equal(report.rounds[next.round!].startsAtBoundary, true);
        }
      }
      assert.equal(
        nodes.filter((n) => n.kind === 'history').length,
        new Set(report.rounds.filter((r) => !r.inContext).map((r) => r.segment)).size,
      );
      assert.equal(nodes[0].kind, 'header');
      const ctx = contextNow(report);
      assert.equal(
        nodes[0].label,
        `context ${ctx.source === 'estimate' ? '~' : ''}${formatNumber(ctx.tokens)} tokens (${ctx.source})`,
      );
      assert.equal(
        nodes[0].description,
        `${name} · ${formatNumber(report.totals.rounds)} ${report.totals.rounds === 1 ? 'round' : 'rounds'} · Claude Code`,
      );
      assert.equal(
        nodes.some((n) => n.kind === 'sidechains'),
        report.sidechains.length > 0,
      );
      assert.equal(
        nodes.some((n) => n.kind === 'malformedGroup'),
        report.malformed.length > 0,
      );
      assert.equal(
        nodes.some((n) => n.kind === 'plan'),
        false,
      );
      // Ids are unique (VS Code rejects duplicates).
      assert.equal(new Set(nodes.map((n) => n.id)).size, nodes.length);
    });

    it(`${name}: a round's children are its lines and its tool calls with sizes`, async () => {
      const analysis = await analysisOf(name);
      const input = { file, analysis };
      for (const round of analysis.rounds) {
        const children = roundChildren(input, round.index);
        const messages = children.filter((c) => c.kind === 'message');
        assert.equal(messages.length, round.entries.length);
        assert.deepEqual(
          messages.map((m) => m.line),
          round.entries.map((i) => analysis.index.entries[i].line),
        );
        const tools = children.filter((c) => c.kind === 'tool');
        assert.equal(tools.length, new Set(round.toolUses.map((t) => t.id)).size, `round ${round.index}`);
        for (const t of tools) assert.match(t.description ?? '', /^input [\d.]+k? chars → /);
        assert.equal(new Set(children.map((c) => c.id)).size, children.length);
        for (const c of children) assert.equal(parentNode(input, c)?.id, `${file}#round-${round.index}`);
      }
    });
  }

  it('lists sidechains (inline and subagent files) and malformed lines as children', async () => {
    const inline = await analysisOf('v1.0.x-inline-sidechains.jsonl');
    const file = fixture('v1.0.x-inline-sidechains.jsonl');
    const group = rootNodes({ file, analysis: inline }).find((n) => n.kind === 'sidechains')!;
    const sides = childNodes({ file, analysis: inline }, group);
    assert.equal(sides.length, inline.report.sidechains.length);
    for (const s of sides) {
      assert.equal(s.kind, 'sidechain');
      assert.match(s.description ?? '', /rounds? · \d+ lines?/);
      assert.equal(s.command?.command, 'agentCompactor.revealRound');
    }
    const bad = await analysisOf('malformed-joined-lines.jsonl');
    const badFile = fixture('malformed-joined-lines.jsonl');
    const mg = rootNodes({ file: badFile, analysis: bad }).find((n) => n.kind === 'malformedGroup')!;
    const items = childNodes({ file: badFile, analysis: bad }, mg);
    assert.deepEqual(
      items.map((i) => i.line),
      bad.report.malformed.map((m) => m.line),
    );
  });

  it('snapshot() expands children to the requested depth', async () => {
    const file = fixture('v1.0.98-small.jsonl');
    const analysis = await analysisOf('v1.0.98-small.jsonl');
    const flat = snapshot({ file, analysis }, 0);
    assert.ok(flat.every((n) => n.children === undefined));
    const deep = snapshot({ file, analysis }, 1);
    const r = deep.find((n) => n.kind === 'round')!;
    assert.ok(r.children && r.children.length > 0);
  });
});

describe('extension model: one context figure on every surface', () => {
  for (const name of ['with-compactions.jsonl', 'plan-mode.jsonl']) {
    it(`${name}: status bar, tree header, plan line, target prompt and plan detail show the same figure, naming its parts`, async () => {
      const file = fixture(name);
      const analysis = await analysisOf(name);
      const ctx = contextNow(analysis.report);
      const figure = contextFigureText(ctx);
      assert.equal(
        figure,
        `${ctx.source === 'estimate' ? '~' : ''}${formatNumber(analysis.report.totals.currentContextTokens)}`,
      );
      const plan = await planCompaction(analysis, TIGHT);
      const surfaces = {
        statusBar: statusBarText(ctx, analysis.report),
        treeHeader: rootNodes({ file, analysis, plan })[0].label,
        planLine: rootNodes({ file, analysis, plan })[1].label,
        planSummary: planSummary(plan, ctx),
        inputPrompt: targetPrompt(ctx, 10_000),
        confirmation: confirmationText(plan, ctx, {
          mode: 'fork',
          summarizer: 'extractive',
          baseUrl: DEFAULT_ANTHROPIC_BASE_URL,
        }).message,
      };
      for (const [where, text] of Object.entries(surfaces))
        assert.ok(text.includes(`ontext ${figure}`), `${where}: ${text} lacks "context ${figure}"`);
      // Where a part is shown, it is named: the input box names both parts; the detail names the transcript part.
      assert.ok(surfaces.inputPrompt.includes(`transcript ${formatNumber(ctx.transcript)}`), surfaces.inputPrompt);
      if (ctx.overheadKnown)
        assert.ok(
          surfaces.inputPrompt.includes(`system prompt and tools ~${formatNumber(ctx.overhead)}`),
          surfaces.inputPrompt,
        );
      assert.equal(ctx.overhead + ctx.transcript + ctx.attached, ctx.tokens);
      if (ctx.attached)
        assert.ok(
          surfaces.inputPrompt.includes(`~${formatNumber(ctx.attached)} attached by the agent`),
          surfaces.inputPrompt,
        );
      assert.equal(
        transcriptOfContextText(ctx.transcript, ctx),
        `transcript ${formatNumber(ctx.transcript)} of ${figure}`,
      );
    });
  }

  it('an unreachable target is said on the plan line, not only in a tooltip', async () => {
    const analysis = await analysisOf('with-compactions.jsonl');
    const ctx = contextNow(analysis.report);
    const plan = await planCompaction(analysis, { ...TIGHT, targetTokens: 1_000 });
    const line = planSummary(plan, ctx);
    assert.match(line, /, above the 1,000 target/);
    if (plan.overheadTokens >= 900)
      assert.ok(
        line.endsWith(`: the system prompt and tools alone take ~${Math.round(plan.overheadTokens / 1000)}k`),
        line,
      );
  });

  it('labels carry no markdown', () => {
    assert.equal(plainLabel('**2.5 minutes** of `npm test`'), '2.5 minutes of npm test');
    assert.equal(plainLabel('```ts\nconst x = 1;\n```'), 'const x = 1;');
    assert.equal(plainLabel('## Plan __now__'), 'Plan now');
    assert.equal(plainLabel('a * b'), 'a * b');
    assert.equal(plainLabel('1. **Do this first…'), '1. Do this first…');
  });

  it('the result message says what happened to the file size and what the agent reads', async () => {
    const analysis = await analysisOf('with-compactions.jsonl');
    const plan = await planCompaction(analysis, TIGHT);
    const base: CompactResult = {
      output: '/x/new.jsonl',
      mode: 'fork',
      sessionId: null,
      cwd: null,
      resumeCommand: null,
      summarizer: 'extractive',
      carriedOverBytes: 0,
      backup: null,
      preTokens: 1,
      postTokens: 1,
      attempts: [],
      plan,
      summaryChars: 1,
      summaryDetail: 'standard',
      toolResultsDir: null,
    };
    const files = { before: 4_372_000, written: 4_404_000, agentReads: 61_440 };
    assert.equal(
      fileSizeText(base, files),
      'The written file is 4.2 MiB (the original 4.2 MiB): the history before the new compact boundary stays in it for the record; the agent reads only the 60 KiB after it.',
    );
    assert.ok(fileSizeText({ ...base, mode: 'in-place' }, files).startsWith('The file went from 4.2 MiB to 4.2 MiB: '));
    assert.equal(
      fileSizeText(base, { ...files, agentReads: null }),
      'The written file is 4.2 MiB (the original 4.2 MiB).',
    );
    assert.ok(resultSummary(base, { files }).includes('the agent reads only the 60 KiB after it.'));
  });

  it('bytesAfterLastBoundary: from the last boundary line to the end, across chunk edges', async () => {
    const dir = tempDir('ac-active-');
    try {
      const boundary = JSON.stringify({
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
      });
      const filler = (n: number) => `${JSON.stringify({ type: 'user', message: { content: 'x'.repeat(n) } })}\n`;
      const tail = filler(100) + filler(50);
      // A boundary line that starts in one 1 MiB chunk and carries its mark in the next.
      const history = `${filler(3_000_000)}${boundary}\n${filler((1 << 20) - 200)}`;
      const f = join(dir, 's.jsonl');
      writeFileSync(f, `${history}${boundary}\n${tail}`);
      assert.equal(await bytesAfterLastBoundary(f), Buffer.byteLength(`${boundary}\n${tail}`));
      const long = join(dir, 'long.jsonl');
      const longBoundary = JSON.stringify({
        type: 'system',
        pad: 'p'.repeat((1 << 20) + 10),
        subtype: 'compact_boundary',
      });
      writeFileSync(long, `${filler(10)}${longBoundary}\n${tail}`);
      assert.equal(await bytesAfterLastBoundary(long), Buffer.byteLength(`${longBoundary}\n${tail}`));
      const none = join(dir, 'none.jsonl');
      writeFileSync(none, filler(10));
      assert.equal(await bytesAfterLastBoundary(none), null);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('extension model: plan marks', () => {
  let file: string;
  let analysis: Analysis;
  let plan: CompactionPlan;
  before(async () => {
    file = fixture('with-compactions.jsonl');
    analysis = await analysisOf('with-compactions.jsonl');
    plan = await planCompaction(analysis, TIGHT);
    assert.equal(plan.nothingToDo, false, 'fixture needs compaction at the tight target');
  });

  it('marks every round by the plan action with an icon, a colour and a text marker', () => {
    const nodes = analysis.report.rounds.map((r) => roundNodeByIndex({ file, analysis, plan }, r.index)!);
    const seen = new Set<string>();
    for (const n of nodes) {
      const action = markOf(plan, n.round!);
      assert.equal(n.mark, action);
      assert.equal(n.contextValue, `round.${action}`);
      if (action === 'keep') {
        assert.match(n.label, new RegExp(`^\\+~?[\\d,]+ · #${n.round} `), n.label);
      } else {
        assert.match(
          n.label,
          new RegExp(`^\\+~?[\\d,]+ · ${MARK_TEXT[action].replace(/[[\]]/g, '\\$&')} #${n.round} `),
          n.label,
        );
        assert.equal(n.color, `agentCompactor.${action}Foreground`);
        assert.ok(n.icon === 'archive' || n.icon === 'trash');
        assert.ok((n.tooltip ?? '').includes(`Plan: ${action}`));
      }
      seen.add(action);
    }
    assert.ok(seen.has('summarize'));
    assert.ok(seen.has('keep'));
  });

  it('puts the plan summary node right after the header', () => {
    const nodes = rootNodes({ file, analysis, plan });
    assert.equal(nodes[1].kind, 'plan');
    const f = planFigures(plan);
    const bound = planBound(plan);
    const why =
      bound.kind === 'keep-recent'
        ? `, below the ${formatNumber(plan.settings.targetTokens)} target: ${bound.reason}`
        : plan.postTokens + plan.overheadTokens > plan.settings.targetTokens
          ? `, above the ${formatNumber(plan.settings.targetTokens)} target: ${bound.reason}`
          : '';
    const change = `context ${contextFigureText(contextNow(analysis.report))} → ${formatNumber(Math.round(plan.postTokens + plan.overheadTokens))} tokens${why}`;
    const action = `${formatNumber(f.rounds)} rounds / ${formatNumber(f.tokens)} tokens would be summarized or dropped`;
    // The label leads with the whole context before → after; what happens to the rounds follows in the description.
    assert.equal(nodes[1].label, change);
    assert.equal(nodes[1].description, action);
    assert.equal(planSummary(plan, contextNow(analysis.report)), `${action}; ${change}`);
    assert.equal(nodes[1].command?.command, 'agentCompactor.openBudget');
  });

  it('plan figures add up', () => {
    const f = planFigures(plan);
    assert.equal(f.summarized, plan.rounds.filter((r) => r.action === 'summarize').length);
    assert.equal(f.dropped, plan.rounds.filter((r) => r.action === 'drop').length);
    assert.equal(f.rounds, f.summarized + f.dropped);
    assert.equal(f.replacedResults + f.frozenResults + f.keptResults, plan.toolResults.length);
    const tokens = plan.rounds.filter((r) => r.action !== 'keep').reduce((s, r) => s + r.tokens, 0);
    assert.equal(f.tokens, Math.round(tokens));
  });

  it('tool calls show the result decision', async () => {
    const name = 'with-compactions.jsonl';
    const a = await analysisOf(name);
    const p = await planCompaction(a, { ...TIGHT, maxToolResultChars: 1_000 });
    const replaced = p.toolResults.filter((t) => t.action !== 'kept');
    assert.ok(replaced.length > 0, 'the fixture has a result over 1,000 chars in the kept tail');
    const d = replaced[0];
    assert.ok(d.preview && d.preview.length > 0);
    const children = roundChildren({ file: fixture(name), analysis: a, plan: p }, d.round);
    const tool = children.find((c) => c.kind === 'tool' && c.id.endsWith(d.toolUseId))!;
    assert.ok(tool.label.endsWith(`[${d.action}]`), tool.label);
  });

  it('decoration ranges cover exactly the lines of summarized and dropped rounds', () => {
    const ranges = decorationRanges(analysis, plan);
    for (const action of ['summarize', 'drop'] as const) {
      const expected = new Set<number>();
      for (const p of plan.rounds.filter((r) => r.action === action)) {
        const round = analysis.rounds.find((r) => r.index === p.index)!;
        for (const i of round.entries) expected.add(analysis.index.entries[i].line - 1);
      }
      const got = new Set<number>();
      let prevStart = -1;
      for (const run of ranges[action]) {
        assert.ok(run.startLine <= run.endLine);
        assert.ok(run.startLine >= prevStart, 'sorted');
        prevStart = run.startLine;
        for (let l = run.startLine; l <= run.endLine; l++) got.add(l);
      }
      assert.deepEqual(
        [...got].sort((a, b) => a - b),
        [...expected].sort((a, b) => a - b),
      );
      assert.equal(markedLineCount(ranges)[action], expected.size);
      // Exactly one run per marked round carries the text marker.
      const firsts = ranges[action].filter((r) => r.first).map((r) => r.round);
      assert.equal(new Set(firsts).size, firsts.length);
      assert.equal(firsts.length, plan.rounds.filter((r) => r.action === action).length);
    }
    assert.deepEqual(decorationRanges(analysis, null), { summarize: [], drop: [] });
  });

  it('the confirmation names the host the Anthropic summarizer sends the rounds and the key to', () => {
    const ctx = contextNow(analysis.report);
    const official = confirmationText(plan, ctx, {
      mode: 'fork',
      summarizer: 'anthropic',
      baseUrl: anthropicBaseUrl(undefined, undefined),
    });
    assert.match(official.detail, /Sends the summarized rounds and your API key to api\.anthropic\.com\./);
    const proxy = confirmationText(plan, ctx, {
      mode: 'fork',
      summarizer: 'anthropic',
      baseUrl: anthropicBaseUrl('https://gateway.example.net:8443/v1', undefined),
    });
    assert.match(proxy.detail, /Sends the summarized rounds and your API key to gateway\.example\.net:8443\./);
    assert.ok(!proxy.detail.includes('api.anthropic.com'), proxy.detail);
    // With no setting the SDK takes ANTHROPIC_BASE_URL: the dialog names that host, as the request will use it.
    const fromEnv = confirmationText(plan, ctx, {
      mode: 'fork',
      summarizer: 'anthropic',
      baseUrl: anthropicBaseUrl(undefined, ' http://127.0.0.1:9999 '),
    });
    assert.match(fromEnv.detail, /your API key to 127\.0\.0\.1:9999\./);
    // The setting wins over the environment; the offline summary names no host.
    assert.equal(anthropicBaseUrl('https://a.example', 'https://b.example'), 'https://a.example');
    assert.ok(
      !confirmationText(plan, ctx, {
        mode: 'fork',
        summarizer: 'extractive',
        baseUrl: 'https://gateway.example.net',
      }).detail.includes('gateway'),
    );
  });

  it("the confirmation says the agent-CLI summarizers send the rounds to the user's Claude Code or Codex, and on to its API", () => {
    const ctx = contextNow(analysis.report);
    const claude = confirmationText(plan, ctx, {
      mode: 'fork',
      summarizer: 'claude-cli',
      baseUrl: 'https://gateway.example.net',
    }).detail;
    assert.match(claude, /sent to your Claude Code \(claude -p\), which sends them to its API/);
    assert.ok(!claude.includes('gateway') && !claude.includes('API key'), claude);
    const codex = confirmationText(plan, ctx, {
      mode: 'fork',
      summarizer: 'codex-cli',
      baseUrl: DEFAULT_ANTHROPIC_BASE_URL,
    }).detail;
    assert.match(codex, /sent to your Codex \(codex exec\), which sends them to its API/);
  });

  it('confirmation text carries the figures and the write target', () => {
    const ctx = contextNow(analysis.report);
    const { message, detail } = confirmationText(plan, ctx, {
      mode: 'fork',
      summarizer: 'extractive',
      baseUrl: DEFAULT_ANTHROPIC_BASE_URL,
    });
    const before = contextFigureText(ctx);
    const after = formatNumber(Math.round(plan.postTokens + plan.overheadTokens));
    assert.ok(message.startsWith(`Compact with-compactions.jsonl? Context ${before} → ${after} tokens`), message);
    // Each figure once: the whole context in the message, its parts (named) in the detail.
    const text = `${message}\n${detail}`;
    for (const figure of [
      before,
      after,
      formatNumber(ctx.transcript),
      formatNumber(Math.round(plan.postTokens)),
      formatNumber(plan.overheadTokens),
    ]) {
      assert.equal(text.split(figure).length - 1, 1, `${figure} said once in:\n${text}`);
    }
    assert.ok(
      detail.includes(
        `Transcript: ${formatNumber(ctx.transcript)} → ${formatNumber(Math.round(plan.postTokens))} tokens`,
      ),
      detail,
    );
    assert.ok(detail.includes(`System prompt and tools: ~${formatNumber(plan.overheadTokens)}, unchanged.`), detail);
    assert.ok(
      detail.includes('Writes: a new session <new-id>.jsonl beside with-compactions.jsonl, which is untouched'),
    );
    assert.ok(detail.includes('nothing leaves this machine'));
    const api = confirmationText(plan, ctx, {
      mode: 'inPlace',
      summarizer: 'anthropic',
      model: 'claude-x',
      baseUrl: DEFAULT_ANTHROPIC_BASE_URL,
    });
    assert.ok(api.detail.includes('Anthropic API (claude-x)'));
    assert.ok(api.detail.includes('.bak-<timestamp>'));
    assert.ok(api.detail.includes('the session keeps its id'));
    assert.ok(
      confirmationText(plan, ctx, {
        mode: 'fork',
        summarizer: 'extractive',
        baseUrl: DEFAULT_ANTHROPIC_BASE_URL,
        out: '/x/y/other.jsonl',
      }).detail.includes('Writes: other.jsonl (with-compactions.jsonl is untouched).'),
    );
    assert.equal(
      writeTarget('/a/b/s.jsonl', 'fork'),
      'a new session <new-id>.jsonl beside s.jsonl, which is untouched (resume the new session by its id)',
    );
  });

  it('a plan with nothing to do says so', async () => {
    const a = await analysisOf('plan-mode.jsonl');
    const p = await planCompaction(a, { targetTokens: 1_000_000 });
    assert.equal(p.nothingToDo, true);
    assert.equal(
      planSummary(p, contextNow(a.report)),
      `Nothing to compact: ${contextText(contextNow(a.report))}, target 1,000,000 (at or above the context now)`,
    );
    const node = rootNodes({ file: fixture('plan-mode.jsonl'), analysis: a, plan: p })[1];
    assert.equal(node.contextValue, 'plan.nothingToDo');
  });

  const ID = '0b7a3c9e-5d1f-4e2a-9c8b-7f6e5d4c3b2a';
  const result = (over: Partial<CompactResult>): CompactResult => ({
    output: `/x/${ID}.jsonl`,
    mode: 'fork',
    sessionId: ID,
    cwd: '/home/me/my project',
    resumeCommand: `cd '/home/me/my project' && claude --resume ${ID}`,
    summarizer: 'extractive',
    carriedOverBytes: 0,
    backup: null,
    preTokens: 150_000,
    postTokens: 40_000,
    attempts: [
      { attempt: 1, strategy: 'extractive', outcome: 'ok', detail: 'offline extractive summary (no network)' },
    ],
    plan,
    summaryChars: 100,
    summaryDetail: 'standard',
    toolResultsDir: null,
    ...over,
  });

  it('result summary (fork): the summarizer that ran, the new session and its resume command', () => {
    assert.equal(
      resultSummary(result({})),
      `Compacted with-compactions.jsonl: context ${formatNumber(150_000 + plan.overheadTokens)} → ${formatNumber(40_000 + plan.overheadTokens)} tokens (offline extractive summary). New session ${ID} beside with-compactions.jsonl, which is untouched. Resume: cd '/home/me/my project' && claude --resume ${ID}`,
    );
    // The configured Claude Code path, quoted for the shell.
    assert.ok(
      resultSummary(result({}), { programs: { claudePath: '/opt/my tools/claude' } }).endsWith(
        `Resume: cd '/home/me/my project' && '/opt/my tools/claude' --resume ${ID}`,
      ),
    );
    assert.equal(
      resultResumeCommand(result({}), { claudePath: 'claude' }),
      `cd '/home/me/my project' && claude --resume ${ID}`,
    );
    // The folder the extension found for the session, over the one the core reported.
    assert.ok(
      resultSummary(result({}), { cwd: '/home/me/started-here' }).endsWith(
        `Resume: cd /home/me/started-here && claude --resume ${ID}`,
      ),
    );
    assert.equal(resultResumeCommand(result({}), { claudePath: 'claude' }, null), null);
    // No resume command without a session id or a folder.
    assert.ok(!resultSummary(result({ sessionId: null, resumeCommand: null })).includes('Resume:'));
    assert.ok(
      resultSummary(result({ sessionId: null, resumeCommand: null })).includes(
        `Wrote ${ID}.jsonl beside with-compactions.jsonl, which is untouched.`,
      ),
    );
    assert.equal(resultResumeCommand(result({ cwd: null, resumeCommand: null })), null);
  });

  it('a Codex result is resumed by `codex resume` with the configured Codex, never by the configured Claude Code', () => {
    const codex = result({ resumeAgent: 'codex', resumeCommand: `cd '/home/me/my project' && codex resume ${ID}` });
    assert.equal(
      resultResumeCommand(codex, { claudePath: '/opt/my tools/claude' }),
      `cd '/home/me/my project' && codex resume ${ID}`,
    );
    assert.ok(
      resultSummary(codex, { programs: { claudePath: '/opt/my tools/claude' } }).endsWith(
        `Resume: cd '/home/me/my project' && codex resume ${ID}`,
      ),
    );
    assert.ok(
      resultSummary(codex, { programs: { claudePath: '/opt/claude', codexPath: '/opt/my tools/codex' } }).endsWith(
        `Resume: cd '/home/me/my project' && '/opt/my tools/codex' resume ${ID}`,
      ),
    );
  });

  it('result summary names the Anthropic summary, its retries, and a fallback to the offline one', () => {
    const api = result({
      summarizer: 'anthropic',
      mode: 'out',
      output: '/x/s.compacted.jsonl',
      sessionId: null,
      resumeCommand: null,
      attempts: [
        { attempt: 1, strategy: 'anthropic', outcome: 'prompt-too-long', detail: '' },
        { attempt: 2, strategy: 'anthropic-truncated', outcome: 'ok', detail: '' },
      ],
    });
    assert.equal(
      resultSummary(api, { requested: 'anthropic' }),
      `Compacted with-compactions.jsonl: context ${formatNumber(150_000 + plan.overheadTokens)} → ${formatNumber(40_000 + plan.overheadTokens)} tokens (summary by the Anthropic API with the oldest rounds cut, 2 attempts). Wrote s.compacted.jsonl; with-compactions.jsonl is untouched.`,
    );
    const fellBack = result({
      summarizer: 'extractive',
      attempts: [
        { attempt: 1, strategy: 'anthropic', outcome: 'error', detail: 'network' },
        { attempt: 2, strategy: 'extractive', outcome: 'ok', detail: 'the Anthropic summary failed' },
      ],
    });
    assert.match(
      resultSummary(fellBack, { requested: 'anthropic' }),
      /\(offline extractive summary: the Anthropic API was not used, 2 attempts\)/,
    );
    assert.equal(summarizerText(fellBack), 'offline extractive summary');
    assert.equal(
      summarizerText(fellBack, 'claude-cli'),
      'offline extractive summary: your Claude Code was not used, 2 attempts',
    );
    assert.equal(summarizerText(result({ summarizer: 'codex-cli' }), 'codex-cli'), 'summary by your Codex');
    assert.equal(summarizerText(result({ summarizer: 'none' })), 'no rounds summarized');
    // A summary clipped to its reserve says so; the clip is no attempt of the summarizer's.
    const clipped = result({
      summarizer: 'claude-cli',
      attempts: [
        { attempt: 1, strategy: 'claude-cli', outcome: 'ok', detail: 'summary of 3 rounds by Claude Code' },
        { attempt: 2, strategy: 'claude-cli', outcome: 'clipped', detail: 'the summary was 9000 characters, …' },
      ],
    });
    assert.equal(summarizerText(clipped, 'claude-cli'), 'summary by your Claude Code, clipped to fit its reserve');
  });

  it('result summary (in place): the backup, bytes carried over, the same session id', () => {
    const text = resultSummary(
      result({
        mode: 'in-place',
        output: `/x/${ID}.jsonl`,
        backup: `/x/${ID}.jsonl.bak-20250101T000000Z`,
        carriedOverBytes: 2048,
      }),
    );
    assert.ok(text.includes(`Rewrote with-compactions.jsonl in place; backup ${ID}.jsonl.bak-20250101T000000Z.`), text);
    assert.ok(text.includes('2 KiB a live session appended meanwhile were carried over.'), text);
    assert.ok(text.endsWith(`--resume ${ID}`));
    assert.equal(resultTarget(result({ mode: 'in-place', backup: null })), 'Rewrote with-compactions.jsonl in place.');
  });
});

describe('extension model: resuming a session in its agent', () => {
  const ID = '9f8e7d6c-5b4a-4321-8fed-cba987654321';
  let dir: string;
  before(() => {
    dir = tempDir('ac-resume-');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the session id is the file name when it is a UUID', () => {
    assert.equal(sessionIdFromFile(`/p/${ID}.jsonl`), ID);
    assert.equal(sessionIdFromFile(`C:\\p\\${ID.toUpperCase()}.JSONL`), ID.toUpperCase());
    for (const bad of ['/p/session.jsonl', `/p/${ID}.compacted.jsonl`, `/p/${ID}.json`, `/p/x${ID}.jsonl`])
      assert.equal(sessionIdFromFile(bad), null, bad);
  });

  it('reads the first main-chain working folder and the recorded session id from the lines', async () => {
    for (const name of claudeFixtures().map((f) => basename(f))) {
      const info = await readSessionInfo(fixture(name));
      assert.equal(info.sessionId, null, `${name}: not a UUID file name`);
      assert.ok(info.cwd && info.cwd.startsWith('/'), `${name}: a cwd (${info.cwd})`);
      assert.ok(info.recordedSessionId, `${name}: a recorded session id`);
    }
    // The folder the session started in, not one a later `cd` moved to.
    assert.equal((await readSessionInfo(fixture('v2.1.97-live-before.jsonl'))).cwd, '/home/vwestberg/Claude');
    assert.equal((await readSessionInfo(fixture('v1.0.x-inline-sidechains.jsonl'))).cwd, '/path/to/Demo');
    // In Claude Code's sessions folder: the recorded folder that names the project folder it is in.
    const live = fixture('v2.1.97-live-before.jsonl');
    assert.equal(
      (await readSessionInfo(live, { projectFolder: '-home-vwestberg-eiros-config-hardware' })).cwd,
      '/home/vwestberg/eiros-config/hardware',
    );
    assert.equal(
      (await readSessionInfo(live, { projectFolder: '-home-vwestberg-Claude' })).cwd,
      '/home/vwestberg/Claude',
    );
    assert.equal(
      (await readSessionInfo(live, { projectFolder: '-somewhere-else' })).cwd,
      '/home/vwestberg/Claude',
      'no match: where it was started',
    );
    assert.equal(projectFolderName('/home/me/my.project_x'), '-home-me-my-project-x');
    assert.equal(projectFolderOf('/h/.claude/projects/-w-p/abc.jsonl', '/h/.claude/projects'), '-w-p');
    assert.equal(projectFolderOf('/h/.claude/projects/-w-p/s/subagents/a.jsonl', '/h/.claude/projects'), null);
    assert.equal(projectFolderOf('/elsewhere/-w-p/abc.jsonl', '/h/.claude/projects'), null);
    // Lines before the first cwd (summaries, snapshots), a sidechain line, a broken line.
    const f = join(dir, `${ID}.jsonl`);
    writeFileSync(
      f,
      [
        JSON.stringify({ type: 'summary', summary: 'x', leafUuid: 'u0' }),
        '{"broken": ',
        JSON.stringify({ type: 'user', isSidechain: true, cwd: '/side', sessionId: 'other' }),
        JSON.stringify({ type: 'user', isSidechain: false, cwd: '/main', sessionId: ID }),
        JSON.stringify({ type: 'user', cwd: '/later' }),
      ].join('\n') + '\n',
    );
    assert.deepEqual(await readSessionInfo(f), { sessionId: ID, recordedSessionId: 'other', cwd: '/main' });
    const onlySide = join(dir, 'side.jsonl');
    writeFileSync(onlySide, JSON.stringify({ type: 'user', isSidechain: true, cwd: '/side' }) + '\n');
    assert.deepEqual(await readSessionInfo(onlySide), { sessionId: null, recordedSessionId: null, cwd: '/side' });
    const none = join(dir, 'none.jsonl');
    writeFileSync(none, '');
    assert.deepEqual(await readSessionInfo(none), { sessionId: null, recordedSessionId: null, cwd: null });
    await assert.rejects(readSessionInfo(join(dir, 'missing.jsonl')));
    assert.equal(await isDirectory(dir), true);
    assert.equal(await isDirectory(f), false);
    assert.equal(await isDirectory(join(dir, 'nope')), false);
  });

  it('says what stands in the way: a file name that is not a session id, no folder, a missing folder', () => {
    const ok = { file: `/p/${ID}.jsonl`, agent: 'claude-code' as const, sessionId: ID, cwd: '/w', cwdExists: true };
    assert.equal(resumeProblem(ok, 'launch'), null);
    const notId = resumeProblem({ ...ok, file: '/p/session.jsonl', sessionId: null }, 'copy')!;
    assert.equal(notId.code, 'not-session-id');
    assert.match(
      notId.message,
      /^Claude Code cannot resume session\.jsonl by id: .* must be named <session-uuid>\.jsonl and sit in ~\/\.claude\/projects\/<project>\//,
    );
    assert.equal(resumeProblem({ ...ok, sessionId: 'not-a-uuid' }, 'launch')!.code, 'not-session-id');
    assert.equal(resumeProblem({ ...ok, cwd: null, cwdExists: false }, 'copy')!.code, 'no-cwd');
    const missing = resumeProblem({ ...ok, cwdExists: false }, 'launch')!;
    assert.equal(missing.code, 'cwd-missing');
    assert.match(missing.message, /its working folder \/w does not exist on this machine/);
    // A command to copy does not need the folder to exist here.
    assert.equal(resumeProblem({ ...ok, cwdExists: false }, 'copy'), null);
  });

  it('a Codex rollout: its thread id, never a Claude Code file name; the reasons name Codex', () => {
    const rollout = `/s/rollout-2026-01-02T00-00-00-${ID}.jsonl`;
    const ok = { file: rollout, agent: 'codex' as const, sessionId: ID, cwd: '/w', cwdExists: true };
    assert.equal(resumeProblem(ok, 'launch', '/opt/codex'), null);
    const notId = resumeProblem({ ...ok, sessionId: null }, 'copy')!;
    assert.equal(notId.code, 'not-session-id');
    assert.match(notId.message, /^Codex cannot resume rollout-.*\.jsonl by id: .*session_meta/);
    assert.doesNotMatch(notId.message, /Claude Code|<session-uuid>\.jsonl/);
    assert.match(
      resumeProblem({ ...ok, cwd: null, cwdExists: false }, 'copy')!.message,
      /where Codex CLI must be started/,
    );
    assert.match(
      resumeProblem({ ...ok, cwdExists: false }, 'launch')!.message,
      /Codex starts the resumed thread in it/,
    );
    assert.equal(terminalName('codex', ID), 'Codex CLI: 9f8e7d6c');
    assert.equal(resumeShellLine('codex', '/opt/my codex', ID, 'linux'), `'/opt/my codex' resume ${ID}`);
    assert.equal(copyableResumeCommand(ok, 'codex'), `cd /w && codex resume ${ID}`);
    assert.equal(resumeProblem({ ...ok, cwd: 'relative/dir' }, 'copy')!.code, 'unsafe');
  });

  it('the read-only agents: no resume command, and why', () => {
    assert.equal(resumeAgentOf('claude-code'), 'claude-code');
    assert.equal(resumeAgentOf('codex'), 'codex');
    for (const format of ['gemini-cli', 'cline', 'copilot-cli'] as const) {
      assert.equal(resumeAgentOf(format), null, format);
      assert.ok((noResumeReason(format) ?? '').length > 40, `${format}: ${noResumeReason(format)}`);
    }
    assert.match(noResumeReason('cline')!, /task history in their own VS Code panel/);
    assert.equal(noResumeReason('codex'), null);
  });

  it('terminal name, typed line and copied command', () => {
    assert.equal(terminalName('claude-code', ID), 'Claude Code: 9f8e7d6c');
    assert.equal(resumeShellLine('claude-code', 'claude', ID, 'linux'), `claude --resume ${ID}`);
    assert.equal(
      resumeShellLine('claude-code', "/opt/it's/claude", ID, 'linux'),
      `'/opt/it'\\''s/claude' --resume ${ID}`,
    );
    assert.equal(
      resumeShellLine('claude-code', 'C:\\Program Files\\claude.exe', ID, 'win32'),
      `& 'C:\\Program Files\\claude.exe' --resume ${ID}`,
    );
    assert.equal(resumeShellLine('claude-code', 'claude', ID, 'win32'), `claude --resume ${ID}`);
    const t = {
      file: `/p/${ID}.jsonl`,
      agent: 'claude-code' as const,
      sessionId: ID,
      cwd: '/home/me/a b',
      cwdExists: true,
    };
    assert.equal(copyableResumeCommand(t, 'claude'), `cd '/home/me/a b' && claude --resume ${ID}`);
    assert.equal(copyableResumeCommand({ ...t, sessionId: null }, 'claude'), null);
    assert.equal(isInside('/h/.claude/projects/-w/x.jsonl', '/h/.claude/projects'), true);
    assert.equal(isInside('/h/.claude/projects-old/x.jsonl', '/h/.claude/projects'), false);
    assert.equal(isInside('/h/.claude/projects', '/h/.claude/projects'), false);
  });
});

describe('extension model: Budget Preview state and protocol', () => {
  let state: BudgetState;
  let analysis: Analysis;
  let plan: CompactionPlan;
  const name = 'with-compactions.jsonl';
  before(async () => {
    analysis = await analysisOf(name);
    plan = await planCompaction(analysis, { ...TIGHT, maxToolResultChars: 1_000 });
    assert.ok(plan.toolResults.some((t) => t.action === 'replaced'));
    state = buildBudgetState(fixture(name), analysis, plan);
  });

  it('has one entry per tool-result decision with the exact preview text', () => {
    assert.equal(state.toolResults.length, plan.toolResults.length);
    state.toolResults.forEach((row, i) => {
      const d = plan.toolResults[i];
      assert.equal(row.toolUseId, d.toolUseId);
      assert.equal(row.decision, d.action);
      assert.equal(row.preview, d.preview);
      assert.equal(row.originalChars, d.originalChars);
      assert.equal(row.round, d.round);
    });
    assert.equal(state.wireMessages.length, plan.wireMessages.length);
    assert.deepEqual(
      state.wireMessages.map((w) => [w.beforeChars, w.afterChars]),
      plan.wireMessages.map((w) => [w.beforeChars, w.afterChars]),
    );
    assert.equal(state.summary, planSummary(plan, contextNow(analysis.report)));
  });

  it('chart points: usage where known, a running estimate, marks and the cut point', () => {
    const pts = state.chart.points;
    assert.equal(pts.length, analysis.report.rounds.length);
    pts.forEach((p, i) => {
      const r = analysis.report.rounds[i];
      assert.equal(p.usage, r.cumulative.source === 'usage' ? r.cumulative.tokens : null);
      assert.equal(p.mark, markOf(plan, r.index));
    });
    assert.ok(pts.some((p) => p.usage !== null));
    // The estimate line is anchored to the first request usage of each segment: at that
    // round it is the request's context plus the round's own estimate.
    const rounds = analysis.report.rounds;
    let anchored = 0;
    for (const seg of new Set(rounds.map((r) => r.segment))) {
      const first = rounds.find((r) => r.segment === seg && r.usage);
      if (!first) continue;
      const before = rounds
        .filter((r) => r.segment === seg && r.index < first.index)
        .reduce((a, r) => a + r.tokens.estimate, 0);
      if (first.usage!.contextTokens < before) continue;
      assert.ok(
        Math.abs(pts[first.index].estimate - (first.usage!.contextTokens + first.tokens.estimate)) <= 1,
        `segment ${seg}`,
      );
      anchored++;
    }
    assert.ok(anchored > 0);
    // Estimates grow within a segment.
    for (let k = 1; k < pts.length; k++) if (!pts[k].boundary) assert.ok(pts[k].estimate >= pts[k - 1].estimate);
    const cut = cutAfterRound(plan);
    assert.equal(state.chart.cutAfterRound, cut);
    assert.ok(cut !== null && plan.rounds.filter((r) => r.index > cut).every((r) => r.action === 'keep'));
    assert.equal(state.chart.targetTokens, TIGHT.targetTokens);
    assert.deepEqual(
      chartPoints(analysis, null).filter((p) => p.mark !== 'keep'),
      [],
    );
  });

  it('survives the trip through postMessage (JSON) and validation', () => {
    const msg = parseHostToWebview(JSON.parse(JSON.stringify({ type: 'state', state })));
    assert.ok(msg && msg.type === 'state');
    assert.deepEqual(msg.state, state);
  });

  it('keeps hostile transcript text exactly (it is data, rendered with textContent)', () => {
    const evil = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
    const s: BudgetState = structuredClone(state);
    s.toolResults = [
      {
        toolUseId: 'toolu_1',
        toolName: '<b>Bash</b>',
        round: 0,
        line: 1,
        wireMessage: 0,
        originalChars: 10,
        decision: 'replaced',
        preview: evil,
        fullTextPath: null,
        reason: evil,
        byUser: false,
      },
    ];
    const msg = parseHostToWebview({ type: 'state', state: s });
    assert.ok(msg && msg.type === 'state');
    assert.equal(msg.state.toolResults[0].preview, evil);
  });

  it('rejects malformed messages in both directions', () => {
    assert.equal(parseHostToWebview(null), null);
    assert.equal(parseHostToWebview({ type: 'state' }), null);
    assert.equal(parseHostToWebview({ type: 'state', state: { ...state, version: 99 } }), null);
    assert.equal(
      parseHostToWebview({ type: 'state', state: { ...state, toolResults: [{ decision: 'eaten' }] } }),
      null,
    );
    assert.equal(
      parseHostToWebview({ type: 'state', state: { ...state, userRounds: [{ round: 1, mark: 'eaten', label: 'x' }] } }),
      null,
    );
    assert.equal(parseHostToWebview({ type: 'state', state: { ...state, userRounds: undefined } }), null);
    assert.equal(
      parseHostToWebview({
        type: 'state',
        state: { ...state, toolResults: state.toolResults.map((t) => ({ ...t, byUser: 'yes' })) },
      }),
      null,
    );
    assert.equal(parseHostToWebview({ type: 'html', html: '<script>' }), null);
    assert.equal(parseHostToWebview({ type: 'empty', message: 42 }), null);
    assert.deepEqual(parseHostToWebview({ type: 'busy', message: 'Reading…' }), { type: 'busy', message: 'Reading…' });
    assert.equal(isBudgetState({}), false);

    assert.deepEqual(parseWebviewToHost({ type: 'ready' }), { type: 'ready' });
    assert.deepEqual(parseWebviewToHost({ type: 'revealRound', round: 3 }), { type: 'revealRound', round: 3 });
    assert.deepEqual(parseWebviewToHost({ type: 'revealLine', line: 12 }), { type: 'revealLine', line: 12 });
    assert.deepEqual(parseWebviewToHost({ type: 'compact' }), { type: 'compact' });
    for (const bad of [
      undefined,
      'ready',
      [],
      { type: 'revealRound', round: -1 },
      { type: 'revealRound', round: 1.5 },
      { type: 'revealRound', round: '3' },
      { type: 'revealLine', line: 0 },
      { type: 'runCommand', command: 'rm' },
      // A field the message does not declare: refused, not stripped.
      { type: 'revealRound', round: 3, extra: 'x' },
    ]) {
      assert.equal(parseWebviewToHost(bad), null, JSON.stringify(bad));
    }
  });

  it('HTML shell: strict CSP, script only by nonce, style only from the extension', () => {
    const html = budgetHtml({
      cspSource: 'https://x.vscode-cdn.net',
      scriptUri: 'https://x.vscode-cdn.net/dist/webview.js',
      styleUri: 'https://x.vscode-cdn.net/media/budget.css',
      nonce: 'abcdefghijklmnopqrstuvwx',
    });
    const csp = contentSecurityPolicy('https://x.vscode-cdn.net', 'abcdefghijklmnopqrstuvwx');
    assert.ok(csp.startsWith("default-src 'none'"));
    assert.ok(csp.includes("script-src 'nonce-abcdefghijklmnopqrstuvwx'"));
    assert.ok(csp.includes('style-src https://x.vscode-cdn.net'));
    assert.ok(!csp.includes('unsafe-inline') && !csp.includes('unsafe-eval'));
    assert.ok(html.includes(`content="${csp.replace(/'/g, "'")}"`));
    const scripts = html.match(/<script[^>]*>/g) ?? [];
    assert.equal(scripts.length, 1);
    assert.ok(scripts[0].includes('nonce="abcdefghijklmnopqrstuvwx"'));
    assert.ok(!/<style|style=/.test(html), 'no inline style');
    assert.ok(!/https?:\/\/(?!x\.vscode-cdn\.net)/.test(html), 'no remote content');
    assert.throws(() => budgetHtml({ cspSource: 'x', scriptUri: 'x', styleUri: 'x', nonce: 'short' }));
  });
});

describe('extension model: chart geometry', () => {
  const pts = [
    { round: 0, usage: 10_000, estimate: 9_000, mark: 'summarize' as const, boundary: false, inContext: true },
    { round: 1, usage: null, estimate: 20_000, mark: 'summarize' as const, boundary: false, inContext: true },
    { round: 2, usage: 30_000, estimate: 31_000, mark: 'drop' as const, boundary: false, inContext: true },
    { round: 3, usage: 5_000, estimate: 4_000, mark: 'keep' as const, boundary: true, inContext: true },
    { round: 4, usage: 12_000, estimate: 11_000, mark: 'keep' as const, boundary: false, inContext: true },
  ];
  const data = {
    points: pts,
    targetTokens: 25_000,
    floorTokens: null,
    cutAfterRound: 2,
    preTokens: 12_000,
    postTokens: 8_000,
  };

  it('scales to a nice maximum covering the data and the target', () => {
    assert.deepEqual(niceScale(31_000), { max: 40_000, step: 10_000 });
    assert.deepEqual(niceScale(9_000), { max: 10_000, step: 2_000 });
    assert.deepEqual(niceScale(0), { max: 1, step: 1 });
    const g = chartGeometry(data);
    assert.equal(g.maxY, 40_000);
    assert.equal(g.viewBox, `0 0 720 ${chartLayout(720).height}`);
    assert.deepEqual(
      g.yTicks.map((t) => t.label),
      ['0', '10k', '20k', '30k', '40k'],
    );
  });

  it('places points in round order, y inverted, target and cut where they belong', () => {
    const g = chartGeometry(data);
    const { plot } = g;
    const yOf = (v: number) => plot.y + plot.height - (v / g.maxY) * plot.height;
    assert.equal(g.usagePoints.length, 4);
    for (let i = 1; i < g.usagePoints.length; i++) assert.ok(g.usagePoints[i].x > g.usagePoints[i - 1].x);
    assert.ok(Math.abs(g.usagePoints[0].y - yOf(10_000)) < 1e-9);
    assert.ok(Math.abs(g.targetY! - yOf(25_000)) < 1e-9);
    const slot = plot.width / 5;
    assert.ok(Math.abs(g.cutX! - (plot.x + slot * 3)) < 1e-9, 'cut after the third round');
    assert.deepEqual(g.boundaryXs, [plot.x + slot * 3]);
    assert.deepEqual(
      g.bands.map((b) => b.mark),
      ['summarize', 'drop'],
    );
    assert.ok(Math.abs(g.bands[0].width - 2 * slot) < 1e-9, 'adjacent summarized rounds share one band');
  });

  it('breaks the usage line where usage is unknown and at boundaries', () => {
    const g = chartGeometry(data);
    // M r0 | (r1 unknown) | M r2 | boundary: M r3 L r4
    assert.equal((g.usagePath.match(/M/g) ?? []).length, 3);
    assert.equal((g.usagePath.match(/L/g) ?? []).length, 1);
    // The estimate is continuous except at the boundary.
    assert.equal((g.estimatePath.match(/M/g) ?? []).length, 2);
  });

  it('handles an empty chart and labels compactly', () => {
    const g = chartGeometry({ ...data, points: [], cutAfterRound: null });
    assert.equal(g.usagePath, '');
    assert.equal(g.cutX, null);
    assert.deepEqual(g.xTicks, []);
    assert.equal(shortTokens(950), '950');
    assert.equal(shortTokens(12_500), '12.5k');
    assert.equal(shortTokens(1_500_000), '1.5M');
  });
});

describe('extension model: settings, redaction, errors, sessions, format', () => {
  it('reads valid settings and falls back on invalid ones', () => {
    const values: Record<string, unknown> = {
      targetTokens: 120_000,
      keepRecentTokens: -5,
      maxToolResultCharsPerMessage: 'lots',
      maxToolResultChars: 30_000.7,
      summarizer: 'anthropic',
      model: '  claude-test ',
      baseUrl: 'javascript:alert(1)',
      writeMode: 'inPlace',
      claudePath: ' /opt/claude/bin/claude ',
      exemptTools: ['Read', 3, ''],
    };
    const s = readSettings((k) => values[k]);
    assert.deepEqual(s.compact, { targetTokens: 120_000, maxToolResultChars: 30_000, exemptTools: ['Read'] });
    assert.equal(s.summarizer, 'anthropic');
    assert.equal(s.model, 'claude-test');
    assert.equal(s.baseUrl, undefined);
    assert.equal(s.writeMode, 'inPlace');
    assert.equal(s.claudePath, '/opt/claude/bin/claude');
    assert.equal(s.previewOnOpen, false);
    const d = readSettings(() => undefined);
    assert.deepEqual(d, {
      compact: {},
      summarizer: 'extractive',
      model: undefined,
      baseUrl: undefined,
      writeMode: 'fork',
      reviewSummary: true,
      claudePath: 'claude',
      codexPath: 'codex',
      previewOnOpen: false,
    });
    for (const v of ['claude-cli', 'codex-cli'])
      assert.equal(readSettings((k) => (k === 'summarizer' ? v : undefined)).summarizer, v);
    assert.equal(readSettings((k) => (k === 'summarizer' ? 'gpt' : undefined)).summarizer, 'extractive');
    assert.equal(readSettings((k) => (k === 'codexPath' ? ' /opt/codex ' : undefined)).codexPath, '/opt/codex');
    assert.equal(
      readSettings((k) => (k === 'reviewSummary' ? false : undefined)).reviewSummary,
      false,
      'review can be turned off',
    );
    // The deprecated newFile mode (and anything unknown) is a fork; an empty path is the default.
    for (const v of ['newFile', 'fork', 'bogus', 3])
      assert.equal(readSettings((k) => (k === 'writeMode' ? v : undefined)).writeMode, 'fork', String(v));
    assert.equal(normalizeWriteMode('newFile'), 'fork');
    assert.equal(normalizeWriteMode('inPlace'), 'inPlace');
    assert.equal(readSettings((k) => (k === 'claudePath' ? '   ' : undefined)).claudePath, 'claude');
    assert.equal(
      readSettings((k) => (k === 'baseUrl' ? 'http://127.0.0.1:8080' : undefined)).baseUrl,
      'http://127.0.0.1:8080',
    );
  });

  it('parses typed targets', () => {
    assert.equal(parseTokenCount('120000'), 120_000);
    assert.equal(parseTokenCount('120k'), 120_000);
    assert.equal(parseTokenCount(' 1.5M '), 1_500_000);
    assert.equal(parseTokenCount('150,000 tokens'), 150_000);
    for (const bad of ['', 'abc', '-5', '10', '1e9', '99M']) assert.equal(parseTokenCount(bad), null, bad);
  });

  it('redacts keys from anything logged', () => {
    const key = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789';
    assert.equal(redact(`bad key ${key}!`), 'bad key sk-ant-[redacted]!');
    assert.equal(redact('x-api-key: secret123 and more'), 'x-api-key: [redacted] and more');
    assert.equal(redact('{"authorization":"Bearer abc.def"}'), '{"authorization":"Bearer [redacted]"}');
    assert.equal(redact('custom-key-value here', ['custom-key-value']), '[redacted] here');
    assert.equal(redact('nothing secret'), 'nothing secret');
  });

  it('advises an action for each compaction failure', () => {
    const auth = adviceFor(new CompactError('auth', '401 invalid x-api-key'), 'anthropic');
    assert.equal(auth.severity, 'error');
    assert.deepEqual(auth.actions, ['Set API Key', 'Use Offline Summary']);
    assert.deepEqual(adviceFor(new CompactError('auth', 'x'), 'extractive').actions, ['Set API Key']);
    assert.deepEqual(adviceFor(new CompactError('network', 'ECONNREFUSED'), 'anthropic').actions, [
      'Retry',
      'Use Offline Summary',
      'Show Log',
    ]);
    assert.deepEqual(adviceFor(new CompactError('not-found', 'model'), 'anthropic').actions, [
      'Open Settings',
      'Use Offline Summary',
    ]);
    assert.equal(adviceFor(new CompactError('cancelled', 'x'), 'anthropic').severity, 'info');
    assert.equal(adviceFor(new CompactError('changed-on-disk', 'x'), 'extractive').actions[0], 'Retry');
    const exists = adviceFor(new CompactError('exists', '/w/out.jsonl exists'), 'extractive');
    assert.deepEqual(
      [exists.severity, exists.message, exists.actions],
      ['warning', 'Nothing was written: /w/out.jsonl exists', []],
    );
    const other = adviceFor(new Error('boom'), 'extractive');
    assert.equal(other.message, 'Compaction failed: boom');
    assert.deepEqual(other.actions, ['Show Log']);
  });

  it('finds Claude Code sessions newest first', async () => {
    const home = tempDir('ac-sessions-');
    try {
      assert.equal(sessionsFolder({}, home), join(home, '.claude', 'projects'));
      assert.equal(sessionsFolder({ CLAUDE_CONFIG_DIR: '/cfg' }, home), join('/cfg', 'projects'));
      const folder = sessionsFolder({}, home);
      assert.deepEqual(await listSessions(folder), []);
      mkdirSync(join(folder, '-home-me-proj', 'sess-a', 'subagents'), { recursive: true });
      mkdirSync(join(folder, '-home-me-other'), { recursive: true });
      writeFileSync(join(folder, '-home-me-proj', 'a.jsonl'), '{}\n');
      writeFileSync(join(folder, '-home-me-proj', 'sess-a', 'subagents', 'agent-1.jsonl'), '{}\n');
      writeFileSync(join(folder, '-home-me-proj', 'notes.txt'), 'x');
      writeFileSync(join(folder, '-home-me-other', 'b.jsonl'), '{}\n{}\n');
      utimesSync(join(folder, '-home-me-proj', 'a.jsonl'), new Date(1_000_000), new Date(1_000_000));
      const list = await listSessions(folder);
      assert.deepEqual(
        list.map((s) => [basename(s.file), s.project, s.size]),
        [
          ['b.jsonl', '-home-me-other', 6],
          ['a.jsonl', '-home-me-proj', 3],
        ],
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    assert.equal(timeAgo(0, 30_000), 'just now');
    assert.equal(timeAgo(0, 120_000), '2 minutes ago');
    assert.equal(timeAgo(0, 3_600_000), '1 hour ago');
    assert.equal(timeAgo(0, 3 * 86_400_000), '3 days ago');
  });

  it('formats numbers, sizes and labels', () => {
    assert.equal(formatNumber(1234567.4), '1,234,567');
    assert.equal(formatTokens(1200, 'usage'), '1,200 (usage)');
    assert.equal(formatTokens(1200, 'estimate'), '~1,200 (estimate)');
    assert.equal(formatChars(950), '950 chars');
    assert.equal(formatChars(1234), '1.2k chars');
    assert.equal(formatChars(45_678), '46k chars');
    assert.equal(shortNumber(145_321), '145k');
    assert.equal(baseName('C:\\x\\y.jsonl'), 'y.jsonl');
    assert.equal(oneLine('a\n  b\tc', 80), 'a b c');
    assert.equal(oneLine('x'.repeat(100), 10), `${'x'.repeat(9)}…`);
  });

  it('node kinds used by the view all have an icon and a context value', async () => {
    const file = fixture('v2.1.63-subagent.jsonl');
    const analysis = await analysisOf('v2.1.63-subagent.jsonl');
    const plan = await planCompaction(analysis, TIGHT);
    const all: TreeNodeModel[] = [];
    const walk = (nodes: TreeNodeModel[]) => {
      for (const n of nodes) {
        all.push(n);
        if (n.collapsible !== 'none') walk(childNodes({ file, analysis, plan }, n));
      }
    };
    walk(rootNodes({ file, analysis, plan }));
    for (const n of all) {
      assert.ok(n.icon, n.id);
      assert.ok(n.contextValue, n.id);
      assert.equal(n.file, file);
    }
  });
});

describe("a round's tool calls in the tree, every agent", () => {
  // A Gemini CLI message holds a call and its result on one line: the call was listed twice.
  for (const agent of ['gemini-cli', 'cline', 'codex', 'copilot-cli']) {
    for (const file of agentFixtures(agent)) {
      it(`${agent}/${basename(file)}: each call once, ids unique`, async () => {
        const analysis = await inspectFile(file, { subagents: false });
        let calls = 0;
        for (const round of analysis.rounds) {
          const children = roundChildren({ file, analysis }, round.index);
          const tools = children.filter((c) => c.kind === 'tool');
          calls += tools.length;
          assert.equal(tools.length, new Set(round.toolUses.map((t) => t.id)).size, `round ${round.index}`);
          assert.equal(new Set(children.map((c) => c.id)).size, children.length, `round ${round.index}: unique ids`);
        }
        assert.ok(analysis.rounds.every((r) => r.toolUses.length === 0) || calls > 0, 'tool calls are listed');
      });
    }
  }
});
