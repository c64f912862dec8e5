// Doctor and repair: each problem kind on hand-made transcripts and on broken copies of the real fixtures (derived
// here, never edited), the CLI's exit codes (its verbs in this process, as `agent-compactor` runs them), byte-identity
// of everything repair does not change, and a property run that breaks every fixture at random points and requires
// repair to bring back every message resume loaded before.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildChainWithTables } from '../../src/core/chain';
import { claudeLoader } from '../../src/core/formats/claude-code/loader';
import { activeRegion, diagnose, doctorFile, type DoctorReport, type ProblemKind } from '../../src/core/repair/doctor';
import { applyPlan, planRepair, relinkLine, repairFile, repairOutlook } from '../../src/core/repair/repair';
import { healthNode, repairableOf, resumeHealthOf } from '../../src/extension/model/health';
import { inspectFile } from '../../src/core/inspect';
import { indexTranscript, type TranscriptIndex } from '../../src/core/transcript';
import { claudeFixtures, repoRoot } from '../support/fixtures';
import { runCliInProcess } from '../support/cliInProcess';
import { tempDir } from '../support/temp';

let dir: string;
before(() => (dir = tempDir('ac-doctor-')));
after(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function write(lines: (object | string)[], name = `t${n++}.jsonl`): string {
  const f = join(dir, name);
  writeFileSync(f, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return f;
}

const t0 = Date.parse('2026-03-01T10:00:00.000Z');
const ts = (s: number) => new Date(t0 + s * 1000).toISOString();
const user = (uuid: string, parent: string | null, s: number, content: unknown) => ({
  type: 'user',
  uuid,
  parentUuid: parent,
  timestamp: ts(s),
  sessionId: 'S',
  isSidechain: false,
  message: { role: 'user', content },
});
const asst = (uuid: string, parent: string | null, s: number, id: string, content: unknown[]) => ({
  type: 'assistant',
  uuid,
  parentUuid: parent,
  timestamp: ts(s),
  sessionId: 'S',
  isSidechain: false,
  message: { role: 'assistant', id, model: 'claude-sonnet-4-6', content },
});
const text = (t: string) => ({ type: 'text', text: t });
const call = (id: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command: 'ls' } });
const result = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' });

/** A healthy conversation of ten turns, a tool call in each, `gap` seconds between lines. */
function conversation(gap: number): object[] {
  const out: object[] = [];
  let parent: string | null = null;
  let s = 0;
  for (let k = 0; k < 10; k++) {
    out.push(user(`u${k}`, parent, (s += gap), `prompt ${k}`));
    out.push(asst(`a${k}`, `u${k}`, (s += gap), `m${k}`, [call(`t${k}`)]));
    out.push(user(`r${k}`, `a${k}`, (s += gap), [result(`t${k}`)]));
    out.push(asst(`b${k}`, `r${k}`, (s += gap), `n${k}`, [text(`done ${k}`)]));
    parent = `b${k}`;
  }
  return out;
}

/** A uuid written twice: the conversation's second line written again at its end, so resume starts there and loads 3 of 40 messages. */
const leafWrittenTwice = () => {
  const c = conversation(60);
  return [...c, c[1]];
};
const without = (lines: object[], ...uuids: string[]) =>
  lines.filter((l) => !uuids.includes((l as { uuid: string }).uuid));
const kinds = (r: DoctorReport) => r.problems.filter((p) => p.severity !== 'info').map((p) => p.kind);
const of = (r: DoctorReport, k: ProblemKind) => r.problems.filter((p) => p.kind === k);

describe('doctor: problem kinds on hand-made transcripts', () => {
  it('a healthy conversation: everything loaded, valid, no problems', async () => {
    const r = await doctorFile(write(conversation(1)));
    assert.equal(r.reachableMessages, 40);
    assert.equal(r.totalMessages, 40);
    assert.equal(r.reachability, 1);
    assert.equal(r.apiValid, true);
    assert.deepEqual(r.problems, []);
    assert.equal(r.healthy, true);
  });

  it('a missing line with a long gap: the walk stops, everything behind it is counted as lost', async () => {
    // b4 gone; u5 names it. 60 s between lines: Claude Code does not bridge.
    const r = await doctorFile(write(without(conversation(60), 'b4')));
    const d = of(r, 'dangling-parent');
    assert.equal(d.length, 1);
    assert.equal(d[0].severity, 'error');
    assert.equal(d[0].uuid, 'b4');
    assert.equal(d[0].line, 20); // u5 (line 21 before b4 was removed)
    assert.equal(d[0].unreachable, 19);
    assert.equal(r.reachableMessages, 20);
    assert.equal(r.totalMessages, 39);
    assert.ok(Math.abs(r.reachability - 20 / 39) < 1e-9);
    assert.equal(r.healthy, false);
  });

  it('a missing line within 5 s: Claude Code bridges it; reported as a warning, nothing lost', async () => {
    const r = await doctorFile(write(without(conversation(1), 'b4')));
    const d = of(r, 'dangling-parent');
    assert.equal(d.length, 1);
    assert.equal(d[0].severity, 'warning');
    assert.equal(d[0].unreachable, 0);
    assert.equal(r.reachableMessages, 39);
  });

  it('a tool call gone: its result is an orphan (invalid request) when bridged', async () => {
    const r = await doctorFile(write(without(conversation(1), 'a3')));
    assert.ok(
      of(r, 'orphan-tool-result').some((p) => p.line === 14 && p.detail.includes('t3')),
      JSON.stringify(r.problems),
    );
    assert.equal(r.apiValid, false);
  });

  it('a tool result gone: the call is unanswered (Claude Code drops it)', async () => {
    const lines = conversation(1);
    // b3 continues from a3 directly (r3 never written).
    const broken = without(lines, 'r3').map((l) =>
      (l as { uuid: string }).uuid === 'b3' ? { ...l, parentUuid: 'a3' } : l,
    );
    const r = await doctorFile(write(broken));
    assert.deepEqual(
      of(r, 'unanswered-tool-use').map((p) => p.line),
      [14],
    );
    assert.equal(r.apiValid, true);
  });

  it('last-prompt naming a missing leaf, and a leaf on an old branch with newer messages after it', async () => {
    const lines = [...conversation(1), { type: 'last-prompt', lastPrompt: 'x', leafUuid: 'nope' }];
    assert.deepEqual(
      of(await doctorFile(write(lines)), 'leaf-dead-end').map((p) => p.severity),
      ['warning'],
    );
    // An abandoned branch off u9, then a last-prompt naming its tip: the newer main line is not loaded.
    const branch: object[] = conversation(1);
    branch.splice(37, 0, asst('x1', 'u9', 50, 'mx', [text('old branch')]));
    branch.push({ type: 'last-prompt', lastPrompt: 'x', leafUuid: 'x1' });
    const r = await doctorFile(write(branch));
    assert.ok(
      of(r, 'leaf-dead-end').some((p) => p.severity === 'error' && p.unreachable === 3),
      JSON.stringify(r.problems),
    );
  });

  it('an abandoned branch (edited prompt) is a dead end, noted but healthy', async () => {
    const lines = conversation(1);
    lines.splice(8, 0, user('e1', 'b0', 2.5, 'edited away'), asst('e2', 'e1', 2.6, 'me', [text('never continued')]));
    const r = await doctorFile(write(lines));
    const d = of(r, 'dead-end-branch');
    assert.equal(d.length, 1);
    assert.equal(d[0].line, 10);
    assert.equal(d[0].severity, 'info');
    assert.equal(r.healthy, true);
  });

  it('duplicate uuids', async () => {
    const lines = conversation(1);
    lines.push({ ...user('b9', 'b9', 99, 'dup') });
    assert.equal(of(await doctorFile(write(lines)), 'duplicate-uuid').length, 1);
  });

  it('parallel tool results off the parent chain are recovered siblings (info, healthy)', async () => {
    const lines: object[] = [
      user('u0', null, 1, 'go'),
      asst('a0', 'u0', 2, 'm0', [call('A')]),
      asst('a1', 'a0', 2, 'm0', [call('B')]),
      user('rA', 'a0', 3, [result('A')]),
      user('rB', 'a1', 3, [result('B')]),
      asst('b0', 'rB', 4, 'm1', [text('both done')]),
    ];
    const r = await doctorFile(write(lines));
    assert.deepEqual(
      of(r, 'sibling-recovered').map((p) => p.line),
      [4],
    );
    assert.equal(r.reachability, 1);
    assert.equal(r.healthy, true);
  });

  it('only what follows the last compact boundary counts', async () => {
    const lines = conversation(1);
    lines.splice(
      20,
      0,
      {
        type: 'system',
        subtype: 'compact_boundary',
        uuid: 'cb',
        parentUuid: null,
        logicalParentUuid: 'b4',
        timestamp: ts(20.5),
        isSidechain: false,
        sessionId: 'S',
      },
      user('sum', 'cb', 20.6, 'summary'),
    );
    const fixed = lines.map((l) => ((l as { uuid: string }).uuid === 'u5' ? { ...l, parentUuid: 'sum' } : l));
    const r = await doctorFile(write(fixed));
    assert.equal(r.boundaryLine, 21);
    assert.equal(r.totalMessages, 21);
    assert.equal(r.reachability, 1);
  });

  it('malformed lines and an unfinished last line are noted', async () => {
    const f = write([...conversation(1), '{"type":"user", broken']);
    writeFileSync(f, readFileSync(f, 'utf8').trimEnd());
    const r = await doctorFile(f);
    assert.ok(of(r, 'malformed-line')[0].detail.includes('still being written'));
  });
});

describe('repair: hand-made', () => {
  it('links a missing parent to the entry before it; only that value changes', async () => {
    const f = write(without(conversation(60), 'b4'));
    const original = readFileSync(f);
    const out = join(dir, 'fixed-1.jsonl');
    const r = await repairFile(f, { out });
    assert.deepEqual(
      r.changes.map((c) => [c.line, c.from, c.to, c.toLine]),
      [[20, 'b4', 'r4', 19]],
    );
    assert.ok(readFileSync(f).equals(original), 'the original is untouched');
    const a = original.toString().split('\n');
    const b = readFileSync(out, 'utf8').split('\n');
    assert.equal(a.length, b.length);
    for (let k = 0; k < a.length; k++) if (k !== 19) assert.equal(b[k], a[k], `line ${k + 1} byte-identical`);
    assert.equal(b[19], a[19].replace('"parentUuid":"b4"', '"parentUuid":"r4"'));
    const after = await doctorFile(out);
    assert.equal(after.reachability, 1);
    assert.equal(after.apiValid, true);
  });

  it('turns a tool result whose call is gone into a text block saying so, keeping it loaded and the request valid', async () => {
    const f = write(without(conversation(60), 'a3'));
    const out = join(dir, 'fixed-2.jsonl');
    const r = await repairFile(f, { out });
    assert.deepEqual(
      r.converted.map((c) => [c.line, c.uuid, c.toolIds]),
      [[14, 'r3', ['t3']]],
    );
    assert.deepEqual(
      r.changes.map((c) => [c.uuid, c.from, c.to]),
      [['r3', 'a3', 'u3']],
      'it continues from the prompt before it',
    );
    assert.deepEqual(r.skipped, []);
    assert.equal(r.after.healthy, true);
    assert.equal(r.after.apiValid, true);
    assert.equal(r.after.reachableMessages, r.after.totalMessages);
    const a = readFileSync(f, 'utf8').split('\n');
    const b = readFileSync(out, 'utf8').split('\n');
    for (let k = 0; k < a.length; k++) if (k !== 13) assert.equal(b[k], a[k], `line ${k + 1} byte-identical`);
    const was = JSON.parse(a[13]) as { message: { content: unknown }; parentUuid: string };
    const now = JSON.parse(b[13]) as { message: { content: { type: string; text: string }[] }; parentUuid: string };
    assert.deepEqual(
      now.message.content.map((x) => x.type),
      ['text'],
    );
    assert.match(
      now.message.content[0].text,
      /^\[Agent Compactor repair: this was the result of tool call t3, whose call is no longer in the transcript.*\]\nok$/,
    );
    assert.equal(now.parentUuid, 'u3');
    assert.deepEqual(
      { ...now, message: was.message, parentUuid: was.parentUuid },
      was,
      'only its content and parentUuid changed',
    );
  });

  it('the answer to one of two parallel calls, its call gone: converted and placed after the other result', async () => {
    const lines: object[] = [
      user('u0', null, 1, 'go'),
      asst('a0', 'u0', 60, 'm0', [call('A')]),
      asst('a1', 'a0', 61, 'm0', [call('B')]),
      user('rA', 'a0', 62, [result('A')]),
      user('rB', 'a1', 63, [result('B')]),
      asst('b0', 'rB', 64, 'm1', [text('both done')]),
      user('u1', 'b0', 200, 'next'),
      asst('b1', 'u1', 260, 'm2', [text('fine')]),
    ];
    const f = write(without(lines, 'a0'));
    const r = await repairFile(f, { out: join(dir, 'fixed-parallel.jsonl') });
    assert.deepEqual(
      r.converted.map((c) => c.uuid),
      ['rA'],
    );
    assert.deepEqual(r.changes.map((c) => [c.uuid, c.to]).sort(), [
      ['a1', 'u0'],
      ['b0', 'rA'],
      ['rA', 'rB'],
    ]);
    assert.equal(r.after.reachableMessages, 7);
    assert.equal(r.after.totalMessages, 7);
    assert.equal(r.after.apiValid, true);
  });

  it('a tool result whose call is still there links to the call', async () => {
    const f = write(
      without(conversation(60), 'b2').map((l) =>
        (l as { uuid: string }).uuid === 'r5' ? { ...l, parentUuid: 'gone' } : l,
      ),
    );
    const r = await repairFile(f, { out: join(dir, 'fixed-3.jsonl') });
    assert.deepEqual(
      r.changes.map((c) => [c.uuid, c.to, c.reason]),
      [
        ['u3', 'r2', 'the entry before it'],
        ['r5', 'a5', 'the line of its tool call'],
      ],
    );
    assert.equal(r.after.reachability, 1);
  });

  it('never crosses into another conversation', async () => {
    const other = conversation(60)
      .slice(0, 4)
      .map((l) => ({ ...l, sessionId: 'OTHER', uuid: `o-${(l as { uuid: string }).uuid}`, parentUuid: null }));
    const f = write([
      ...other,
      ...without(conversation(60), 'u0').map((l) =>
        (l as { uuid: string }).uuid === 'a0' ? { ...l, parentUuid: 'gone' } : l,
      ),
    ]);
    const plan = planRepair((await indexTranscript(f)).entries, claudeLoader);
    assert.deepEqual(plan.changes, []);
    assert.ok(plan.skipped.some((s) => s.reason.includes('no earlier entry')));
  });

  it('fork by default (a new session id beside it), in place with a backup; nothing to do writes nothing', async () => {
    const sub = mkdtempSync(join(dir, 'proj-'));
    const f = join(sub, '11111111-2222-4333-8444-555555555555.jsonl');
    writeFileSync(
      f,
      without(conversation(60), 'b4')
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const fork = await repairFile(f);
    assert.equal(fork.mode, 'fork');
    assert.match(fork.output!, /[0-9a-f-]{36}\.jsonl$/);
    assert.notEqual(fork.output, f);
    assert.equal((await doctorFile(fork.output!)).reachability, 1);
    const inPlace = await repairFile(f, { inPlace: true });
    assert.equal(inPlace.output, f);
    assert.ok(inPlace.backup && existsSync(inPlace.backup));
    assert.equal((await doctorFile(f)).reachability, 1);
    const again = await repairFile(f, { inPlace: true });
    assert.equal(again.output, null);
    // One backup, whole: with the manifest written last.
    assert.deepEqual(
      readdirSync(sub)
        .filter((x) => x.includes('.bak-'))
        .map((x) => x.replace(/\.bak-[0-9-]+/, '.bak-*'))
        .sort(),
      [
        '11111111-2222-4333-8444-555555555555.jsonl.bak-*',
        '11111111-2222-4333-8444-555555555555.jsonl.bak-*.manifest.json',
      ],
    );
    assert.ok(!readdirSync(sub).some((x) => x.includes('.lock') || x.includes('.tmp-')));
  });

  it('refuses a file that ends in the middle of a line (still being written)', async () => {
    const f = write(without(conversation(60), 'b4'));
    writeFileSync(f, readFileSync(f, 'utf8') + '{"type":"assistant","uu');
    await assert.rejects(repairFile(f, { out: join(dir, 'never.jsonl') }), /middle of a line/);
    assert.ok(!existsSync(join(dir, 'never.jsonl')));
  });

  it('relinkLine changes only the parentUuid value, and refuses when it cannot find it exactly', () => {
    const line = '{"parentUuid":"a","uuid":"b","message":{"content":"\\"parentUuid\\":\\"a\\""}}';
    assert.equal(
      relinkLine(line, 'a', 'z'),
      '{"parentUuid":"z","uuid":"b","message":{"content":"\\"parentUuid\\":\\"a\\""}}',
    );
    assert.equal(relinkLine('{"parentUuid":"b"}', 'a', 'z'), null);
    assert.equal(relinkLine('{"parentUuid":"a"', 'a', 'z'), null);
  });

  it('relinkLine: a line written with spaces around the colon, a nested key first, a null parent', () => {
    assert.equal(relinkLine('{"parentUuid": "a", "uuid": "b"}', 'a', 'z'), '{"parentUuid": "z", "uuid": "b"}');
    assert.equal(relinkLine('{ "parentUuid" :\t"a" }', 'a', 'z'), '{ "parentUuid" :\t"z" }');
    assert.equal(
      relinkLine('{"data": {"parentUuid": "a"}, "parentUuid": "a"}', 'a', 'z'),
      '{"data": {"parentUuid": "a"}, "parentUuid": "z"}',
    );
    assert.equal(relinkLine('{"parentUuid": null, "uuid": "b"}', null, 'z'), '{"parentUuid": "z", "uuid": "b"}');
  });

  it('repairs a file written with a space after each colon, changing only the parentUuid value', async () => {
    const spaced = (o: object) => JSON.stringify(o).replace(/":/g, '": ').replace(/,"/g, ', "');
    const f = write(without(conversation(60), 'b4').map(spaced));
    const out = join(dir, 'fixed-spaced.jsonl');
    const r = await repairFile(f, { out });
    assert.deepEqual(
      r.changes.map((c) => [c.line, c.from, c.to]),
      [[20, 'b4', 'r4']],
    );
    const a = readFileSync(f, 'utf8').split('\n');
    const b = readFileSync(out, 'utf8').split('\n');
    for (let k = 0; k < a.length; k++) if (k !== 19) assert.equal(b[k], a[k], `line ${k + 1} byte-identical`);
    assert.equal(b[19], a[19].replace('"parentUuid": "b4"', '"parentUuid": "r4"'));
    assert.equal((await doctorFile(out)).reachability, 1);
  });
});

describe('doctor and repair on the real fixtures', () => {
  it('every fixture: doctor reports full reachability (the subagent file is not resumable)', async () => {
    for (const f of claudeFixtures()) {
      const r = await doctorFile(f);
      assert.equal(r.apiValid, true, f);
      if (f.endsWith('subagent.jsonl')) assert.deepEqual(kinds(r), ['not-resumable']);
      else assert.ok(r.reachability > 0.98, `${f}: ${r.reachability}`);
      assert.ok(!kinds(r).includes('dangling-parent'), f);
    }
  });

  /** Seeded PRNG (mulberry32) so that a failure names its seed. */
  function rng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  /** Uuids of messages the resume of `index` loads in its active context. */
  function loaded(index: TranscriptIndex): Set<string> {
    const built = buildChainWithTables(index.entries, claudeLoader);
    const chain = built.chain;
    const on = new Set(chain.main);
    const { region } = activeRegion(index.entries, built);
    return new Set(
      region
        .filter((i) => on.has(i) && (index.entries[i].kind === 'user' || index.entries[i].kind === 'assistant'))
        .map((i) => index.entries[i].uuid!),
    );
  }

  for (const source of claudeFixtures().filter((f) => !f.endsWith('subagent.jsonl'))) {
    it(`${source.split('/').pop()}: broken at random points, repair brings back every message resume loaded, valid`, async function () {
      this.timeout(120_000);
      const lines = readFileSync(source, 'utf8').split('\n');
      const original = await indexTranscript(source);
      const before = loaded(original);
      const built = buildChainWithTables(original.entries, claudeLoader);
      const chain = built.chain;
      const { region } = activeRegion(original.entries, built);
      const messageLines = region
        .filter(
          (i) =>
            chain.main.includes(i) &&
            ['user', 'assistant'].includes(original.entries[i].kind) &&
            original.entries[i].parentUuid,
        )
        .map((i) => original.entries[i]);
      for (let seed = 1; seed <= 16; seed++) {
        const rand = rng(seed * 7919 + lines.length);
        const count = 1 + Math.floor(rand() * 3);
        const drop = new Set<number>();
        for (let k = 0; k < count && messageLines.length > 1; k++)
          drop.add(messageLines[1 + Math.floor(rand() * (messageLines.length - 1))].line);
        const f = join(dir, `prop-${seed}-${source.split('/').pop()}`);
        writeFileSync(f, lines.filter((_, k) => !drop.has(k + 1)).join('\n'));
        const broken = await indexTranscript(f);
        const plan = planRepair(broken.entries, claudeLoader);
        const fixed = applyPlan(broken, plan);
        const after = diagnose(fixed);
        const why = `seed ${seed}, dropped lines ${[...drop].join(',')}: ${JSON.stringify(after.problems.filter((p) => p.severity !== 'info')).slice(0, 600)}`;
        assert.equal(after.apiValid, true, why);
        const leftAlone = new Set(plan.skipped.map((s) => s.line));
        assert.ok(!after.problems.some((p) => p.kind === 'dangling-parent' && !leftAlone.has(p.line)), why);
        // Every message resume loaded before the break that is still in the file is loaded after repair, except
        // lines repair reports it left alone (several JSON objects joined on one line).
        const stepped = new Set(plan.skipped.map((s) => s.line));
        const nowLoaded = loaded(fixed);
        const remaining = broken.entries.filter((e) => e.uuid && before.has(e.uuid) && !stepped.has(e.line));
        const lost = remaining.filter((e) => !nowLoaded.has(e.uuid!));
        assert.deepEqual(
          lost.map((e) => e.line),
          [],
          why,
        );
        // Repair then diagnose again: a second repair has nothing to do.
        assert.deepEqual(planRepair(fixed.entries, claudeLoader).changes, [], why);
      }
    });
  }
});

describe('what repair can fix: one check for doctor, the CLI and the extension', () => {
  it('a uuid written twice is not offered for repair; a broken link is', async () => {
    const dup = await indexTranscript(write(leafWrittenTwice()));
    const o = repairOutlook(dup);
    assert.ok(o.before.problems.some((p) => p.kind === 'duplicate-uuid'));
    assert.equal(o.before.reachableMessages, 3);
    assert.equal(o.canRepair, false);
    assert.match(o.reason!, /no broken parent links/);
    assert.equal(repairOutlook(await indexTranscript(write(without(conversation(60), 'b4')))).canRepair, true);
  });

  it("the extension offers Repair Session (the menu item's context value) only when repair can fix something", async () => {
    const menu = (
      JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
        contributes: { menus: Record<string, { command: string; when?: string }[]> };
      }
    ).contributes.menus['view/item/context'].find((m) => m.command === 'agentCompactor.repairSession')!;
    const offered = (file: string, a: Awaited<ReturnType<typeof inspectFile>>) => {
      const r = resumeHealthOf(a)!;
      const value = healthNode(file, r, repairableOf(a, r)).contextValue;
      return menu.when!.includes(`viewItem == ${value}`);
    };
    const dup = write(leafWrittenTwice());
    const broken = write(without(conversation(60), 'b4'));
    assert.equal(offered(dup, await inspectFile(dup, { subagents: false })), false);
    assert.equal(offered(broken, await inspectFile(broken, { subagents: false })), true);
  });
});

describe('doctor and repair: CLI', () => {
  // The verbs in this process, as `agent-compactor` runs them (the bundle's own wiring: test/integration/cli.test.ts).
  const run = (args: string[]) => runCliInProcess(args);

  it('doctor: exit 0 healthy, 1 with problems, 2 on unusable input; --json has the documented fields', async () => {
    const healthy = await run(['doctor', write(conversation(1))]);
    assert.equal(healthy.status, 0, healthy.stderr);
    assert.match(healthy.stdout, /resume loads 40 of 40 messages \(100\.0%\)/);
    const broken = write(without(conversation(60), 'b4'));
    const sick = await run(['doctor', broken, '--json']);
    assert.equal(sick.status, 1, sick.stderr);
    const j = JSON.parse(sick.stdout) as DoctorReport;
    assert.equal(j.reachableMessages, 20);
    assert.equal(j.totalMessages, 39);
    assert.ok(j.reachability > 0.5 && j.reachability < 0.52);
    assert.deepEqual(
      j.problems.map((p) => [p.kind, p.line]),
      [['dangling-parent', 20]],
    );
    assert.ok(typeof j.problems[0].detail === 'string');
    assert.equal((await run(['doctor', join(dir, 'missing.jsonl')])).status, 2);
    assert.equal((await run(['doctor', write(['not json at all'])])).status, 2);
  });

  it('a uuid written twice: doctor does not send you to repair; repair writes nothing and says it cannot fix it', async () => {
    const dup = write(leafWrittenTwice());
    const d = await run(['doctor', dup]);
    assert.equal(d.status, 1, d.stderr);
    assert.match(d.stdout, /none of them is one `agent-compactor repair` can fix \(no broken parent links/);
    assert.equal(
      (JSON.parse((await run(['doctor', dup, '--json'])).stdout) as { repairable: boolean }).repairable,
      false,
    );
    assert.equal(
      (
        JSON.parse((await run(['doctor', write(without(conversation(60), 'b4')), '--json'])).stdout) as {
          repairable: boolean;
        }
      ).repairable,
      true,
    );
    const out = join(dir, 'cli-dup.jsonl');
    const r = await run(['repair', dup, '--out', out]);
    assert.match(r.stdout, /nothing to repair: no broken parent links/);
    assert.ok(!existsSync(out));
  });

  it('repair of many broken links lists the first few of each kind and counts them; --verbose and --json give every change', async () => {
    // 40 turns a minute apart (the loader bridges none); every prompt after the first is gone, so 39 links break.
    const lines: object[] = [user('u0', null, 0, 'prompt 0')];
    for (let k = 0; k < 40; k++) lines.push(asst(`a${k}`, `u${k}`, 120 * k + 60, `m${k}`, [text(`answer ${k}`)]));
    const f = write(lines);
    const summary = await run(['repair', f, '--out', join(dir, 'many-summary.jsonl')]);
    const changes = summary.stdout.split('\n').filter((l) => /^ {2}line \d+: parentUuid/.test(l));
    assert.equal(changes.length, 5, summary.stdout);
    assert.match(summary.stdout, /^39 parent links changed, the first:$/m);
    assert.match(summary.stdout, /^ {2}… and 34 more$/m);
    assert.match(summary.stdout, /^39 changes in all \(every one: --verbose or --json\)$/m);
    const verbose = await run(['repair', f, '--out', join(dir, 'many-verbose.jsonl'), '--verbose']);
    assert.equal(verbose.stdout.split('\n').filter((l) => /^line \d+: parentUuid/.test(l)).length, 39, verbose.stdout);
    assert.doesNotMatch(verbose.stdout, /changes in all/);
    const json = await run(['repair', f, '--out', join(dir, 'many-json.jsonl'), '--json']);
    assert.equal((JSON.parse(json.stdout) as { changes: unknown[] }).changes.length, 39);
  });

  it('repair exits 1 when the result it reports is still invalid, even with nothing it can change (a uuid written twice, a first message from the assistant)', async () => {
    const c = conversation(60)
      .slice(1)
      .map((l) => ((l as { uuid: string }).uuid === 'a0' ? { ...l, parentUuid: null } : l));
    const f = write([...c.slice(0, 10), c[9], ...c.slice(10)]);
    const out = join(dir, 'cli-invalid.jsonl');
    const r = await run(['repair', f, '--out', out]);
    assert.match(r.stdout, /rebuilt request INVALID/);
    assert.match(r.stdout, /not something repair can fix: invalid-request/);
    assert.equal(r.status, 1, r.stdout);
    assert.ok(!existsSync(out));
  });

  it('a first line that is an array, or lines ended by a carriage return alone: every verb refuses it the same way, exit 2', async () => {
    const lines = conversation(1)
      .slice(0, 4)
      .map((l) => JSON.stringify(l));
    const files = { array: write(['[1,2]', ...lines]), 'CR only': join(dir, 'cr-only.jsonl') };
    writeFileSync(files['CR only'], lines.join('\r') + '\r');
    for (const [what, f] of Object.entries(files)) {
      const seen = new Map<string, string>();
      for (const verb of ['inspect', 'plan', 'compact', 'doctor', 'repair']) {
        const r = await run([
          verb,
          f,
          ...(verb === 'compact' || verb === 'repair' ? ['--out', join(dir, `never-${verb}.jsonl`)] : []),
        ]);
        assert.equal(r.status, 2, `${what}, ${verb}: ${r.stdout}${r.stderr}`);
        seen.set(verb, r.stderr.trim().split('\n').at(-1)!);
      }
      assert.equal(new Set(seen.values()).size, 1, `${what}: ${JSON.stringify([...seen])}`);
      assert.match(seen.get('doctor')!, /one JSON document, but no session format/);
    }
    assert.match((await run(['doctor', files['CR only']])).stderr, /end in a carriage return alone/);
  });

  it('repair: writes what --out names, reports the change; --out and --in-place together is a usage error', async () => {
    const broken = write(without(conversation(60), 'b4'));
    const out = join(dir, 'cli-fixed.jsonl');
    const r = await run(['repair', broken, '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /line 20: parentUuid b4 -> r4/);
    assert.match(r.stdout, /before, 39 of 39 \(100\.0%\) after/);
    assert.equal((await run(['doctor', out])).status, 0);
    assert.equal((await run(['repair', broken, '--out', out])).status, 2, 'an existing output is not replaced');
    assert.equal((await run(['repair', broken, '--out', join(dir, 'x.jsonl'), '--in-place'])).status, 2);
  });

  it('repair: a tool result whose call is gone is reported as converted, in text and in --json', async () => {
    const broken = write(without(conversation(60), 'a3'));
    const r = await run(['repair', broken, '--out', join(dir, 'cli-converted.jsonl')]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /line 14: tool_result t3 -> text block \(the tool_use of t3 is not in what resume loads/);
    assert.match(r.stdout, /line 14: parentUuid a3 -> u3/);
    const j = JSON.parse(
      (await run(['repair', broken, '--out', join(dir, 'cli-converted-2.jsonl'), '--json'])).stdout,
    ) as {
      converted: { line: number; toolIds: string[] }[];
    };
    assert.deepEqual(
      j.converted.map((c) => [c.line, c.toolIds]),
      [[14, ['t3']]],
    );
  });
});

describe('repair never makes resume load less', function () {
  this.timeout(300_000);
  it('live-after with two assistant lines removed at 24 places: every repair written loads at least as much (or makes an invalid request valid); the others write nothing', async () => {
    const dir = tempDir('ac-repair-never-worse-');
    const source = claudeFixtures().find((f) => f.endsWith('v2.1.97-live-after.jsonl'))!;
    const lines = readFileSync(source, 'utf8').split('\n');
    const assistant = lines.map((l, i) => (l.includes('"type":"assistant"') ? i : -1)).filter((i) => i >= 0);
    let written = 0;
    let refused = 0;
    for (let k = 1; k <= 24; k++) {
      const at = assistant[Math.floor((assistant.length - 3) * (k / 25))];
      const broken = lines
        .filter((_, i) => i !== at && i !== at + 1 && i !== assistant[assistant.indexOf(at) + 1])
        .join('\n');
      const file = join(dir, `broken-${k}.jsonl`);
      writeFileSync(file, broken);
      const before = diagnose(await indexTranscript(file));
      const entriesBefore = readdirSync(dir).length;
      const outcome = await repairFile(file).then(
        (r) => ({ ok: true as const, r }),
        (e: Error) => ({ ok: false as const, e }),
      );
      if (outcome.ok && outcome.r.output) {
        written++;
        const after = diagnose(await indexTranscript(outcome.r.output));
        const madeValid = !before.apiValid && after.apiValid;
        assert.ok(
          after.reachableMessages >= before.reachableMessages || madeValid,
          `place ${k}: ${after.reachableMessages} < ${before.reachableMessages}, request valid before: ${before.apiValid}`,
        );
      } else if (!outcome.ok) {
        refused++;
        assert.match(outcome.e.message, /would make resume load fewer messages/, `place ${k}: ${outcome.e.message}`);
        assert.equal(readdirSync(dir).length, entriesBefore, `place ${k}: nothing written`);
      }
    }
    console.log(`      ${written} repairs written, ${refused} refused (they would have loaded less)`);
    assert.ok(written > 0);
    rmSync(dir, { recursive: true, force: true });
  });
});
