// Incremental re-inspection (reinspect) must give exactly what a full inspection of the
// grown file gives, whether it extends the previous analysis or falls back to a full pass.
import { strict as assert } from 'node:assert';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { analyze, inspectFile, reinspect, type Analysis } from '../../src/core/inspect';
import { indexTranscript } from '../../src/core/transcript';
import { claudeFixtures, fixture } from '../support/fixtures';
import { tempDir } from '../support/temp';

const dir = tempDir('ac-inc-');
let n = 0;

function same(inc: Analysis, full: Analysis, what: string): void {
  assert.deepEqual(inc.chain.main, full.chain.main, `${what}: chain`);
  assert.equal(inc.chain.leaf, full.chain.leaf, `${what}: leaf`);
  assert.equal(inc.chain.offChain, full.chain.offChain, `${what}: offChain`);
  assert.deepEqual(inc.rounds, full.rounds, `${what}: rounds`);
  assert.deepEqual(inc.report, full.report, `${what}: report`);
  // What an incremental analysis carries to the next append is what a full analysis starts from.
  const carried = inc.appendState;
  const fresh = full.appendState;
  if (carried && fresh) {
    assert.deepEqual(carried.resume, fresh.resume, `${what}: report loop state`);
    assert.deepEqual(carried.earlierRoundIds, fresh.earlierRoundIds, `${what}: earlier round ids`);
    assert.equal(carried.earlierRounds, fresh.earlierRounds, `${what}: earlier rounds`);
    assert.equal(carried.earlierLastEntry, fresh.earlierLastEntry, `${what}: earlier rounds' last entry`);
    assert.equal(carried.lastRoundStart, fresh.lastRoundStart, `${what}: last round start`);
    assert.equal(carried.tailClean, fresh.tailClean, `${what}: tail clean`);
    assert.deepEqual(carried.namesBefore, fresh.namesBefore, `${what}: tool names before the last round`);
  }
}

/** Grows a copy of `file` from `cuts[0]` bytes through each later cut, re-inspecting after each step. */
async function grow(file: string, cuts: number[]): Promise<{ fast: number; full: number }> {
  const bytes = readFileSync(file);
  const copy = join(dir, `grow-${n++}.jsonl`);
  writeFileSync(copy, bytes.subarray(0, cuts[0]));
  let a: Analysis = analyze(await indexTranscript(copy));
  let fast = 0;
  let full = 0;
  for (let k = 1; k < cuts.length; k++) {
    appendFileSync(copy, bytes.subarray(cuts[k - 1], cuts[k]));
    const next = await reinspect(a);
    if (next.incremental) fast++;
    else full++;
    const ref = analyze(await indexTranscript(copy));
    same(next, ref, `${basename(file)} at ${cuts[k]}`);
    a = next;
  }
  return { fast, full };
}

/** Byte offsets just after each line break. */
function lineEnds(buf: Buffer): number[] {
  const out: number[] = [];
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) out.push(i + 1);
  return out;
}

describe('reinspect', function () {
  this.timeout(300_000);

  it('extends the live session line by line exactly as a full read, mostly without a full pass', async () => {
    const before = readFileSync(fixture('v2.1.97-live-before.jsonl')).length;
    const after = readFileSync(fixture('v2.1.97-live-after.jsonl'));
    const cuts = [before, ...lineEnds(after).filter((e) => e > before)];
    const { fast, full } = await grow(fixture('v2.1.97-live-after.jsonl'), cuts);
    assert.ok(fast > full * 4, `fast ${fast}, full ${full}`);
  });

  it('handles appends that end mid-line (a line still being written)', async () => {
    const after = readFileSync(fixture('v2.1.97-live-after.jsonl'));
    const ends = lineEnds(after);
    const cuts: number[] = [ends[100]];
    for (let k = 101; k < ends.length; k += 7) cuts.push(ends[k] - 25, ends[k]);
    cuts.push(after.length);
    await grow(
      fixture('v2.1.97-live-after.jsonl'),
      cuts.filter((c, i) => i === 0 || c > cuts[i - 1]),
    );
  });

  for (const file of claudeFixtures()) {
    it(`matches a full read at every step growing ${basename(file)} in chunks`, async () => {
      const buf = readFileSync(file);
      const ends = lineEnds(buf);
      if (buf.length && buf[buf.length - 1] !== 10) ends.push(buf.length);
      const step = Math.max(1, Math.floor(ends.length / 25));
      const cuts = [ends[Math.min(ends.length - 1, 3)]];
      for (let k = 4; k < ends.length; k += 1 + ((k * 7) % step)) cuts.push(ends[k]);
      if (cuts[cuts.length - 1] !== buf.length) cuts.push(buf.length);
      const { fast, full } = await grow(file, cuts);
      if (process.env.AC_DEBUG) console.log(`      ${fast} incremental, ${full} full`);
    });
  }

  it('matches a full read on random synthetic sessions (branches, last-prompt lines, parallel tools, sidechains, odd ids)', async () => {
    let seed = 12345;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
    for (let run = 0; run < 12; run++) {
      const lines: string[] = [];
      const uuids: string[] = [];
      let n = 0;
      const ts = () =>
        `2026-01-01T00:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}.000Z`;
      const add = (o: Record<string, unknown>) => {
        n++;
        lines.push(JSON.stringify({ sessionId: 's', timestamp: ts(), isSidechain: false, ...o }));
        if (typeof o.uuid === 'string') uuids.push(o.uuid);
      };
      let leaf: string | null = null;
      let msg = 0;
      let tool = 0;
      const pending: string[] = [];
      for (let step = 0; step < 60; step++) {
        const r = rnd();
        const parent = rnd() < 0.08 && uuids.length ? pick(uuids) : leaf; // occasional branch
        const uuid = rnd() < 0.02 && uuids.length ? pick(uuids) : `u${run}-${step}`; // occasional duplicate uuid
        if (r < 0.35) {
          const id = rnd() < 0.1 && msg > 0 ? `m${msg}` : `m${++msg}`; // sometimes continue a response
          const content: unknown[] = [{ type: 'text', text: `reply ${step} `.repeat(1 + Math.floor(rnd() * 5)) }];
          if (rnd() < 0.5) {
            const tid = `t${++tool}`;
            pending.push(tid);
            content.push({ type: 'tool_use', id: tid, name: pick(['Read', 'Bash', 'Edit']), input: { x: step } });
          }
          add({
            type: 'assistant',
            uuid,
            parentUuid: parent,
            message: {
              id,
              role: 'assistant',
              model: 'm',
              content,
              usage: {
                input_tokens: 100 + step * 50,
                cache_creation_input_tokens: 0,
                cache_read_input_tokens: 0,
                output_tokens: 5,
              },
              stop_reason: content.length > 1 ? 'tool_use' : 'end_turn',
            },
          });
        } else if (r < 0.6 && pending.length) {
          const tid = rnd() < 0.9 ? pending.shift()! : pick([...pending, 't1']);
          add({
            type: 'user',
            uuid,
            parentUuid: parent,
            message: {
              role: 'user',
              content: [{ type: 'tool_result', tool_use_id: tid, content: 'out '.repeat(Math.floor(rnd() * 20)) }],
            },
          });
        } else if (r < 0.75) {
          add({ type: 'user', uuid, parentUuid: parent, message: { role: 'user', content: `prompt ${step}` } });
        } else if (r < 0.82 && uuids.length) {
          n++;
          lines.push(
            JSON.stringify({ type: 'last-prompt', leafUuid: rnd() < 0.7 ? leaf : pick(uuids), sessionId: 's' }),
          );
          continue;
        } else if (r < 0.88) {
          add({ type: 'progress', uuid, parentUuid: parent, data: { x: 1 } });
        } else if (r < 0.93) {
          add({
            type: 'assistant',
            uuid,
            parentUuid: parent,
            isSidechain: true,
            agentId: 'a1',
            message: { id: `s${step}`, role: 'assistant', content: [{ type: 'text', text: 'side' }] },
          });
          continue;
        } else {
          n++;
          lines.push(JSON.stringify({ type: 'file-history-snapshot', messageId: 'x', snapshot: {} }));
          continue;
        }
        leaf = uuid;
      }
      const text = lines.join('\n') + '\n';
      const file = join(dir, `synthetic-${run}.jsonl`);
      writeFileSync(file, text);
      const ends = lineEnds(Buffer.from(text));
      const { fast, full } = await grow(file, [ends[2], ...ends.slice(3)]);
      if (process.env.AC_DEBUG) console.log(`      synthetic ${run}: ${fast} incremental, ${full} full`);
    }
  });

  it('keeps subagent-file sidechains and reports a rewritten file as rebuilt', async () => {
    const src = readFileSync(fixture('v2.1.97-live-before.jsonl'));
    const copy = join(dir, 'rewrite.jsonl');
    writeFileSync(copy, src);
    const a = await inspectFile(copy);
    a.report.sidechains.push({
      id: 'agent-x',
      source: 'file',
      file: 'x.jsonl',
      lines: 1,
      rounds: 0,
      contextTokens: null,
    });
    appendFileSync(copy, readFileSync(fixture('v2.1.97-live-after.jsonl')).subarray(src.length, src.length + 20000));
    const b = await reinspect(a);
    assert.ok(b.report.sidechains.some((s) => s.id === 'agent-x'));
    writeFileSync(copy, src.subarray(0, 1000));
    const c = await reinspect(b);
    assert.equal(c.rebuilt, true);
  });

  it('notices a rewrite that keeps the length and the line break before the old end, small or large file', async () => {
    const src = readFileSync(fixture('v2.1.97-live-before.jsonl'));
    const grown = readFileSync(fixture('v2.1.97-live-after.jsonl'));
    // A small file is fingerprinted whole: flip one byte in the middle of a line near the start.
    // A file over the whole-prefix size (17 MiB): change a byte in its first 256 KiB (a rewrite of old lines).
    const big = Buffer.concat(Array.from({ length: Math.ceil((17 << 20) / src.length) }, () => src));
    for (const [name, base] of [
      ['small', src],
      ['large', big],
    ] as const) {
      const copy = join(dir, `same-length-${name}.jsonl`);
      writeFileSync(copy, base);
      const a = await inspectFile(copy, { subagents: false });
      const at = base.indexOf('"type":"user"') + 9; // inside a word of a line near the start, not a newline
      const changed = Buffer.from(base);
      changed[at] = changed[at] === 0x75 ? 0x55 : 0x75;
      writeFileSync(copy, Buffer.concat([changed, grown.subarray(src.length, src.length + 5000)]));
      const b = await reinspect(a);
      assert.equal(b.rebuilt, true, `${name}: a same-length rewrite must be re-read, not extended`);
      same(b, analyze(await indexTranscript(copy)), `${name} after the rewrite`);
    }
  });
});
