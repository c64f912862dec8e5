// Claude Code's own lines (`~/.claude/projects/<project>/<session>.jsonl`): the entry digest as it is; the version is
// the first `version` a line records. Also a Claude Code transcript re-serialised as one JSON array (read-only).
import { digestEntry, type Entry } from '../../entries';
import { asObject, str } from '../../json';
import type { DocumentElement, RecordReader } from '../agent';

export class ClaudeCodeReader implements RecordReader {
  private seenVersion: string | null = null;

  version(): string | null {
    return this.seenVersion;
  }

  snapshot(): unknown {
    return this.seenVersion;
  }

  restore(snapshot: unknown): void {
    this.seenVersion = typeof snapshot === 'string' ? snapshot : null;
  }

  digest(value: unknown, line: number, part: number, start: number, end: number): Entry[] {
    if (this.seenVersion === null) {
      const v = str(asObject(value), 'version');
      if (v && /^\d+\.\d+/.test(v)) this.seenVersion = v;
    }
    return [digestEntry(value, line, part, start, end)];
  }
}

/** The line kinds Claude Code writes: a file holding none of them (with a uuid) is no Claude Code transcript. */
const KNOWN_KINDS = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'progress',
  'attachment',
  'file-history-snapshot',
  'queue-operation',
  'permission-mode',
  'last-prompt',
  'pr-link',
  'custom-title',
  'tag',
  'agent-name',
]);

/**
 * Why JSON lines read by Claude Code's reader (which takes any lines no other agent recognised) are no session: none
 * is a Claude Code transcript entry; null when one is.
 */
export function claudeNotASession(path: string, entries: readonly Entry[]): string | null {
  const recognised = entries.some(
    (e) =>
      KNOWN_KINDS.has(e.kind) && (e.uuid !== undefined || e.kind === 'summary' || e.kind === 'file-history-snapshot'),
  );
  if (recognised) return null;
  const kinds = [...new Set(entries.slice(0, 200).map((e) => e.kind))].slice(0, 6).join(', ');
  return (
    `${path}: JSON lines, but none is a Claude Code transcript entry (no user/assistant/system lines with a uuid), a Codex CLI rollout record or a Copilot CLI event ` +
    `(recognised: ${entries.length} JSON object${entries.length === 1 ? '' : 's'} with type ${kinds || 'none'})`
  );
}

/** True when a parsed JSON document is a Claude Code transcript stored as one array of its lines. */
export function isClaudeArray(doc: unknown): boolean {
  if (!Array.isArray(doc)) return false;
  return (doc as unknown[])
    .map(asObject)
    .some((i) => i && typeof i.type === 'string' && (typeof i.uuid === 'string' || i.type === 'summary'));
}

/** The entries of a Claude Code transcript array: each element digested as the line it was. */
export function claudeArrayEntries(messages: unknown[], elements: readonly DocumentElement[]): Entry[] {
  return messages.map((value, k) => {
    const el = elements[k] ?? { start: 0, end: 0, line: 1 };
    return digestEntry(asObject(value) ?? {}, el.line, 0, el.start, el.end);
  });
}

/** The version the array's lines record (the first one). */
export function claudeArrayVersion(messages: unknown[]): string | null {
  return messages.map((x) => str(asObject(x), 'version')).find(Boolean) ?? null;
}
