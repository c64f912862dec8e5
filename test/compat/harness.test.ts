/**
 * Compatibility harness self-test: resume UNMODIFIED copies of the shared fixtures with the REAL Claude Code
 * (pinned, see scripts/provision-claude-code.sh) against the local fake Anthropic server, and check the request
 * Claude Code actually builds. Also one Claude Code `/compact` run and a resume of its result.
 *
 * Nothing is skipped: without the binary every test fails with the provisioning command to run.
 * Run:  bash scripts/provision-claude-code.sh && npx mocha --timeout 300000 test/compat/harness.test.ts
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_SUMMARY_TEXT, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import {
  chainTailTexts,
  checkRequestInvariants,
  compactWithClaude,
  isCompactRequest,
  parseJsonl,
  requestText,
  requireClaudeBinary,
  resumeAnchor,
  resumeWithClaude,
  type ClaudeRunResult,
} from '../support/claude-code';
import { LANES, Lanes } from './lanes';

const FIXTURES = process.env.AGENT_COMPACTOR_FIXTURES ?? '/work/shared/fixtures/claude-code';
const REPLY = 'FAKE-REPLY-FROM-TEST-SERVER';

/** Main-session fixtures: Claude Code must resume every one of them. */
const RESUMABLE = [
  'v2.1.97-live-after.jsonl',
  'example.jsonl',
  'with-compactions.jsonl',
  'thinking.jsonl',
  'v2.1.97-live-before.jsonl',
  'v2.1.97-images.jsonl',
  'v1.0.108-medium.jsonl',
  'v1.0.98-small.jsonl',
  'v1.0.x-inline-sidechains.jsonl',
  'malformed-joined-lines.jsonl',
  'plan-mode.jsonl',
];

function fixture(name: string): string {
  const p = path.join(FIXTURES, name);
  if (!fs.existsSync(p)) throw new Error(`fixture missing: ${p} (set AGENT_COMPACTOR_FIXTURES to the fixtures folder)`);
  return p;
}

function describeRun(r: ClaudeRunResult): string {
  return `exit=${r.exitCode} signal=${r.signal} timedOut=${r.timedOut} ${r.durationMs}ms\nstdout: ${r.stdout.slice(0, 500)}\nstderr: ${r.stderr.slice(0, 2000)}`;
}

/** Asserts `needles` occur in `haystack` in this order. */
function assertInOrder(haystack: string, needles: string[], what: string) {
  let from = 0;
  for (const n of needles) {
    const at = haystack.indexOf(n, from);
    assert.ok(at >= 0, `${what}: ${JSON.stringify(n.slice(0, 120))} not found (in order) in the request`);
    from = at + n.length;
  }
}

// The runs, each in its own HOME, go two at a time, each lane with its own fake (./lanes.ts).
describe('Claude Code compatibility harness (real Claude Code, fake Anthropic API)', function () {
  this.timeout(300_000);
  const lanes = new Lanes<FakeAnthropic>();
  const fakes: FakeAnthropic[] = [];

  before(async function () {
    this.timeout(600_000); // every run of the block, each bounded by resumeWithClaude's own timeout
    requireClaudeBinary(); // throws "run bash scripts/provision-claude-code.sh" when missing: the suite FAILS
    for (let i = 0; i < LANES; i++) fakes.push(await startFakeAnthropic({ scenario: { kind: 'text', text: REPLY } }));
    await lanes.run(fakes);
  });
  after(async () => {
    for (const fake of fakes) await fake.close();
  });

  describe('resuming unmodified fixtures', () => {
    for (const name of RESUMABLE) {
      lanes.it(name, async (fake) => {
        const prompt = `Compatibility probe for ${name}: reply briefly.`;
        const r = await resumeWithClaude({ sessionFile: fixture(name), prompt, fake, timeoutMs: 120_000 });
        try {
          assert.equal(r.timedOut, false, describeRun(r));
          assert.equal(r.exitCode, 0, describeRun(r));
          assert.equal(r.stdout.trim(), REPLY, describeRun(r));
          assert.ok(r.requests.length >= 1, 'Claude Code sent a /v1/messages request');
          for (const req of r.allRequests)
            assert.equal(req.path, '/v1/messages?beta=true', 'only the Messages API is called');

          const main = r.mainRequest;
          assert.ok(main, 'a request carrying the conversation');
          const body = main.body;
          assert.equal(body.stream, true);
          assert.ok(Array.isArray(body.tools) && body.tools.length > 0);
          assert.equal(main.headers['x-api-key'], true);
          assert.equal(main.headers['x-claude-code-session-id'], r.sessionId);

          // Structure the real API requires.
          assert.equal(body.messages[0].role, 'user', 'first message is a user message');
          assert.deepEqual(checkRequestInvariants(body), []);

          // The conversation really is the fixture's main chain: its last texts, in order, then the prompt.
          const text = requestText(body);
          const tail = chainTailTexts(r.originalText, 3);
          assert.equal(tail.length, 3, 'the fixture has texts at the end of its main chain');
          assertInOrder(text, [...tail, prompt], name);
          const lastUser = [...body.messages].reverse().find((m: any) => m.role === 'user');
          assert.ok(JSON.stringify(lastUser.content).includes(prompt), 'the prompt is in the last user message');

          // Claude Code appended the new turn to the same file, continuing from the expected entry.
          assert.ok(r.resumedText.startsWith(r.originalText), 'the original content is untouched');
          const anchor = resumeAnchor(r.originalText);
          const firstNew = r.appendedLines.find((l) => typeof l.uuid === 'string');
          assert.ok(anchor && firstNew, 'new chain entries were appended');
          assert.equal(firstNew.parentUuid, anchor.uuid, 'continued from the last message of the main chain');
          const lastPrompt = r.appendedLines.filter((l) => l.type === 'last-prompt').pop();
          assert.equal(lastPrompt?.lastPrompt, prompt);
          assert.ok(
            r.appendedLines.some(
              (l) => l.type === 'assistant' && JSON.stringify(l.message?.content ?? '').includes(REPLY),
            ),
            'the fake reply was recorded',
          );
          assert.ok(
            r.appendedLines.filter((l) => l.sessionId).every((l) => l.sessionId === r.sessionId),
            'appended lines carry the file name uuid',
          );
        } finally {
          r.cleanup();
        }
      });
    }

    lanes.it(
      'a subagent transcript (all entries isSidechain) is not resumable: "No conversation found"',
      async (fake) => {
        const r = await resumeWithClaude({ sessionFile: fixture('v2.1.63-subagent.jsonl'), prompt: 'hello', fake });
        try {
          assert.equal(r.exitCode, 1, describeRun(r));
          assert.match(r.stderr, /No conversation found with session ID/);
          assert.equal(r.requests.length, 0);
        } finally {
          r.cleanup();
        }
      },
    );

    lanes.it('the file name (a UUID) selects the session, not the sessionId fields inside', async (fake) => {
      const other = '0b0b0b0b-1111-4222-8333-444444444444';
      const r = await resumeWithClaude({
        sessionFile: fixture('example.jsonl'),
        sessionId: other,
        prompt: 'uuid probe',
        fake,
      });
      try {
        assert.equal(r.exitCode, 0, describeRun(r));
        assert.equal(r.mainRequest?.headers['x-claude-code-session-id'], other);
        assert.ok(path.basename(r.resumedFile) === `${other}.jsonl`);
        assert.ok(r.appendedLines.filter((l) => l.sessionId).every((l) => l.sessionId === other));
        assert.deepEqual(checkRequestInvariants(r.mainRequest?.body), []);
      } finally {
        r.cleanup();
      }
    });
  });

  describe("Claude Code's own /compact", () => {
    for (const name of ['example.jsonl', 'with-compactions.jsonl']) {
      lanes.it(
        `${name}: appends compact_boundary + isCompactSummary, and the result resumes from the summary`,
        async (fake) => {
          fake.setScenario({ kind: 'text', text: DEFAULT_SUMMARY_TEXT });
          const c = await compactWithClaude({ sessionFile: fixture(name), fake });
          let resumedTmp: string | undefined;
          try {
            assert.equal(c.exitCode, 0, describeRun(c));
            assert.equal(c.requests.length, 1, 'one summarize request (the fake summary has a <summary> block)');
            assert.ok(c.mainRequest && isCompactRequest(c.mainRequest.body));
            assert.deepEqual(checkRequestInvariants(c.mainRequest.body), []);
            assert.equal(c.mainRequest.body.messages[0].role, 'user');

            assert.equal(c.compactBoundaries.length, 1, 'one compact_boundary line appended');
            assert.equal(c.compactSummaries.length, 1, 'one isCompactSummary user line appended');
            const boundary = c.compactBoundaries[0];
            const summary = c.compactSummaries[0];
            assert.equal(boundary.parentUuid, null);
            assert.equal(typeof boundary.logicalParentUuid, 'string');
            assert.equal(boundary.compactMetadata?.trigger, 'manual');
            assert.equal(typeof boundary.compactMetadata?.preTokens, 'number');
            assert.equal(summary.parentUuid, boundary.uuid);
            assert.equal(summary.isVisibleInTranscriptOnly, true);
            const summaryText = JSON.stringify(summary.message?.content);
            assert.match(summaryText, /This session is being continued from a previous conversation/);
            assert.match(summaryText, /FAKE-SUMMARY-MARKER/);
            const all = parseJsonl(c.resumedText);
            assert.ok(
              all.indexOf(all.find((l) => l.uuid === boundary.uuid)) <
                all.indexOf(all.find((l) => l.uuid === summary.uuid)),
            );

            // Resume Claude Code's compacted file: the request starts at the summary.
            fake.setScenario({ kind: 'text', text: REPLY });
            resumedTmp = path.join(c.tempRoot, 'compacted-copy.jsonl');
            fs.writeFileSync(resumedTmp, c.resumedText);
            const r = await resumeWithClaude({
              sessionFile: resumedTmp,
              sessionId: c.sessionId,
              prompt: 'after compaction',
              fake,
            });
            try {
              assert.equal(r.exitCode, 0, describeRun(r));
              const body = r.mainRequest?.body;
              assert.deepEqual(checkRequestInvariants(body), []);
              assert.equal(body.messages[0].role, 'user');
              assert.match(
                JSON.stringify(body.messages[0].content),
                /This session is being continued[\s\S]*FAKE-SUMMARY-MARKER/,
              );
              if (name === 'example.jsonl') {
                assert.ok(
                  !requestText(body).includes('Make the colors green and yellow'),
                  'the pre-compaction first prompt is gone',
                );
              }
              assert.ok(body.messages.length < c.mainRequest.body.messages.length);
            } finally {
              r.cleanup();
            }
          } finally {
            fake.setScenario({ kind: 'text', text: REPLY });
            c.cleanup();
          }
        },
      );
    }
  });
});

describe('checkRequestInvariants (used on every captured request) flags broken pairings', () => {
  const tu = (id: string) => ({ type: 'tool_use', id, name: 'Read', input: {} });
  const tr = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });
  it('accepts a well-formed exchange (system-role messages skipped)', () => {
    const body = {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'system', content: [] },
        { role: 'assistant', content: [{ type: 'text', text: 'x' }, tu('a'), tu('b')] },
        { role: 'user', content: [tr('a'), tr('b'), { type: 'text', text: 'more' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
      ],
    };
    assert.deepEqual(checkRequestInvariants(body), []);
  });
  it('reports first-message role, unanswered tool_use, orphan tool_result, duplicate ids', () => {
    const body = {
      messages: [
        { role: 'assistant', content: [tu('a')] },
        { role: 'user', content: [tr('zzz')] },
        { role: 'assistant', content: [tu('a')] },
        { role: 'user', content: 'no results' },
      ],
    };
    const problems = checkRequestInvariants(body).join('\n');
    assert.match(problems, /first message has role assistant/);
    assert.match(problems, /tool_use a not answered in messages\[1\]/);
    assert.match(problems, /orphan tool_result for zzz/);
    assert.match(problems, /duplicate tool_use id a/);
    assert.match(problems, /tool_use a not answered in messages\[3\]/);
    assert.deepEqual(checkRequestInvariants({ messages: [] }), ['messages is empty']);
  });
});
