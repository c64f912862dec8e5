// Fork From Before This Compaction, judged by the real, pinned Claude Code (offline against the fake; see
// test/support/today-sessions.ts): a session Claude Code compacted itself (/compact), forked before that compaction
// (core/forkBefore.ts), then resumed with `claude -p --resume <fork>`: the request it sends carries the conversation
// from before the compaction (the first prompt, the last turn's marker) and not the compaction's summary; the original
// is untouched; the fork's lines are the original's, byte for byte, up to the boundary.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { agentFixtures } from '../support/fixtures';
import { forkBeforeCompaction } from '../../src/core/forkBefore';
import { CompactError } from '../../src/core/compact/types';
import { requestText, resumeWithClaude } from '../support/claude-code';
import { generateTodaySession, TODAY_MARKERS, TODAY_STEPS, type TodaySession } from '../support/today-sessions';

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
    const codexDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-fork-before-codex-'));
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
