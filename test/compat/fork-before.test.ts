// Fork From Before This Compaction, judged by the real, pinned Claude Code (offline against the fake; see
// test/support/today-sessions.ts): a session Claude Code compacted itself (/compact), forked before that compaction
// (core/repair/forkBefore.ts), then resumed with `claude -p --resume <fork>`: the request it sends carries the conversation
// from before the compaction (the first prompt, the last turn's marker) and not the compaction's summary; the original
// is untouched; the fork's lines are the original's, byte for byte, up to the boundary.
import { strict as assert } from 'node:assert';
import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentFixtures, fixture } from '../support/fixtures';
import { forkBeforeCompaction } from '../../src/core/repair/forkBefore';
import { CompactError } from '../../src/core/compact/types';
import { contentTexts, requestText, resumeWithClaude } from '../support/claude-code';
import { generateTodaySession, TODAY_MARKERS, TODAY_STEPS, type TodaySession } from '../support/today-sessions';
import { tempDir } from '../support/temp';

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('fork before a compaction Claude Code made itself, resumed by the real CLI', function () {
  this.timeout(600_000);
  let session: TodaySession;

  before(async function () {
    session = await generateTodaySession({
      steps: TODAY_STEPS.slice(0, TODAY_STEPS.findIndex((s) => s.name === 'turn:after-compact') + 1),
    });
  });
  after(() => session?.cleanup());

  it('the resumed request carries the pre-compaction messages, not the summary; the original is untouched', async () => {
    const text = fs.readFileSync(session.sessionFile, 'utf8');
    const lines = text.split('\n');
    const boundary = lines.findIndex((l) => l.includes('"subtype":"compact_boundary"'));
    assert.ok(boundary > 0, 'Claude Code compacted the session');
    const before = sha(session.sessionFile);
    const fork = await forkBeforeCompaction(session.sessionFile, 1);
    assert.equal(sha(session.sessionFile), before, 'the original is untouched');
    assert.equal(path.dirname(fork.output), path.dirname(session.sessionFile), 'beside the original');
    assert.equal(path.basename(fork.output), `${fork.sessionId}.jsonl`);
    assert.equal(fs.readFileSync(fork.output, 'utf8'), lines.slice(0, boundary).join('\n') + '\n');
    assert.equal(fork.compaction.trigger, 'manual');
    assert.ok(fork.resumeCommand?.includes(`claude --resume ${fork.sessionId}`), fork.resumeCommand ?? '');

    // The original, resumed: Claude Code sends its summary (and the turn it kept verbatim), not the early turns.
    let compactedMessages: number;
    const compacted = await resumeWithClaude({ sessionFile: session.sessionFile, prompt: 'And now?' });
    try {
      assert.equal(compacted.exitCode, 0, compacted.stderr);
      assert.match(requestText(compacted.mainRequest!.body), /being continued from a previous conversation/);
      compactedMessages = (compacted.mainRequest!.body as { messages: unknown[] }).messages.length;
    } finally {
      compacted.cleanup();
    }

    const resumed = await resumeWithClaude({ sessionFile: fork.output, sessionId: fork.sessionId, prompt: 'And now?' });
    try {
      assert.equal(resumed.exitCode, 0, resumed.stderr);
      assert.ok(resumed.mainRequest, 'Claude Code sent the conversation');
      const sent = requestText(resumed.mainRequest.body);
      assert.ok(sent.includes(TODAY_STEPS[0].prompt), 'the first prompt, from before the compaction');
      assert.ok(sent.includes(TODAY_MARKERS.talk), "the last turn before the compaction (the model's reply)");
      assert.doesNotMatch(sent, /being continued from a previous conversation/, 'no compaction summary');
      const messages = (resumed.mainRequest.body as { messages: unknown[] }).messages.length;
      assert.ok(messages > compactedMessages, `${messages} messages, the compacted original ${compactedMessages}`);
      assert.ok(resumed.appendedLines.length > 0, 'Claude Code went on writing the fork');
    } finally {
      resumed.cleanup();
    }
  });

  it('an unknown compaction number and a Codex rollout are refused with the reason, nothing written', async () => {
    const dir = path.dirname(session.sessionFile);
    const files = fs.readdirSync(dir);
    await assert.rejects(forkBeforeCompaction(session.sessionFile, 2), (err: unknown) => {
      assert.ok(err instanceof CompactError && /has compactions 1 to 1, not 2/.test(err.message), String(err));
      return true;
    });
    assert.deepEqual(fs.readdirSync(dir), files);
    const codexDir = tempDir('ac-fork-before-codex-');
    try {
      const rollout = path.join(codexDir, 'rollout.jsonl');
      fs.copyFileSync(
        agentFixtures('codex').find((f) => f.endsWith('rollout-0.142-alpha-compacted.jsonl'))!,
        rollout,
      );
      await assert.rejects(forkBeforeCompaction(rollout, 1), (err: unknown) => {
        assert.ok(
          err instanceof CompactError && err.code === 'unsupported-format' && /Codex rollout/.test(err.message),
          String(err),
        );
        return true;
      });
      assert.deepEqual(fs.readdirSync(codexDir), ['rollout.jsonl']);
    } finally {
      fs.rmSync(codexDir, { recursive: true, force: true });
    }
  });
});

// Compactions placed after the lines Claude Code writes after a turn's last message (issue 33, item 4), built from the
// fixtures' own lines: a turn's duration, after which the fork keeps every line before the boundary; and an attachment
// hanging off the turn before that message, after which the fork ends at the message (resumed from the attachment,
// Claude Code's walk would not come back through it). Either way the real Claude Code resumes the fork
// with the last message written before the compaction.
describe('fork before a compaction that follows non-message lines, resumed by the real CLI (issue 33)', function () {
  this.timeout(600_000);
  const cases = [
    { name: 'v2.1.97-live-after.jsonl', after: 44, whole: true },
    // Resumed whole, these lines leave out the reply on line 383 (the real CLI, checked): the attachment after it hangs off
    // the turn before it.
    { name: 'v2.1.97-images.jsonl', after: 384, whole: false },
  ];
  for (const c of cases) {
    it(`${c.name}, compacted after line ${c.after}`, async () => {
      const lines = fs.readFileSync(fixture(c.name), 'utf8').split('\n');
      const real = fs.readFileSync(fixture('with-compactions.jsonl'), 'utf8').split('\n');
      const boundaryLine = JSON.parse(real.find((l) => l.includes('"subtype":"compact_boundary"'))!) as Record<
        string,
        unknown
      >;
      const summaryLine = JSON.parse(real.find((l) => l.includes('"isCompactSummary":true'))!) as Record<
        string,
        unknown
      >;
      const head = lines.slice(0, c.after);
      const parsed = head.map((l) => {
        try {
          return JSON.parse(l) as Record<string, any>;
        } catch {
          return null;
        }
      });
      const messages = parsed.filter((o) => (o?.type === 'user' || o?.type === 'assistant') && !o.isSidechain);
      const last = messages[messages.length - 1]!;
      const marker = [...messages]
        .reverse()
        .map((o) => contentTexts(o!.message?.content).join('\n').trim())
        .find((t) => t.length >= 20)!
        .slice(0, 60);
      const stamps = parsed.map((o) => o?.timestamp).filter((t): t is string => typeof t === 'string');
      const stamp = new Date(Date.parse(stamps.sort()[stamps.length - 1]) + 1000).toISOString();
      const boundary = {
        ...boundaryLine,
        uuid: randomUUID(),
        logicalParentUuid: last.uuid,
        sessionId: last.sessionId,
        timestamp: stamp,
      };
      const summary = {
        ...summaryLine,
        uuid: randomUUID(),
        parentUuid: boundary.uuid,
        sessionId: last.sessionId,
        timestamp: stamp,
      };
      const dir = tempDir('ac-fork-before-built-');
      try {
        const file = path.join(dir, `${randomUUID()}.jsonl`);
        fs.writeFileSync(file, [...head, JSON.stringify(boundary), JSON.stringify(summary)].join('\n') + '\n');
        const fork = await forkBeforeCompaction(file, 1);
        const written = fs.readFileSync(fork.output, 'utf8');
        if (c.whole) assert.equal(written, head.join('\n') + '\n', 'every line before the boundary');
        else
          assert.equal(
            written,
            head.slice(0, parsed.lastIndexOf(last) + 1).join('\n') + '\n',
            'up to the last message',
          );
        const resumed = await resumeWithClaude({
          sessionFile: fork.output,
          sessionId: fork.sessionId,
          prompt: 'And now?',
        });
        try {
          assert.equal(resumed.exitCode, 0, resumed.stderr);
          assert.ok(resumed.mainRequest, 'Claude Code sent the conversation');
          const sent = requestText(resumed.mainRequest.body);
          assert.ok(sent.includes(marker), `the last message before the compaction (${marker})`);
          assert.doesNotMatch(sent, /being continued from a previous conversation/, 'no compaction summary');
        } finally {
          resumed.cleanup();
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
