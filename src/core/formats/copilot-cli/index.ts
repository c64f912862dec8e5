// GitHub Copilot CLI: session events read (inspect only; nothing is written back).
import { join } from 'node:path';
import { obj, str } from '../../json';
import type { AgentModule, SessionFacts } from '../agent';
import { o200kApproximation, readOnly, readOnlyReason } from '../agent';
import { headObjects, titleOf } from '../head';
import { CopilotReader, isCopilotEvent } from './reader';

/** Bytes of an events file read for its list entry: session.start and the first prompt come first. */
const HEAD_BYTES = 64 * 1024;

/** The session id and folder `session.start` records, and the first prompt, from the events' head. */
async function eventsFacts(file: string): Promise<SessionFacts> {
  const facts: SessionFacts = { title: null, sessionId: null, cwd: null };
  for (const o of await headObjects(file, HEAD_BYTES)) {
    const data = obj(o, 'data');
    if (o.type === 'session.start' && facts.sessionId === null) {
      facts.sessionId = str(data, 'sessionId') ?? null;
      facts.cwd = str(obj(data, 'context'), 'cwd') ?? null;
    } else if (o.type === 'user.message' && facts.title === null) facts.title = titleOf(str(data, 'content'));
    if (facts.sessionId !== null && facts.title !== null) break;
  }
  return facts;
}

const NAME = 'GitHub Copilot CLI';

export const copilotCli: AgentModule<'copilot-cli'> = {
  id: 'copilot-cli',
  name: NAME,
  records: {
    detect: isCopilotEvent,
    reader: () => new CopilotReader(),
    notASession: (path, entries) =>
      entries.some((e) => e.uuid !== undefined || e.kind === 'session.start')
        ? null
        : `${path}: recognised as a GitHub Copilot CLI file, but it holds no conversation records`,
  },
  capabilities: readOnly,
  unsupported: (what) =>
    what === 'resume'
      ? 'GitHub Copilot CLI sessions are read-only in Agent Compactor, which offers no command to resume one: resume it from Copilot CLI itself.'
      : readOnlyReason(NAME, what),
  sessions: {
    locations: [
      {
        label: 'GitHub Copilot CLI',
        folders: (w) => [join(w.home, '.copilot', 'session-state')],
        depth: 1,
        isSessionFile: (name) => name === 'events.jsonl',
      },
    ],
    where: 'Copilot CLI ~/.copilot/session-state/*/events.jsonl',
    describe: eventsFacts,
  },
  limits: (_model, recordedWindow) => ({
    window: recordedWindow,
    windowFrom:
      recordedWindow !== null
        ? 'recorded by Copilot CLI (session.usage_info tokenLimit)'
        : "Copilot CLI does not record its model's window here",
    autoCompactAt: null,
    autoCompactFrom: recordedWindow !== null ? "Copilot CLI's threshold is not recorded" : 'unknown without the window',
  }),
  cache: { rules: null, unknown: "this agent's records do not say how long the provider keeps its cache" },
  tokenizer: o200kApproximation("the session's model"),
};
