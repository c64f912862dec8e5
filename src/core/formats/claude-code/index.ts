// Claude Code: JSONL transcripts, read, compacted, repaired and resumed; a transcript stored as one JSON array is
// read only.
import { claudeAgentNow } from './agentNow';
import { claudeOwnSummaries } from './ownSummaries';
import type { AgentCapabilities, AgentModule, Capability, Container } from '../agent';
import { claudeInventory } from './inventory';
import { FIVE_MINUTES_MS, o200kApproximation, readOnly } from '../agent';
import { claudeLimits } from './limits';
import { claudeLoader } from './loader';
import { claudeConversationRecord } from './message';
import { claudeArrayEntries, claudeArrayVersion, claudeNotASession, ClaudeCodeReader, isClaudeArray } from './reader';
import { claudeResume, claudeSessions } from './sessions';
import { sessionIdFromFile } from '../../session';

function capabilities(container: Container): AgentCapabilities {
  if (container !== 'jsonl') return readOnly();
  return {
    inspect: true,
    plan: true,
    compact: true,
    previews: true,
    steering: ['keep', 'drop', 'summarize', 'keepResult', 'previewResult'],
    fresh: true,
    doctor: true,
    repair: true,
    undo: true,
    restore: true,
    resume: true,
    forkBefore: true,
    summarizerCli: 'claude-cli',
  };
}

/** Only a transcript stored as one JSON array lacks anything: every command but inspect. */
function unsupported(what: Capability, _container: Container): string {
  const why =
    'This Claude Code transcript is stored as one JSON array, not as JSON lines: Agent Compactor inspects it but';
  return what === 'doctor' || what === 'repair'
    ? `${why} checks and repairs only the JSONL files Claude Code resumes.`
    : `${why} writes back only the JSONL files Claude Code resumes.`;
}

export const claudeCode: AgentModule<'claude-code'> = {
  id: 'claude-code',
  name: 'Claude Code',
  records: {
    detect: () => true,
    fallback: true,
    reader: () => new ClaudeCodeReader(),
    notASession: claudeNotASession,
    message: claudeConversationRecord,
    inventory: claudeInventory,
    // Claude Code resumes `<id>.jsonl` under the name's id, whatever the lines record (test/support/claude-code.ts).
    ownSession: sessionIdFromFile,
  },
  document: {
    detect: isClaudeArray,
    messages: (doc) => doc as unknown[],
    read: (_path, messages, elements) => Promise.resolve(claudeArrayEntries(messages, elements)),
    version: claudeArrayVersion,
  },
  capabilities,
  unsupported,
  sessions: claudeSessions,
  resume: claudeResume,
  limits: (model) => claudeLimits(model),
  cache: { rules: { recordsLifetime: true, defaultTtlMs: FIVE_MINUTES_MS }, unknown: '' },
  tokenizer: o200kApproximation('Claude'),
  agentNow: claudeAgentNow,
  ownSummaries: claudeOwnSummaries,
  loader: claudeLoader,
};
