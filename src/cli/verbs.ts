// Verbs beyond inspect.
import { runCompact } from './compact';
import { runPlan } from './plan';

export const verbs: Record<string, (argv: string[]) => Promise<number>> = {
  plan: runPlan,
  compact: runCompact,
};
