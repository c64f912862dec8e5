// The session-start context a resumed request carries again (src/core/context.ts `reannouncedOnResume`), and the
// record-level `rendered` text of 2.1.330 attachments it is sized by.
import { strict as assert } from 'node:assert';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reannouncedOnResume } from '../../src/core/context';
import { inspectFile } from '../../src/core/inspect';
import { tempDir } from '../support/temp';

const ENVIRONMENT =
  '<system-reminder>\n# Environment\n' +
  'You have been invoked in the following environment: a sample project.\n'.repeat(40) +
  '</system-reminder>';
const DATE = "<system-reminder>\nToday's date is 2026-11-25.\n</system-reminder>";

/** A 2.1.330-style session: attachments (rendered on the record) before its first request, then two rounds. */
function sessionLines(): string[] {
  let n = 0;
  let parent: string | null = null;
  const link = (o: Record<string, unknown>) => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    const line = JSON.stringify({
      parentUuid: parent,
      uuid,
      sessionId: 's',
      isSidechain: false,
      timestamp: `2026-11-25T00:00:${String(n).padStart(2, '0')}Z`,
      ...o,
    });
    parent = uuid;
    return line;
  };
  const attachment = (type: string, text: string) =>
    link({ type: 'attachment', attachment: { type }, rendered: [{ content: text }], renderedRole: 'system' });
  const usage = (input: number) => ({
    input_tokens: input,
    output_tokens: 5,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  });
  return [
    link({ type: 'user', message: { role: 'user', content: 'first prompt' } }),
    attachment('environment', ENVIRONMENT),
    attachment('date', DATE),
    link({ type: 'attachment', attachment: { type: 'prompt_snapshot', systemPrompt: ['You are an agent.'] } }),
    link({
      type: 'assistant',
      message: {
        id: 'msg_1',
        role: 'assistant',
        model: 'm',
        content: [{ type: 'text', text: 'first answer' }],
        usage: usage(1500),
      },
    }),
    link({ type: 'user', message: { role: 'user', content: 'second prompt' } }),
    attachment('date', DATE),
    link({
      type: 'assistant',
      message: {
        id: 'msg_2',
        role: 'assistant',
        model: 'm',
        content: [{ type: 'text', text: 'second answer' }],
        usage: usage(1520),
      },
    }),
  ];
}

describe('the session-start context a resume sends again', () => {
  let dir: string;
  before(() => {
    dir = tempDir('ac-reannounced-');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("sizes 2.1.330's attachments by the rendered text on the record (it was counted as empty before)", async () => {
    const file = join(dir, 'a.jsonl');
    writeFileSync(file, sessionLines().join('\n') + '\n');
    const { index } = await inspectFile(file, { subagents: false });
    const env = index.entries.find((e) => e.attachmentType === 'environment')!;
    assert.equal(env.attachmentChars, ENVIRONMENT.length);
    assert.ok(env.attachmentTokens! > 300, `proxy tokens ${env.attachmentTokens}`);
  });

  it('counts every kind announced before the first request that the kept rounds do not hold, at its newest size', async () => {
    const file = join(dir, 'b.jsonl');
    writeFileSync(file, sessionLines().join('\n') + '\n');
    const { index, rounds } = await inspectFile(file, { subagents: false });
    const entries = index.entries;
    const all = reannouncedOnResume(entries, rounds, new Set(), 1);
    assert.ok(all > 300, `environment and date: ${all}`);
    // Kept rounds holding both kinds leave nothing to send again; keeping only the second (a date, no environment)
    // leaves the environment.
    const first = rounds.find((r) => r.entries.some((i) => entries[i].attachmentType === 'environment'))!;
    const second = rounds.find((r) => r !== first && r.entries.some((i) => entries[i].attachmentType === 'date'))!;
    assert.equal(reannouncedOnResume(entries, rounds, new Set([first.index, second.index]), 1), 0);
    const envOnly = reannouncedOnResume(entries, rounds, new Set([second.index]), 1);
    assert.ok(envOnly > 0 && envOnly < all, `environment alone: ${envOnly} of ${all}`);
    // Sized like the rest of the session: times its calibration.
    assert.ok(Math.abs(reannouncedOnResume(entries, rounds, new Set(), 2) - 2 * all) <= 1);
  });

  it('counts nothing for a file whose agent announces nothing before its first request', async () => {
    const file = join(dir, 'c.jsonl');
    writeFileSync(
      file,
      sessionLines()
        .filter((l) => !l.includes('"rendered"'))
        .join('\n') + '\n',
    );
    const { index, rounds } = await inspectFile(file, { subagents: false });
    assert.equal(reannouncedOnResume(index.entries, rounds, new Set(), 1), 0);
  });
});
