/**
 * `npm run compare`: Claude Code's own `/compact` against the project's compaction, on every shared fixture, measured
 * on what the REAL Claude Code (pinned, scripts/provision-claude-code.sh) sends when it resumes each result. Offline:
 * both talk to the local fake Anthropic API, which returns the SAME summary text S to Claude Code's /compact and to our
 * Anthropic summarizer, so the summaries are equal and only what each keeps besides the summary differs.
 *
 * Per fixture:
 *   before      resume the original                       → the request Claude Code sends today
 *   Claude Code `claude -p --resume <id> "/compact"`, then resume its output
 *   ours @35%   compactFile(summarizer anthropic → S, target 35% of the active-context estimate), resume
 *   ours @15%   the same at 15%
 *   ours @35% offline   the offline extractive summary instead of S (keeps the user's requests in the summary)
 * and for each: the resumed request's size (the project's estimator on the messages, without system prompt, tools,
 * Claude Code's role "system" entries and its new turn — estimateRequestMessages in test/support/compacted-request.ts —
 * and the characters of those messages), the original's rounds whose content is in that request verbatim (assistant
 * text and tool calls, tool results verbatim or as our exact preview) and their estimated tokens, the tool results
 * kept / replaced / dropped, and how many of the original's user messages survive in the text (verbatim or inside the
 * summary; first 200 characters, whitespace-normalized). Writes bench/COMPARE.md.
 *
 * Run: npm run compare   (= npm run build && node --import tsx bench/compare.ts; needs the provisioned Claude Code)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inspectFile, type Analysis } from '../src/core/inspect';
import { planDetails } from '../src/core/compact/plan';
import { loadEntryObjects } from '../src/core/lines';
import { messageContent } from '../src/core/json';
import { CompactError, type CompactResult } from '../src/core/compact/types';
import { claudeFixtureDir, claudeFixtures, repoRoot } from '../test/support/fixtures';
import { startFakeAnthropic, type FakeAnthropic } from '../test/support/fake-anthropic';
import {
  CLAUDE_CODE_VERSION,
  checkRequestInvariants,
  compactWithClaude,
  contentTexts,
  requestText,
  requireClaudeBinary,
  resumeWithClaude,
  type ClaudeRunResult,
} from '../test/support/claude-code';
import { compactCopy, estimateRequestMessages, itemPresence, roundsItems } from '../test/support/compacted-request';

const REPLY = 'FAKE-REPLY-COMPARE';
/** The one summary both compactions get (~2,000 characters of body, a typical short handoff). */
const SUMMARY_BODY = [
  '1. Primary Request and Intent:',
  '   The user asked the assistant to carry on with the task recorded in this session (COMPARE-SUMMARY-MARKER).',
  '2. Key Technical Concepts:',
  '   - The project layout, its build and test commands, and the configuration files touched so far.',
  '3. Files and Code Sections:',
  '   - The files read and edited in this session, with the reasons they mattered and the important snippets.',
  '4. Errors and Fixes:',
  "   - Errors met while running commands, and how each was resolved, including the user's corrections.",
  '5. Problem Solving:',
  '   - The approach taken, what was tried and ruled out, and what remains uncertain.',
  '6. All User Messages:',
  '   - (not reproduced by this fixed test summary)',
  '7. Pending Tasks:',
  '   - Whatever the user asked for that is not done yet.',
  '8. Current Work:',
  '   The assistant was in the middle of the most recent step when the conversation was compacted; the next step is to',
  '   verify the last change, report the result to the user and ask whether to continue with the remaining tasks.',
  '9. Optional Next Step:',
  '   Continue with the most recent request, checking the latest state of the files before editing them again.',
].join('\n');
const SUMMARY_REPLY = `<analysis>\nThe conversation was reviewed in order.\n</analysis>\n\n<summary>\n${SUMMARY_BODY}\n</summary>`;

interface Measure {
  label: string;
  target: number | null;
  resumes: string;
  engineTokens: number | null;
  tokens: number | null;
  chars: number | null;
  rounds: number;
  roundTokens: number;
  trKept: number;
  trReplaced: number;
  trDropped: number;
  users: number;
  note?: string;
}

interface FixtureReport {
  name: string;
  activeRounds: number;
  roundsWithContent: number;
  preTokens: number;
  userMessages: number;
  rows: Measure[];
  ms: number;
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Prompts the user typed on the active chain (not tool results, meta lines, command wrappers or summaries). */
async function humanPrompts(file: string, a: Analysis): Promise<string[]> {
  const entries = a.index.entries;
  const idx = a.chain.main
    .slice(a.chain.activeStart)
    .filter((i) => entries[i].kind === 'user' && !entries[i].isMeta && !entries[i].isCompactSummary);
  const objects = await loadEntryObjects(file, entries, idx);
  const out: string[] = [];
  for (const i of idx) {
    const c = messageContent(objects.get(i));
    const texts =
      typeof c === 'string'
        ? [c]
        : Array.isArray(c)
          ? c.filter((b: any) => b?.type === 'text' && typeof b.text === 'string').map((b: any) => b.text as string)
          : [];
    for (const t of texts) {
      const s = t.trim();
      if (
        !s ||
        /^<(system-reminder|local-command-stdout|local-command-stderr|local-command-caveat|command-name|command-message|command-args)>/.test(
          s,
        ) ||
        s.startsWith('Caveat: The messages below')
      )
        continue;
      if (/^\[Request interrupted by user/.test(s)) continue;
      out.push(s);
    }
  }
  return out;
}

/** Measures one resume of a compacted (or original) transcript against the original's rounds and prompts. */
function measure(
  label: string,
  run: ClaudeRunResult,
  prompt: string,
  ctx: {
    calibration: number;
    rounds: number[];
    roundEstimate: Map<number, number>;
    items: Awaited<ReturnType<typeof roundsItems>>;
    prompts: string[];
  },
  extra: Partial<Measure>,
): Measure {
  const body = run.mainRequest?.body;
  const ok = run.exitCode === 0 && !!body && checkRequestInvariants(body).length === 0 && run.stdout.trim() === REPLY;
  const base: Measure = {
    label,
    target: null,
    resumes: ok ? 'yes' : `NO (exit ${run.exitCode})`,
    engineTokens: null,
    tokens: null,
    chars: null,
    rounds: 0,
    roundTokens: 0,
    trKept: 0,
    trReplaced: 0,
    trDropped: 0,
    users: 0,
    ...extra,
  };
  if (!body) return base;
  const est = estimateRequestMessages(body, ctx.calibration, prompt);
  const presence = itemPresence(body, ctx.items);
  const byRound = new Map<number, string[]>();
  ctx.items.forEach((x, i) => {
    const list = byRound.get(x.round) ?? [];
    list.push(x.kind === 'tool_result' && presence[i] === 'replaced' && !x.replaced ? 'replaced' : presence[i]);
    byRound.set(x.round, list);
  });
  let rounds = 0;
  let roundTokens = 0;
  for (const [ri, list] of byRound) {
    if (list.every((p) => p === 'verbatim')) {
      rounds++;
      roundTokens += ctx.roundEstimate.get(ri) ?? 0;
    }
  }
  let trKept = 0;
  let trReplaced = 0;
  let trDropped = 0;
  ctx.items.forEach((x, i) => {
    if (x.kind !== 'tool_result') return;
    if (presence[i] === 'missing') trDropped++;
    else if (presence[i] === 'replaced' || x.replaced) trReplaced++;
    else trKept++;
  });
  const text = norm(requestText(body));
  const users = ctx.prompts.filter((p) => text.includes(norm(p).slice(0, 200))).length;
  return { ...base, tokens: est.tokens, chars: est.chars, rounds, roundTokens, trKept, trReplaced, trDropped, users };
}

async function compareFixture(
  name: string,
  replyFake: FakeAnthropic,
  summaryFake: FakeAnthropic,
): Promise<FixtureReport> {
  const t0 = Date.now();
  const original = path.join(claudeFixtureDir, name);
  const analysis = await inspectFile(original, { subagents: false });
  const calibration = analysis.report.totals.calibrationFactor;
  const probe = (await planDetails(analysis, { targetTokens: Number.MAX_SAFE_INTEGER })).plan;
  const pre = probe.preTokens;
  // Targets cover the whole resumed context: the system prompt and tools plus N% of the transcript.
  const overhead = probe.overheadTokens;
  const active = analysis.rounds.filter((r) => r.inContext).map((r) => r.index);
  const items = await roundsItems(original, analysis, active);
  const withContent = new Set(items.map((x) => x.round));
  const roundEstimate = new Map(active.map((ri) => [ri, analysis.report.rounds[ri].tokens.estimate]));
  const prompts = await humanPrompts(original, analysis);
  const ctx = { calibration, rounds: active, roundEstimate, items, prompts };
  const report: FixtureReport = {
    name,
    activeRounds: active.length,
    roundsWithContent: withContent.size,
    preTokens: pre,
    userMessages: prompts.length,
    rows: [],
    ms: 0,
  };

  if (analysis.chain.subagentFile) {
    const r = await resumeWithClaude({ sessionFile: original, prompt: 'compare: before', fake: replyFake });
    report.rows.push({
      label: 'before (original)',
      target: null,
      resumes: `NO: ${/No conversation found/.test(r.stderr) ? '"No conversation found"' : `exit ${r.exitCode}`} (subagent transcript)`,
      engineTokens: pre,
      tokens: null,
      chars: null,
      rounds: 0,
      roundTokens: 0,
      trKept: 0,
      trReplaced: 0,
      trDropped: 0,
      users: 0,
    });
    r.cleanup();
    report.ms = Date.now() - t0;
    return report;
  }

  // Before: the original as Claude Code resumes it today.
  {
    const prompt = 'compare: before';
    const r = await resumeWithClaude({ sessionFile: original, prompt, fake: replyFake });
    report.rows.push(measure('before (original)', r, prompt, ctx, { engineTokens: pre }));
    r.cleanup();
  }

  // Claude Code's own /compact with summary S, then a resume of its output.
  {
    summaryFake.setScenario({ kind: 'text', text: SUMMARY_REPLY });
    const c = await compactWithClaude({ sessionFile: original, fake: summaryFake });
    if (c.exitCode !== 0 || c.compactBoundaries.length !== 1) {
      report.rows.push({
        label: 'Claude Code /compact',
        target: null,
        resumes: `/compact failed (exit ${c.exitCode})`,
        engineTokens: null,
        tokens: null,
        chars: null,
        rounds: 0,
        roundTokens: 0,
        trKept: 0,
        trReplaced: 0,
        trDropped: 0,
        users: 0,
      });
    } else {
      const dir = fs.mkdtempSync(path.join(c.tempRoot, 'out-'));
      const file = path.join(dir, `${c.sessionId}.jsonl`);
      fs.writeFileSync(file, c.resumedText);
      // How our engine reads Claude Code's output (active context estimate), next to what Claude Code sends.
      const ours = await inspectFile(file, { subagents: false });
      const engineTokens = (await planDetails(ours, { targetTokens: Number.MAX_SAFE_INTEGER })).plan.preTokens;
      const summaryOk = contentTexts(c.compactSummaries[0]?.message?.content)
        .join('\n')
        .includes('COMPARE-SUMMARY-MARKER');
      const prompt = 'compare: after Claude Code /compact';
      const r = await resumeWithClaude({ sessionFile: file, sessionId: c.sessionId, prompt, fake: replyFake });
      report.rows.push(
        measure('Claude Code /compact', r, prompt, ctx, {
          engineTokens,
          note: summaryOk ? undefined : 'summary S not found in its summary line',
        }),
      );
      r.cleanup();
    }
    c.cleanup();
  }

  // Ours, with the same summary S (Anthropic summarizer against the fake), and with the offline summary.
  const runs: { label: string; fraction: number; summarizer: 'anthropic' | 'extractive' }[] = [
    { label: 'agent-compactor @35%', fraction: 0.35, summarizer: 'anthropic' },
    { label: 'agent-compactor @15%', fraction: 0.15, summarizer: 'anthropic' },
    { label: 'agent-compactor @35%, offline summary', fraction: 0.35, summarizer: 'extractive' },
  ];
  for (const spec of runs) {
    const target = overhead + Math.round(pre * spec.fraction);
    summaryFake.setScenario({ kind: 'text', text: SUMMARY_REPLY });
    let compacted: Awaited<ReturnType<typeof compactCopy>>;
    try {
      compacted = await compactCopy(original, {
        summarizer: spec.summarizer,
        settings: { targetTokens: target },
        anthropic:
          spec.summarizer === 'anthropic'
            ? { apiKey: 'sk-fake-compare', baseURL: summaryFake.url, model: 'claude-compare', maxRetries: 0 }
            : undefined,
      });
    } catch (err) {
      const why = err instanceof CompactError ? `${err.code}: ${err.message}` : String(err);
      report.rows.push({
        label: spec.label,
        target: target - overhead,
        resumes: `not compacted (${why.slice(0, 80)})`,
        engineTokens: null,
        tokens: null,
        chars: null,
        rounds: 0,
        roundTokens: 0,
        trKept: 0,
        trReplaced: 0,
        trDropped: 0,
        users: 0,
      });
      continue;
    }
    const result: CompactResult = compacted.result;
    // Results our plan replaced by a preview count as verbatim when the exact preview is sent.
    const previews = new Map(
      result.plan.toolResults.filter((d) => d.preview !== null).map((d) => [d.toolUseId, d.preview!]),
    );
    const itemsHere = await roundsItems(original, analysis, active, previews);
    const prompt = `compare: after ${spec.label}`;
    const r = await resumeWithClaude({ sessionFile: result.output, prompt, fake: replyFake });
    const notes = result.plan.notes.filter((n) => /cannot reach|over the target/.test(n));
    report.rows.push(
      measure(
        spec.label,
        r,
        prompt,
        { ...ctx, items: itemsHere },
        {
          target: result.plan.messageTarget,
          engineTokens: result.postTokens,
          note: notes.length ? 'target out of reach (newest response + empty summary exceed it)' : undefined,
        },
      ),
    );
    r.cleanup();
    compacted.cleanup();
  }
  report.ms = Date.now() - t0;
  return report;
}

function fmt(n: number | null): string {
  return n === null ? '—' : n.toLocaleString('en-US');
}

function markdown(reports: FixtureReport[], totalMs: number): string {
  const lines: string[] = [];
  lines.push('# Claude Code `/compact` vs agent-compactor, measured on the resumed request');
  lines.push('');
  lines.push(
    `Generated by \`npm run compare\` (bench/compare.ts) with Claude Code ${CLAUDE_CODE_VERSION} (real binary, offline, fake Anthropic API) on the shared fixtures; ${(totalMs / 1000).toFixed(0)} s.`,
  );
  lines.push('');
  lines.push(
    "Both compactions get the same summary text S (the fake API returns it to Claude Code's `/compact` and to our Anthropic summarizer; " +
      `${SUMMARY_BODY.length.toLocaleString('en-US')} characters of <summary> body). "ours @N%" compacts with a target of the estimated system prompt and tools plus N% of the transcript's active context (the Target column shows the part left for the transcript, which the request's messages are compared with); ` +
      '"offline summary" uses the extractive summary instead of S. Every row is measured on the request the real Claude Code sends when it resumes the result with a new prompt:',
  );
  lines.push('');
  lines.push(
    "- **Request (tok / chars)**: the project's estimator (calibrated per session) on the request's messages without system prompt, tools, Claude Code's role \"system\" entries and its new turn; the characters of the same messages. **Engine** is the engine's own figure for the file (active-context estimate; for our output the validated post-compaction estimate).",
  );
  lines.push(
    '- **Rounds verbatim**: rounds of the original active context (those with assistant text, tool calls or results) whose content is all in the request verbatim (tool results verbatim, or as our exact preview when our plan replaced them); **tokens verbatim** sums their estimates.',
  );
  lines.push(
    '- **Tool results k/r/d**: results of the original active context sent verbatim (kept), shortened or as a preview (replaced), absent (dropped).',
  );
  lines.push(
    '- **User msgs**: prompts the user typed (active context) whose first 200 characters appear in the request, verbatim or inside the summary.',
  );
  lines.push('');
  lines.push(
    '| Fixture | Compaction | Target | Resumes | Engine (tok) | Request (tok / chars) | Rounds verbatim | Tokens verbatim | Tool results k/r/d | User msgs |',
  );
  lines.push('|---|---|---:|---|---:|---:|---:|---:|---:|---:|');
  for (const r of reports) {
    r.rows.forEach((m, i) => {
      const fixture = i === 0 ? `**${r.name}**<br>${r.activeRounds} rounds, ~${fmt(r.preTokens)} tok` : '';
      const over = m.target !== null && m.tokens !== null && m.tokens > m.target ? ' ⚠ over target' : '';
      lines.push(
        `| ${fixture} | ${m.label}${m.note ? ` (${m.note})` : ''} | ${fmt(m.target)} | ${m.resumes} | ${fmt(m.engineTokens)} | ${m.tokens === null ? '—' : `${fmt(m.tokens)} / ${fmt(m.chars)}`}${over} | ${m.tokens === null ? '—' : `${m.rounds} / ${r.roundsWithContent}`} | ${m.tokens === null ? '—' : fmt(m.roundTokens)} | ${m.tokens === null ? '—' : `${m.trKept}/${m.trReplaced}/${m.trDropped}`} | ${m.tokens === null ? '—' : `${m.users} / ${r.userMessages}`} |`,
      );
    });
  }
  lines.push('');

  // Totals over the fixtures Claude Code resumes, computed from the rows above.
  const row = (r: FixtureReport, label: string) => r.rows.find((m) => m.label === label && m.tokens !== null);
  const resumable = reports.filter((r) => row(r, 'before (original)'));
  const total = (label: string, f: (m: Measure) => number) =>
    resumable.reduce((s, r) => s + (row(r, label) ? f(row(r, label)!) : 0), 0);
  const labels = [
    'Claude Code /compact',
    'agent-compactor @35%',
    'agent-compactor @15%',
    'agent-compactor @35%, offline summary',
  ];
  lines.push(`## Totals over the ${resumable.length} fixtures Claude Code resumes`);
  lines.push('');
  lines.push(
    '| Compaction | Resumed | Request after (tok) | Rounds verbatim | Tokens verbatim | Tool results kept | User msgs surviving | Over target |',
  );
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|');
  const allRounds = resumable.reduce((s, r) => s + r.roundsWithContent, 0);
  const allUsers = resumable.reduce((s, r) => s + r.userMessages, 0);
  for (const label of labels) {
    const ms = resumable.map((r) => r.rows.find((m) => m.label === label)).filter((m): m is Measure => !!m);
    const resumed = ms.filter((m) => m.resumes === 'yes').length;
    const over = ms.filter((m) => m.target !== null && m.tokens !== null && m.tokens > m.target);
    const outOfReach = over.filter((m) => m.note?.startsWith('target out of reach')).length;
    lines.push(
      `| ${label} | ${resumed} / ${ms.length} | ${fmt(total(label, (m) => m.tokens ?? 0))} | ${total(label, (m) => m.rounds)} / ${allRounds} | ${fmt(total(label, (m) => m.roundTokens))} | ${total(label, (m) => m.trKept)} | ${total(label, (m) => m.users)} / ${allUsers} | ${label.startsWith('Claude Code') ? '—' : `${over.length}${over.length ? ` (${outOfReach} out of reach)` : ''}`} |`,
    );
  }
  lines.push('');
  const misread = resumable.filter((r) => {
    const m = row(r, 'Claude Code /compact');
    return (
      m &&
      m.engineTokens !== null &&
      m.tokens !== null &&
      m.engineTokens > 5 * Math.max(m.tokens, 1) &&
      m.engineTokens > 5_000
    );
  });
  if (misread.length) {
    lines.push(
      `Engine gap: on ${misread.map((r) => r.name).join(', ')}, the engine reads Claude Code's own /compact output as the whole pre-compaction conversation (Engine column of the "Claude Code /compact" rows), while Claude Code resumes it from its summary: ` +
        'Claude Code 2.1.330 parents the lines it writes after its boundary on a line written before it (e.g. the "model could not be restored (retired)" notice) and, on resume, drops what precedes the last boundary in the file and splices its preservedSegment back in; src/core/chain.ts only walks parentUuid from the leaf.',
    );
    lines.push('');
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  requireClaudeBinary();
  const t0 = Date.now();
  const replyFake = await startFakeAnthropic({ scenario: { kind: 'text', text: REPLY } });
  const summaryFake = await startFakeAnthropic({ scenario: { kind: 'text', text: SUMMARY_REPLY } });
  const reports: FixtureReport[] = [];
  try {
    for (const file of claudeFixtures()) {
      const name = path.basename(file);
      process.stdout.write(`${name} … `);
      const rep = await compareFixture(name, replyFake, summaryFake);
      reports.push(rep);
      process.stdout.write(`${(rep.ms / 1000).toFixed(1)} s\n`);
    }
  } finally {
    await replyFake.close();
    await summaryFake.close();
  }
  const md = markdown(reports, Date.now() - t0);
  const out = path.join(repoRoot, 'bench', 'COMPARE.md');
  fs.writeFileSync(out, md);
  process.stdout.write(`\n${md}\nwrote ${path.relative(process.cwd(), out)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
