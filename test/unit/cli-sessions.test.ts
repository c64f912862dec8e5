// The `sessions`, `undo` and `restore` verbs as `agent-compactor` runs them (in this process; the bundle's own wiring:
// test/integration/cli.test.ts): every agent's sessions from a
// fake home folder holding real fixture files of each agent (copied into a temp folder, never into the repo), newest
// first, with the resume command where the agent has one; and Restore From Backup putting back the exact bytes.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { claudeFixtureDir, sharedFixtures } from '../support/fixtures';
import { buildTranscript } from '../support/reliability';
import { runCliInProcess } from '../support/cliInProcess';
import { tempDir } from '../support/temp';

const CLAUDE_ID = '0b6f3a52-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const CODEX_ID = '019ed917-1cf7-72a3-92f5-c0aa98fb134e';

/** The environment with no agent folder variable and no Anthropic key (runCliInProcess removes those), plus `extra`. */
const env = (extra: Record<string, string>): Record<string, string | undefined> => ({
  CODEX_HOME: undefined,
  CLAUDE_CONFIG_DIR: undefined,
  XDG_CONFIG_HOME: undefined,
  ...extra,
});
const run = (args: string[], extra: Record<string, string> = {}) => runCliInProcess(args, { env: env(extra) });
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

function place(src: string, dest: string, mtimeSec: number): string {
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(src, dest);
  utimesSync(dest, mtimeSec, mtimeSec);
  return dest;
}

/** The `cwd` of the first line of a Claude Code transcript that records one. */
function firstCwd(file: string): string {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      const o = JSON.parse(line) as { cwd?: unknown };
      if (typeof o.cwd === 'string' && o.cwd) return o.cwd;
    } catch {
      /* not a JSON line */
    }
  }
  throw new Error(`no cwd in ${file}`);
}

/** A prompt as a list shows it: one line, at most 100 characters. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 100);

const jsonLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);

interface Listed {
  agent: string;
  location?: string;
  file: string;
  size: number;
  modified: string;
  title: string | null;
  sessionId: string | null;
  cwd: string | null;
  resumeCommand: string | null;
}

describe('CLI sessions and restore', function () {
  let dir: string;
  let home: string;
  const claudeSrc = join(claudeFixtureDir, 'example.jsonl');
  const claudeCwd = firstCwd(claudeSrc);

  beforeEach(() => {
    dir = tempDir('ac-sessions-');
    home = join(dir, 'home');
    const t = 1_800_000_000;
    place(
      claudeSrc,
      join(home, '.claude', 'projects', claudeCwd.replace(/[^a-zA-Z0-9]/g, '-'), `${CLAUDE_ID}.jsonl`),
      t + 40,
    );
    place(
      join(sharedFixtures, 'codex', 'rollout-0.140.jsonl'),
      join(home, '.codex', 'sessions', '2026', '06', '18', `rollout-2026-06-18T04-57-11-${CODEX_ID}.jsonl`),
      t + 30,
    );
    place(
      join(sharedFixtures, 'gemini-cli', 'session-a.json'),
      join(home, '.gemini', 'tmp', 'a1b2c3', 'chats', 'session-a.json'),
      t + 20,
    );
    place(
      join(sharedFixtures, 'copilot-cli', 'events-1.0.64.jsonl'),
      join(home, '.copilot', 'session-state', '07c40cd0-ff51-4d6e-bdcd-ac2f90877203', 'events.jsonl'),
      t + 10,
    );
    // Cline and Roo Code tasks in VS Code's global storage (~/.config/Code/User/globalStorage on Linux).
    const storage = join(home, '.config', 'Code', 'User', 'globalStorage');
    for (const [ext, task, t2] of [
      ['saoudrizwan.claude-dev', '1769034370431', t + 5],
      ['rooveterinaryinc.roo-cline', '1769034370432', t + 4],
    ] as const) {
      for (const f of ['api_conversation_history.json', 'ui_messages.json'])
        place(join(sharedFixtures, 'cline', 'task-opus', f), join(storage, ext, 'tasks', task, f), t2);
    }
    // Not sessions: a Claude Code subagent file one level deeper, a Codex file not named rollout-*, Gemini's logs.
    place(claudeSrc, join(home, '.claude', 'projects', 'p', CLAUDE_ID, 'subagents', 'agent-1.jsonl'), t + 50);
    place(claudeSrc, join(home, '.codex', 'sessions', '2026', '06', '18', 'history.jsonl'), t + 50);
    place(
      join(sharedFixtures, 'gemini-cli', 'session-a.json'),
      join(home, '.gemini', 'tmp', 'a1b2c3', 'logs.json'),
      t + 50,
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const list = async (args: string[] = [], extra: Record<string, string> = {}): Promise<Listed[]> => {
    const r = await run(['sessions', '--json', ...args], { HOME: home, ...extra });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as Listed[];
  };

  it("lists every agent's sessions from the home folder, newest first, with the resume command where the agent has one", async () => {
    const all = await list();
    assert.deepEqual(
      all.map((s) => s.agent),
      ['claude-code', 'codex', 'gemini-cli', 'copilot-cli', 'cline', 'cline'],
    );
    const [claude, codex, gemini, copilot, cline, roo] = all;
    assert.equal(claude.sessionId, CLAUDE_ID);
    assert.equal(claude.cwd, claudeCwd);
    assert.ok(claude.title && claude.title.length > 0, 'a Claude Code session has a title');
    assert.ok(
      claude.resumeCommand?.endsWith(`claude --resume ${CLAUDE_ID}`),
      claude.resumeCommand ?? 'no resume command',
    );
    assert.equal(codex.sessionId, CODEX_ID);
    assert.equal(codex.cwd, '/home/entity/projects/EntityProcess/agentv');
    assert.equal(codex.resumeCommand, `cd /home/entity/projects/EntityProcess/agentv && codex resume ${CODEX_ID}`);
    for (const s of [gemini, copilot, cline, roo]) assert.equal(s.resumeCommand, null);
    // Each agent's title is what its file records first: the first prompt (Codex's user_message event, Gemini's first
    // user message, Copilot's user.message, the task Cline was given); and its id and folder where it records them.
    const codexPrompt = jsonLines(join(sharedFixtures, 'codex', 'rollout-0.140.jsonl')).find(
      (r) => r.type === 'event_msg' && r.payload.type === 'user_message',
    )!.payload.message as string;
    assert.equal(codex.title, oneLine(codexPrompt));
    const chat = JSON.parse(readFileSync(join(sharedFixtures, 'gemini-cli', 'session-a.json'), 'utf8'));
    assert.equal(gemini.title, oneLine(chat.messages.find((m: any) => m.type === 'user').content));
    assert.equal(gemini.sessionId, chat.sessionId);
    const events = jsonLines(join(sharedFixtures, 'copilot-cli', 'events-1.0.64.jsonl'));
    assert.equal(copilot.title, oneLine(events.find((e) => e.type === 'user.message')!.data.content));
    const start = events.find((e) => e.type === 'session.start')!.data;
    assert.equal(copilot.sessionId, start.sessionId);
    assert.equal(copilot.cwd, start.context.cwd);
    const task = JSON.parse(
      readFileSync(join(sharedFixtures, 'cline', 'task-opus', 'api_conversation_history.json'), 'utf8'),
    )[0].content[0].text as string;
    assert.equal(cline.title, oneLine(/<task>([\s\S]*?)<\/task>/.exec(task)![1]));
    assert.equal(cline.sessionId, '1769034370431');
    assert.equal(cline.cwd, '/workspaces/Online-Card-Architecture');
    assert.equal(cline.location, 'Cline');
    assert.equal(roo.location, 'Roo Code');
    assert.equal(roo.sessionId, '1769034370432');
    assert.equal(copilot.size, readFileSync(join(sharedFixtures, 'copilot-cli', 'events-1.0.64.jsonl')).length);
    assert.equal(gemini.modified, new Date(1_800_000_020_000).toISOString());
    const text = await run(['sessions'], { HOME: home });
    assert.equal(text.status, 0, text.stderr);
    assert.ok(
      text.stdout.includes(`resume: cd /home/entity/projects/EntityProcess/agentv && codex resume ${CODEX_ID}`),
      text.stdout,
    );
    assert.equal(text.stdout.split('\n').filter((l) => /^\d{4}-/.test(l)).length, 6);
  });

  it('--agent picks one agent, --limit caps the list, and CODEX_HOME and CLAUDE_CONFIG_DIR move the folders', async () => {
    assert.deepEqual(
      (await list(['--agent', 'codex'])).map((s) => s.sessionId),
      [CODEX_ID],
    );
    assert.deepEqual(
      (await list(['--limit', '2'])).map((s) => s.agent),
      ['claude-code', 'codex'],
    );
    const moved = await list([], { CODEX_HOME: join(dir, 'nowhere'), CLAUDE_CONFIG_DIR: join(home, '.gemini') });
    assert.deepEqual(
      moved.map((s) => s.agent),
      ['gemini-cli', 'copilot-cli', 'cline', 'cline'],
    );
    assert.deepEqual(
      (await list(['--agent', 'cline'])).map((s) => s.location),
      ['Cline', 'Roo Code'],
    );
    assert.deepEqual(
      (await list(['--agent', 'cline'], { XDG_CONFIG_HOME: join(dir, 'nowhere') })).map((s) => s.location),
      [],
    );
    const bad = await run(['sessions', '--agent', 'roo'], { HOME: home });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--agent must be one of/);
    assert.equal((await run(['sessions', '--limit', '0'], { HOME: home })).status, 2);
  });

  describe('undo', () => {
    const SMALL = ['--target-tokens', '6000', '--keep-recent-tokens', '2000', '--max-result-chars', '1000'];
    let transcript: string;
    beforeEach(() => {
      transcript = join(dir, 's.jsonl');
      writeFileSync(
        transcript,
        buildTranscript({ rounds: 16, textChars: 1_500, resultChars: (r) => (r % 4 === 0 ? 3_000 : 300) }).join('\n') +
          '\n',
      );
    });

    it('after compact --in-place, puts back the exact bytes and the sidecars as they were; then there is nothing left to undo', async () => {
      const before = sha(transcript);
      const c = await run(['compact', transcript, '--in-place', ...SMALL]);
      assert.equal(c.status, 0, c.stderr);
      assert.notEqual(sha(transcript), before);
      const r = await run(['undo', transcript, '--json']);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(sha(transcript), before);
      assert.ok(!existsSync(join(dir, 's.compactor-state.json')), 'the state file the compaction created is gone');
      assert.ok(
        !existsSync(join(dir, 's.tool-results')) || readdirSync(join(dir, 's.tool-results')).length === 0,
        'no saved tool results are left',
      );
      const again = await run(['undo', transcript]);
      assert.equal(again.status, 2);
      assert.match(again.stderr, /no record of a compaction to undo/);
    });

    it('the same with the transcript named by a relative path (the record is kept however the file was named)', async () => {
      const before = sha(transcript);
      const inDir = (args: string[]) => runCliInProcess(args, { env: env({}), cwd: dir });
      const c = await inDir(['compact', 's.jsonl', '--in-place', ...SMALL]);
      assert.equal(c.status, 0, c.stderr);
      assert.ok(existsSync(join(dir, 's.compactor-undo.json')), 'the compaction is recorded for undo');
      const r = await inDir(['undo', 's.jsonl']);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(sha(transcript), before);
    });

    it('after a fork, removes the fork and every file it wrote, and leaves the original byte for byte', async () => {
      const before = sha(transcript);
      const files = readdirSync(dir).sort();
      const c = await run(['compact', transcript, ...SMALL, '--json']);
      assert.equal(c.status, 0, c.stderr);
      const fork = (JSON.parse(c.stdout) as { output: string }).output;
      assert.ok(existsSync(fork));
      const r = await run(['undo', transcript]);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(readdirSync(dir).sort(), files, 'the folder holds exactly what it held before the compaction');
      assert.equal(sha(transcript), before);
    });

    it('refuses (exit 2, nothing changed) a fork that was written to since, and a record naming a file outside the folder', async () => {
      const c = await run(['compact', transcript, ...SMALL, '--json']);
      assert.equal(c.status, 0, c.stderr);
      const fork = (JSON.parse(c.stdout) as { output: string }).output;
      appendFileSync(fork, '{"type":"user","message":{"role":"user","content":"resumed"}}\n');
      const resumed = sha(fork);
      const r = await run(['undo', transcript]);
      assert.equal(r.status, 2);
      assert.match(r.stderr, /changed since the compaction wrote it/);
      assert.equal(sha(fork), resumed);
      const victim = join(home, 'victim.txt');
      writeFileSync(victim, 'keep me\n');
      const record = join(dir, 's.compactor-undo.json');
      const planted = { ...(JSON.parse(readFileSync(record, 'utf8')) as object), output: '../home/victim.txt' };
      writeFileSync(record, JSON.stringify(planted));
      const p = await run(['undo', transcript]);
      assert.equal(p.status, 2);
      assert.match(p.stderr, /not a plain name/);
      assert.equal(readFileSync(victim, 'utf8'), 'keep me\n');
    });
  });

  describe('restore', () => {
    const SMALL = ['--target-tokens', '6000', '--keep-recent-tokens', '2000', '--max-result-chars', '1000'];
    let transcript: string;
    beforeEach(() => {
      transcript = join(dir, 's.jsonl');
      writeFileSync(
        transcript,
        buildTranscript({ rounds: 16, textChars: 1_500, resultChars: (r) => (r % 4 === 0 ? 3_000 : 300) }).join('\n') +
          '\n',
      );
    });

    it('after compact --in-place, puts back the exact bytes and removes the state file the compaction created; the restore is itself restorable', async () => {
      const before = sha(transcript);
      const c = await run(['compact', transcript, '--in-place', ...SMALL]);
      assert.equal(c.status, 0, c.stderr);
      const compacted = sha(transcript);
      assert.notEqual(compacted, before, 'the compaction changed the file');
      assert.ok(existsSync(join(dir, 's.compactor-state.json')), 'the compaction wrote a state file');
      const r = await run(['restore', transcript, '--json']);
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { restored: string; replacedBackup: string };
      assert.equal(sha(transcript), before);
      assert.ok(
        !existsSync(join(dir, 's.compactor-state.json')),
        'the state file is gone again, as before the compaction',
      );
      assert.equal(sha(out.replacedBackup), compacted, 'the replaced content was backed up');
      const back = await run(['restore', transcript, '--backup', out.replacedBackup]);
      assert.equal(back.status, 0, back.stderr);
      assert.equal(sha(transcript), compacted);
    });

    it("refuses with a reason (exit 2) a transcript without backups, a fork, another agent's file and a file that is not one of its backups", async () => {
      const c = await run(['compact', transcript, ...SMALL, '--json']);
      assert.equal(c.status, 0, c.stderr);
      const fork = (JSON.parse(c.stdout) as { output: string }).output;
      for (const file of [transcript, fork, join(home, '.gemini', 'tmp', 'a1b2c3', 'chats', 'session-a.json')]) {
        const before = sha(file);
        const r = await run(['restore', file]);
        assert.equal(r.status, 2, r.stderr);
        // Another agent's file: its module says Agent Compactor never writes it (before looking for backups).
        assert.match(r.stderr, file.endsWith('.json') ? /are never written by Agent Compactor/ : /has no backups/);
        assert.equal(sha(file), before);
      }
      assert.ok((await run(['compact', transcript, '--in-place', ...SMALL])).status === 0);
      const other = join(dir, 'other.jsonl.bak-20260101T000000Z');
      writeFileSync(other, 'x\n');
      const compacted = sha(transcript);
      const files = readdirSync(dir).sort();
      const r = await run(['restore', transcript, '--backup', other]);
      assert.equal(r.status, 2);
      assert.match(r.stderr, /is not a backup of/);
      assert.equal(sha(transcript), compacted);
      assert.deepEqual(readdirSync(dir).sort(), files, 'a refused restore writes nothing, not even a backup');
    });
  });
});
