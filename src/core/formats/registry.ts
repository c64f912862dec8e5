// Every agent Agent Compactor reads, one line each: adding an agent is its folder under src/core/formats/ and one line
// here (and, for an agent we write back, one in writers.ts). The order is the order agents are shown in, and the
// order their formats are tried in (a JSONL file by its first record; the agent whose reader takes any JSON lines,
// Claude Code's, last).
import type { ChainLoader } from '../chain';
import { CompactError } from '../errors';
import type { AgentCapabilities, AgentModule, Capability, Container, RecordFormat } from './agent';
import { claudeCode } from './claude-code';
import { codex } from './codex';
import { geminiCli } from './gemini-cli';
import { cline } from './cline';
import { copilotCli } from './copilot-cli';

export const AGENTS = [claudeCode, codex, geminiCli, cline, copilotCli] as const;

/** The id of an agent: `claude-code`, `codex`, `gemini-cli`, `cline`, `copilot-cli`. */
export type AgentId = (typeof AGENTS)[number]['id'];

export const AGENT_IDS: readonly AgentId[] = AGENTS.map((a) => a.id);

/** The agent that wrote a file, the version it records, and how the file stores the session. */
export interface FormatInfo {
  id: AgentId;
  /** The agent's display name (its module's), for headers and messages. */
  agent: string;
  /** The agent's version as the file records it, when it does. */
  version: string | null;
  /** How the file stores it: one JSON value per line, or one JSON document. */
  container: Container;
}

export function isAgentId(id: unknown): id is AgentId {
  return typeof id === 'string' && (AGENT_IDS as readonly string[]).includes(id);
}

/** The module of an agent. */
export function agentModule(id: AgentId): AgentModule<AgentId> {
  const found = AGENTS.find((a) => a.id === id);
  if (!found) throw new Error(`no agent module for ${String(id)}`);
  return found;
}

/** The agent whose own CLI the summarizer `summarizer` is (its capabilities' `summarizerCli`), or null. */
export function summarizerCliAgent(summarizer: string): AgentModule<AgentId> | null {
  return AGENTS.find((a) => a.capabilities('jsonl').summarizerCli === summarizer) ?? null;
}

/** The agent's one display name. */
export function agentName(id: AgentId): string {
  return agentModule(id).name;
}

/** A file's format as the index records it, for an agent and container (no version yet). */
export function formatOf(id: AgentId, container: Container, version: string | null = null): FormatInfo {
  return { id, agent: agentName(id), version, container };
}

type RecordAgent = AgentModule<AgentId> & { records: RecordFormat };

const RECORD_AGENTS = AGENTS.filter((a): a is (typeof AGENTS)[number] & { records: RecordFormat } => !!a.records);

/** The agent whose reader takes any JSON lines no other agent recognised: a JSONL file's agent until one is read. */
export function fallbackRecordAgent(): RecordAgent {
  const found = RECORD_AGENTS.find((a) => a.records.fallback);
  if (!found) throw new Error('no agent reads JSON lines');
  return found;
}

/** The agent whose JSONL records `first` (the first JSON object of a file) is one of. */
export function recordAgentOf(first: unknown): RecordAgent {
  return RECORD_AGENTS.find((a) => !a.records.fallback && a.records.detect(first)) ?? fallbackRecordAgent();
}

/** The agent whose JSON document `doc` is a session of, or null. */
export function documentAgentOf(doc: unknown): AgentModule<AgentId> | null {
  return AGENTS.find((a) => a.document?.detect(doc)) ?? null;
}

/** What the product can do with a file of this format. */
export function capabilitiesOf(format: Pick<FormatInfo, 'id' | 'container'>): AgentCapabilities {
  return agentModule(format.id).capabilities(format.container);
}

/** Why `what` is not available for a file of this format, or null when it is (default: compact). */
export function unsupported(format: Pick<FormatInfo, 'id' | 'container'>, what: Capability = 'compact'): string | null {
  if (capabilitiesOf(format)[what]) return null;
  return agentModule(format.id).unsupported(what, format.container);
}

/**
 * How the agent of `format` rebuilds a session's chain when it resumes it (its loader model), for resume health,
 * repair and fork-before; refuses (CompactError 'unsupported-format', saying why) for an agent without one.
 */
export function chainLoaderOf(format: Pick<FormatInfo, 'id' | 'container'>): ChainLoader {
  const loader = agentModule(format.id).loader;
  const can = capabilitiesOf(format);
  if (!loader || !(can.doctor || can.repair || can.forkBefore))
    throw new CompactError(
      'unsupported-format',
      unsupported(format, 'doctor') ?? `${agentName(format.id)} sessions have no loader model`,
    );
  return loader;
}

/**
 * Refuses `what` for a file of this format, when its agent cannot do it: a CompactError ('unsupported-format') that
 * names `subject` (the file) and says why. The gate every verb that is not offered for every agent passes first.
 */
export function requireCapability(
  format: Pick<FormatInfo, 'id' | 'container'>,
  what: Capability,
  subject: string,
): void {
  const why = unsupported(format, what);
  if (why) throw new CompactError('unsupported-format', `${subject}: ${why}`);
}
