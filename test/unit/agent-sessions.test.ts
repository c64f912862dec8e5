// Every agent's sessions from core, as the Sessions view lists them: a fake home holding real fixtures of each agent
// (copied into a temp folder, never into the repo), scanned through the folders each agent's module names. Claude
// Code's by project as before; Codex, Gemini CLI, Copilot CLI and Cline / Roo Code by what their files record at their
// head; the hidden view's narrow scope reads no other agent; a session's head is read once while the file only grows;
// and the tree groups them by agent (only when there are several) and project.
import { strict as assert } from 'node:assert';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { scanAgentSessions, rescanSession, type ListedSession } from '../../src/core/agentSessions';
import { agentFolders } from '../../src/core/sessionFolders';
import { groupSessions } from '../../src/core/sessionList';
import { sessionStats } from '../../src/core/sessionStats';
import { contextLimits } from '../../src/core/limits';
import { actionTags, sessionTreeNodes } from '../../src/extension/model/sessionsTree';
import { claudeFixtureDir, sharedFixtures } from '../support/fixtures';
import { tempDir } from '../support/temp';

const CLAUDE_ID = '0b6f3a52-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const CODEX_ID = '019ed917-1cf7-72a3-92f5-c0aa98fb134e';
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 100);

describe('every agent in the sessions list (core)', function () {
  this.timeout(120_000);
  let dir: string;
  let home: string;
  let storage: string;
  const files: Record<string, string> = {};
  const folders = () => agentFolders({}, home, [storage]);

  before(() => {
    dir = tempDir('ac-agent-sessions-');
    home = join(dir, 'home');
    storage = join(dir, 'globalStorage');
    const t = 1_800_000_000;
    const place = (src: string, dest: string, sec: number) => {
      mkdirSync(dirname(dest), { recursive: true });
      copyFileSync(src, dest);
      utimesSync(dest, sec, sec);
      return dest;
    };
    files.claude = place(
      join(claudeFixtureDir, 'example.jsonl'),
      join(home, '.claude', 'projects', '-p', `${CLAUDE_ID}.jsonl`),
      t + 50,
    );
    files.codex = place(
      join(sharedFixtures, 'codex', 'rollout-0.140.jsonl'),
      join(home, '.codex', 'sessions', '2026', '06', '18', `rollout-2026-06-18T04-57-11-${CODEX_ID}.jsonl`),
      t + 40,
    );
    files.gemini = place(
      join(sharedFixtures, 'gemini-cli', 'session-tools.json'),
      join(home, '.gemini', 'tmp', 'a1b2', 'chats', 'session-tools.json'),
      t + 30,
    );
    files.copilot = place(
      join(sharedFixtures, 'copilot-cli', 'events-1.0.10.jsonl'),
      join(home, '.copilot', 'session-state', 'abc', 'events.jsonl'),
      t + 20,
    );
    for (const f of ['api_conversation_history.json', 'ui_messages.json'])
      place(
        join(sharedFixtures, 'cline', 'task-opus', f),
        join(storage, 'rooveterinaryinc.roo-cline', 'tasks', '1769034370431', f),
        t + 10,
      );
    files.roo = join(storage, 'rooveterinaryinc.roo-cline', 'tasks', '1769034370431', 'api_conversation_history.json');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("lists every agent's sessions newest first, each with the title, id and folder its file records", async () => {
    const list = await scanAgentSessions(folders(), 1_800_000_100_000);
    assert.deepEqual(
      list.map((s) => [s.agent, s.location, s.file]),
      [
        ['claude-code', 'Claude Code', files.claude],
        ['codex', 'Codex CLI', files.codex],
        ['gemini-cli', 'Gemini CLI', files.gemini],
        ['copilot-cli', 'GitHub Copilot CLI', files.copilot],
        ['cline', 'Roo Code', files.roo],
      ],
    );
    const by = new Map(list.map((s) => [s.agent, s] as const));
    const rollout = readFileSync(files.codex, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const meta = rollout.find((r) => r.type === 'session_meta').payload;
    assert.equal(by.get('codex')!.cwd, meta.cwd);
    assert.equal(
      by.get('codex')!.title,
      oneLine(rollout.find((r) => r.type === 'event_msg' && r.payload.type === 'user_message').payload.message),
    );
    const chat = JSON.parse(readFileSync(files.gemini, 'utf8'));
    const first = chat.messages.find((m: any) => m.type === 'user').content;
    assert.equal(
      by.get('gemini-cli')!.title,
      oneLine(typeof first === 'string' ? first : first.map((b: any) => b.text).join(' ')),
    );
    const events = readFileSync(files.copilot, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    assert.equal(by.get('copilot-cli')!.cwd, events.find((e) => e.type === 'session.start').data.context.cwd);
    assert.equal(by.get('copilot-cli')!.title, oneLine(events.find((e) => e.type === 'user.message').data.content));
    assert.equal(by.get('cline')!.cwd, '/workspaces/Online-Card-Architecture');
    assert.ok(by.get('cline')!.title.startsWith('You have been given a Dockerized codebase'), by.get('cline')!.title);
    // A window where the agent's module knows one (Gemini's models), 0 where it does not (Copilot CLI).
    assert.equal(by.get('gemini-cli')!.contextWindow, 1_048_576);
    assert.equal(by.get('copilot-cli')!.contextWindow, 0);
  });

  it("the narrow scope (the hidden view) reads the named Claude Code projects and no other agent's folder", async () => {
    const list = await scanAgentSessions(folders(), Date.now(), { only: ['-p'] });
    assert.deepEqual(
      list.map((s) => s.agent),
      ['claude-code'],
    );
    assert.deepEqual(await scanAgentSessions(folders(), Date.now(), { only: ['-elsewhere'] }), []);
  });

  it("a session's head is read once while the file only grows; read again when it is rewritten smaller", async () => {
    const copy = join(home, '.copilot', 'session-state', 'grow', 'events.jsonl');
    mkdirSync(dirname(copy), { recursive: true });
    copyFileSync(files.copilot, copy);
    const first = await scanAgentSessions(folders(), Date.now());
    const entry = first.find((s) => s.file === copy)!;
    // Grown: the head is what it was (a title changed in place would not be seen, and need not be).
    appendFileSync(copy, '\n');
    const known = new Map(first.map((s) => [s.file, s] as const));
    const marked = new Map([...known].map(([f, s]) => [f, f === copy ? { ...s, title: 'from the previous scan' } : s]));
    const grown = (await scanAgentSessions(folders(), Date.now(), { known: marked })).find((s) => s.file === copy)!;
    assert.equal(grown.title, 'from the previous scan');
    assert.equal(grown.size, entry.size + 1);
    // Rewritten smaller: read again.
    writeFileSync(copy, readFileSync(files.copilot, 'utf8').split('\n').slice(0, 40).join('\n'));
    const again = (await scanAgentSessions(folders(), Date.now(), { known: marked })).find((s) => s.file === copy)!;
    assert.equal(again.title, entry.title);
    const one = await rescanSession(again, folders(), Date.now());
    assert.equal(one.title, entry.title);
    rmSync(dirname(copy), { recursive: true, force: true });
  });

  it('rounds and cost in the background for every agent, with the window its module knows', async () => {
    for (const f of [files.codex, files.gemini, files.roo]) {
      const stats = await sessionStats(f);
      assert.ok(stats.rounds > 0, f);
    }
    assert.notEqual(contextLimits((await sessionStats(files.codex)).limits).window, null);
  });

  it('the tree: one node per agent when there are several, its projects inside; the rows tagged with what the agent offers', async () => {
    // An hour after the newest was written: no live marks.
    const later = 1_800_003_600_000;
    const list = await scanAgentSessions(folders(), later);
    const nodes = sessionTreeNodes(groupSessions<ListedSession>(list, null), null, later);
    assert.deepEqual(
      nodes.map((n) => [n.kind, n.label]),
      [
        ['agent', 'Claude Code'],
        ['agent', 'Codex CLI'],
        ['agent', 'Gemini CLI'],
        ['agent', 'Cline / Roo Code'],
        ['agent', 'GitHub Copilot CLI'],
      ],
      'in the registry order',
    );
    const rows = nodes.flatMap((a) => (a.children ?? []).flatMap((p) => p.children ?? []));
    const tagOf = new Map(list.map((s) => [s.file, `session${actionTags(s.agent)}`] as const));
    assert.deepEqual(
      rows.map((r) => r.contextValue),
      rows.map((r) => tagOf.get(r.file!)),
    );
    assert.deepEqual(
      rows.map((r) => r.contextValue.includes('.compact')),
      [true, true, false, false, false],
      'Claude Code and Codex sessions are compacted, the others read only',
    );
    assert.equal(new Set(rows.map((r) => r.id)).size, rows.length);
    // One agent only: the projects at the top, as the view always showed Claude Code's.
    const claudeOnly = sessionTreeNodes(
      groupSessions(
        list.filter((s) => s.agent === 'claude-code'),
        null,
      ),
      null,
    );
    assert.deepEqual(
      claudeOnly.map((n) => n.kind),
      ['project'],
    );
  });
});
