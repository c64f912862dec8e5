// Claude Code compacts a session by itself (auto, or idle) while its preview is open: the transcript gains a
// compact_boundary and its summary line. The live-reload path reads the appended lines (reinspect, as the store's
// file watcher does); the model tells the agent's new compaction, the plan made again over the file as it is sizes
// only what follows it, and its note says so. Appended plain turns are no compaction and say nothing.
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { appendFileSync, copyFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { inspectFile, reinspect } from '../../src/core/inspect';
import { planCompaction } from '../../src/core/compact/plan';
import { compactedSince, replannedNote } from '../../src/extension/model/agentCompacted';
import { fixture } from '../support/fixtures';
import { tempDir } from '../support/temp';

const SETTINGS = { targetTokens: 20_000, keepRecentTokens: 2_000 };

/** The newest chain line of a transcript: its uuid and session id. */
function leafOf(file: string): { uuid: string; sessionId: string } {
  const lines = readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  const last = lines.filter((o) => typeof o.uuid === 'string' && (o.type === 'user' || o.type === 'assistant')).pop();
  return { uuid: last.uuid, sessionId: last.sessionId };
}

/** What Claude Code appends when it compacts by itself: the boundary, its summary, a turn after it, its leaf. */
function agentCompaction(leaf: { uuid: string; sessionId: string }): object[] {
  const boundary = randomUUID();
  const summary = randomUUID();
  const prompt = randomUUID();
  const reply = randomUUID();
  const at = '2026-11-28T12:00:00.000Z';
  const base = {
    isSidechain: false,
    userType: 'external',
    sessionId: leaf.sessionId,
    version: '2.1.332',
    timestamp: at,
  };
  return [
    {
      ...base,
      type: 'system',
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      parentUuid: null,
      logicalParentUuid: leaf.uuid,
      uuid: boundary,
      level: 'info',
      isMeta: false,
      compactMetadata: { trigger: 'auto', preTokens: 150_000, postTokens: 3_000 },
    },
    {
      ...base,
      type: 'user',
      parentUuid: boundary,
      uuid: summary,
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
      message: {
        role: 'user',
        content:
          'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary: the user checked the desktop setup.',
      },
    },
    { ...base, type: 'user', parentUuid: summary, uuid: prompt, message: { role: 'user', content: 'Carry on.' } },
    {
      ...base,
      type: 'assistant',
      parentUuid: prompt,
      uuid: reply,
      message: {
        id: 'msg_after_idle_compaction',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        content: [{ type: 'text', text: 'Carrying on from the summary.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 3_100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 8 },
      },
    },
    { type: 'last-prompt', lastPrompt: 'Carry on.', leafUuid: reply, sessionId: leaf.sessionId },
  ];
}

describe('a previewed session the agent compacts meanwhile is planned again, and says so', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir('ac-idle-compact-');
    file = join(dir, 'session.jsonl');
    copyFileSync(fixture('v2.1.97-live-after.jsonl'), file);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a compact_boundary and its summary appended: the agent compaction is told, the new plan sizes only what follows it', async () => {
    const first = await inspectFile(file);
    const before = await planCompaction(first, SETTINGS);
    assert.ok(first.report.compactBoundaries.length === 0 && before.preTokens > 0);
    const linesBefore = first.index.lineCount;
    appendFileSync(
      file,
      agentCompaction(leafOf(file))
        .map((o) => JSON.stringify(o) + '\n')
        .join(''),
    );

    // As the store does: the lines read are counted before the re-read (it extends the index in place).
    const next = await reinspect(first);
    const found = compactedSince(linesBefore, next);
    assert.equal(found.length, 1);
    assert.equal(found[0].line, linesBefore + 1, 'the boundary is the first appended line');
    assert.equal(found[0].by, 'agent');
    const note = replannedNote(found);
    assert.match(note ?? '', /compacted while this preview was open: auto compaction by Claude Code at line \d+/);
    assert.match(note ?? '', /planned|made again over the file as it is now/);

    // The plan over the file as it is: none of the rounds before the boundary is in the context any more.
    const after = await planCompaction(next, SETTINGS);
    const activeFirstLines = next.rounds.filter((r) => r.inContext).map((r) => r.firstLine);
    assert.ok(activeFirstLines.length > 0 && activeFirstLines.every((l) => l > linesBefore));
    assert.ok(
      after.preTokens < before.preTokens / 5,
      `the active context now (${after.preTokens}) is what followed the compaction, not the ${before.preTokens} before`,
    );
  });

  it('appended turns without a compaction: nothing to say', async () => {
    const first = await inspectFile(file);
    const linesBefore = first.index.lineCount;
    const turn = agentCompaction(leafOf(file)).slice(2);
    (turn[0] as { parentUuid: string }).parentUuid = leafOf(file).uuid;
    appendFileSync(file, turn.map((o) => JSON.stringify(o) + '\n').join(''));
    const next = await reinspect(first);
    assert.ok(next.index.lineCount > linesBefore);
    assert.deepEqual(compactedSince(linesBefore, next), []);
    assert.equal(replannedNote(compactedSince(linesBefore, next)), null);
  });
});
