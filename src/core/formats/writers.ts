// The agents we write back, one line each (beside their line in registry.ts): what compact.ts asks to write a
// compaction's output. An agent whose capabilities say it can be compacted has a writer here, and only such an agent
// (test/unit/agent-modules.test.ts). A registry of its own because a writer needs the engine (plan, validation),
// which the reading half of the modules sits below.
import type { AgentId } from './registry';
import type { AgentWriter } from './writer';
import { claudeWriter } from './claude-code/writer';
import { codexWriter } from './codex/writer';

const WRITERS: { readonly [K in AgentId]?: AgentWriter } = {
  'claude-code': claudeWriter,
  codex: codexWriter,
};

/** The writer of an agent we write back, or null. */
export function writerOf(id: AgentId): AgentWriter | null {
  return WRITERS[id] ?? null;
}
