// Generates a rollout as today's Codex CLI (the pinned one) writes it, with the real CLI run offline against the
// scripted loopback fake: exec_command turns (cat, the tests, an apply_patch) on a small sample project, Codex's own
// (remote, auto) compaction, then `codex exec resume` turns (see test/support/codex-sessions.ts). Run it again after
// a version bump of the Codex CLI. Writes, into the output directory (a temp dir by default; never commit them):
//   rollout-…-<thread-id>.jsonl   the rollout Codex wrote
//   requests.json                 every POST /v1/responses body it sent, by step, with the fake's true size of each
//   steps.json                    each step's prompt, exit code and number of requests
//
// CLI: node --import tsx scripts/generate-today-codex-sessions.ts [--out DIR]
// Needs the pinned Codex binary (bash scripts/provision-codex.sh).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { countResponsesRequestTokens } from '../test/support/fake-responses';
import { generateCodexSession } from '../test/support/codex-sessions';

async function main(): Promise<void> {
  const outAt = process.argv.indexOf('--out');
  const out =
    outAt !== -1 && process.argv[outAt + 1]
      ? path.resolve(process.argv[outAt + 1])
      : fs.mkdtempSync(path.join(os.tmpdir(), 'today-codex-'));
  fs.mkdirSync(out, { recursive: true });
  const session = await generateCodexSession();
  try {
    const file = path.join(out, path.basename(session.rolloutFile));
    fs.copyFileSync(session.rolloutFile, file);
    const requests = session.steps.map((s) => ({
      step: s.name,
      requests: s.requests.map((r) => ({ tokens: countResponsesRequestTokens(r.body), body: r.body })),
    }));
    fs.writeFileSync(path.join(out, 'requests.json'), JSON.stringify(requests, null, 1) + '\n');
    const steps = session.steps.map((s) => ({
      step: s.name,
      prompt: s.prompt,
      config: s.config ?? [],
      exitCode: s.run.code,
      requests: s.requests.length,
    }));
    fs.writeFileSync(path.join(out, 'steps.json'), JSON.stringify({ steps }, null, 1) + '\n');
    process.stdout.write(`${file}\n`);
  } finally {
    await session.cleanup();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`generate-today-codex-sessions: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
