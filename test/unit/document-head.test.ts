// Which `.json` files outside the agents' own folders the extension follows as sessions is decided from their head
// (documentAgentOfHead): for a JSON array, the decision from the head must be the one the whole document gets, for
// every agent's array sessions, re-serialised Claude Code transcripts included; JSON that is no session is never
// taken, and object documents (Gemini CLI chats, followed by their folder) are not judged by a head.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentAgentOfHead } from '../../src/core/formats/documents';
import { documentAgentOf } from '../../src/core/formats/registry';
import { agentFixtures, claudeFixtures, repoRoot, sharedFixtures } from '../support/fixtures';

const HEAD = 64 << 10;

/** Every shared Claude Code transcript as the one JSON array a user may save it as, pretty-printed and on one line. */
function claudeArrays(): { name: string; text: string }[] {
  return claudeFixtures().flatMap((file) => {
    const records = readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as unknown];
        } catch {
          return [];
        }
      });
    return [
      { name: `${file} (pretty)`, text: JSON.stringify(records, null, 2) },
      { name: `${file} (one line)`, text: JSON.stringify(records) },
    ];
  });
}

function arraySessions(): { name: string; text: string }[] {
  const cline = join(sharedFixtures, 'cline', 'task-opus', 'api_conversation_history.json');
  return [{ name: cline, text: readFileSync(cline, 'utf8') }, ...claudeArrays()];
}

describe('documentAgentOfHead: a JSON document followed as a session by its head', () => {
  it('decides as the whole document does, for every shared array session and re-serialised transcript', () => {
    const sessions = arraySessions();
    assert.ok(sessions.length >= 20, `${sessions.length} documents`);
    for (const { name, text } of sessions) {
      const whole = documentAgentOf(JSON.parse(text))?.id ?? null;
      assert.notEqual(whole, null, `${name} is a session as a whole`);
      assert.equal(documentAgentOfHead(text.slice(0, HEAD))?.id ?? null, whole, name);
    }
  });

  it('Claude Code arrays are Claude Code sessions from their head alone, with the BOM an editor may keep', () => {
    const [{ text }] = claudeArrays();
    assert.ok(text.length > 4096);
    assert.equal(documentAgentOfHead('\uFEFF' + text.slice(0, 4096))?.id, 'claude-code');
  });

  it('takes no JSON that is no session, and judges no object document by its head', () => {
    const notSessions = [
      readFileSync(join(repoRoot, 'package.json'), 'utf8'),
      readFileSync(join(repoRoot, 'tsconfig.json'), 'utf8'),
      '[1, 2, 3]',
      '[{"type": "tree", "path": "a"}, {"type": "blob", "path": "b"}]',
      '{"messages": [{"text": "hello"}]}',
      ...agentFixtures('gemini-cli', /\.json$/).map((f) => readFileSync(f, 'utf8')),
      '[]',
      '',
    ];
    for (const text of notSessions) assert.equal(documentAgentOfHead(text), null, text.slice(0, 60));
  });

  it('a head that ends inside its first message decides nothing', () => {
    const [{ text }] = claudeArrays();
    const firstEnd = text.indexOf('\n  },');
    assert.ok(firstEnd > 0);
    assert.equal(documentAgentOfHead(text.slice(0, firstEnd)), null);
    assert.equal(documentAgentOfHead(text.slice(0, firstEnd + 4))?.id, 'claude-code');
  });
});
