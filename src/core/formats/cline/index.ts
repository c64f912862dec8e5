// Cline and Roo Code (a fork of Cline writing the same task files): tasks read (inspect only; nothing is written
// back). One module, two sessions locations in VS Code's global storage.
import { basename, dirname, join } from 'node:path';
import { asObject, str } from '../../json';
import type { AgentModule, SessionFacts, SessionsLocation, SessionsWhere } from '../agent';
import { o200kApproximation, readOnly, readOnlyReason } from '../agent';
import { clineLimits } from './limits';
import { headMessages } from '../document';
import { headText, titleOf } from '../head';
import { clineEntries, isClineHistory } from './reader';

/** The tasks folder of a VS Code extension (by its id) in every global storage folder given. */
function tasksLocation(label: string, extensionId: string): SessionsLocation {
  return {
    label,
    folders: (w: SessionsWhere) => w.globalStorage.map((g) => join(g, extensionId, 'tasks')),
    depth: 1,
    isSessionFile: (name) => name === 'api_conversation_history.json',
  };
}

/** Bytes of a task's history read for its list entry: its first message holds the task and the working folder. */
const HEAD_BYTES = 256 * 1024;

/** The text of a message's content (a string, or its text blocks). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return (Array.isArray(content) ? (content as unknown[]) : []).map((b) => str(asObject(b), 'text') ?? '').join('\n');
}

/**
 * A task's title (the task the user gave, inside `<task>`), id (its folder's name) and working folder (the one its
 * first message's environment details name), from the history's head.
 */
async function taskFacts(file: string): Promise<SessionFacts> {
  const { text } = await headText(file, HEAD_BYTES);
  const first = headMessages(text).find((m) => str(m, 'role') === 'user');
  const body = first ? contentText(first.content) : '';
  const task = /<task>([\s\S]*?)(?:<\/task>|$)/.exec(body);
  const cwd = /# Current Working Directory \(([^)\n]+)\)/.exec(body);
  return { title: titleOf(task ? task[1] : body), sessionId: basename(dirname(file)), cwd: cwd ? cwd[1] : null };
}

const NAME = 'Cline / Roo Code';

export const cline: AgentModule<'cline'> = {
  id: 'cline',
  name: NAME,
  document: {
    detect: isClineHistory,
    messages: (doc) => doc as unknown[],
    read: clineEntries,
    version: () => null,
  },
  capabilities: readOnly,
  unsupported: (what) =>
    what === 'resume'
      ? 'Cline and Roo Code tasks are resumed from the task history in their own VS Code panel; they have no command line to resume one by id.'
      : readOnlyReason(NAME, what),
  sessions: {
    locations: [
      tasksLocation('Cline', 'saoudrizwan.claude-dev'),
      tasksLocation('Roo Code', 'rooveterinaryinc.roo-cline'),
    ],
    where:
      'Cline and Roo Code tasks in the global storage of VS Code (and Insiders, VSCodium, Cursor, VS Code Server, code-server)',
    describe: taskFacts,
  },
  limits: (model) => clineLimits(model),
  cache: { rules: null, unknown: "this agent's records do not say how long the provider keeps its cache" },
  tokenizer: o200kApproximation('Claude'),
};
