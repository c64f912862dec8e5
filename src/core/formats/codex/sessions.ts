// Where Codex keeps its rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`), what a rollout records of itself
// in its first records (the thread id and folder in `session_meta`, the first prompt), and how it is resumed:
// `codex resume <thread id>`, started in the thread's folder.
import { basename, join } from 'node:path';
import { asObject, obj, str } from '../../json';
import type { AgentSessions, ResumeSpec, SessionFacts, SessionsWhere } from '../agent';
import { headObjects, titleOf } from '../head';
import { unknownHistoryMode } from './historyMode';
import { isContextText } from './reader';

/** Bytes of a rollout's head read at most: its session_meta record (the instructions make it long) and first prompt. */
const HEAD_BYTES = 256 * 1024;

/** Codex's home: `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(env: NodeJS.ProcessEnv, home: string): string {
  return env.CODEX_HOME && env.CODEX_HOME.trim() ? env.CODEX_HOME.trim() : join(home, '.codex');
}

/** The text of a user message item's content parts. */
function itemText(content: unknown): string {
  if (typeof content === 'string') return content;
  return (Array.isArray(content) ? (content as unknown[]) : []).map((p) => str(asObject(p), 'text') ?? '').join('');
}

/** The thread id and folder of the rollout's first session_meta record, and its first prompt, from its head. */
export async function rolloutFacts(file: string): Promise<SessionFacts> {
  const facts: SessionFacts = { title: null, sessionId: null, cwd: null };
  let meta = false;
  let itemPrompt: string | null = null;
  for (const o of await headObjects(file, HEAD_BYTES)) {
    const payload = obj(o, 'payload');
    if (!payload) continue;
    if (o.type === 'session_meta' && !meta) {
      meta = true;
      facts.sessionId = str(payload, 'id') ?? str(payload, 'session_id') ?? null;
      facts.cwd = str(payload, 'cwd') ?? null;
      const unknown = unknownHistoryMode(payload);
      if (unknown) facts.resumeRefusal = `Codex CLI cannot resume this thread: ${unknown}.`;
    } else if (o.type === 'event_msg' && payload.type === 'user_message' && facts.title === null) {
      // What the user typed, as Codex's own session picker shows it.
      facts.title = titleOf(str(payload, 'message'));
    } else if (o.type === 'response_item' && payload.type === 'message' && payload.role === 'user' && !itemPrompt) {
      const text = itemText(payload.content);
      if (!isContextText(text)) itemPrompt = titleOf(text);
    }
    if (meta && facts.title !== null) break;
  }
  facts.title ??= itemPrompt;
  return facts;
}

export const codexSessions: AgentSessions = {
  locations: [
    {
      label: 'Codex CLI',
      folders: (w: SessionsWhere) => [join(codexHome(w.env, w.home), 'sessions')],
      depth: 3,
      isSessionFile: (name) => /^rollout-.*\.jsonl$/.test(name),
    },
  ],
  where: 'Codex $CODEX_HOME/sessions or ~/.codex/sessions',
  nameOf: (file) => basename(file, '.jsonl'),
  describe: rolloutFacts,
};

export const codexResume: ResumeSpec = {
  program: 'codex',
  programOption: 'codexPath',
  args: (id) => ['resume', id],
  notAnId: (name) =>
    `Codex cannot resume ${name} by id: it finds a rollout by the thread id its first record (session_meta) names, and this one names none that is a UUID.`,
  folderNeeded: 'Codex starts the resumed thread in it',
  async locate(file) {
    const { sessionId, cwd, resumeRefusal } = await rolloutFacts(file);
    return { sessionId, cwd, ...(resumeRefusal ? { refusal: resumeRefusal } : {}) };
  },
};
