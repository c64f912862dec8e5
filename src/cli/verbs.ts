// The verbs, in the order the help lists them.
import { compactVerb } from './compact';
import { doctorVerb } from './doctor';
import { forkBeforeVerb } from './forkBefore';
import { inspectVerb } from './inspect';
import type { VerbSpec } from './options';
import { planVerb } from './plan';
import { repairVerb } from './repair';
import { restoreVerb } from './restore';
import { sessionsVerb } from './sessions';
import { undoVerb } from './undo';

export const VERBS: readonly VerbSpec[] = [
  inspectVerb,
  planVerb,
  compactVerb,
  doctorVerb,
  repairVerb,
  undoVerb,
  forkBeforeVerb,
  restoreVerb,
  sessionsVerb,
];

export function findVerb(name: string): VerbSpec | undefined {
  return VERBS.find((v) => v.name === name);
}
