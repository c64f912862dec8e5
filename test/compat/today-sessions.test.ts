/**
 * Sessions as today's Claude Code (the pinned 2.1.330) writes them, generated in before() with the REAL CLI offline
 * against the scripted fake (test/support/today-sessions.ts): Read (small and large files, an image), Bash, Edit
 * and Agent (subagent) turns on a sample project, thinking blocks, plain talk turns, its own `/compact` (headless),
 * turns after it, a plain `--resume` and a `--fork-session`; `/branch` and `/rewind` are tried and declined headless. Nothing generated is
 * committed; the session lives in a temp dir removed in after().
 *
 * Run: bash scripts/provision-claude-code.sh && npx mocha --no-config --node-option import=tsx --timeout 600000 test/compat/today-sessions.test.ts
 * Nothing is skipped: without the binary before() fails with the provisioning command to run.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { indexTranscript } from '../../src/core/transcript';
import { inspectFile } from '../../src/core/inspect';
import { readableConversation } from '../../src/core/compact/readable';
import { planDetails } from '../../src/core/compact/plan';
import { countRequestTokens } from '../support/fake-anthropic';
import { parseJsonl } from '../support/claude-code';
import { TODAY_MARKERS, generateTodaySession, type TodaySession } from '../support/today-sessions';
import { REPO_ROOT } from '../support/claude-code';
import { claudeFixtures } from '../support/fixtures';

/** The record kinds of a session: `type`, and `attachment:<attachment.type>` for attachments. */
function recordKinds(text: string): Set<string> {
  const kinds = new Set<string>();
  for (const o of parseJsonl(text)) {
    kinds.add(String(o.type));
    if (o.type === 'attachment') kinds.add(`attachment:${String(o.attachment?.type)}`);
  }
  return kinds;
}

/** Assistant blocks (text, tool calls) flattened in order, and the tool_result ids, of API-style messages. */
function conversationOf(messages: { role: string; content: unknown }[]): { assistant: string[]; results: string[] } {
  const assistant: string[] = [];
  const results: string[] = [];
  for (const m of messages) {
    const blocks: any[] = Array.isArray(m.content) ? m.content : [];
    for (const b of blocks) {
      if (m.role === 'assistant' && b?.type === 'text') assistant.push(`text:${b.text}`);
      else if (m.role === 'assistant' && b?.type === 'tool_use')
        assistant.push(`tool_use:${b.name}:${JSON.stringify(b.input)}`);
      else if (m.role === 'user' && b?.type === 'tool_result') results.push(String(b.tool_use_id));
    }
  }
  return { assistant, results };
}

/** The session file as it stood before `step` ran (its first lines), written beside it. */
function fileBefore(session: TodaySession, step: string): string {
  const s = session.steps.find((x) => x.name === step)!;
  const lines = fs
    .readFileSync(session.sessionFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const file = path.join(session.tempRoot, `before-${step.replace(/[^a-z]/gi, '-')}.jsonl`);
  fs.writeFileSync(file, lines.slice(0, s.fileLinesBefore).join('\n') + '\n');
  return file;
}

/** What our rounds mark active, as the messages their lines hold (in the chain's order). */
async function activeConversation(file: string): Promise<{ assistant: string[]; results: string[] }> {
  const analysis = await inspectFile(file);
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const messages = analysis.rounds
    .filter((r) => r.inContext)
    .flatMap((r) => r.entries)
    .map((i) => JSON.parse(lines[analysis.index.entries[i].line - 1]))
    .filter((o) => o.type === 'user' || o.type === 'assistant')
    .map((o) => ({ role: String(o.message.role), content: o.message.content as unknown }));
  return conversationOf(messages);
}

describe("sessions as today's Claude Code writes them (real CLI, generated)", function () {
  let session: TodaySession;
  let text: string;

  before(async function () {
    session = await generateTodaySession();
    text = fs.readFileSync(session.sessionFile, 'utf8');
  });
  after(() => session?.cleanup());

  it('ran every step headless, /compact included, and each step answered as scripted', () => {
    // /branch and /rewind have no headless form in 2.1.330 ("isn't available in this environment"); --fork-session does.
    assert.deepEqual(
      session.slashCommands.map((c) => [c.command, c.ran]),
      [
        ['/compact', true],
        ['--fork-session', true],
        ['/branch', false],
        ['/rewind', false],
      ],
      JSON.stringify(session.slashCommands),
    );
    const byName = new Map(session.steps.map((s) => [s.name, s]));
    assert.match(byName.get('turn:read')!.run.stdout, new RegExp(TODAY_MARKERS.read));
    assert.match(byName.get('turn:bash')!.run.stdout, new RegExp(TODAY_MARKERS.bash));
    assert.match(byName.get('turn:edit')!.run.stdout, new RegExp(TODAY_MARKERS.edit));
    assert.match(byName.get('turn:after-compact')!.run.stdout, new RegExp(TODAY_MARKERS.after));
    assert.match(byName.get('resume')!.run.stdout, new RegExp(TODAY_MARKERS.resume));
    // The Edit really ran: the sample project's bug is fixed on disk.
    assert.match(fs.readFileSync(path.join(session.projectDir, 'calc.js'), 'utf8'), /return a - b;/);
    for (const [step, marker] of [
      ['turn:read-big', TODAY_MARKERS.readBig],
      ['turn:read-docs', TODAY_MARKERS.readDocs],
      ['turn:subagent', TODAY_MARKERS.subagent],
      ['turn:image', TODAY_MARKERS.image],
      ['turn:recap', TODAY_MARKERS.recap],
    ]) {
      assert.match(byName.get(step)!.run.stdout, new RegExp(marker), step);
    }
    // What makes the session worth compacting and like real ones: large Read results, thinking, an image, a subagent.
    const blocks = parseJsonl(text).flatMap((o) => (Array.isArray(o.message?.content) ? o.message.content : []));
    assert.ok(
      blocks.some((b: any) => b.type === 'thinking' && typeof b.signature === 'string' && b.signature.length > 0),
      'thinking blocks with signatures',
    );
    assert.ok(
      blocks.some(
        (b: any) =>
          b.type === 'tool_result' && Array.isArray(b.content) && b.content.some((c: any) => c.type === 'image'),
      ),
      'an image tool result',
    );
    assert.ok(
      blocks.some((b: any) => b.type === 'tool_result' && JSON.stringify(b.content).length > 15_000),
      'a Read result of several thousand tokens',
    );
    const subagents = path.join(path.dirname(session.sessionFile), session.sessionId, 'subagents');
    assert.ok(
      fs.readdirSync(subagents).some((f) => f.endsWith('.jsonl')),
      'the Agent subagent wrote its transcript',
    );
    assert.ok(
      session.forkFile && fs.readFileSync(session.forkFile, 'utf8').includes(TODAY_MARKERS.fork),
      'the --fork-session run wrote its own file',
    );
    const kinds = recordKinds(text);
    for (const k of [
      'attachment:prompt_snapshot',
      'api-request-shape',
      'api-request',
      'cost-state',
      'system',
      'last-prompt',
    ]) {
      assert.ok(kinds.has(k), `the generated session has ${k} records: ${[...kinds].join(', ')}`);
    }
    const boundary = parseJsonl(text).find((o) => o.type === 'system' && o.subtype === 'compact_boundary');
    assert.ok(boundary?.compactMetadata?.preservedSegment?.headUuid, 'the boundary names a preserved segment');
  });

  it("records the true size of each request: every response's usage is the fake's tokenizer count of the request that asked for it", () => {
    const requests = session.steps.flatMap((s) => s.requests);
    const byMessageId = new Map(requests.filter((r) => r.response?.messageId).map((r) => [r.response!.messageId!, r]));
    let checked = 0;
    for (const o of parseJsonl(text)) {
      if (o.type !== 'assistant' || !o.message?.usage) continue;
      const req = byMessageId.get(o.message.id);
      assert.ok(req, `response ${o.message.id} came from a recorded request`);
      assert.equal(o.message.usage.input_tokens, countRequestTokens(req.body).total, `usage of ${o.message.id}`);
      checked++;
    }
    assert.ok(checked >= 8, `checked ${checked} responses`);
  });

  it('the reader indexes every line, unknown record kinds included, without a malformed line', async () => {
    const index = await indexTranscript(session.sessionFile);
    assert.deepEqual(index.malformed, []);
    assert.equal(index.entries.length, parseJsonl(text).length);
    const kinds = new Set(index.entries.map((e) => e.kind));
    for (const k of ['api-request-blob', 'atis-latch', 'tools-used', 'queue-operation', 'mode'])
      assert.ok(kinds.has(k), `${k} indexed`);
  });

  it('docs/FORMATS.md describes every record kind the generated session and the shared fixtures hold', () => {
    const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'FORMATS.md'), 'utf8');
    const kinds = new Set([
      ...recordKinds(text),
      ...claudeFixtures().flatMap((f) => [...recordKinds(fs.readFileSync(f, 'utf8'))]),
    ]);
    const missing = [...kinds].filter((k) => !doc.includes(`\`${k.replace(/^attachment:/, '')}\``));
    assert.deepEqual(missing, [], 'record kinds missing from docs/FORMATS.md');
  });

  for (const step of ['turn:after-compact', 'resume']) {
    it(`the rounds we mark active are the messages the real CLI sends next (${step === 'resume' ? 'on --resume' : 'right after its /compact'}), its preserved segment included`, async () => {
      const file = fileBefore(session, step);
      const sent = session.steps.find((s) => s.name === step)!.requests[0].body;
      const first = sent.messages.find((m: any) => m.role !== 'system');
      assert.match(
        typeof first.content === 'string' ? first.content : first.content[0].text,
        /^This session is being continued/,
      );
      const theirs = conversationOf(sent.messages);
      assert.ok(
        theirs.assistant.some((t) => t.includes(TODAY_MARKERS.talk)),
        'the CLI sends the preserved message',
      );
      assert.deepEqual(await activeConversation(file), theirs);
    });
  }

  it('the readable active context puts the preserved message right after the summary, as the CLI sends it', async () => {
    const text = await readableConversation(fileBefore(session, 'turn:after-compact'));
    const summaryAt = text.indexOf('This session is being continued');
    const preservedAt = text.indexOf(TODAY_MARKERS.talk);
    assert.ok(summaryAt >= 0 && preservedAt > summaryAt, text.slice(0, 600));
    assert.ok(
      preservedAt < text.indexOf('<command-name>/compact'),
      'before the /compact command lines that follow the summary in the file',
    );
  });

  it("takes the system prompt and tools from the agent's own record (labelled recorded), within 5% of the fake's count of the next request's", async () => {
    for (const step of ['turn:after-compact', 'resume']) {
      const next = session.steps.find((s) => s.name === step)!.requests[0].body;
      const truth = countRequestTokens(next);
      const expected = truth.system + truth.tools;
      const file = fileBefore(session, step);
      const { totals } = (await inspectFile(file)).report;
      assert.equal(totals.overheadSource, 'recorded', step);
      const error = Math.abs(totals.overheadTokens! - expected) / expected;
      assert.ok(
        error <= 0.05,
        `${step}: recorded ${totals.overheadTokens} vs the request's ${expected} (${(error * 100).toFixed(1)}%)`,
      );
      // Without the record the same file falls back to the estimate from usage, labelled so.
      const stripped = path.join(session.tempRoot, 'no-shape.jsonl');
      fs.writeFileSync(
        stripped,
        fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .filter((l) => !l.includes('"type":"api-request-shape"'))
          .join('\n'),
      );
      const estimated = (await inspectFile(stripped)).report.totals;
      assert.equal(estimated.overheadSource, 'estimated', step);
      process.stdout.write(
        `      ${step}: system prompt + tools of the next request ${expected}; recorded ${totals.overheadTokens}; estimated from usage ${estimated.overheadTokens}\n`,
      );
    }
  });

  it('a compaction plan of the session right after its /compact treats the preserved round as active context, not history', async () => {
    const analysis = await inspectFile(fileBefore(session, 'turn:after-compact'));
    const { plan } = await planDetails(analysis, { targetTokens: 1000, keepRecentTokens: 100 });
    const preserved = plan.rounds.filter((r) => analysis.rounds[r.index].replyPreview?.includes(TODAY_MARKERS.talk));
    assert.equal(preserved.length, 1, 'one round holds the preserved reply');
    assert.equal(preserved[0].inContext, true);
    assert.doesNotMatch(preserved[0].reason, /history before an earlier compact boundary/);
  });
});
