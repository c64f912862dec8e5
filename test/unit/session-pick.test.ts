// Open Sessions Folder's list: a Claude Code session reads as its title and its project's real path (what the
// sessions scan reads from the file), with the id kept in the detail; other agents' sessions by id and agent.
import { strict as assert } from 'node:assert';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scanSessions } from '../../src/core/formats/claude-code/sessionSummary';
import { sessionPickItem } from '../../src/extension/model/sessions';
import { fixture } from '../support/fixtures';
import { oneLine } from '../../src/extension/model/format';
import { tempDir } from '../support/temp';

describe('Open Sessions Folder: the picker items', () => {
  let root: string;
  before(() => (root = tempDir('ac-pick-')));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('a Claude Code session by its title and real project path, not its id run into the encoded folder name', async () => {
    const cwd = '/home/me/src/my app';
    const folder = cwd.replace(/[^a-zA-Z0-9]/g, '-');
    const id = '5d3f0c1e-2b4a-4c6d-8e9f-0a1b2c3d4e5f';
    mkdirSync(join(root, folder), { recursive: true });
    const file = join(root, folder, `${id}.jsonl`);
    writeFileSync(
      file,
      readFileSync(fixture('plan-mode.jsonl'), 'utf8').replace(/"cwd":"[^"]*"/g, JSON.stringify({ cwd }).slice(1, -1)),
    );
    const [scanned] = await scanSessions(root);
    const st = statSync(file);
    const now = st.mtimeMs + 3 * 3_600_000;
    const item = sessionPickItem(
      { file, project: folder, size: st.size, mtimeMs: st.mtimeMs, agent: 'Claude Code', id: 'claude-code' },
      scanned,
      now,
    );
    assert.equal(item.label, oneLine(scanned.title, 80));
    assert.ok(item.label.length > 0 && item.label !== id && !item.label.includes(folder), item.label);
    assert.equal(item.description, `Claude Code · ${cwd}`);
    assert.match(item.detail, new RegExp(`^3 hours ago · [\\d.]+ (B|KiB|MiB) · ${id}$`));
    assert.equal(item.file, file);
  });

  it("a session the scan did not title, and another agent's, by id and agent", () => {
    const codex = '/x/sessions/2026/01/02/rollout-2026-01-02T03-04-05-019ed917.jsonl';
    const item = sessionPickItem(
      { file: codex, project: '', size: 2048, mtimeMs: 0, agent: 'Codex CLI', id: 'codex' },
      undefined,
      60_000,
    );
    assert.deepEqual(item, {
      label: 'rollout-2026-01-02T03-04-05-019ed917',
      description: 'Codex CLI',
      detail: '1 minute ago · 2 KiB',
      file: codex,
    });
    const cline = '/x/tasks/1712345678/api_conversation_history.json';
    assert.equal(
      sessionPickItem(
        { file: cline, project: '', size: 10, mtimeMs: 0, agent: 'Cline / Roo Code', id: 'cline' },
        undefined,
        0,
      ).label,
      '1712345678/api_conversation_history.json',
    );
  });
});
