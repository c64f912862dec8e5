// Damage a transcript the ways public reports describe resume losing messages: a parentUuid that names nothing, a
// line missing from the middle (never written), a line written twice, a tool call gone so its result is orphaned.
// Works on the file's lines as text; lines that are not chain entries (metadata, malformed) are never chosen, and
// every line not damaged stays byte-identical.
import type { Rng } from './reliability';

export type DamageKind = 'cut-link' | 'delete-line' | 'duplicate-line' | 'orphan-result';

export interface Damage {
  kind: DamageKind;
  /** 1-based line of the input the damage was done at. */
  line: number;
}

interface Parsed {
  k: number;
  o: Record<string, unknown>;
}

function parsedLines(lines: string[]): Parsed[] {
  const out: Parsed[] = [];
  lines.forEach((text, k) => {
    try {
      const o: unknown = JSON.parse(text);
      if (o && typeof o === 'object' && !Array.isArray(o)) out.push({ k, o: o as Record<string, unknown> });
    } catch {
      /* not one JSON object: never damaged */
    }
  });
  return out;
}

const isMessage = (o: Record<string, unknown>) =>
  (o.type === 'user' || o.type === 'assistant') && typeof o.uuid === 'string' && o.isSidechain !== true;
const isBoundaryOrSummary = (o: Record<string, unknown>) =>
  o.subtype === 'compact_boundary' || o.isCompactSummary === true;
const hasToolUse = (o: Record<string, unknown>) =>
  o.type === 'assistant' &&
  Array.isArray((o.message as { content?: unknown })?.content) &&
  (o.message as { content: { type?: string }[] }).content.some((b) => b?.type === 'tool_use');

/** A uuid no line holds, drawn from `rng` (so a failing seed reproduces). */
function uuidFrom(rng: Rng): string {
  const hex = Array.from({ length: 32 }, () => rng.int(16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** One damage of `kind` at a random place; null when no line fits it. */
export function damageOnce(lines: string[], kind: DamageKind, rng: Rng): { lines: string[]; damage: Damage } | null {
  const parsed = parsedLines(lines);
  // The first message stays: without it there is no conversation left to judge.
  const messages = parsed.filter((p) => isMessage(p.o) && !isBoundaryOrSummary(p.o)).slice(1);
  const pool =
    kind === 'orphan-result'
      ? messages.filter((p) => hasToolUse(p.o))
      : kind === 'cut-link'
        ? messages.filter((p) => typeof p.o.parentUuid === 'string')
        : messages;
  if (pool.length === 0) return null;
  const { k, o } = rng.pick(pool);
  const out = lines.slice();
  switch (kind) {
    case 'cut-link':
      out[k] = JSON.stringify({ ...o, parentUuid: uuidFrom(rng) });
      break;
    case 'delete-line':
    case 'orphan-result':
      out.splice(k, 1);
      break;
    case 'duplicate-line': {
      // A copy right after it (a write retried), or further on but never as the last chain entry (that would make it the leaf).
      const last = parsed.filter((p) => typeof p.o.uuid === 'string').at(-1)?.k ?? k;
      const at = last > k + 1 && rng.chance(0.5) ? k + 1 + rng.int(last - k - 1) : k + 1;
      out.splice(at, 0, lines[k]);
      break;
    }
  }
  return { lines: out, damage: { kind, line: k + 1 } };
}

export const DAMAGE_KINDS: readonly DamageKind[] = ['cut-link', 'delete-line', 'duplicate-line', 'orphan-result'];

/** A random damage of any kind that fits. */
export function damageRandomly(lines: string[], rng: Rng): { lines: string[]; damage: Damage } | null {
  const kinds = [...DAMAGE_KINDS];
  while (kinds.length) {
    const kind = kinds.splice(rng.int(kinds.length), 1)[0];
    const done = damageOnce(lines, kind, rng);
    if (done) return done;
  }
  return null;
}
