// An agent that upgrades every week writes record kinds we have never seen, and records we read (cost-state,
// api-request-shape, api-request, attachments) in shapes we did not expect. None of that is ever an error: every verb
// of the CLI (inspect, plan, compact, doctor, repair; run in this process as `agent-compactor` runs it) gives on a
// session holding such lines what it gives on the same session without them (exit code, findings, plan), and what it
// writes keeps them byte for byte.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTranscript } from '../support/reliability';
import { runCliInProcess } from '../support/cliInProcess';
import { tempDir } from '../support/temp';

/** Lines with no uuid (off the chain): unknown kinds, and known ones in shapes nobody promised. */
const METADATA = [
  '{"type":"future-record","sessionId":"s","payload":{"nested":[1,{"deep":"ünï"}]}}',
  '{"type":"cost-state","totalCostUSD":"a lot","modelUsage":[1,2,3]}',
  '{"type":"cost-state","totalCostUSD":-5,"modelUsage":{"claude-x":{"inputTokens":"many","costUSD":null}}}',
  '{"type":"cost-state"}',
  '{"type":"api-request-shape","shapeHash":7,"shape":{"system":5,"tools":"none"}}',
  '{"type":"api-request-shape","shape":null}',
  '{"type":"api-request-shape","shapeHash":"h","shape":{"system":[{"text":7},null,"plain"],"tools":{"a":1}}}',
  '{"type":"api-request","shapeHash":"h","params":"x","tail":5,"keep":"all","timestamp":"not a time"}',
  '{"type":"api-request-blob","hash":null,"message":7}',
  '{"type":"queue-operation","operation":{"weird":true}}',
  '{"type":"tools-used","tools":"Read"}',
  '{"type":"mode","mode":null}',
  '{"type":"last-prompt","lastPrompt":42,"leafUuid":false}',
];

/** Chain links of unknown kinds and odd attachments, inserted between two lines of the chain (relinked through them). */
function chainLinks(uuid: (k: number) => string): Record<string, unknown>[] {
  return [
    { type: 'future-link', uuid: uuid(1), data: { x: 1 } },
    { type: 'attachment', uuid: uuid(2), attachment: { type: 'future_attachment', payload: [1, 2] } },
    { type: 'attachment', uuid: uuid(3), attachment: { type: 'environment' }, rendered: 'not an array' },
    { type: 'attachment', uuid: uuid(4), attachment: 7, rendered: [{ content: 7 }, null] },
    { type: 'system', subtype: 'future_subtype', uuid: uuid(5), content: { odd: true } },
  ];
}

/** The session with the odd lines: metadata after line 6, chain links between lines 10 and 11 (11 relinked). */
function withOddLines(lines: string[]): string[] {
  const out = [...lines];
  const at = 10;
  const before = JSON.parse(out[at - 1]) as { uuid: string; sessionId: string };
  const after = JSON.parse(out[at]) as Record<string, unknown>;
  let parent = before.uuid;
  const links = chainLinks((k) => `9999999${k}-0000-4000-8000-000000000000`).map((o) => {
    const line = JSON.stringify({ parentUuid: parent, isSidechain: false, sessionId: before.sessionId, ...o });
    parent = o.uuid as string;
    return line;
  });
  out[at] = JSON.stringify({ ...after, parentUuid: parent });
  out.splice(at, 0, ...links);
  out.splice(6, 0, ...METADATA);
  return out;
}

/** The verb in this process, as `agent-compactor` runs it (the bundle's own wiring: test/integration/cli.test.ts). */
function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return runCliInProcess(args);
}

describe('unknown and odd records are never an error, for any verb', function () {
  this.timeout(120_000);
  let dir: string;
  let clean: string;
  let odd: string;

  beforeEach(() => {
    dir = tempDir('ac-unknown-');
    const lines = buildTranscript({ rounds: 14, textChars: 1_500, resultChars: (r) => (r % 3 === 0 ? 3_000 : 300) });
    clean = join(dir, '11111111-2222-4333-8444-555555555555.jsonl');
    odd = join(dir, '11111111-2222-4333-8444-666666666666.jsonl');
    writeFileSync(clean, lines.join('\n') + '\n');
    writeFileSync(odd, withOddLines(lines).join('\n') + '\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('inspect: exit 0, no malformed line, the same rounds and context figure', async () => {
    const a = await run(['inspect', clean, '--json']);
    const b = await run(['inspect', odd, '--json']);
    assert.equal(b.status, 0, b.stderr);
    assert.equal(b.stderr, '');
    const ra = JSON.parse(a.stdout);
    const rb = JSON.parse(b.stdout);
    assert.deepEqual(rb.malformed, [], 'an unknown or odd record is not a malformed line');
    assert.equal(rb.rounds.length, ra.rounds.length);
    assert.equal(rb.totals.activeRounds, ra.totals.activeRounds);
    assert.equal(
      rb.totals.overheadSource,
      ra.totals.overheadSource,
      'a shape that cannot be counted is not "recorded"',
    );
    const text = await run(['inspect', odd]);
    assert.equal(text.status, 0, text.stderr);
  });

  it('plan: exit 0 and the same plan (actions and the resumed size)', async () => {
    const small = ['--target-tokens', '8000', '--keep-recent-tokens', '2000'];
    const a = JSON.parse((await run(['plan', clean, ...small, '--json'])).stdout);
    const b = await run(['plan', odd, ...small, '--json']);
    assert.equal(b.status, 0, b.stderr);
    const pb = JSON.parse(b.stdout);
    assert.deepEqual(
      pb.rounds.map((r: { action: string }) => r.action),
      a.rounds.map((r: { action: string }) => r.action),
    );
    assert.ok(pb.summarizedRounds > 0, 'a real cut');
    assert.equal((await run(['plan', odd, ...small])).status, 0);
  });

  it('compact: exit 0, a fork that keeps every odd line byte for byte, and the odd session resumes', async () => {
    const original = readFileSync(odd);
    const r = await run(['compact', odd, '--target-tokens', '8000', '--keep-recent-tokens', '2000', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.equal(result.mode, 'fork');
    assert.ok(readFileSync(odd).equals(original), 'the original is untouched');
    const out = readFileSync(result.output);
    assert.ok(out.subarray(0, original.length).equals(original), 'the fork starts with every original byte');
    // The fork is an ordinary session for every verb again.
    assert.equal((await run(['inspect', result.output, '--json'])).status, 0);
    assert.equal((await run(['doctor', result.output])).status, 0, 'the fork resumes whole');
  });

  it('doctor: the same verdict and findings as without the odd lines', async () => {
    const a = await run(['doctor', clean, '--json']);
    const b = await run(['doctor', odd, '--json']);
    assert.equal(b.status, a.status, b.stdout + b.stderr);
    assert.equal(b.status, 0, 'healthy');
    const da = JSON.parse(a.stdout);
    const db = JSON.parse(b.stdout);
    assert.deepEqual(db.problems ?? db.issues ?? [], da.problems ?? da.issues ?? []);
    assert.equal((await run(['doctor', odd])).status, 0);
  });

  it('repair: nothing to repair, as without the odd lines; nothing written', async () => {
    const before = readdirSync(dir).sort();
    const a = await run(['repair', clean, '--json']);
    const b = await run(['repair', odd, '--json']);
    assert.equal(b.status, a.status, b.stdout + b.stderr);
    assert.equal(b.status, 0);
    assert.deepEqual(JSON.parse(b.stdout).repaired ?? null, JSON.parse(a.stdout).repaired ?? null);
    assert.deepEqual(readdirSync(dir).sort(), before, 'a healthy session gets no repaired copy');
  });
});
