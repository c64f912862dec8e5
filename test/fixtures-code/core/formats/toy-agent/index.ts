// Toy Agent: the module of a written agent made up for test/integration/toy-agent.test.ts, which copies this folder
// to src/core/formats/toy-agent/ in a copy of the source and registers it there (docs/ADDING-AN-AGENT.md). Read,
// planned, compacted (formats/toy-agent/writer.ts) and undone; never resumed by Agent Compactor.
import { join } from 'node:path';
import { str } from '../../json';
import type { AgentCapabilities, AgentModule, Capability, Container, SessionFacts } from '../agent';
import { o200kApproximation, readOnly } from '../agent';
import { headObjects, titleOf } from '../head';
import { toyConversationRecord } from './message';
import { isToyRecord, ToyReader } from './reader';

const NAME = 'Toy Agent';

/** The toy model's context window, and the share of it at which the toy agent compacts itself. */
const WINDOW = 100_000;
const AUTO_COMPACT_AT = 80_000;

function capabilities(container: Container): AgentCapabilities {
  if (container !== 'jsonl') return readOnly();
  return {
    inspect: true,
    plan: true,
    compact: true,
    previews: false,
    steering: ['keep', 'drop', 'summarize'],
    fresh: false,
    doctor: false,
    repair: false,
    undo: true,
    restore: true,
    resume: false,
    forkBefore: false,
    summarizerCli: null,
  };
}

const WHY_NOT: Partial<Record<Capability, string>> = {
  previews: 'Toy Agent sessions keep every kept tool output whole: its writer copies kept records as they are.',
  fresh: 'A Toy Agent compaction always keeps the lines before it: a fresh file is not written.',
  doctor:
    'Resume health is not available for Toy Agent sessions: the toy agent replays its records in order, with no parent links to check.',
  repair: 'Repair is not available for Toy Agent sessions: there are no parent links to relink.',
  resume: 'Toy Agent sessions have no resume command Agent Compactor offers.',
  forkBefore: 'Agent Compactor writes no fork from before a Toy Agent compaction.',
};

/** The session id, folder and first prompt a toy session's head records. */
async function describe(file: string): Promise<SessionFacts> {
  const facts: SessionFacts = { title: null, sessionId: null, cwd: null };
  for (const o of await headObjects(file, 16 * 1024)) {
    if (o.toy === 'session' && facts.sessionId === null) {
      facts.sessionId = str(o, 'id') ?? null;
      facts.cwd = str(o, 'cwd') ?? null;
    } else if (o.toy === 'message' && o.role === 'user' && facts.title === null) facts.title = titleOf(str(o, 'text'));
    if (facts.sessionId !== null && facts.title !== null) break;
  }
  return facts;
}

export const toyAgent: AgentModule<'toy-agent'> = {
  id: 'toy-agent',
  name: NAME,
  records: {
    detect: isToyRecord,
    reader: () => new ToyReader(),
    notASession: (path, entries) =>
      entries.some((e) => e.uuid !== undefined)
        ? null
        : `${path}: recognised as a Toy Agent session, but it holds no messages`,
    message: toyConversationRecord,
  },
  capabilities,
  unsupported: (what, container) =>
    container === 'jsonl'
      ? (WHY_NOT[what] ?? `${what} is not available for Toy Agent sessions.`)
      : 'Toy Agent sessions are JSON lines.',
  sessions: {
    locations: [
      {
        label: NAME,
        folders: (w) => [join(w.home, '.toy-agent', 'sessions')],
        depth: 0,
        isSessionFile: (name) => name.endsWith('.jsonl'),
      },
    ],
    where: 'Toy Agent ~/.toy-agent/sessions',
    nameOf: (file) => file.split(/[\\/]/).pop() ?? file,
    describe,
  },
  limits: (_model, recordedWindow) => ({
    window: recordedWindow ?? WINDOW,
    windowFrom: recordedWindow !== null ? 'recorded in the session' : "the toy model's window",
    autoCompactAt: AUTO_COMPACT_AT,
    autoCompactFrom: 'the toy agent compacts at 80% of its window',
  }),
  cache: { rules: null, unknown: "Toy Agent's records do not say how long a cache lives" },
  tokenizer: o200kApproximation('the toy model'),
};
