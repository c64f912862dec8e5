// Which agent wrote a file, decided by its content (never its name): the first JSON object of a JSONL file picks
// the record reader; a file that is one JSON document is read by documents.ts.
import { digestEntry, type Entry } from '../entries';
import { asObject, str } from '../json';
import { CodexReader, isCodexRecord } from './codex';
import { CopilotReader, isCopilotEvent } from './copilot';
import type { FormatId, RecordReader } from './types';

/** Claude Code's own lines: the entry digest as is; the version is the first `version` a line records. */
export class ClaudeCodeReader implements RecordReader {
  readonly format = 'claude-code' as const;
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

/** The JSONL format of a file whose first JSON object is `value`. */
export function detectRecordFormat(value: unknown): FormatId {
  if (isCodexRecord(value)) return 'codex';
  if (isCopilotEvent(value)) return 'copilot-cli';
  return 'claude-code';
}

export function recordReader(format: FormatId): RecordReader {
  switch (format) {
    case 'codex':
      return new CodexReader();
    case 'copilot-cli':
      return new CopilotReader();
    default:
      return new ClaudeCodeReader();
  }
}
