// Predicted = sent: the resumed context a plan promises (`postTokens + overheadTokens`, the figure `plan` prints)
// against the first request the real Claude Code 2.1.330 sends when it resumes the fork by id, counted by the
// loopback fake (its usage is the tokenizer count of each request). Per file the error is printed, whole and by part.
// Generated 2.1.330 sessions (worth compacting since they hold large Read results) are measured and held to 5% in
// test/compat/today-compaction.test.ts; the fixtures' measured report stays here.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { projectDirName, requireClaudeBinary, spawnClaude } from '../support/claude-code';
import { countRequestTokens, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { fixture } from '../support/fixtures';
import { generateTodaySession, TODAY_STEPS } from '../support/today-sessions';
import { compactFile } from '../../src/core/compact/compact';
import { contextNow } from '../../src/core/context';
import { inspectFile } from '../../src/core/inspect';
import type { SummaryDetail } from '../../src/core/compact/summaryDetail';

interface Measured {
  promised: number;
  sent: number;
  promisedTranscript: number;
  sentMessages: number;
  promisedOverhead: number;
  sentOverhead: number;
}

const err = (a: number, b: number) => Math.abs(a - b) / b;
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** A fixture placed as a session of `cwd` under `home`, with its ids and folder rewritten. */
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
        return line;
      }
    });
  const dir = path.join(home, '.claude', 'projects', projectDirName(cwd));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${id}.jsonl`);
  fs.writeFileSync(file, lines.join('\n'));
  return file;
}

/** Compacts `file` to a fork at half its transcript (beside the system prompt and tools), resumes the fork by id and measures the first request. */
async function measure(
  file: string,
  where: { cwd: string; home: string; tmp: string },
  fake: FakeAnthropic,
  summaryDetail: SummaryDetail = 'standard',
): Promise<Measured> {
  const context = contextNow((await inspectFile(file, { subagents: false })).report);
  const result = await compactFile(file, {
    summarizer: 'extractive',
    settings: {
      targetTokens: Math.round(context.overhead + context.transcript / 2),
      keepRecentTokens: Math.round(context.transcript / 4),
      summaryDetail,
    },
  });
  assert.equal(result.summaryDetail, summaryDetail);
  assert.ok(result.sessionId, 'the fork has a session id');
  const prompt = `resume and go on ${path.basename(file)}`;
  fake.clearRequests();
  const run = await spawnClaude({
    bin: requireClaudeBinary(),
    args: ['-p', '--resume', result.sessionId, prompt],
    cwd: where.cwd,
    home: where.home,
    tmp: where.tmp,
    fake,
  });
  assert.equal(run.exitCode, 0, `claude exited ${run.exitCode}: ${run.stderr}${run.stdout}`);
  const first = fake.messageRequests().find((r) => JSON.stringify(r.body?.messages ?? '').includes(prompt));
  assert.ok(first, 'Claude Code sent the resumed conversation');
  const truth = countRequestTokens(first.body);
  const { plan } = result;
  return {
    promised: plan.postTokens + plan.overheadTokens,
    sent: truth.total,
    promisedTranscript: plan.postTokens,
    sentMessages: truth.messages,
    promisedOverhead: plan.overheadTokens,
    sentOverhead: truth.system + truth.tools,
  };
}

function report(name: string, m: Measured): void {
  process.stdout.write(
    `      ${name}: promised ${m.promised}, sent ${m.sent} (${pct(err(m.promised, m.sent))}); transcript ${m.promisedTranscript} vs messages ${m.sentMessages} (${pct(err(m.promisedTranscript, m.sentMessages))}); ` +
      `system prompt and tools ${m.promisedOverhead} vs ${m.sentOverhead} (${pct(err(m.promisedOverhead, m.sentOverhead))})\n`,
  );
}

describe('compat: the resumed context a plan promises is what the real Claude Code sends', function () {
  this.timeout(1_200_000);
  let fake: FakeAnthropic;
  let root: string;
  before(async () => {
    requireClaudeBinary();
    fake = await startFakeAnthropic();
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ac-predicted-')));
  });
  after(async () => {
    await fake?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  // Measured and printed for each; held to 5% where nothing below applies (with-compactions.jsonl: no thinking
  // signatures, the summary and kept rounds are the messages). Known gaps, measured 2026-11-25:
  // - system prompt and tools: the file's figure is what ITS agent sent (41.8k with MCP tools in with-compactions,
  //   15.1k in example); the resuming 2.1.330 sends its own (16.6k, 8.6k): no figure in the file can know that.
  // - 2.1.330 adds a role "system" message ("# Environment", about 2.1k) and reminders to the messages on resume:
  //   carried by every request, in no transcript line (example.jsonl: transcript 2.4k promised, 4.1k sent).
  // - kept thinking blocks with their signatures: our estimate is fitted to the real API's usage, the fake counts
  //   the (redacted, empty) thinking text only (v2.1.97-live-after.jsonl: 16.5k promised, 11.7k sent).
  it("right after Claude Code's own /compact, the context figure is the next request it sends, within 2%", async () => {
    // Before: the preserved round's usage (a request from before the compaction) was read as the context now.
    const session = await generateTodaySession({
      steps: TODAY_STEPS.slice(0, TODAY_STEPS.findIndex((s) => s.name === 'turn:after-compact') + 1),
    });
    try {
      const step = session.steps.find((s) => s.name === 'turn:after-compact')!;
      const lines = fs
        .readFileSync(session.sessionFile, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '');
      const before = path.join(session.tempRoot, 'after-compact.jsonl');
      fs.writeFileSync(before, lines.slice(0, step.fileLinesBefore).join('\n') + '\n');
      const figure = contextNow((await inspectFile(before, { subagents: false })).report);
      const sent = countRequestTokens(step.requests[0].body).total;
      process.stdout.write(
        `      right after /compact: context now ${figure.tokens}, next request ${sent} (${pct(err(figure.tokens, sent))})\n`,
      );
      assert.ok(err(figure.tokens, sent) <= 0.02, `context now ${figure.tokens}, sent ${sent}`);
      assert.equal(figure.attached, 0, 'nothing named as attached without usage to show it');
    } finally {
      session.cleanup();
    }
  });

  for (const [name, held] of [
    ['with-compactions.jsonl', true],
    ['v2.1.97-live-after.jsonl', false],
    ['example.jsonl', false],
  ] as const) {
    it(`${name}: the transcript part of the promise against the messages the resumed request carries${held ? ', within 5%' : ' (measured)'}`, async () => {
      const base = path.join(root, path.basename(name, '.jsonl'));
      const where = { home: path.join(base, 'home'), cwd: path.join(base, 'project'), tmp: path.join(base, 'tmp') };
      for (const d of Object.values(where)) fs.mkdirSync(d, { recursive: true });
      const file = placeSession(fixture(name), where.home, where.cwd, '6a1f0c3e-2b4d-4e5f-8a9b-0c1d2e3f4a5b');
      const m = await measure(file, where, fake);
      report(name, m);
      assert.ok(m.sent > m.sentOverhead && m.promised > m.promisedOverhead, 'both carry a transcript');
      if (held)
        assert.ok(
          err(m.promisedTranscript, m.sentMessages) <= 0.05,
          `transcript promised ${m.promisedTranscript}, messages sent ${m.sentMessages}`,
        );
    });
  }

  // The summary detail changes the summary's size; the plan's promise follows it (the offline summary is measured
  // before writing and the plan sized with it), so a brief and a full summary are held to the same 5%.
  for (const detail of ['brief', 'full'] as const) {
    it(`with-compactions.jsonl with a ${detail} summary: the transcript promise against the messages the resumed request carries, within 5%`, async () => {
      const base = path.join(root, `with-compactions-${detail}`);
      const where = { home: path.join(base, 'home'), cwd: path.join(base, 'project'), tmp: path.join(base, 'tmp') };
      for (const d of Object.values(where)) fs.mkdirSync(d, { recursive: true });
      const file = placeSession(
        fixture('with-compactions.jsonl'),
        where.home,
        where.cwd,
        '6a1f0c3e-2b4d-4e5f-8a9b-0c1d2e3f4a5b',
      );
      const m = await measure(file, where, fake, detail);
      report(`with-compactions.jsonl, ${detail}`, m);
      assert.ok(
        err(m.promisedTranscript, m.sentMessages) <= 0.05,
        `transcript promised ${m.promisedTranscript}, messages sent ${m.sentMessages}`,
      );
    });
  }
});
