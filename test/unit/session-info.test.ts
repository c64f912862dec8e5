// The folder a Claude Code session is resumed in when its project folder's name is not that of the folder its head
// records (issue 34): readSessionInfo then looks at the recorded folders' values instead of parsing every line. Its
// answer must be the one the straightforward read gives (every line read and parsed, as it was read before), on
// files made to trip it: the matching folder deep in the file and past the first chunk read, on a line longer than
// a chunk, in a nested object or a sidechain line, escaped, behind a lone carriage return, or nowhere at all.
import { strict as assert } from 'node:assert';
import { createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { projectFolderName, readSessionInfo, type SessionInfo } from '../../src/core/session';
import { claudeSessions } from '../../src/core/formats/claude-code/sessions';
import { tempDir } from '../support/temp';

/** The reader as it was: every line read with readline and parsed (up to 32 MiB). */
async function reference(file: string, projectFolder: string | null): Promise<SessionInfo> {
  const info: SessionInfo = { sessionId: null, recordedSessionId: null, cwd: null };
  let first: string | null = null;
  let sidechainCwd: string | null = null;
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8', end: (32 << 20) - 1 }) });
  for await (const line of lines) {
    if (!line.includes('"cwd"') && (info.recordedSessionId || !line.includes('"sessionId"'))) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) continue;
    const o = parsed as { cwd?: unknown; sessionId?: unknown; isSidechain?: unknown };
    if (!info.recordedSessionId && typeof o.sessionId === 'string' && o.sessionId) info.recordedSessionId = o.sessionId;
    if (typeof o.cwd !== 'string' || !o.cwd) continue;
    if (o.isSidechain === true) {
      sidechainCwd ??= o.cwd;
      if (!projectFolder || projectFolderName(o.cwd) !== projectFolder) continue;
    }
    first ??= o.cwd;
    if (!projectFolder) break;
    if (projectFolderName(o.cwd) === projectFolder) {
      info.cwd = o.cwd;
      break;
    }
  }
  info.cwd ??= first ?? sidechainCwd;
  return info;
}

const line = (o: Record<string, unknown>) => JSON.stringify(o);
const filler = (n: number) => 'x'.repeat(n);

describe('the resume folder of a session whose project folder names another folder', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => (dir = tempDir('ac-session-info-')));

  const cases: { name: string; lines: string[]; folder: string; expected: string }[] = [
    {
      name: 'the matching folder after a cd, past the first MiB',
      folder: projectFolderName('/work/app'),
      expected: '/work/app',
      lines: [
        ...Array.from({ length: 400 }, (_, k) =>
          line({ type: 'user', cwd: '/work/app/src', sessionId: 'S', text: filler(5000 + k) }),
        ),
        line({ type: 'assistant', cwd: '/work/app', sessionId: 'S' }),
        line({ type: 'assistant', cwd: '/work/other', sessionId: 'S' }),
      ],
    },
    {
      name: 'a nested "cwd" that names the folder is not the line\'s; a sidechain line that does counts',
      folder: projectFolderName('/p/q'),
      expected: '/p_q',
      lines: [
        line({ type: 'user', cwd: '/p/q/r', sessionId: 'S' }),
        line({ type: 'user', cwd: '/p/q/r', sessionId: 'S', toolUseResult: { cwd: '/p/q' } }),
        line({ type: 'user', isSidechain: true, cwd: '/p_q', sessionId: 'S' }),
        line({ type: 'user', cwd: '/p.q', sessionId: 'S' }),
      ],
    },
    {
      name: 'a line longer than the chunk read at once, then the match',
      folder: projectFolderName('/long/one'),
      expected: '/long.one',
      lines: [
        line({ type: 'user', cwd: '/long', sessionId: 'S' }),
        line({ type: 'user', cwd: '/long', sessionId: 'S', text: filler(3 << 20) }),
        line({ type: 'user', cwd: '/long.one', sessionId: 'S' }),
      ],
    },
    {
      name: 'an escaped value and spaces around the colon',
      folder: projectFolderName('/a/b'),
      expected: '/a/b',
      lines: [line({ type: 'user', cwd: '/a', sessionId: 'S' }), '{"type":"user","cwd" : "\\/a\\/b","sessionId":"S"}'],
    },
    {
      name: 'a lone carriage return splits the line the match is on (readline reads two lines, neither parses)',
      folder: projectFolderName('/cr/x'),
      expected: '/cr',
      lines: [line({ type: 'user', cwd: '/cr', sessionId: 'S' }), '{"type":"user",\r"cwd":"/cr/x","sessionId":"S"}'],
    },
    {
      name: 'no line names the folder: where it was started (the whole file looked through)',
      folder: projectFolderName('/renamed/project'),
      expected: '/old/project/sub',
      lines: [
        line({ type: 'summary', summary: 's' }),
        line({ type: 'user', isSidechain: true, cwd: '/side', sessionId: 'T' }),
        ...Array.from({ length: 300 }, (_, k) =>
          line({ type: 'user', cwd: k % 2 ? '/old/project' : '/old/project/sub', sessionId: 'S', text: filler(8000) }),
        ),
      ],
    },
    {
      name: 'the session id recorded only after the first folder',
      folder: projectFolderName('/z/y'),
      expected: '/z/y',
      lines: [line({ type: 'user', cwd: '/z' }), line({ type: 'user', cwd: '/z/y', sessionId: 'S' })],
    },
  ];

  for (const c of cases)
    it(c.name, async () => {
      const file = join(dir, `${cases.indexOf(c)}.jsonl`);
      writeFileSync(file, c.lines.join('\n') + '\n');
      const got = await readSessionInfo(file, { projectFolder: c.folder });
      assert.equal(got.cwd, c.expected);
      assert.deepEqual({ ...got, sessionId: null }, await reference(file, c.folder));
      // And without a project folder: where it was started.
      assert.deepEqual({ ...(await readSessionInfo(file)), sessionId: null }, await reference(file, null));
    });

  it("the CLI's description of a session in a renamed project folder: the folder a later line records, not the head's", async () => {
    const folder = join(dir, '.claude', 'projects', projectFolderName('/home/me/app'));
    mkdirSync(folder, { recursive: true });
    const file = join(folder, '00000000-0000-4000-8000-000000000001.jsonl');
    writeFileSync(
      file,
      [
        line({ type: 'user', cwd: '/home/me/app/web', sessionId: 'S', message: { role: 'user', content: 'hello' } }),
        ...Array.from({ length: 200 }, () => line({ type: 'user', cwd: '/home/me/app/web', text: filler(6000) })),
        line({ type: 'user', cwd: '/home/me/app', sessionId: 'S' }),
      ].join('\n') + '\n',
    );
    const facts = await claudeSessions.describe(file);
    assert.equal(facts.cwd, '/home/me/app');
    assert.equal(facts.title, 'hello');
  });
});
