/**
 * Rollouts as today's Codex CLI (the pinned one) writes them, generated in before() with the REAL CLI offline
 * against the scripted fake Responses API (test/support/codex-sessions.ts): exec_command turns on a sample project
 * (cat, the tests, an apply_patch), Codex's own remote compaction (auto, by a low `model_auto_compact_token_limit`),
 * then `codex exec resume` turns. The fake's usage is the true size of every request (tokenizer count of its tools and
 * input items, `countResponsesRequestTokens`). Nothing generated is committed; the Codex home is removed in after().
 *
 * Predicted = sent, measured 2026-11-25 on the generated rollout (half its transcript as the target): our fork and
 * our in-place compaction promised 7,350 tokens and `codex exec resume` sent 8,084 (-9.1%) before the plan counted the
 * context Codex gives a resumed thread again (its developer message of permissions and skills, and the environment
 * message: 656 tokens by the fake's count, in no kept round); with it, 8,017 promised for 8,085 sent (-0.8%). What is
 * left: the instructions and tools are estimated from the first usage minus the estimated first-turn context
 * (6,914 estimated, 7,139 sent), and that context's estimate is high by about as much, so the two errors cancel.
 *
 * Run: bash scripts/provision-codex.sh && npx mocha --no-config --node-option import=tsx --timeout 600000 test/compat/codex-today.test.ts
 * Nothing is skipped: without the binary before() fails with the provisioning command to run.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { contextNow, recordedContextWindow } from '../../src/core/context';
import { inspectFile } from '../../src/core/inspect';
import { indexTranscript } from '../../src/core/transcript';
import { codex } from '../../src/core/formats/codex';
import { unclassified } from '../../src/core/formats/inventory';
import { countResponsesItemTokens, countResponsesRequestTokens } from '../support/fake-responses';
import { itemProjection, runCodex } from '../support/codex';
import {
  CODEX_COMPACTION_BLOB,
  CODEX_MARKERS,
  codexExecArgs,
  generateCodexSession,
  type CodexSession,
} from '../support/codex-sessions';
import { repoRoot } from '../support/fixtures';
import { CODEX_VERSION, shortVersion } from '../support/pins';

const err = (a: number, b: number) => Math.abs(a - b) / b;
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function records(file: string): any[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

/** The kinds of a rollout: record types, `event_msg:<type>`, `response_item:<type>`, `history:<type>` of compacted histories. */
function recordKinds(file: string): Set<string> {
  const kinds = new Set<string>();
  for (const r of records(file)) {
    kinds.add(String(r.type));
    if (r.type === 'event_msg' || r.type === 'response_item') kinds.add(`${r.type}:${String(r.payload?.type)}`);
    if (r.type === 'compacted')
      for (const item of r.payload?.replacement_history ?? []) kinds.add(`history:${String(item?.type)}`);
  }
  return kinds;
}

/** The rollout as it stood before `step` ran, written beside it. */
function fileBefore(session: CodexSession, step: string): string {
  const s = session.steps.find((x) => x.name === step)!;
  const lines = fs
    .readFileSync(session.rolloutFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const file = path.join(session.home.root, `before-${step.replace(/[^a-z]/gi, '-')}.jsonl`);
  fs.writeFileSync(file, lines.slice(0, s.fileLinesBefore).join('\n') + '\n');
  return file;
}

/** The response items our reader puts in the active context (rounds in context), in order, as projections. */
async function activeItems(file: string): Promise<string[]> {
  const analysis = await inspectFile(file, { subagents: false });
  const recs = records(file);
  const out: string[] = [];
  for (const round of analysis.rounds.filter((r) => r.inContext)) {
    for (const i of round.entries) {
      const e = analysis.index.entries[i];
      if ((e.kind !== 'user' && e.kind !== 'assistant') || e.blocks.length === 0) continue;
      const rec = recs[e.line - 1];
      const k = e.item;
      out.push(itemProjection(k === undefined ? rec.payload : rec.payload.replacement_history[k]));
    }
  }
  return out;
}

describe(`compat: rollouts as today's Codex CLI writes them (real Codex ${shortVersion(CODEX_VERSION)}, scripted fake Responses API)`, function () {
  this.timeout(900_000);
  let session: CodexSession;

  before(async () => {
    session = await generateCodexSession();
  });
  after(async () => {
    await session?.cleanup();
  });

  it('every step ran; Codex compacted by itself (a compaction item, window ids) and resumed from its own history', () => {
    for (const s of session.steps) assert.equal(s.run.code, 0, `${s.name}: ${s.run.stderr.slice(-500)}`);
    const compactStep = session.steps.find((s) => s.name === 'compact')!;
    const triggers = compactStep.requests.filter((r) => (r.body as any).input.at(-1)?.type === 'compaction_trigger');
    assert.equal(triggers.length, 1, 'one compaction request in the compact step');
    // Today's Codex stores its threads paginated: the predicted = sent runs below resume our compaction of one.
    assert.equal(records(session.rolloutFile)[0].payload.history_mode, 'paginated');
    const compacted = records(session.rolloutFile).filter((r) => r.type === 'compacted');
    assert.equal(compacted.length, 1);
    const p = compacted[0].payload;
    const item = p.replacement_history.find((i: any) => i.type === 'compaction');
    assert.equal(item?.encrypted_content, CODEX_COMPACTION_BLOB, 'the compaction item is in the replacement history');
    assert.equal(typeof p.window_id, 'string');
    assert.equal(p.window_number, 1);
    // Every later request carries the compaction item, and the model's answers followed the script.
    for (const s of session.steps.slice(session.steps.indexOf(compactStep) + 1)) {
      for (const r of s.requests)
        assert.ok(
          (r.body as any).input.some(
            (i: any) => i.type === 'compaction' && i.encrypted_content === CODEX_COMPACTION_BLOB,
          ),
          `${s.name} sent the compaction item`,
        );
    }
    const text = fs.readFileSync(session.rolloutFile, 'utf8');
    for (const marker of Object.values(CODEX_MARKERS)) assert.ok(text.includes(marker), `${marker} in the rollout`);
    assert.match(
      fs.readFileSync(path.join(session.projectDir, 'calc.js'), 'utf8'),
      /return a - b;/,
      'the apply_patch call edited the file',
    );
  });

  it('every record kind it writes is named in the Codex section of docs/FORMATS.md', () => {
    const doc = fs.readFileSync(path.join(repoRoot, 'docs', 'FORMATS.md'), 'utf8');
    const at = doc.indexOf('# Codex rollout records');
    assert.ok(at >= 0, 'docs/FORMATS.md has a Codex section');
    const section = doc.slice(at);
    const missing = [...recordKinds(session.rolloutFile)].filter((k) => !section.includes(`\`${k.split(':').pop()}\``));
    assert.deepEqual(missing, [], `kinds the Codex section does not name: ${missing.join(', ')}`);
  });

  it("every record kind and field the pinned CLI writes is one Codex's reader classifies as used or ignored", () => {
    const inventory = codex.records!.inventory!;
    const all = records(session.rolloutFile);
    assert.ok(all.length > 30, `walked ${all.length} records`);
    const unknown = new Set(all.flatMap((r) => unclassified(inventory, r)));
    assert.deepEqual([...unknown], [], 'kinds and fields src/core/formats/codex/inventory.ts does not classify');
  });

  it('every line is read without error, unknown kinds included, and compaction keeps them byte for byte', async () => {
    const file = path.join(session.home.root, 'with-unknown.jsonl');
    const unknown = [
      '{"timestamp":"2026-11-25T00:00:00.000Z","ordinal":9001,"type":"future_record","payload":{"x":[1,{"y":"ünï"}]}}',
      '{"timestamp":"2026-11-25T00:00:00.001Z","ordinal":9002,"type":"event_msg","payload":{"type":"future_event","z":true}}',
      '{"timestamp":"2026-11-25T00:00:00.002Z","ordinal":9003,"type":"response_item","payload":{"type":"future_item","w":1}}',
    ];
    const lines = fs.readFileSync(session.rolloutFile, 'utf8').trimEnd().split('\n');
    lines.splice(lines.length - 2, 0, ...unknown);
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const index = await indexTranscript(file);
    assert.equal(index.format.id, 'codex');
    assert.equal(index.lineCount, lines.length);
    const linesRead = new Set(index.entries.map((e) => e.line));
    for (let n = 1; n <= lines.length; n++) assert.ok(linesRead.has(n), `line ${n} has an entry`);
    const kinds = new Set(index.entries.map((e) => `${e.kind}${e.subtype ? ':' + e.subtype : ''}`));
    for (const k of [
      'world_state',
      'token_usage_record',
      'future_record',
      'event_msg:future_event',
      'response_item:future_item',
    ])
      assert.ok(kinds.has(k), `${k} read as an entry`);
    const original = fs.readFileSync(file);
    const result = await compactFile(file, {
      summarizer: 'extractive',
      inPlace: true,
      settings: { targetTokens: 7_000, keepRecentTokens: 200 },
    });
    assert.equal(result.mode, 'in-place');
    assert.ok(
      fs.readFileSync(file).subarray(0, original.length).equals(original),
      'the original bytes, unknown lines included, are kept',
    );
  });

  it("after Codex's own compaction the active context is the history Codex rebuilds and sends", async () => {
    for (const step of ['turn:after-compact', 'resume']) {
      const s = session.steps.find((x) => x.name === step)!;
      const input = (s.requests[0].body as any).input as any[];
      // Sent: Codex's base instructions (in no record), the rebuilt history, the new prompt.
      assert.equal(input[0].role, 'developer');
      const sent = input.slice(1, -1).map(itemProjection);
      assert.deepEqual(
        await activeItems(fileBefore(session, step)),
        sent,
        `${step}: the active context is what Codex sent`,
      );
    }
  });

  it('the context figure before a turn is the size of the request that turn sends (without its prompt), within 2%; the window is the recorded one', async () => {
    for (const step of ['turn:after-compact', 'resume']) {
      const s = session.steps.find((x) => x.name === step)!;
      const body = s.requests[0].body as any;
      const sent = countResponsesRequestTokens(body).total - countResponsesItemTokens(body.input.at(-1));
      const figure = contextNow((await inspectFile(fileBefore(session, step), { subagents: false })).report);
      process.stdout.write(
        `      before ${step}: context now ${figure.tokens} (${figure.source}), sent ${sent} (${pct(err(figure.tokens, sent))})\n`,
      );
      assert.ok(err(figure.tokens, sent) <= 0.02, `context now ${figure.tokens}, sent ${sent}`);
    }
    // The window is the one Codex records with its token counts, not a Claude model's.
    const recorded = records(session.rolloutFile).filter(
      (r) =>
        r.type === 'event_msg' &&
        r.payload?.type === 'token_count' &&
        typeof r.payload.info?.model_context_window === 'number',
    );
    assert.ok(recorded.length > 0, 'Codex recorded its context window');
    const analysis = await inspectFile(session.rolloutFile, { subagents: false });
    assert.equal(
      recordedContextWindow(analysis.index.entries),
      recorded[recorded.length - 1].payload.info.model_context_window,
    );
  });

  for (const inPlace of [false, true]) {
    it(`predicted = sent: our ${inPlace ? 'in-place' : 'fork'} compaction's promised context is the first request \`codex exec resume\` sends, within 5%`, async () => {
      const context = contextNow((await inspectFile(session.rolloutFile, { subagents: false })).report);
      const settings = {
        targetTokens: Math.round(context.overhead + context.transcript / 2),
        keepRecentTokens: Math.round(context.transcript / 4),
      };
      const result = await compactFile(session.rolloutFile, { summarizer: 'extractive', inPlace, settings });
      assert.equal(result.mode, inPlace ? 'in-place' : 'fork');
      const prompt = `PREDICTED-SENT ${inPlace ? 'in place' : 'fork'}`;
      const before = session.fake.responsesRequests().length;
      assert.ok(result.sessionId, 'the result names its thread');
      const run = await runCodex(session.home, session.fake, codexExecArgs(prompt, result.sessionId));
      assert.equal(run.code, 0, run.stderr.slice(-1000));
      const first = session.fake.responsesRequests().slice(before)[0];
      assert.ok(
        JSON.stringify((first.body as any).input.at(-1)).includes(prompt),
        'the first request is the resumed turn',
      );
      const sent = countResponsesRequestTokens(first.body);
      const promised = result.plan.postTokens + result.plan.overheadTokens;
      process.stdout.write(
        `      ${inPlace ? 'in place' : 'fork'}: promised ${promised} (transcript ${result.plan.postTokens} + instructions, tools and context ${result.plan.overheadTokens}), sent ${sent.total} (tools ${sent.tools}, input ${sent.input}): ${pct(err(promised, sent.total))}\n`,
      );
      assert.ok(err(promised, sent.total) <= 0.05, `promised ${promised}, sent ${sent.total}`);
    });
  }
});
