/**
 * A Codex fork's cost, judged on a fork the REAL Codex CLI (the pinned one) writes (issue 33, item 2): each shared
 * Codex fixture placed in a private Codex home as a thread of its own, forked with `codex exec fork <id> <prompt>`
 * offline against the fake Responses API. Codex writes the fork of such a (legacy) thread as its own session_meta
 * naming `forked_from_id`, then every record of the original, then its own turn. The fork's cost is the requests it
 * sent itself: as many responses as the fake answered during the fork's run, the original's all counted as copies,
 * and the original's own cost unchanged.
 *
 * Run: bash scripts/provision-codex.sh && npx mocha --config test/compat/.mocharc.json test/compat/codex-fork-cost.test.ts
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analysisCost } from '../../src/core/contextMap';
import { inspectFile } from '../../src/core/inspect';
import { makeCodexHome, requireCodexBinary, runCodex } from '../support/codex';
import { codexExecArgs, findRollouts } from '../support/codex-sessions';
import { startFakeResponses } from '../support/fake-responses';
import { agentFixtures } from '../support/fixtures';

describe('a fork the real Codex CLI writes costs only the requests it sent itself', function () {
  this.timeout(600_000);
  before(() => requireCodexBinary());

  for (const original of agentFixtures('codex').filter((f) => /rollout-0\.14[02]\.jsonl$/.test(f))) {
    it(`codex exec fork of ${path.basename(original)}`, async () => {
      const meta = JSON.parse(fs.readFileSync(original, 'utf8').split('\n')[0]) as { payload: { id: string } };
      const id = meta.payload.id;
      const fake = await startFakeResponses('Forked; carrying on.');
      const home = makeCodexHome(fake);
      try {
        const placed = path.join(home.sessionsDay, `rollout-2026-01-02T00-00-00-${id}.jsonl`);
        fs.copyFileSync(original, placed);
        const args = codexExecArgs('And now?', null);
        const run = await runCodex(home, fake, [...args.slice(0, -1), 'fork', id, 'And now?']);
        assert.equal(run.code, 0, run.stderr.slice(-2000));
        const fork = findRollouts(home.codexHome).find((f) => f !== placed);
        assert.ok(fork, 'Codex wrote the fork');
        const lines = fs.readFileSync(fork, 'utf8').split('\n');
        assert.ok(lines[0].includes(`"forked_from_id":"${id}"`), 'its session_meta names the original');
        assert.ok(
          lines.some((l) => l.includes('"type":"session_meta"') && l.includes(`"id":"${id}"`)),
          "it holds the original's records",
        );

        const theirs = analysisCost(await inspectFile(original));
        const ours = analysisCost(await inspectFile(fork));
        const sent = fake.responsesRequests().length;
        assert.ok(sent > 0, 'the fork sent a request');
        assert.equal(ours.responses.size, sent, 'a response for each request the fork sent, and no other');
        assert.equal(ours.copiedResponses, theirs.responses.size, 'every response of the original is a copy');
        assert.ok(ours.total.usd > 0 && ours.total.usd < theirs.total.usd, `fork $${ours.total.usd}`);
        const again = analysisCost(await inspectFile(placed));
        assert.equal(again.total.usd, theirs.total.usd, 'the original keeps its cost');
      } finally {
        await fake.close();
        fs.rmSync(home.root, { recursive: true, force: true });
      }
    });
  }
});
