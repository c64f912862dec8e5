/**
 * The REAL Codex CLI (pinned) judges our compacted rollouts, offline against the fake Responses API:
 *  1. every Codex fixture (0.36 … 0.142, with and without earlier compactions, one with `window_id` records) is
 *     compacted to a fork, and `codex exec resume <new id>` sends a request whose history starts from our summary
 *     (only Codex's own instructions before it), holds the kept items in order and as written, answers every call,
 *     and is within the target;
 *  2. a steered fork (a pinned old round, a dropped one, the summary given) resumes with that summary and those items;
 *  3. a rollout the CLI writes itself (with `ordinal` on every record) is compacted in place, our record continues
 *     the ordinals, and Codex resumes it the same way.
 *
 * Run: bash scripts/provision-codex.sh && npx mocha --no-config --node-option import=tsx --timeout 600000 test/compat/codex-resume.test.ts
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { chooseRounds, noDecisions } from '../../src/core/compact/decisions';
import { SUMMARY_PREFIX } from '../../src/core/compact/summarize/prompt';
import { estimateStringTokens } from '../../src/core/tokens/estimate';
import type { CompactResult } from '../../src/core/compact/types';
import { agentFixtures } from '../support/fixtures';
import { CODEX_VERSION, shortVersion } from '../support/pins';
import { startFakeResponses, type FakeResponses } from '../support/fake-responses';
import { itemProjection, makeCodexHome, requireCodexBinary, runCodex, type CodexHome } from '../support/codex';

const TARGET = 60_000;
const PROMPT = 'CODEX-RESUME-PROMPT: carry on from where we were.';

function ourRecord(file: string): any {
  const lines = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"compactor":"agent-compactor"'));
  assert.ok(lines.length > 0, `${file} holds no compacted record of ours`);
  return JSON.parse(lines[lines.length - 1]);
}

function textOf(item: any): string {
  return Array.isArray(item?.content) ? item.content.map((c: any) => c?.text ?? '').join('') : '';
}

/** What an item carries into the context as text (an encrypted reasoning blob's size says nothing about its tokens). */
function carriedText(item: any): string {
  return item?.type === 'reasoning' ? JSON.stringify(item.summary ?? []) : itemProjection(item);
}

/** Resumes `id` with the real Codex and checks the request it sends against our compacted record in `file`. */
async function resumeAndCheck(
  home: CodexHome,
  fake: FakeResponses,
  id: string,
  file: string,
  result: CompactResult,
): Promise<void> {
  const before = fake.responsesRequests().length;
  const run = await runCodex(home, fake, ['exec', '--skip-git-repo-check', 'resume', id, PROMPT]);
  assert.equal(run.code, 0, `codex exited ${run.code}: ${run.stderr.slice(-1500)}`);
  const requests = fake.responsesRequests().slice(before);
  assert.equal(requests.length, 1, `expected one model request, got ${requests.length}`);
  const input = (requests[0].body as any).input as any[];
  const history = ourRecord(file).payload.replacement_history as any[];

  // Our summary opens the history: before it only Codex's own instructions (developer messages).
  const at = input.findIndex((i) => i.type === 'message' && i.role === 'user' && textOf(i).startsWith(SUMMARY_PREFIX));
  assert.ok(at >= 0, 'the request does not hold our summary');
  assert.ok(
    input.slice(0, at).every((i) => i.type === 'message' && i.role === 'developer'),
    `items before the summary: ${input
      .slice(0, at)
      .map((i) => `${i.type}/${i.role}`)
      .join(', ')}`,
  );
  assert.equal(textOf(input[at]), textOf(history[0]));

  // The kept items follow, in order, saying what the rollout says.
  const sent = input.slice(at, at + history.length).map(itemProjection);
  assert.deepEqual(sent, history.map(itemProjection));

  // Every call has its output after it, and every output its call.
  const open = new Set<string>();
  for (const item of input) {
    if (['function_call', 'custom_tool_call', 'local_shell_call'].includes(item.type)) open.add(item.call_id);
    else if (/_output$/.test(item.type))
      assert.ok(open.delete(item.call_id), `output ${item.call_id} without its call`);
  }
  assert.deepEqual([...open], [], 'calls without outputs');

  // The prompt is the last item; the conversation carried (our history) is within the target.
  assert.ok(textOf(input[input.length - 1]).includes(PROMPT));
  const carried = input
    .slice(at, at + history.length)
    .reduce((s, i) => s + estimateStringTokens(carriedText(i), 'prose', 1), 0);
  const over = result.plan.notes.some((n) => /over the target/.test(n));
  if (!over)
    assert.ok(
      carried <= result.plan.settings.targetTokens,
      `the carried history is about ${carried} tokens, over the ${result.plan.settings.targetTokens}-token target`,
    );
}

describe(`Codex CLI resumes our compacted rollouts (real Codex ${shortVersion(CODEX_VERSION)}, fake Responses API)`, function () {
  this.timeout(900_000);
  let fake: FakeResponses;
  const homes: CodexHome[] = [];

  before(async () => {
    requireCodexBinary();
    fake = await startFakeResponses();
  });
  after(async () => {
    await fake?.close();
    for (const h of homes) fs.rmSync(h.root, { recursive: true, force: true });
  });

  for (const source of agentFixtures('codex')) {
    it(`${path.basename(source)}: a compacted fork resumes from our summary with the kept items`, async () => {
      const home = makeCodexHome(fake);
      homes.push(home);
      const copy = path.join(home.sessionsDay, path.basename(source));
      fs.copyFileSync(source, copy);
      fs.chmodSync(copy, 0o644);
      const original = fs.readFileSync(copy);
      const result = await compactFile(copy, { summarizer: 'extractive', settings: { targetTokens: TARGET } });
      assert.equal(result.mode, 'fork');
      assert.ok(fs.readFileSync(copy).equals(original), 'the original changed');
      assert.ok(path.basename(result.output).endsWith(`-${result.sessionId}.jsonl`));
      await resumeAndCheck(home, fake, result.sessionId!, result.output, result);
    });
  }

  it('a fork compacted again in place (our own record re-planned) still resumes from the newest summary', async () => {
    const home = makeCodexHome(fake);
    homes.push(home);
    const source = agentFixtures('codex').find((f) => f.includes('0.140'))!;
    const copy = path.join(home.sessionsDay, path.basename(source));
    fs.copyFileSync(source, copy);
    fs.chmodSync(copy, 0o644);
    const fork = await compactFile(copy, { summarizer: 'extractive', settings: { targetTokens: TARGET } });
    const again = await compactFile(fork.output, {
      summarizer: 'extractive',
      inPlace: true,
      settings: { targetTokens: 30_000, keepRecentTokens: 8_000 },
    });
    assert.equal(again.sessionId, fork.sessionId);
    await resumeAndCheck(home, fake, fork.sessionId!, fork.output, again);
  });

  it('a steered fork (oldest round pinned, one dropped, the summary given) resumes with exactly that', async () => {
    const home = makeCodexHome(fake);
    homes.push(home);
    const source = agentFixtures('codex').find((f) => f.endsWith('rollout-0.142.jsonl'))!;
    const copy = path.join(home.sessionsDay, path.basename(source));
    fs.copyFileSync(source, copy);
    fs.chmodSync(copy, 0o644);
    const decisions = chooseRounds(chooseRounds(noDecisions(), [0], 'keep'), [3], 'drop');
    const summaryText = 'Steered summary, given verbatim: ünïcödé ✓ "quoted"\nsecond line';
    const result = await compactFile(copy, {
      summarizer: 'extractive',
      settings: { targetTokens: TARGET },
      decisions,
      summaryText,
    });
    assert.deepEqual(
      result.plan.rounds.filter((r) => r.by === 'user').map((r) => `${r.index}:${r.action}`),
      ['0:keep', '3:drop'],
    );
    assert.equal(ourRecord(result.output).payload.message, summaryText);
    assert.equal(textOf(ourRecord(result.output).payload.replacement_history[0]), SUMMARY_PREFIX + summaryText);
    await resumeAndCheck(home, fake, result.sessionId!, result.output, result);
  });

  it('a rollout Codex wrote itself (ordinals) compacts in place and resumes', async () => {
    const home = makeCodexHome(fake);
    homes.push(home);
    // A session with long replies, so that there is something to compact.
    const long = await startFakeResponses(
      Array.from({ length: 400 }, (_, i) => `Line ${i}: the assistant explains a step of the work in detail.`).join(
        '\n',
      ),
    );
    try {
      const first = await runCodex(home, long, ['exec', '--skip-git-repo-check', 'start the work']);
      assert.equal(first.code, 0, first.stderr.slice(-1000));
      const file = findRollouts(home.codexHome)[0];
      const id = /-([0-9a-f-]{36})\.jsonl$/.exec(file)![1];
      for (let turn = 0; turn < 3; turn++) {
        const r = await runCodex(home, long, ['exec', '--skip-git-repo-check', 'resume', id, `next step ${turn}`]);
        assert.equal(r.code, 0, r.stderr.slice(-1000));
      }
      const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
      const lastOrdinal = JSON.parse(lines[lines.length - 1]).ordinal;
      assert.equal(typeof lastOrdinal, 'number', `Codex ${CODEX_VERSION} numbers its records`);
      const result = await compactFile(file, {
        summarizer: 'extractive',
        inPlace: true,
        settings: { targetTokens: 14_000, keepRecentTokens: 3_000 },
      });
      assert.equal(result.mode, 'in-place');
      assert.ok(result.backup && fs.existsSync(result.backup));
      assert.equal(ourRecord(file).ordinal, lastOrdinal + 1);
      await resumeAndCheck(home, fake, id, file, result);
    } finally {
      await long.close();
    }
  });
});

function findRollouts(codexHome: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (/^rollout-.*\.jsonl$/.test(e.name)) out.push(path.join(d, e.name));
    }
  };
  walk(path.join(codexHome, 'sessions'));
  return out;
}
