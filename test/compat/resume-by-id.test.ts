// Resume by the printed session id, as a user does: the session lives in Claude Code's normal home layout
// (`~/.claude/projects/<project>/<id>.jsonl`), `agent-compactor compact` writes a fork beside it (or compacts it in
// place), and the command it prints — `cd <cwd> && claude --resume <id>` — is what runs the real Claude Code. No
// copying, no renaming. Compacted three times in a row, each result resumed by its own printed id.
//
// The test is about what the real Claude Code does with what `compact` writes and prints, so the command runs in this
// process (`runCliInProcess`: main() as `agent-compactor` calls it, its output captured), and the jobs, each in its own
// HOME, run two at a time, each lane with its own fake server (./lanes.ts).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  checkRequestInvariants,
  contentTexts,
  projectDirName,
  requireClaudeBinary,
  spawnClaude,
} from '../support/claude-code';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { runCliInProcess } from '../support/cliInProcess';
import { claudeFixtures, fixture } from '../support/fixtures';
import { activeSummary } from '../support/summaries';
import { inspectFile } from '../../src/core/inspect';
import { planCompaction } from '../../src/core/compact/plan';
import { LANES, Lanes } from './lanes';
import { tempDir } from '../support/temp';

/** A session derived from a fixture as it would sit on a user's machine: started in `cwd`, stored under `id`. */
function placeSession(source: string, home: string, cwd: string, id: string): string {
  const lines = fs
    .readFileSync(source, 'utf8')
    .split('\n')
    .map((line) => {
      try {
        const o = JSON.parse(line) as Record<string, unknown>;
        if (typeof o.cwd === 'string') o.cwd = cwd;
        if (typeof o.sessionId === 'string') o.sessionId = id;
        return JSON.stringify(o);
      } catch {
        return line; // malformed lines stay as they are
      }
    });
  const dir = path.join(home, '.claude', 'projects', projectDirName(cwd));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${id}.jsonl`);
  fs.writeFileSync(file, lines.join('\n'));
  return file;
}

interface Printed {
  output: string;
  sessionId: string;
  cwd: string;
  resumeCommand: string;
  text: string;
}

async function compactOrNothing(
  file: string,
  extra: string[],
): Promise<Printed | { nothingToDo: true; message: string }> {
  const json = await runCliInProcess(['compact', file, '--json', ...extra]);
  assert.equal(json.status, 0, json.stderr);
  const r = JSON.parse(json.stdout) as Printed & { nothingToDo?: true; message: string };
  if (r.nothingToDo) return { nothingToDo: true, message: r.message };
  assert.ok(r.resumeCommand, `compact printed no resume command: ${json.stdout.slice(0, 400)}`);
  return { ...r, text: '' };
}

async function compact(file: string, extra: string[]): Promise<Printed> {
  const json = await runCliInProcess(['compact', file, '--json', ...extra]);
  assert.equal(json.status, 0, json.stderr);
  const r = JSON.parse(json.stdout) as Printed;
  assert.ok(r.resumeCommand, `compact printed no resume command: ${json.stdout.slice(0, 400)}`);
  return { ...r, text: '' };
}

/** `cd <cwd> && claude --resume <id>` → the folder and the id, exactly as printed. */
function parseResume(cmd: string): { cwd: string; id: string } {
  const m = /^cd (.+) && claude --resume ([0-9a-f-]{36})$/.exec(cmd);
  assert.ok(m, `resume command: ${cmd}`);
  const cwd = m[1].startsWith("'") ? m[1].slice(1, -1).replace(/'\\''/g, "'") : m[1];
  return { cwd, id: m[2] };
}

describe('compat: resume by the printed session id in the normal home layout (real Claude Code)', function () {
  this.timeout(600_000);
  const lanes = new Lanes<FakeAnthropic>();
  const fakes: FakeAnthropic[] = [];
  let root: string;
  before(async () => {
    requireClaudeBinary();
    root = fs.realpathSync(tempDir('ac-resume-id-'));
    for (let i = 0; i < LANES; i++) fakes.push(await startFakeAnthropic());
    await lanes.run(fakes);
  });
  after(async () => {
    for (const fake of fakes) await fake.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  for (const [mode, extra] of [
    ['forks', []],
    ['in place', ['--in-place']],
  ] as const) {
    lanes.it(
      `with-compactions.jsonl compacted three times (${mode}), each result resumed by its printed id`,
      async (fake) => {
        const base = path.join(root, mode.replace(' ', '-'));
        const home = path.join(base, 'home');
        const cwd = path.join(base, 'my project');
        const tmp = path.join(base, 'tmp');
        for (const d of [home, cwd, tmp]) fs.mkdirSync(d, { recursive: true });
        const firstId = '3f9d2c61-7b4e-4a8f-9c1d-2e5b6a7c8d90';
        let file = placeSession(fixture('with-compactions.jsonl'), home, cwd, firstId);
        const projectDir = path.dirname(file);
        const seenIds = new Set<string>();
        for (const [step, target] of [80_000, 30_000, 22_000].entries()) {
          const before = new Set(fs.readdirSync(projectDir));
          const parentBytes = fs.readFileSync(file);
          const printed = await compact(file, [
            '--target-tokens',
            String(target),
            '--max-result-chars',
            '4000',
            ...extra,
          ]);
          const { cwd: printedCwd, id } = parseResume(printed.resumeCommand);
          assert.equal(printedCwd, cwd, 'the printed folder is where the session was started');
          assert.equal(id, printed.sessionId);
          assert.equal(path.dirname(printed.output), projectDir, 'the result sits in the project folder');
          assert.equal(path.basename(printed.output), `${id}.jsonl`, 'the file is named by the printed id');
          if (mode === 'forks') {
            assert.ok(!seenIds.has(id) && !before.has(`${id}.jsonl`), 'a new session id');
            assert.ok(fs.readFileSync(file).equals(parentBytes), 'the parent session is untouched');
          } else assert.equal(id, firstId, 'in place keeps the session id');
          seenIds.add(id);

          // Run exactly what was printed: the folder and the id, nothing copied or renamed.
          const prompt = `continue after compaction ${step + 1}`;
          fake.clearRequests();
          const run = await spawnClaude({
            bin: requireClaudeBinary(),
            args: ['-p', '--resume', id, prompt],
            cwd: printedCwd,
            home,
            tmp,
            fake,
          });
          assert.equal(run.exitCode, 0, `claude exited ${run.exitCode}: ${run.stderr}${run.stdout}`);
          const main = fake.messageRequests().find((r) => JSON.stringify(r.body?.messages ?? '').includes(prompt));
          assert.ok(main, 'Claude Code sent the resumed conversation');
          const first = (main.body.messages as { role: string; content: unknown }[]).find((m) => m.role === 'user');
          assert.ok(
            first && contentTexts(first.content).join('\n').startsWith('This session is being continued'),
            'the resumed request starts from the summary',
          );
          assert.deepEqual(checkRequestInvariants(main.body), [], 'the request Claude Code built is valid');
          // Every earlier summary survives: the fixture's own (inside ours, quoted whole) is in the request.
          assert.ok(
            JSON.stringify(main.body.messages).includes('Let me chronologically analyze'),
            'the earlier summary is in the resumed context',
          );
          file = printed.output;
        }
      },
    );
  }

  for (const source of claudeFixtures()) {
    lanes.it(
      `${path.basename(source)}: three forks in a row, each resumed by its printed id, every earlier summary in the request`,
      async (fake) => {
        const base = path.join(root, `all-${path.basename(source, '.jsonl')}`);
        const home = path.join(base, 'home');
        const cwd = path.join(base, 'project');
        const tmp = path.join(base, 'tmp');
        for (const d of [home, cwd, tmp]) fs.mkdirSync(d, { recursive: true });
        let file = placeSession(source, home, cwd, '0b6c3e2a-4d5f-4a1b-8c9d-7e6f5a4b3c2d');
        let written = 0;
        for (const [step, share] of [0.6, 0.45, 0.3].entries()) {
          const plan = await planCompaction(await inspectFile(file, { subagents: false }), {
            targetTokens: 10_000_000,
          });
          const target = Math.max(1_000, Math.round(plan.overheadTokens + plan.preTokens * share));
          const earlier = await activeSummary(file);
          const printed = await compactOrNothing(file, [
            '--target-tokens',
            String(target),
            '--max-result-chars',
            '4000',
          ]);
          if ('nothingToDo' in printed) {
            // Only a context too small to gain from a summary (or one already within the target) writes nothing.
            assert.ok(/^Nothing to (gain|compact)/.test(printed.message), printed.message);
            break;
          }
          written++;
          const { cwd: printedCwd, id } = parseResume(printed.resumeCommand);
          assert.equal(printedCwd, cwd);
          assert.equal(
            printed.output,
            path.join(path.dirname(file), `${id}.jsonl`),
            'a fork beside its parent, named by the printed id',
          );
          const prompt = `resume step ${step + 1}`;
          fake.clearRequests();
          const run = await spawnClaude({
            bin: requireClaudeBinary(),
            args: ['-p', '--resume', id, prompt],
            cwd: printedCwd,
            home,
            tmp,
            fake,
          });
          assert.equal(run.exitCode, 0, `claude exited ${run.exitCode}: ${run.stderr}${run.stdout}`);
          const main = fake.messageRequests().find((r) => JSON.stringify(r.body?.messages ?? '').includes(prompt));
          assert.ok(main, 'Claude Code sent the resumed conversation');
          assert.deepEqual(checkRequestInvariants(main.body), [], 'the request Claude Code built is valid');
          const sent = (main.body.messages as { content: unknown }[])
            .map((m) => contentTexts(m.content).join('\n'))
            .join('\n');
          assert.ok(sent.startsWith('This session is being continued'), 'the request starts from the summary');
          if (earlier !== null)
            assert.ok(
              sent.includes(earlier),
              `the earlier summary (${earlier.length} characters) is in the resumed request`,
            );
          file = printed.output;
        }
        assert.ok(
          written >= 1 ||
            (await planCompaction(await inspectFile(source, { subagents: false }), { targetTokens: 10_000_000 }))
              .preTokens < 2_000,
          'a session of any size compacts at least once',
        );
      },
    );
  }

  // Steered by hand: one old round pinned, one dropped, the rest summarized up to the newest rounds, and a summary
  // text of the user's own. Claude Code resumes the result with a valid request holding exactly those choices.
  for (const source of claudeFixtures()) {
    lanes.it(
      `${path.basename(source)}: steered by hand (--keep, --drop, --summarize, --summary-file), resumed by its printed id`,
      async (fake) => {
        const base = path.join(root, `steer-${path.basename(source, '.jsonl')}`);
        const home = path.join(base, 'home');
        const cwd = path.join(base, 'project');
        const tmp = path.join(base, 'tmp');
        for (const d of [home, cwd, tmp]) fs.mkdirSync(d, { recursive: true });
        const file = placeSession(source, home, cwd, '5a1c7e3b-2d4f-4e6a-9b8c-1d2e3f4a5b6c');
        const analysis = await inspectFile(file, { subagents: false });
        const active = analysis.rounds.filter((r) => r.inContext && !r.startsAtBoundary).map((r) => r.index);
        const lines = fs.readFileSync(file, 'utf8').split('\n');
        const callsOf = (ri: number) => analysis.rounds[ri].toolUses.map((u) => u.id);
        const textsOf = (ri: number) =>
          analysis.rounds[ri].entries
            .filter((e) => analysis.index.entries[e].kind === 'assistant')
            .flatMap((e) => {
              try {
                const c = (JSON.parse(lines[analysis.index.entries[e].line - 1]) as { message?: { content?: unknown } })
                  .message?.content;
                return Array.isArray(c)
                  ? (c as { type?: string; text?: string }[])
                      .filter((b) => b.type === 'text' && b.text?.trim())
                      .map((b) => b.text!)
                  : [];
              } catch {
                return [];
              }
            });
        assert.ok(active.length >= 2, `${active.length} active rounds`);
        const pinned = active[0];
        const dropped = active.length >= 4 ? active[1] : null;
        const summarized = active.length >= 5 ? [active[2], active[active.length - 3]] : null;
        const summaryFile = path.join(base, 'summary.md');
        const summary = `My own summary of ${path.basename(source)}: keep the parser as it is, ünïcödé ✓, "quoted".\n`;
        fs.writeFileSync(summaryFile, summary);
        const flags = [
          '--keep',
          String(pinned),
          '--summary-file',
          summaryFile,
          '--target-tokens',
          '1000',
          '--keep-recent-tokens',
          '1',
        ];
        if (dropped !== null) flags.push('--drop', String(dropped));
        if (summarized) flags.push('--summarize', `${summarized[0]}-${summarized[1]}`);
        const printed = await compactOrNothing(file, flags);
        if ('nothingToDo' in printed) {
          // Only a context too small to gain from any summary writes nothing.
          assert.ok(
            /^Nothing to gain/.test(printed.message) &&
              analysis.report.rounds.reduce((s, r) => s + (r.inContext ? r.tokens.estimate : 0), 0) < 2_000,
            printed.message,
          );
          return;
        }
        const { cwd: printedCwd, id } = parseResume(printed.resumeCommand);
        const prompt = 'continue after steering by hand';
        fake.clearRequests();
        const run = await spawnClaude({
          bin: requireClaudeBinary(),
          args: ['-p', '--resume', id, prompt],
          cwd: printedCwd,
          home,
          tmp,
          fake,
        });
        assert.equal(run.exitCode, 0, `claude exited ${run.exitCode}: ${run.stderr}${run.stdout}`);
        const main = fake.messageRequests().find((r) => JSON.stringify(r.body?.messages ?? '').includes(prompt));
        assert.ok(main, 'Claude Code sent the resumed conversation');
        assert.deepEqual(checkRequestInvariants(main.body), [], 'the request Claude Code built is valid');
        const sent = (main.body.messages as { content: unknown }[])
          .map((m) => contentTexts(m.content).join('\n'))
          .join('\n');
        const raw = JSON.stringify(main.body.messages);
        // Claude Code moves attachments (a pinned first round's reminders) ahead of the text in the same user message.
        const firstUser = (main.body.messages as { role: string; content: unknown }[]).find((m) => m.role === 'user');
        assert.ok(
          firstUser && contentTexts(firstUser.content).some((t) => t.startsWith('This session is being continued')),
          `the request starts from the summary: ${sent.slice(0, 300)}`,
        );
        assert.ok(sent.includes(summary.trimEnd()), 'the summary is the text given');
        for (const t of textsOf(pinned))
          assert.ok(sent.includes(t.trim().slice(0, 200)), `the pinned round ${pinned} is in the request`);
        for (const c of callsOf(pinned))
          assert.ok(raw.includes(c), `the pinned round's tool call ${c} is in the request`);
        if (dropped !== null)
          for (const c of callsOf(dropped))
            assert.ok(!raw.includes(c), `the dropped round's tool call ${c} is not in the request`);
      },
    );
  }
});
