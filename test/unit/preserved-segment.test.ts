/**
 * The preserved segment of Claude Code's own /compact (2.1.330) in the chain rebuild. HAND-BUILT sessions mirroring
 * the record shapes the real CLI writes (see test/compat/today-sessions.test.ts for the real CLI's own sessions and
 * requests): the boundary names `compactMetadata.preservedSegment {headUuid, anchorUuid, tailUuid}`, messages from
 * before it that Claude Code sends right after the summary (`anchorUuid`). Here the segment spans several lines
 * (a prompt, a tool call and its result, a reply), which the generated sessions do not show.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildChain } from '../../src/core/chain';
import { diagnose } from '../../src/core/repair/doctor';
import { inspectFile } from '../../src/core/inspect';
import { indexTranscript } from '../../src/core/transcript';
import { compactFile } from '../../src/core/compact/compact';
import { tempDir } from '../support/temp';

const SESSION = '7b1f3c2a-1111-4222-8333-944455556666';
let clock = Date.parse('2026-11-25T01:00:00.000Z');
const common = () => ({
  sessionId: SESSION,
  isSidechain: false,
  userType: 'external',
  cwd: '/p',
  version: '2.1.330',
  timestamp: new Date((clock += 1000)).toISOString(),
});

function user(uuid: string, parentUuid: string | null, content: unknown, extra: Record<string, unknown> = {}) {
  return { parentUuid, type: 'user', uuid, message: { role: 'user', content }, ...common(), ...extra };
}
function assistant(uuid: string, parentUuid: string, id: string, block: unknown, input: number) {
  return {
    parentUuid,
    type: 'assistant',
    uuid,
    requestId: `req_${id}`,
    message: {
      id,
      role: 'assistant',
      model: 'claude-opus-5-5',
      type: 'message',
      content: [block],
      stop_reason: null,
      usage: { input_tokens: input, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
    ...common(),
  };
}

/** A session: two rounds of history, then the preserved rounds (p1..p4), Claude Code's /compact, and one turn after it. */
function session(segment: { headUuid: string; anchorUuid: string; tailUuid: string }): unknown[] {
  return [
    user('u1', null, 'Read calc.js'),
    assistant(
      'a1',
      'u1',
      'msg_1',
      { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/p/calc.js' } },
      9000,
    ),
    user('r1', 'a1', [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'x'.repeat(4000) }]),
    assistant('a2', 'r1', 'msg_2', { type: 'text', text: 'It adds numbers.' }, 10000),
    user('p1', 'a2', 'Run the tests'),
    assistant(
      'p2',
      'p1',
      'msg_3',
      { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'node test.js' } },
      10100,
    ),
    user('p3', 'p2', [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'all tests passed' }]),
    assistant('p4', 'p3', 'msg_4', { type: 'text', text: 'PRESERVED-REPLY: the tests pass.' }, 10200),
    { type: 'last-prompt', lastPrompt: 'Run the tests', leafUuid: 'p4', sessionId: SESSION },
    {
      parentUuid: null,
      logicalParentUuid: 'p4',
      type: 'system',
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      uuid: 'b1',
      level: 'info',
      compactMetadata: {
        trigger: 'manual',
        preTokens: 10300,
        preservedSegment: segment,
        preservedMessages: {
          anchorUuid: segment.anchorUuid,
          uuids: ['p1', 'p2', 'p3', 'p4'],
          allUuids: ['p1', 'p2', 'p3', 'p4'],
        },
      },
      ...common(),
    },
    user('s1', 'b1', 'This session is being continued from a previous conversation that ran out of context. SUMMARY', {
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
    }),
    user('c1', 's1', '<command-name>/compact</command-name>'),
    { type: 'cost-state', totalCostUSD: 0.1, modelUsage: {} },
    { type: 'api-request', id: 'x', shapeHash: 'h', params: {}, keep: 0, tail: ['h1'] },
    user('n1', 'c1', 'And now?'),
    assistant('n2', 'n1', 'msg_5', { type: 'text', text: 'AFTER-COMPACT-REPLY' }, 3000),
    { type: 'last-prompt', lastPrompt: 'And now?', leafUuid: 'n2', sessionId: SESSION },
  ];
}

describe("preserved segment of Claude Code's own /compact (hand-built, real record shapes)", () => {
  let dir: string;
  before(() => (dir = tempDir('preserved-')));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, lines: unknown[]) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    return file;
  };

  it('counts head..tail as active and places it right after the summary it is anchored to', async () => {
    const file = write('ok.jsonl', session({ headUuid: 'p1', anchorUuid: 's1', tailUuid: 'p4' }));
    const index = await indexTranscript(file);
    const chain = buildChain(index.entries);
    const uuids = (ix: number[]) => ix.map((i) => index.entries[i].uuid);
    assert.deepEqual(uuids(chain.preserved), ['p1', 'p2', 'p3', 'p4']);
    assert.deepEqual(uuids(chain.main.slice(chain.activeStart)), [
      'b1',
      's1',
      'p1',
      'p2',
      'p3',
      'p4',
      'c1',
      'n1',
      'n2',
    ]);
    assert.deepEqual(uuids(chain.main.slice(0, chain.activeStart)), ['u1', 'a1', 'r1', 'a2']);

    const analysis = await inspectFile(file);
    const active = analysis.rounds.filter((r) => r.inContext);
    const activeIds = active.map((r) => r.messageId ?? (r.startsAtBoundary ? 'boundary' : 'preamble'));
    assert.deepEqual(activeIds, ['boundary', 'msg_3', 'msg_4', 'msg_5']);
    assert.deepEqual(
      analysis.rounds.filter((r) => !r.inContext).map((r) => r.messageId ?? 'preamble'),
      ['preamble', 'msg_1', 'msg_2'],
    );
    // The preserved tool call is paired with its result inside the active context.
    assert.deepEqual(
      active[1].toolResults.map((t) => t.id),
      ['toolu_2'],
    );
  });

  it('a segment that is not a parentUuid path is not counted (a note says why), and the rest is unchanged', async () => {
    const file = write('broken.jsonl', session({ headUuid: 'u1-missing', anchorUuid: 's1', tailUuid: 'p4' }));
    const index = await indexTranscript(file);
    const chain = buildChain(index.entries);
    assert.deepEqual(chain.preserved, []);
    assert.ok(
      chain.notes.some((n) => /preserved segment .* is not a parentUuid path/.test(n)),
      chain.notes.join('\n'),
    );
    assert.deepEqual(
      chain.main.slice(chain.activeStart).map((i) => index.entries[i].uuid),
      ['b1', 's1', 'c1', 'n1', 'n2'],
    );
  });

  it('the doctor counts the preserved segment among what resume loads, and pairs its tool call with its result', async () => {
    const index = await indexTranscript(
      write('doctor.jsonl', session({ headUuid: 'p1', anchorUuid: 's1', tailUuid: 'p4' })),
    );
    const report = diagnose(index);
    // s1, p1..p4, c1, n1, n2: the summary, the four preserved lines, the command line and the turn after it.
    assert.equal(report.reachableMessages, 8);
    assert.equal(report.totalMessages, 8);
    assert.equal(report.apiValid, true);
    assert.deepEqual(
      report.problems.filter((p) => p.severity !== 'info'),
      [],
    );
  });

  it('a compaction that summarizes the preserved rounds quotes them whole in the summary: nothing the agent still sent is lost', async () => {
    // The preserved tool call's result is long (a real test run's output): worth compacting, and quoted capped.
    const lines = session({ headUuid: 'p1', anchorUuid: 's1', tailUuid: 'p4' }).map((o) =>
      (o as { uuid?: string }).uuid === 'p3'
        ? user('p3', 'p2', [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_2',
              content: 'all tests passed\n' + 'ok 1 - adds\n'.repeat(3000),
            },
          ])
        : (o as { uuid?: string }).uuid === 'p4'
          ? assistant('p4', 'p3', 'msg_4', { type: 'text', text: 'PRESERVED-REPLY: the tests pass.' }, 19_500)
          : (o as { uuid?: string }).uuid === 'n2'
            ? assistant('n2', 'n1', 'msg_5', { type: 'text', text: 'AFTER-COMPACT-REPLY' }, 21_000)
            : o,
    );
    const file = write('summarized.jsonl', lines);
    const overhead = (await inspectFile(file)).report.totals.overheadTokens!;
    // Keep only the newest round: the boundary round and the preserved ones are summarized.
    const result = await compactFile(file, {
      summarizer: 'extractive',
      settings: { targetTokens: overhead + 2_000, keepRecentTokens: 1, summaryTokens: 1_500 },
    });
    const actions = result.plan.rounds.filter((r) => r.inContext).map((r) => r.action);
    assert.deepEqual(actions, ['summarize', 'summarize', 'summarize', 'keep']);
    const written = fs
      .readFileSync(result.output, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const summary = written.find((o) => o.isCompactSummary && o.sessionId === result.sessionId);
    const text = JSON.stringify(summary.message.content);
    for (const piece of [
      'Run the tests',
      'Bash',
      'node test.js',
      'all tests passed',
      'PRESERVED-REPLY: the tests pass.',
    ])
      assert.ok(text.includes(piece), `the summary quotes the preserved segment's ${piece}`);
    assert.ok(text.indexOf('SUMMARY') < text.indexOf('PRESERVED-REPLY'), 'after the summary it followed');
  });
});
