// What the two Rounds views show in their headers. The plan's count is a badge only in our own container: in the
// Explorer a badge lands on the Explorer's activity-bar icon, where a number reads as unsaved files; there the count
// goes into the view's description instead.
import type { CompactionPlan } from '../../core/compact/types';
import { baseName, plural } from './format';
import { planFigures } from './planText';

export type RoundsViewPlace = 'container' | 'explorer';

export interface RoundsViewHeader {
  description: string | undefined;
  badge: { value: number; tooltip: string } | undefined;
}

export function roundsViewHeader(
  file: string | undefined,
  plan: CompactionPlan | null | undefined,
  place: RoundsViewPlace,
): RoundsViewHeader {
  const name = file === undefined ? undefined : baseName(file);
  if (!plan || plan.nothingToDo) return { description: name, badge: undefined };
  const rounds = planFigures(plan).rounds;
  const tooltip = `${plural(rounds, 'round')} would be summarized or dropped`;
  if (place === 'container') return { description: name, badge: { value: rounds, tooltip } };
  return { description: `${name ?? ''} · plan: ${plural(rounds, 'round')} to summarize or drop`, badge: undefined };
}
