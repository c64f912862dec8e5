// What a summary keeps: on every compaction Claude Code made in the shared fixtures, the facts of the span it summarized
// (src/core/compact/fidelity.ts) kept by Claude Code's own summary and by our offline summary of the same span at no more
// than its size. `npm run bench` includes the section; alone, this writes its section of bench/RESULTS.md
// ("## Summary fidelity") and prints it:
//
//   node --import tsx bench/fidelity.ts
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  agentCompactions,
  CATEGORY_NAMES,
  FACT_CATEGORIES,
  measureFidelity,
  offlineAgainstAgent,
  spanFacts,
  type AgentCompaction,
  type FidelityReport,
} from '../src/core/compact/fidelity';
import { extractiveSummary, shapeForExtractive } from '../src/core/compact/summarize/extractive';
import { SUMMARY_PREFIX } from '../src/core/compact/summarize/prompt';
import { summaryCharBudget } from '../src/core/compact/summary';
import { SUMMARY_DETAILS, SUMMARY_TOKENS_BY_DETAIL, type SummaryDetail } from '../src/core/compact/summaryDetail';
import type { JsonObject } from '../src/core/json';
import { writeSection } from './results';
import { FIXTURE_DIR } from './accuracy';

const ROOT = resolve(__dirname, '..');
const HEADING = '## Summary fidelity';

const cell = (r: FidelityReport, c: (typeof FACT_CATEGORIES)[number]) => {
  const { kept, total } = r.categories[c];
  return total ? `${kept}/${total}` : '–';
};
const pct = (r: FidelityReport) => (r.total ? `${Math.round((100 * r.kept) / r.total)}%` : '–');

/** Our offline summary of the compaction's span at a detail level, in the room the level reserves (as compact sizes it, calibration 1). */
function offlineAtLevel(c: AgentCompaction, detail: SummaryDetail): { report: FidelityReport; chars: number } {
  const text = extractiveSummary({
    objects: c.span.map((o) => shapeForExtractive(o)),
    maxChars: summaryCharBudget(SUMMARY_TOKENS_BY_DETAIL[detail], 1),
    detail,
  });
  return { report: measureFidelity(spanFacts(c.span), text), chars: SUMMARY_PREFIX.length + text.length };
}

/** The section: a row per summary per compaction, then the facts each missed. */
export function fidelitySection(): string {
  const dir = FIXTURE_DIR;
  const rows: string[] = [];
  const missing: string[] = [];
  for (const name of readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    const lines = readFileSync(join(dir, name), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l): JsonObject | null => {
        try {
          return JSON.parse(l) as JsonObject;
        } catch {
          return null;
        }
      });
    for (const c of agentCompactions(lines)) {
      const r = offlineAgainstAgent(c);
      const half = offlineAgainstAgent(c, 1 / 2);
      const third = offlineAgainstAgent(c, 1 / 3);
      const label = `${name}:${c.boundaryLine}`;
      const summaries = [
        ['Claude Code', r.agent, r.agentChars],
        ['offline (ours)', r.ours, r.oursChars],
        ['offline, half the size', half.ours, half.oursChars],
        ['offline, a third of the size', third.ours, third.oursChars],
        ...SUMMARY_DETAILS.map((d) => {
          const at = offlineAtLevel(c, d);
          return [`offline, ${d} detail (${SUMMARY_TOKENS_BY_DETAIL[d]}-token reserve)`, at.report, at.chars] as const;
        }),
      ] as const;
      for (const [who, rep, chars] of summaries) {
        rows.push(
          `| ${label} | ${who} | ${chars} | ${FACT_CATEGORIES.map((cat) => cell(rep, cat)).join(' | ')} | **${rep.kept}/${rep.total} (${pct(rep)})** |`,
        );
        for (const m of rep.missing)
          missing.push(`- ${label}, ${who} misses ${CATEGORY_NAMES[m.category]}: ${m.label}`);
      }
    }
  }
  const body = [
    HEADING,
    '',
    `Written by \`npm run bench\` or \`node --import tsx bench/fidelity.ts\` (${new Date().toISOString()}). For each compaction Claude Code made in the shared fixtures (../shared/fixtures/claude-code: a \`compact_boundary\` line; ` +
      'the span is the lines before it back to the previous boundary, its summary the `isCompactSummary` line after it), the facts of the span and how many each summary keeps ' +
      "(src/core/compact/fidelity.ts defines both). Ours is the offline extractive summary of the same span, shaped as `compact` loads it, limited to the size of Claude Code's summary " +
      '(characters, our summary prefix included), and to half and a third of that size; then at each summary detail level (`--detail`), in the room the level reserves.',
    '',
    `| compaction | summary | chars | ${FACT_CATEGORIES.map((c) => CATEGORY_NAMES[c]).join(' | ')} | all |`,
    `|---|---|---|${FACT_CATEGORIES.map(() => '---').join('|')}|---|`,
    ...rows,
    '',
    missing.length ? 'Facts missed:' : 'No fact missed.',
    '',
    ...missing,
  ].join('\n');
  return body;
}

if (process.argv[1]?.endsWith('fidelity.ts')) {
  const body = fidelitySection();
  console.log(body);
  writeSection(join(ROOT, 'bench', 'RESULTS.md'), HEADING, body);
}
