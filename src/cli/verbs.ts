// The verbs, in the order the help lists them.
import { compactVerb } from './compact';
import { inspectVerb } from './inspect';
import type { VerbSpec } from './options';
import { planVerb } from './plan';

export const VERBS: readonly VerbSpec[] = [inspectVerb, planVerb, compactVerb];

export function findVerb(name: string): VerbSpec | undefined {
  return VERBS.find((v) => v.name === name);
}
