// What the summary under review keeps, for the checklist beside it (CodeLenses on the review document): the counts per
// category as it now reads, the facts it misses, and the line that adds one of them. Pure (no vscode): the span's facts
// are computed once when the review starts (spanFacts); only "which are kept" runs again as the user edits.
import {
  FACT_CATEGORIES,
  factKept,
  measureFidelity,
  wordsOf,
  type Fact,
  type FactCategory,
  type FidelityReport,
} from '../../core/compact/fidelity';

/** Short names for the one-line checklist. */
const SHORT_NAMES: Record<FactCategory, string> = {
  requests: 'requests',
  files: 'files edited',
  workingSet: 'files worked on last',
  errors: 'errors',
  failedCommands: 'failed commands',
  latest: 'latest statements',
  identifiers: 'identifiers',
  todos: 'open TODOs',
};

/** "Keeps 12/12 requests · 9/9 files edited · 2/3 errors", categories with no facts left out. */
export function checklistTitle(r: FidelityReport): string {
  const parts = FACT_CATEGORIES.filter((c) => r.categories[c].total).map(
    (c) => `${r.categories[c].kept}/${r.categories[c].total} ${SHORT_NAMES[c]}`,
  );
  return parts.length ? `Keeps ${parts.join(' · ')}` : 'No facts to keep in the summarized part';
}

/** The facts the summary does not keep, in the order spanFacts found them. */
export function missingFacts(facts: Fact[], summary: string): Fact[] {
  const words = new Set(wordsOf(summary));
  return facts.filter((f) => !factKept(f, summary, words));
}

/** The checklist of a summary: its report, and the facts it misses (to offer adding). */
export function reviewChecklist(facts: Fact[], summary: string): { report: FidelityReport; missing: Fact[] } {
  return { report: measureFidelity(facts, summary), missing: missingFacts(facts, summary) };
}

/**
 * The line that states a fact: its label (capitalized), and, when the label alone would not keep it (a text shortened
 * in the label), the distinctive words it is measured by, so that the added line keeps the fact.
 */
export function factLine(fact: Fact): string {
  const label = fact.label.charAt(0).toUpperCase() + fact.label.slice(1);
  if (factKept(fact, label) || fact.match.kind !== 'words') return label;
  return `${label} (${fact.match.words.join(', ')})`;
}

export const ALSO_HEADING = 'Also:';

/**
 * Where and what to insert to add a fact to the summary: a bullet at the end of its "Also:" section (the last one,
 * at the end of the summary), which is started when the summary has none.
 */
export function factInsertion(summary: string, fact: Fact): { offset: number; text: string } {
  const bullet = `- ${factLine(fact)}`;
  const trimmed = summary.replace(/\s+$/, '');
  const lastHeading = trimmed.lastIndexOf(`\n${ALSO_HEADING}\n`);
  const inAlso =
    lastHeading >= 0 &&
    trimmed
      .slice(lastHeading + ALSO_HEADING.length + 2)
      .split('\n')
      .every((l) => l.startsWith('- '));
  if (inAlso || trimmed.startsWith(`${ALSO_HEADING}\n`)) return { offset: trimmed.length, text: `\n${bullet}` };
  return { offset: trimmed.length, text: `${trimmed ? '\n\n' : ''}${ALSO_HEADING}\n${bullet}` };
}
