// Claude Code lines built by a test, as the engine reads them: each line's message as Claude Code's module maps it
// (formats/claude-code/message.ts), lines that hold none left out.
import type { ConversationRecord } from '../../src/core/conversation';
import { claudeConversationRecord } from '../../src/core/formats/claude-code/message';
import type { JsonObject } from '../../src/core/json';

export function claudeRecords(lines: readonly (JsonObject | null)[]): ConversationRecord[] {
  return lines.map((l) => l && claudeConversationRecord(l)).filter((r): r is ConversationRecord => r !== null);
}
