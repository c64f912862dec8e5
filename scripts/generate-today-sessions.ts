// Generates a session as today's Claude Code (the pinned one) writes it, with the real CLI run offline against
// the scripted loopback fake: Read (large files, an image), Bash, Edit and Agent turns with thinking on a sample
// project, its own /compact, more turns, a plain --resume and a --fork-session (see test/support/today-sessions.ts).
// Writes, into the output directory (a temp dir by default; never commit generated sessions):
//   <session-id>.jsonl   the session file Claude Code wrote (and the --fork-session's file, named by its id)
//   requests.json        every /v1/messages request body it sent, by step, with the fake's true size of each
//   steps.json           each step's prompt, exit code, duration, and the slash commands that ran headless
//
// CLI: node --import tsx scripts/generate-today-sessions.ts [--out DIR]
// Needs the pinned Claude Code binary (bash scripts/provision-claude-code.sh).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { countRequestTokens } from '../test/support/fake-anthropic';
import { generateTodaySession } from '../test/support/today-sessions';

async function main(): Promise<void> {
  const outAt = process.argv.indexOf('--out');
  const out =
    outAt !== -1 && process.argv[outAt + 1]
      ? path.resolve(process.argv[outAt + 1])
      : fs.mkdtempSync(path.join(os.tmpdir(), 'today-sessions-'));
  fs.mkdirSync(out, { recursive: true });
  const session = await generateTodaySession();
  try {
    const file = path.join(out, `${session.sessionId}.jsonl`);
    fs.copyFileSync(session.sessionFile, file);
    if (session.forkFile) fs.copyFileSync(session.forkFile, path.join(out, path.basename(session.forkFile)));
    const requests = session.steps.map((s) => ({
      step: s.name,
      requests: s.requests.map((r) => ({ tokens: countRequestTokens(r.body), body: r.body as unknown })),
    }));
    fs.writeFileSync(path.join(out, 'requests.json'), JSON.stringify(requests, null, 1) + '\n');
    const steps = session.steps.map((s) => ({
      step: s.name,
      prompt: s.prompt,
      exitCode: s.run.exitCode,
      durationMs: s.run.durationMs,
      requests: s.requests.length,
    }));
    fs.writeFileSync(
      path.join(out, 'steps.json'),
      JSON.stringify({ steps, slashCommands: session.slashCommands }, null, 1) + '\n',
    );
    process.stdout.write(`${file}\n`);
    for (const c of session.slashCommands)
      process.stdout.write(`${c.command}: ${c.ran ? 'ran headless' : 'did not run headless'} (${c.detail})\n`);
  } finally {
    session.cleanup();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`generate-today-sessions: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
