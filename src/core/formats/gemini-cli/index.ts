// Gemini CLI: chat documents read (inspect only; nothing is written back).
import { join } from 'node:path';
import { asObject, str } from '../../json';
import type { AgentModule, SessionFacts } from '../agent';
import { o200kApproximation, readOnly, readOnlyReason, shortTokens } from '../agent';
import { headMessages } from '../document';
import { headText, titleOf } from '../head';
import { geminiEntries, geminiMessages, isGeminiChat, textBlocks } from './reader';

/** Gemini models' windows: 2M for 1.5 Pro, else 1,048,576 (Gemini CLI's tokenLimit). */
function geminiWindowOf(model: string | null): number {
  return model && /gemini-1\.5-pro/i.test(model) ? 2_097_152 : 1_048_576;
}

/** Bytes of a chat read for its list entry: the session id and the first prompt are at its start. */
const HEAD_BYTES = 64 * 1024;

/** The chat's session id and first prompt, from its head (Gemini CLI records no working folder, only its hash). */
async function chatFacts(file: string): Promise<SessionFacts> {
  const { text } = await headText(file, HEAD_BYTES);
  const messagesAt = text.indexOf('"messages"');
  const id = /"sessionId"\s*:\s*"([^"\\]{1,200})"/.exec(messagesAt < 0 ? text : text.slice(0, messagesAt));
  const first = headMessages(text).find((m) => str(m, 'type') === 'user');
  const content = first ? textBlocks(first.content) : null;
  const prompt =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? (content as unknown[]).map((b) => str(asObject(b), 'text') ?? '').join(' ')
        : null;
  return { title: titleOf(prompt), sessionId: id ? id[1] : null, cwd: null };
}

const NAME = 'Gemini CLI';

export const geminiCli: AgentModule<'gemini-cli'> = {
  id: 'gemini-cli',
  name: NAME,
  document: {
    detect: isGeminiChat,
    messages: geminiMessages,
    read: (_path, messages, elements) => Promise.resolve(geminiEntries(messages, elements)),
    version: () => null,
  },
  capabilities: readOnly,
  unsupported: (what) =>
    what === 'resume'
      ? 'Gemini CLI chats are read-only in Agent Compactor, which offers no command to resume one: resume it from Gemini CLI itself, started in its project folder.'
      : readOnlyReason(NAME, what),
  sessions: {
    locations: [
      {
        label: 'Gemini CLI',
        folders: (w) => [join(w.home, '.gemini', 'tmp')],
        depth: 2,
        isSessionFile: (name, dir) => /[\\/]chats$/.test(dir) && name.endsWith('.json'),
      },
    ],
    where: 'Gemini CLI ~/.gemini/tmp/*/chats',
    describe: chatFacts,
  },
  limits: (model) => {
    const window = geminiWindowOf(model);
    return {
      window,
      windowFrom: `${model ?? 'a Gemini model'}: ${shortTokens(window)}`,
      autoCompactAt: null,
      autoCompactFrom: "Gemini CLI's compression threshold is a setting the session does not record",
    };
  },
  cache: { rules: null, unknown: "this agent's records do not say how long the provider keeps its cache" },
  tokenizer: o200kApproximation('Gemini'),
};
