// Verbs that are not offered for every agent say so plainly, through the CLI (in this process): doctor and repair model
// Claude Code's loader, so on a Codex rollout, a Gemini CLI chat, a Cline task or a Copilot CLI session they exit 2
// with the reason (they used to report Claude Code's view of the file: a Codex rollout was "healthy"), write nothing,
// and undo and restore say there is nothing Agent Compactor wrote; a Claude Code transcript is checked as before.
import { strict as assert } from 'node:assert';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { repairFile } from '../../src/core/repair/repair';
import { CompactError } from '../../src/core/compact/types';
import { claudeFixtureDir, sharedFixtures } from '../support/fixtures';
import { runCliInProcess } from '../support/cliInProcess';
import { tempDir } from '../support/temp';

/** The verb as `agent-compactor` runs it, in this process (the bundle's own wiring: test/integration/cli.test.ts). */
const run = (args: string[]) => runCliInProcess(args);

describe('CLI verbs gated by the agent module capabilities', function () {
  this.timeout(300_000);
  let dir: string;
  const files: Record<string, string> = {};

  before(() => {
    dir = tempDir('ac-capabilities-');
    const copy = (src: string, name: string) => {
      const sub = join(dir, name);
      mkdirSync(sub);
      copyFileSync(src, join(sub, basename(src)));
      return join(sub, basename(src));
    };
    files['Codex CLI'] = copy(join(sharedFixtures, 'codex', 'rollout-0.142.jsonl'), 'codex');
    files['Gemini CLI'] = copy(join(sharedFixtures, 'gemini-cli', 'session-a.json'), 'gemini');
    files['GitHub Copilot CLI'] = copy(join(sharedFixtures, 'copilot-cli', 'events-1.0.64.jsonl'), 'copilot');
    files['Cline / Roo Code'] = copy(
      join(sharedFixtures, 'cline', 'task-opus', 'api_conversation_history.json'),
      'cline',
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const listing = () => readdirSync(dir, { recursive: true }).map(String).sort();

  it('doctor and repair exit 2 on every other agent, naming the agent and why, and write nothing', async () => {
    const before = listing();
    for (const [agent, file] of Object.entries(files)) {
      for (const verb of ['doctor', 'repair']) {
        for (const json of [[], ['--json']]) {
          const r = await run([verb, file, ...json]);
          assert.equal(r.status, 2, `${verb} ${agent}: ${r.stdout}${r.stderr}`);
          assert.equal(r.stdout, '', `${verb} ${agent} printed a report`);
          assert.ok(r.stderr.includes(agent), `${verb} ${agent}: ${r.stderr}`);
          assert.match(r.stderr, /is not available|are not available/, r.stderr);
        }
      }
    }
    assert.deepEqual(listing(), before);
  });

  it('undo and restore on an agent Agent Compactor never writes say so (exit 2)', async () => {
    for (const agent of ['Gemini CLI', 'GitHub Copilot CLI', 'Cline / Roo Code']) {
      for (const verb of ['undo', 'restore']) {
        const r = await run([verb, files[agent]]);
        assert.equal(r.status, 2, `${verb} ${agent}: ${r.stdout}${r.stderr}`);
        assert.match(r.stderr, /never written by Agent Compactor/, r.stderr);
      }
    }
  });

  it('the core refuses to repair a Codex rollout with the reason', async () => {
    await assert.rejects(
      repairFile(files['Codex CLI']),
      (err: unknown) =>
        err instanceof CompactError && err.code === 'unsupported-format' && /Codex CLI/.test(err.message),
    );
  });

  it('doctor still checks a Claude Code transcript', async () => {
    const r = await run(['doctor', join(claudeFixtureDir, 'example.jsonl'), '--json']);
    assert.ok(r.status === 0 || r.status === 1, r.stderr);
    const report = JSON.parse(r.stdout) as { totalMessages: number };
    assert.ok(report.totalMessages > 0);
  });
});
