// bench/RESULTS.md is written by several benches: bench.ts rewrites it whole and keeps the sections the others
// write (each rewrites only its own).
import { readFileSync, writeFileSync } from 'node:fs';

/** Sections of bench/RESULTS.md that other benches write, kept when this one rewrites the file. */
export const KEPT_SECTIONS = [
  '## Context Map state and replanning',
  '## Context Map drawing',
  '## Repair against doctor',
];

/** The section of `text` under `heading` (up to the next `## `), trimmed; undefined when it has none. */
export function section(text: string, heading: string): string | undefined {
  const at = text.indexOf(heading);
  if (at < 0) return undefined;
  const end = text.slice(at + heading.length).search(/\n## /);
  return (end >= 0 ? text.slice(at, at + heading.length + end) : text.slice(at)).trimEnd();
}

/** Writes `body` as the section under `heading` of bench/RESULTS.md, in place of the old one or at the end. */
export function writeSection(results: string, heading: string, body: string): void {
  const old = readFileSync(results, 'utf8');
  const previous = section(old, heading);
  const next = previous ? old.replace(previous, body.trimEnd()) : `${old.trimEnd()}\n\n${body.trimEnd()}\n`;
  writeFileSync(results, next.endsWith('\n') ? next : `${next}\n`);
}
