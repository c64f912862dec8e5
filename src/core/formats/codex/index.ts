// Codex CLI: rollouts read, compacted (a `compacted` record, formats/codex/writer.ts) and resumed; tool-result
// previews rewrite Claude Code lines only, so a Codex plan keeps every kept output whole.
import { codexAgentNow } from './agentNow';
import { codexOwnSummaries } from './ownSummaries';
import type { AgentCapabilities, AgentModule, Capability, Container } from '../agent';
import { codexInventory } from './inventory';
import { FIVE_MINUTES_MS, readOnly } from '../agent';
import { codexLimits, codexResumeOverhead } from './context';
import { asObject, str } from '../../json';
import { codexConversationRecord } from './message';
import { CodexReader, isCodexRecord } from './reader';
import { codexResume, codexSessions } from './sessions';

function capabilities(container: Container): AgentCapabilities {
  if (container !== 'jsonl') return readOnly();
  return {
    inspect: true,
    plan: true,
    compact: true,
    previews: false,
    steering: ['keep', 'drop', 'summarize', 'keepResult'],
    fresh: false,
    doctor: false,
    repair: false,
    undo: true,
    restore: true,
    resume: true,
    forkBefore: false,
    summarizerCli: 'codex-cli',
  };
}

const WHY_NOT: Partial<Record<Capability, string>> = {
  previews:
    'Tool-result previews rewrite Claude Code lines only: a Codex CLI session keeps every kept tool output whole.',
  fresh:
    "A fresh file (without the original's lines) cannot be written for a Codex rollout: Codex resumes a rollout from its session_meta records and the compacted record after them. Compact without --fresh (the original's lines stay, and Codex reads only what follows the compacted record).",
  doctor:
    "Resume health is not available for Codex CLI sessions: doctor checks what Claude Code's loader rebuilds from parent links, and Codex rebuilds a thread from its newest compacted record and the items after it, with no links to break.",
  forkBefore:
    'A Codex rollout keeps the items from before its compaction, so a fork before it is possible, but Agent Compactor does not write one yet (it would need the thread id rewritten in session_meta and in the file name).',
  repair:
    "Repair is not available for Codex CLI sessions: it relinks Claude Code's broken parent links, and a Codex rollout has none (Codex replays its records in order).",
};

export const codex: AgentModule<'codex'> = {
  id: 'codex',
  name: 'Codex CLI',
  records: {
    detect: isCodexRecord,
    reader: () => new CodexReader(),
    notASession: (path, entries) =>
      entries.some((e) => e.uuid !== undefined || e.kind === 'session_meta')
        ? null
        : `${path}: recognised as a Codex CLI file, but it holds no conversation records`,
    message: codexConversationRecord,
    inventory: codexInventory,
    sessionFolder: {
      holds: (entry) => entry.kind === 'session_meta',
      read: (record) => str(asObject(record.payload), 'cwd') ?? null,
    },
  },
  capabilities,
  unsupported: (what, container) =>
    container === 'jsonl'
      ? (WHY_NOT[what] ?? `${what} is not available for Codex CLI sessions.`)
      : 'Codex CLI rollouts are JSON lines.',
  sessions: codexSessions,
  resume: codexResume,
  limits: (_model, recordedWindow) => codexLimits(recordedWindow),
  cache: {
    rules: { recordsLifetime: false, defaultTtlMs: FIVE_MINUTES_MS },
    unknown: "Codex's records do not say how long the provider keeps its cache",
  },
  tokenizer: {
    label: 'exact (o200k)',
    note: "Counted with o200k_base, the tokenizer of Codex's OpenAI models.",
  },
  resumeOverhead: codexResumeOverhead,
  agentNow: codexAgentNow,
  ownSummaries: codexOwnSummaries,
};
