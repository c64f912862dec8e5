// The real Claude Code (the pinned one) run offline against the fake API, starting a new session with no model chosen
// and with each model it knows of today: the model its request names is in our price table (its default one is not
// "unpriced" and not "assumed"), and our cost of the session file it wrote agrees with the running total it records
// itself in its `cost-state` lines. Each kind of token (input, output, cache writes, cache reads) is billed in every
// run, in different amounts, so a wrong rate for any of them shows.
//
// The tests, each in its own HOME, run two at a time, each lane with its own fake (./lanes.ts).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { costNotes, costOfUsage, priceFor, sessionCost } from '../../src/core/cost';
import { indexTranscript } from '../../src/core/transcript';
import { sessionStats } from '../../src/core/sessionStats';
import { requireClaudeBinary, spawnClaude } from '../support/claude-code';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { CLAUDE_CODE_VERSION } from '../support/pins';
import { LANES, Lanes } from './lanes';
import { tempDir } from '../support/temp';

const USAGE = {
  input_tokens: 12_345,
  output_tokens: 6_789,
  cache_creation_input_tokens: 23_456,
  cache_read_input_tokens: 98_765,
};

interface Run {
  /** The model of every request Claude Code sent. */
  requested: string[];
  file: string;
  root: string;
}

/** A new session (`claude -p`), then one resumed turn, so the file holds two responses and two cost-state lines. */
async function newSession(fake: FakeAnthropic, modelArgs: string[]): Promise<Run> {
  const bin = requireClaudeBinary();
  const root = fs.realpathSync(tempDir('ac-agent-cost-'));
  const home = path.join(root, 'home');
  const tmp = path.join(root, 'tmp');
  const cwd = path.join(root, 'project');
  for (const d of [home, tmp, cwd]) fs.mkdirSync(d, { recursive: true });
  fake.clearRequests();
  const first = await spawnClaude({ bin, args: ['-p', ...modelArgs, 'say hello'], cwd, home, tmp, fake });
  assert.equal(first.exitCode, 0, `claude -p: ${first.stderr}${first.stdout}`);
  const projects = path.join(home, '.claude', 'projects');
  const files = fs.readdirSync(projects).flatMap((p) =>
    fs
      .readdirSync(path.join(projects, p))
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => path.join(projects, p, f)),
  );
  assert.equal(files.length, 1, `one session file: ${files.join(', ')}`);
  const again = await spawnClaude({
    bin,
    args: ['-p', ...modelArgs, '--resume', path.basename(files[0], '.jsonl'), 'and again'],
    cwd,
    home,
    tmp,
    fake,
  });
  assert.equal(again.exitCode, 0, `claude -p --resume: ${again.stderr}${again.stdout}`);
  return {
    requested: fake.messageRequests().map((r) => String((r.body as { model?: unknown }).model)),
    file: files[0],
    root,
  };
}

describe(`cost of sessions the real Claude Code writes today (${CLAUDE_CODE_VERSION}, offline)`, function () {
  this.timeout(600_000);
  const lanes = new Lanes<FakeAnthropic>();
  const fakes: FakeAnthropic[] = [];
  before(async () => {
    for (let i = 0; i < LANES; i++)
      fakes.push(await startFakeAnthropic({ scenario: { kind: 'text', text: 'Hello.', usage: USAGE } }));
    await lanes.run(fakes);
  });
  after(async () => {
    for (const fake of fakes) await fake.close();
  });

  async function agrees(fake: FakeAnthropic, modelArgs: string[], expected: { assumed: boolean }): Promise<string> {
    const run = await newSession(fake, modelArgs);
    try {
      const model = run.requested[0];
      assert.ok(
        run.requested.length >= 2 && run.requested.every((m) => m === model),
        `requests: ${run.requested.join(', ')}`,
      );
      const c = sessionCost((await indexTranscript(run.file)).entries);
      assert.equal(c.responses.size, 2);
      assert.deepEqual(c.unpriced, [], `${model} is priced`);
      assert.equal(c.assumed.length > 0, expected.assumed, `${model}: assumed ${JSON.stringify(c.assumed)}`);
      assert.ok(c.agent, "the file records the agent's own cost");
      assert.ok(c.agent.usd > 0);
      assert.ok(
        Math.abs(c.total.usd - c.agent.usd) <= 1e-6 * c.agent.usd + 1e-9,
        `${model}: ours $${c.total.usd} vs Claude Code's $${c.agent.usd}`,
      );
      assert.ok(!costNotes(c, '--prices').some((n) => n.includes('apart')));
      return model;
    } finally {
      fs.rmSync(run.root, { recursive: true, force: true });
    }
  }

  lanes.it(
    'the default model: priced at its own rates (not unpriced, not assumed), as Claude Code prices it',
    async (fake) => {
      const model = await agrees(fake, [], { assumed: false });
      const found = priceFor(model);
      assert.ok(found && !found.assumed, `${model} is in the table`);
    },
  );

  for (const model of [
    'claude-opus-4-8',
    'claude-opus-5',
    'claude-sonnet-5',
    'claude-sonnet-5-5',
    'claude-haiku-5-5',
    'claude-sonnet-4-6',
    'claude-haiku-4-5',
  ]) {
    lanes.it(`--model ${model}: our cost equals Claude Code's own`, async (fake) => {
      assert.equal(await agrees(fake, ['--model', model], { assumed: false }), model);
    });
  }

  lanes.it(
    "a fork we write, then resumed by Claude Code: only its own response is its cost, and Claude Code's own total in the fork agrees",
    async (fake) => {
      const bin = requireClaudeBinary();
      const root = fs.realpathSync(tempDir('ac-agent-cost-fork-'));
      try {
        const home = path.join(root, 'home');
        const tmp = path.join(root, 'tmp');
        const cwd = path.join(root, 'project');
        for (const d of [home, tmp, cwd]) fs.mkdirSync(d, { recursive: true });
        const answer = 'A long answer about the project. '.repeat(300);
        // The original's turns report their true size (the fake counts each request), so the session grows and a
        // compaction of it saves something; the fork's own turn reports USAGE, the figure its cost is checked against.
        fake.setScenario({ kind: 'text', text: answer });
        const turn = async (args: string[]) => {
          const r = await spawnClaude({ bin, args: ['-p', ...args], cwd, home, tmp, fake });
          assert.equal(r.exitCode, 0, r.stderr + r.stdout);
        };
        await turn(['tell me about the project']);
        const projects = path.join(home, '.claude', 'projects');
        const dir = path.join(projects, fs.readdirSync(projects)[0]);
        const original = path.join(
          dir,
          fs.readdirSync(dir).find((f) => f.endsWith('.jsonl'))!,
        );
        const id = path.basename(original, '.jsonl');
        for (let i = 0; i < 7; i++) await turn(['--resume', id, `and more, part ${i}`]);
        const before = sessionCost((await indexTranscript(original)).entries);
        assert.equal(before.responses.size, 8);
        assert.ok(
          before.agent && Math.abs(before.total.usd - before.agent.usd) < 1e-6,
          `original: ours ${before.total.usd} vs ${before.agent?.usd}`,
        );

        const fork = await compactFile(original, {
          summarizer: 'extractive',
          settings: { targetTokens: 3_000, keepRecentTokens: 1_000 },
        });
        assert.equal(fork.mode, 'fork');
        const forked = sessionCost((await indexTranscript(fork.output)).entries);
        assert.equal(forked.copiedResponses, 8, "the original's responses are copies");
        assert.equal(forked.total.usd, 0, 'nothing paid by the fork yet');
        assert.equal(forked.agent, null, 'no cost-state line of its own yet');

        fake.setScenario({ kind: 'text', text: answer, usage: USAGE });
        await turn(['--resume', path.basename(fork.output, '.jsonl'), 'continue in the fork']);
        const resumed = sessionCost((await indexTranscript(fork.output)).entries);
        const one = costOfUsage(
          {
            input: USAGE.input_tokens,
            output: USAGE.output_tokens,
            cacheCreation: USAGE.cache_creation_input_tokens,
            cacheRead: USAGE.cache_read_input_tokens,
          },
          priceFor('claude-opus-5-5')!.price,
        ).usd;
        assert.equal(resumed.responses.size, 1);
        assert.ok(Math.abs(resumed.total.usd - one) < 1e-9, `fork: ours ${resumed.total.usd}, one response ${one}`);
        assert.ok(resumed.agent, 'Claude Code wrote a cost-state line in the fork');
        assert.ok(
          Math.abs(resumed.agent.usd - one) < 1e-6,
          `fork: Claude Code's own ${resumed.agent.usd}, one response ${one}`,
        );
        assert.ok(!costNotes(resumed, '--prices').some((n) => n.includes('apart')));
      } finally {
        fake.setScenario({ kind: 'text', text: 'Hello.', usage: USAGE });
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
    9,
  );

  lanes.it(
    "a fork Claude Code makes itself (--resume --fork-session): only the fork's own response is its cost, not its original's",
    async (fake) => {
      const bin = requireClaudeBinary();
      const root = fs.realpathSync(tempDir('ac-agent-cost-fork-session-'));
      try {
        const home = path.join(root, 'home');
        const tmp = path.join(root, 'tmp');
        const cwd = path.join(root, 'project');
        for (const d of [home, tmp, cwd]) fs.mkdirSync(d, { recursive: true });
        const turn = async (args: string[]) => {
          const r = await spawnClaude({ bin, args: ['-p', ...args], cwd, home, tmp, fake });
          assert.equal(r.exitCode, 0, r.stderr + r.stdout);
        };
        await turn(['tell me about the project']);
        const projects = path.join(home, '.claude', 'projects');
        const dir = path.join(projects, fs.readdirSync(projects)[0]);
        const original = path.join(
          dir,
          fs.readdirSync(dir).find((f) => f.endsWith('.jsonl'))!,
        );
        const id = path.basename(original, '.jsonl');
        for (let i = 0; i < 2; i++) await turn(['--resume', id, `and more, part ${i}`]);
        await turn(['--resume', id, '--fork-session', 'continue in a fork']);
        const forks = fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl') && f !== path.basename(original));
        assert.equal(forks.length, 1, `one fork beside the original: ${forks.join(', ')}`);
        const fork = sessionCost((await indexTranscript(path.join(dir, forks[0]))).entries);
        const one = costOfUsage(
          {
            input: USAGE.input_tokens,
            output: USAGE.output_tokens,
            cacheCreation: USAGE.cache_creation_input_tokens,
            cacheRead: USAGE.cache_read_input_tokens,
          },
          priceFor('claude-opus-5-5')!.price,
        ).usd;
        assert.equal(fork.copiedResponses, 3, "the original's three responses are copies");
        assert.equal(fork.responses.size, 1, 'the fork received one response itself');
        assert.ok(Math.abs(fork.total.usd - one) < 1e-9, `fork: ours ${fork.total.usd}, one response ${one}`);
        // Claude Code's own total in such a fork carries on its original's (four responses): said beside ours, not taken as the fork's.
        assert.ok(
          fork.agent && Math.abs(fork.agent.usd - 4 * one) < 1e-6,
          `fork: Claude Code's own ${fork.agent?.usd}, four responses ${4 * one}`,
        );
        assert.equal(fork.agentIncludesCopies, true);
        assert.ok(
          costNotes(fork, '--prices').some((n) =>
            /forked from; ours, \$0\.32\d*, counts only the responses this file received \(3 copied/.test(n),
          ),
          costNotes(fork, '--prices').join(' | '),
        );
        // The Sessions view's background figures and the map price the file the same way.
        const stats = await sessionStats(path.join(dir, forks[0]));
        assert.ok(Math.abs(stats.costUsd - one) < 1e-9, `sessionStats: ${stats.costUsd}`);
        const original0 = sessionCost((await indexTranscript(original)).entries);
        assert.equal(original0.agentIncludesCopies, false);
        assert.equal(original0.copiedResponses, 0);
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
    4,
  );

  lanes.it(
    'an unknown opus version: assumed at the newest opus rates, which is what Claude Code charges it too',
    async (fake) => {
      assert.equal(await agrees(fake, ['--model', 'claude-opus-4-9'], { assumed: true }), 'claude-opus-4-9');
    },
  );
});
