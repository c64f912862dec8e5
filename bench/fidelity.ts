// What a summary keeps: on every compaction an agent made itself in the shared fixtures (Claude Code's and Codex's), the
// facts of the span it summarized (src/core/compact/fidelity.ts) kept by the agent's own summary and by our offline
// summary of the same span at no more than its size (src/core/compact/agentSummaries.ts says what "its size" is when
// the agent's summary cannot be read). `npm run bench` includes the section; alone, this writes its section of
// bench/RESULTS.md ("## Summary fidelity") and prints it:
//
//   node --import tsx bench/fidelity.ts
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  CATEGORY_NAMES,
  FACT_CATEGORIES,
  measureFidelity,
  spanFacts,
  type FidelityReport,
} from '../src/core/compact/fidelity';
import { agentCompactions, offlineAgainstAgent } from '../src/core/compact/agentSummaries';
import type { OwnSummary } from '../src/core/formats/agent';
import { extractiveSummary, shapeForExtractive } from '../src/core/compact/summarize/extractive';
import { SUMMARY_PREFIX } from '../src/core/compact/summarize/prompt';
import { summaryCharBudget } from '../src/core/compact/summary';
import { SUMMARY_DETAILS, SUMMARY_TOKENS_BY_DETAIL, type SummaryDetail } from '../src/core/summaryDetail';
import type { JsonObject } from '../src/core/json';
import { writeSection } from './results';
import { LABELLED_FACTS, labelledKept } from './fidelity-labels';
import { FIXTURE_DIR } from './accuracy';

const ROOT = resolve(__dirname, '..');
const HEADING = '## Summary fidelity';

const cell = (r: FidelityReport, c: (typeof FACT_CATEGORIES)[number]) => {
  const { kept, total } = r.categories[c];
  return total ? `${kept}/${total}` : '–';
};
const pct = (r: FidelityReport) => (r.total ? `${Math.round((100 * r.kept) / r.total)}%` : '–');

/** Our offline summary of the compaction's span at a detail level, in the room the level reserves (as compact sizes it, calibration 1). */
function offlineAtLevel(c: OwnSummary, detail: SummaryDetail): { report: FidelityReport; chars: number } {
  const text = extractiveSummary({
    records: c.span.map((o) => shapeForExtractive(o)),
    maxChars: summaryCharBudget(SUMMARY_TOKENS_BY_DETAIL[detail], 1),
    detail,
  });
  return { report: measureFidelity(spanFacts(c.span), text), chars: SUMMARY_PREFIX.length + text.length };
}

const AGENT_NAMES: Readonly<Record<string, string>> = { 'claude-code': 'Claude Code', codex: 'Codex' };

/** The shared fixtures of the agents that compact by themselves: Claude Code's folder and Codex's beside it. */
function fixtureFiles(): string[] {
  return [FIXTURE_DIR, join(FIXTURE_DIR, '..', 'codex')].flatMap((dir) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .map((f) => join(dir, f)),
  );
}

/** Parsed lines of a fixture (null for a line that does not parse), as the agent-compaction readers take them. */
export function parsedLines(file: string): (JsonObject | null)[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l): JsonObject | null => {
      try {
        return JSON.parse(l) as JsonObject;
      } catch {
        return null;
      }
    });
}

/** Every compaction an agent made itself in the shared fixtures, labelled `file:line`. */
export function sharedCompactions(): { label: string; c: OwnSummary }[] {
  return fixtureFiles().flatMap((file) =>
    agentCompactions(parsedLines(file)).map((c) => ({ label: `${file.split('/').pop()}:${c.boundaryLine}`, c })),
  );
}

/** What "its size" is for one compaction, in words. */
function sizeNote(label: string, c: OwnSummary): string {
  const who = AGENT_NAMES[c.agent];
  if (c.summaryKind === 'text')
    return `- ${label}: ${who}'s summary is readable text, ${c.summary.length} characters: its size.`;
  const what =
    c.summaryKind === 'encrypted'
      ? 'its summary is an encrypted `compaction` item (remote compaction): only OpenAI can read it'
      : 'its summary is not in the file (remote compaction; the record holds no summary item)';
  const readable = `what can be read is the ${c.summary.length} characters of the messages it retained`;
  const size =
    c.size.basis === 'next-request'
      ? `its size is what the kept part adds to the next request by that request's own count, ${c.size.tokens} tokens, about ${c.size.chars} characters of prose`
      : 'the file records no request to measure its size by, so its size is the readable part';
  return `- ${label}: ${what}; ${readable}; ${size}.`;
}

/** The agent's summary and ours (at its size, and at the readable part's where that is stricter) on the labelled facts. */
function labelledRows(): { rows: string[]; missing: string[] } {
  const rows: string[] = [];
  const missing: string[] = [];
  for (const { label, c } of sharedCompactions()) {
    const facts = LABELLED_FACTS[label];
    if (!facts) {
      rows.push(`| ${label} | (no labelled facts) | | |`);
      continue;
    }
    const who = AGENT_NAMES[c.agent];
    const r = offlineAgainstAgent(c);
    const strict = c.size.basis === 'next-request' ? offlineAgainstAgent(c, 1, 'readable part') : null;
    const summaries: [string, string, number][] = [
      [c.summaryKind === 'text' ? who : `${who} (the part that can be read)`, c.summary, c.summary.length],
      ['offline (ours), at its size', r.oursText, r.oursChars],
      ...(strict
        ? [['offline, at the size of its readable part', strict.oursText, strict.oursChars] as [string, string, number]]
        : []),
    ];
    for (const [name, text, chars] of summaries) {
      const k = labelledKept(facts, text);
      rows.push(
        `| ${label} | ${name} | ${chars} | **${k.kept}/${k.total} (${Math.round((100 * k.kept) / k.total)}%)** |`,
      );
      for (const m of k.missing) missing.push(`- ${label}, ${name} misses: ${m}`);
    }
  }
  return { rows, missing };
}

/** The section: a row per summary per compaction, then the facts each missed. */
export function fidelitySection(): string {
  const rows: string[] = [];
  const missing: string[] = [];
  const sizes: string[] = [];
  for (const { label, c } of sharedCompactions()) {
    const who = AGENT_NAMES[c.agent];
    const r = offlineAgainstAgent(c);
    const half = offlineAgainstAgent(c, 1 / 2);
    const third = offlineAgainstAgent(c, 1 / 3);
    const strict = c.size.basis === 'next-request' ? offlineAgainstAgent(c, 1, 'readable part') : null;
    sizes.push(sizeNote(label, c));
    const summaries = [
      [c.summaryKind === 'text' ? who : `${who} (the part that can be read)`, r.agent, r.agentChars],
      ['offline (ours), at its size', r.ours, r.oursChars],
      ...(strict ? [['offline, at the size of its readable part', strict.ours, strict.oursChars] as const] : []),
      ['offline, half its size', half.ours, half.oursChars],
      ['offline, a third of its size', third.ours, third.oursChars],
      ...SUMMARY_DETAILS.map((d) => {
        const at = offlineAtLevel(c, d);
        return [`offline, ${d} detail (${SUMMARY_TOKENS_BY_DETAIL[d]}-token reserve)`, at.report, at.chars] as const;
      }),
    ] as const;
    for (const [name, rep, chars] of summaries) {
      rows.push(
        `| ${label} | ${name} | ${chars} | ${FACT_CATEGORIES.map((cat) => cell(rep, cat)).join(' | ')} | **${rep.kept}/${rep.total} (${pct(rep)})** |`,
      );
      for (const m of rep.missing) missing.push(`- ${label}, ${name} misses ${CATEGORY_NAMES[m.category]}: ${m.label}`);
    }
  }
  const labelled = labelledRows();
  const body = [
    HEADING,
    '',
    `Written by \`npm run bench\` or \`node --import tsx bench/fidelity.ts\` (${new Date().toISOString()}). For each compaction an agent made itself in the shared fixtures ` +
      '(../shared/fixtures/claude-code: a `compact_boundary` line, its summary the `isCompactSummary` line after it; ../shared/fixtures/codex: a `compacted` record, ' +
      "what it kept its `message` and the messages of its `replacement_history` that are not Codex's own context), the facts of the span it summarized " +
      '(back to the previous compaction) and how many each summary keeps (src/core/compact/fidelity.ts defines both; src/core/compact/agentSummaries.ts reads the compactions). ' +
      "Ours is the offline extractive summary of the same span, shaped as `compact` loads it, limited to the agent's summary's size (characters, our summary prefix included), " +
      "and to half and a third of that size; then at each summary detail level (`--detail`), in the room the level reserves. Where the agent's summary cannot be read, " +
      "ours is also held to the size of the part that can be read (stricter: the hidden summary adds to the agent's real size), and the agent is credited only with " +
      'what can be read (more lenient: the hidden summary may keep more).',
    '',
    'Its size, per compaction:',
    '',
    ...sizes,
    '',
    `| compaction | summary | chars | ${FACT_CATEGORIES.map((c) => CATEGORY_NAMES[c]).join(' | ')} | all |`,
    `|---|---|---|${FACT_CATEGORIES.map(() => '---').join('|')}|---|`,
    ...rows,
    '',
    missing.length ? 'Facts missed:' : 'No fact missed.',
    '',
    ...missing,
    '',
    '### The same summaries on facts a person labelled',
    '',
    'An independent check of the measure (it and the offline summary pick facts by the same rules): facts picked by reading each span ' +
      '(bench/fidelity-labels.ts: the goal, decisions and preferences, files, errors, the latest request, where the work stood), ' +
      'each kept when the summary holds the words written down for it.',
    '',
    '| compaction | summary | chars | labelled facts kept |',
    '|---|---|---|---|',
    ...labelled.rows,
    '',
    ...labelled.missing,
  ].join('\n');
  return body;
}

if (process.argv[1]?.endsWith('fidelity.ts')) {
  const body = fidelitySection();
  console.log(body);
  writeSection(join(ROOT, 'bench', 'RESULTS.md'), HEADING, body);
}
