// Compacting sessions today's Claude Code wrote (test/support/today-sessions.ts: the pinned CLI, offline against
// the scripted fake), resumed by id with the SAME real CLI, the first request it sends counted by the fake
// (`countRequestTokens`, the tokenizer count it reports as usage).
//
// 1. Predicted = sent: the resumed context a plan promises (`postTokens + overheadTokens`, what `plan` prints and the
//    dialog promises) against that request, within 5%, on every generated session (the one before Claude Code's own
//    /compact, the one after it, and the `--fork-session` copy), compacted to a fork and in place.
// 2. Repeated compaction (issue #20 item 6): three compactions in a row, in place and as a chain of forks, each
//    resumed by the real CLI; after each step the invariants of test/integration/property/repeated.test.ts that apply, and: the
//    resumed request is API-valid (every tool_use answered), opens with our summary, carries every round the plan
//    kept, and predicted = sent within 5%.
//
// What 2.1.330 adds on resume that no kept line holds: its session-start context (environment, model, deferred
// tools, agent types, skills, date) as one role "system" message, and the attribution reminder beside the prompt,
// about 2.3k tokens here. It sends them whenever the chain it resumes holds none, and the file shows it: they are
// rendered attachments before the first response, written again after its own /compact. Modelled in
// src/core/context.ts `reannouncedOnResume` (before it: promised 9.9k, sent 11.9k, 17% short).
// Measured 2026-11-25 (whole promise vs sent): before its own /compact 12.1k vs 11.6k (4.8%), after it 2.1%, its
// --fork-session 2.8%, repeated steps 0.3-2.1%. The transcript part alone is over by 300-600 tokens (10-20% of ~3k);
// remaining gaps:
// - the kept thinking blocks: the fake counts their (empty) text, our estimate their signatures (a few tokens each);
// - the estimate of the re-announced context counts the `<system-reminder>` wrappers the CLI strips when it merges
//   them into one message (about 1%).
import { strict as assert } from 'node:assert';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkRequestInvariants, requireClaudeBinary, spawnClaude } from '../support/claude-code';
import { countRequestTokens, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { activeSummary } from '../support/summaries';
import { generateTodaySession, TODAY_MARKERS, type TodaySession } from '../support/today-sessions';
import { compactFile } from '../../src/core/compact/compact';
import type { CompactResult } from '../../src/core/compact/types';
import { checkResumable } from '../../src/core/compact/validate';
import { contextNow } from '../../src/core/context';
import { inspectFile } from '../../src/core/inspect';

const TOLERANCE = 0.05;
const STEPS = 3;
const err = (a: number, b: number) => Math.abs(a - b) / b;
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** A copy of `source` (its first `lines` lines, else all) as a new session of the same project: a new id, named by it. */
function placeCopy(source: string, lines?: number): string {
  const id = crypto.randomUUID();
  const all = fs
    .readFileSync(source, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const text = all.slice(0, lines ?? all.length).map((line) => {
    const o = JSON.parse(line) as Record<string, unknown>;
    if (typeof o.sessionId === 'string') o.sessionId = id;
    return JSON.stringify(o);
  });
  const file = path.join(path.dirname(source), `${id}.jsonl`);
  fs.writeFileSync(file, text.join('\n') + '\n');
  return file;
}

interface Resumed {
  body: any;
  sent: number;
}

/** Resumes `sessionId` with the real CLI and returns the first request that carries `prompt`. */
async function resume(session: TodaySession, fake: FakeAnthropic, sessionId: string, prompt: string): Promise<Resumed> {
  fake.clearRequests();
  const run = await spawnClaude({
    bin: requireClaudeBinary(),
    args: ['-p', '--resume', sessionId, '--', prompt],
    cwd: session.projectDir,
    home: path.join(session.tempRoot, 'home'),
    tmp: path.join(session.tempRoot, 'tmp'),
    fake,
  });
  assert.equal(run.exitCode, 0, `claude exited ${run.exitCode}: ${run.stderr}${run.stdout}`);
  const first = fake.messageRequests().find((r) => JSON.stringify(r.body?.messages ?? '').includes(prompt));
  assert.ok(first, `Claude Code sent the resumed conversation of ${sessionId}`);
  return { body: first.body, sent: countRequestTokens(first.body).total };
}

/** Compacts `file` to about half its transcript beside the system prompt and tools (a real cut). */
async function compactHalf(file: string, inPlace: boolean): Promise<CompactResult> {
  const context = contextNow((await inspectFile(file, { subagents: false })).report);
  return compactFile(file, {
    summarizer: 'extractive',
    inPlace,
    settings: {
      targetTokens: Math.round(context.overhead + context.transcript / 2),
      keepRecentTokens: Math.round(context.transcript / 4),
    },
  });
}

/** A request's messages flattened: their JSON (tool call ids) and their texts with blanks collapsed (as previews are). */
function requestPieces(body: any): string {
  const texts: string[] = [];
  for (const m of body.messages) {
    if (typeof m.content === 'string') texts.push(m.content);
    else for (const b of m.content) if (b?.type === 'text') texts.push(String(b.text));
  }
  return JSON.stringify(body.messages) + '\n' + texts.join(' ').replace(/\s+/g, ' ');
}

/** The kept rounds' tool_use ids and reply texts (their first words), as they must appear in the resumed request. */
async function keptPieces(result: CompactResult, input: string): Promise<string[]> {
  const analysis = await inspectFile(input, { subagents: false });
  const out: string[] = [];
  for (const p of result.plan.rounds) {
    if (p.action !== 'keep' || !p.inContext) continue;
    for (const u of analysis.rounds[p.index].toolUses) out.push(u.id);
    const reply = analysis.rounds[p.index].replyPreview;
    if (reply) out.push(reply.slice(0, 40));
  }
  return out;
}

describe("compat: compacting sessions today's Claude Code wrote, resumed by the same real CLI", function () {
  this.timeout(1_800_000);
  let session: TodaySession;
  let fake: FakeAnthropic;
  const sources: { name: string; file: () => string }[] = [];

  before(async () => {
    session = await generateTodaySession();
    fake = await startFakeAnthropic();
    const compactStep = session.steps.find((s) => s.name === 'compact')!;
    sources.push(
      { name: 'before its own /compact', file: () => placeCopy(session.sessionFile, compactStep.fileLinesBefore) },
      { name: 'after its /compact and --resume', file: () => placeCopy(session.sessionFile) },
      { name: 'its --fork-session', file: () => placeCopy(session.forkFile!) },
    );
  });
  after(async () => {
    await fake?.close();
    session?.cleanup();
  });

  for (const index of [0, 1, 2]) {
    for (const inPlace of [false, true]) {
      it(`predicted = sent within 5%: session ${index + 1} (${['before its own /compact', 'after its /compact and --resume', 'its --fork-session'][index]}), ${inPlace ? 'in place' : 'to a fork'}`, async () => {
        const file = sources[index].file();
        const before = contextNow((await inspectFile(file, { subagents: false })).report);
        assert.ok(
          before.transcript > 8_000,
          `the generated session is worth compacting: transcript ${before.transcript}`,
        );
        const result = await compactHalf(file, inPlace);
        assert.ok(result.sessionId, 'the result has a session id');
        assert.equal(result.output === file, inPlace);
        const promised = result.plan.postTokens + result.plan.overheadTokens;
        const { body, sent } = await resume(
          session,
          fake,
          result.sessionId,
          `resume ${index} ${inPlace ? 'in place' : 'fork'} and go on`,
        );
        const truth = countRequestTokens(body);
        process.stdout.write(
          `      ${sources[index].name} ${inPlace ? 'in place' : 'fork'}: context before ${before.tokens}, promised ${promised}, sent ${sent} (${pct(err(promised, sent))}); ` +
            `transcript ${result.plan.postTokens} vs messages ${truth.messages}; system prompt and tools ${result.plan.overheadTokens} vs ${truth.system + truth.tools}\n`,
        );
        assert.ok(promised < before.tokens, 'a real compaction');
        assert.ok(err(promised, sent) <= TOLERANCE, `promised ${promised}, sent ${sent} (${pct(err(promised, sent))})`);
      });
    }
  }

  for (const mode of ['in-place', 'forks'] as const) {
    it(`three compactions in a row (${mode}), each resumed by the real CLI: nothing lost (its preserved segment included), API-valid, predicted = sent within 5%`, async () => {
      let current = sources[1].file();
      // Claude Code's /compact kept the reply before it verbatim (its preserved segment), and still sends it: its text
      // must reach every resumed request, kept as it is or quoted in our summary. Before it was quoted, the offline
      // summary of that round dropped it (lost from the first compaction on).
      const start = await inspectFile(current, { subagents: false });
      const preservedLines = fs.readFileSync(current, 'utf8').split('\n');
      const preserved = start.chain.preserved.map((i) => preservedLines[start.index.entries[i].line - 1]).join('\n');
      assert.ok(
        preserved.includes(TODAY_MARKERS.talk),
        'the session has an active preserved segment with a known reply',
      );
      let summaries: string[] = [];
      for (let step = 1; step <= STEPS; step++) {
        const label = `${mode} step ${step}`;
        const inputBytes = fs.readFileSync(current);
        const inputSummary = await activeSummary(current);
        const input = path.join(session.tempRoot, `${mode}-input-${step}.jsonl`);
        fs.copyFileSync(current, input);
        const result = await compactHalf(current, mode === 'in-place');
        const out = fs.readFileSync(result.output);
        // The input's bytes are untouched.
        assert.ok(
          out.subarray(0, inputBytes.length).equals(inputBytes),
          `${label}: the result starts with the input's bytes`,
        );
        if (mode === 'in-place') {
          assert.equal(result.output, current);
          assert.ok(
            result.backup && fs.readFileSync(result.backup).equals(inputBytes),
            `${label}: the backup holds the input`,
          );
        } else {
          assert.equal(
            path.basename(result.output),
            `${result.sessionId}.jsonl`,
            `${label}: the fork is named by its session id`,
          );
          assert.ok(fs.readFileSync(current).equals(inputBytes), `${label}: the parent is byte-identical`);
        }
        // Valid and resumable from the new leaf (offline check).
        const check = await checkResumable(result.output);
        assert.deepEqual(
          check.problems.filter((p) => !/over the .*target/.test(p)),
          [],
          `${label}: the result resumes`,
        );
        // Earlier summaries survive.
        const summary = await activeSummary(result.output);
        assert.ok(summary !== null, `${label}: the result opens with a summary`);
        if (inputSummary !== null)
          assert.ok(summary.includes(inputSummary), `${label}: the earlier summary is in the new one`);
        for (const s of summaries) assert.ok(summary.includes(s), `${label}: every earlier summary survives`);
        summaries = [summary];

        // Resumed by the real CLI.
        const kept = await keptPieces(result, input);
        assert.ok(kept.length > 0, `${label}: the plan keeps rounds`);
        const promised = result.plan.postTokens + result.plan.overheadTokens;
        const { body, sent } = await resume(
          session,
          fake,
          result.sessionId!,
          `step ${step} of the ${mode} chain, go on`,
        );
        assert.deepEqual(checkRequestInvariants(body), [], `${label}: the resumed request is API-valid`);
        const first = body.messages.find((m: any) => m.role === 'user');
        const firstText =
          typeof first.content === 'string' ? first.content : first.content.map((b: any) => b.text ?? '').join('\n');
        assert.ok(firstText.includes(summary.slice(0, 200)), `${label}: the resumed request opens with our summary`);
        const pieces = requestPieces(body);
        for (const piece of kept)
          assert.ok(pieces.includes(piece), `${label}: kept ${piece} is in the resumed request`);
        assert.ok(
          pieces.includes(TODAY_MARKERS.talk),
          `${label}: the reply Claude Code's own compaction preserved is in the resumed request`,
        );
        process.stdout.write(
          `      ${label}: promised ${promised}, sent ${sent} (${pct(err(promised, sent))}), ${kept.length} pieces of kept rounds carried\n`,
        );
        assert.ok(
          err(promised, sent) <= TOLERANCE,
          `${label}: promised ${promised}, sent ${sent} (${pct(err(promised, sent))})`,
        );
        current = result.output;
      }
    });
  }
});
