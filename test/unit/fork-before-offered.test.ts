// Fork From Before This Compaction is offered on a compact boundary row exactly where it then succeeds (issue 33): for
// every compaction in every Claude Code fixture, and for compactions placed after the kinds of line Claude Code writes
// just before one (a hook's progress line, a turn's duration, an attachment, a snapshot without a uuid, a meta line, a
// sidechain line, a tool call whose result comes after the boundary), built from the fixtures' own lines: either the
// row offers the fork (contextValue 'boundary') and `fork-before` writes a fork that resumes validly, carrying the last
// message written before the boundary, or the row does not offer it and says why, and `fork-before` refuses with that
// same reason. Never offered, then refused.
import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { inspectFile, readSessionIndex } from '../../src/core/inspect';
import { agentCompactions } from '../../src/core/agentCompactions';
import { diagnose } from '../../src/core/repair/doctor';
import { buildChain } from '../../src/core/chain';
import { claudeLoader } from '../../src/core/formats/claude-code/loader';
import { rootNodes } from '../../src/extension/model/tree';
import { agentFixtures, claudeFixtures, fixture } from '../support/fixtures';
import { runCliInProcess } from '../support/cliInProcess';
import { tempDir } from '../support/temp';

type Line = Record<string, unknown>;

const parse = (text: string): (Line | null)[] =>
  text.split('\n').map((l) => {
    try {
      const v: unknown = JSON.parse(l);
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Line) : null;
    } catch {
      return null;
    }
  });

const isMainMessage = (o: Line | null): boolean =>
  !!o && (o.type === 'user' || o.type === 'assistant') && o.isSidechain !== true && typeof o.uuid === 'string';
const hasToolUse = (o: Line): boolean =>
  Array.isArray((o.message as { content?: unknown })?.content) &&
  ((o.message as { content: { type?: string }[] }).content ?? []).some((b) => b?.type === 'tool_use');

/** The kind of line `o` is, as the place a compaction follows; null for a plain message. */
function kindOf(o: Line | null): string | null {
  if (!o) return null;
  if (o.isSidechain === true) return 'a sidechain line';
  if (typeof o.uuid !== 'string') return `a line without a uuid (${String(o.type)})`;
  if (o.type !== 'user' && o.type !== 'assistant')
    return `${/^[aeiou]/.test(String(o.type)) ? 'an' : 'a'} ${String(o.type)} line${typeof o.subtype === 'string' ? ` (${o.subtype})` : ''}`;
  if (o.isMeta === true) return 'a meta user line';
  if (o.type === 'assistant' && hasToolUse(o)) return 'a tool call';
  return null;
}

// Claude Code's own boundary and summary lines, from the fixture that records a compaction.
const real = parse(readFileSync(fixture('with-compactions.jsonl'), 'utf8'));
const boundaryLine = real.find((o) => o?.subtype === 'compact_boundary')!;
const summaryLine = real.find((o) => o?.isCompactSummary === true)!;

/** `lines` up to index `at`, then a compaction by Claude Code (its boundary and summary lines) after them. */
function compactedAfter(lines: string[], parsed: (Line | null)[], at: number): string {
  let last: Line | undefined;
  let stamp = '';
  for (let i = 0; i <= at; i++) {
    const o = parsed[i];
    if (isMainMessage(o)) last = o!;
    if (typeof o?.timestamp === 'string' && o.timestamp > stamp) stamp = o.timestamp;
  }
  const later = new Date(Date.parse(stamp || '2026-01-01T00:00:00.000Z') + 1000).toISOString();
  const sessionId = last?.sessionId ?? boundaryLine.sessionId;
  const boundary = {
    ...boundaryLine,
    uuid: randomUUID(),
    logicalParentUuid: last?.uuid,
    sessionId,
    timestamp: later,
  };
  const summary = { ...summaryLine, uuid: randomUUID(), parentUuid: boundary.uuid, sessionId, timestamp: later };
  return [...lines.slice(0, at + 1), JSON.stringify(boundary), JSON.stringify(summary)].join('\n') + '\n';
}

interface Case {
  name: string;
  text: string;
}

/** Every fixture as it is, and compactions placed after up to two lines of each kind in it. */
function cases(): Case[] {
  const out: Case[] = [];
  for (const file of claudeFixtures()) {
    const text = readFileSync(file, 'utf8');
    out.push({ name: basename(file), text });
    const lines = text.split('\n');
    const parsed = parse(text);
    const seen = new Map<string, number>();
    let messages = 0;
    parsed.forEach((o, i) => {
      if (isMainMessage(o)) messages++;
      const kind = kindOf(o);
      if (!kind || messages === 0 || (seen.get(kind) ?? 0) >= 2) return;
      seen.set(kind, (seen.get(kind) ?? 0) + 1);
      out.push({
        name: `${basename(file)}, compacted after line ${i + 1}, ${kind}`,
        text: compactedAfter(lines, parsed, i),
      });
    });
  }
  return out;
}

describe('Fork From Before This Compaction: offered exactly where it succeeds (issue 33)', function () {
  this.timeout(300_000);
  let dir: string;
  before(() => (dir = tempDir('ac-fork-offered-')));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const all = cases();
  it('builds compactions after every kind of line the fixtures hold before one', () => {
    const kinds = new Set(all.map((c) => c.name.replace(/^.*line \d+, /, '')));
    for (const k of ['a progress line', 'a system line (turn_duration)', 'a tool call', 'a sidechain line'])
      assert.ok(kinds.has(k), `no compaction after ${k}: ${[...kinds].join('; ')}`);
  });

  for (const c of all) {
    it(c.name, async () => {
      const file = join(dir, `${randomUUID()}.jsonl`);
      writeFileSync(file, c.text);
      const analysis = await inspectFile(file, { subagents: false, appendable: false });
      const rows = rootNodes({ file, analysis }).filter((n) => n.kind === 'boundary');
      for (const compaction of agentCompactions(analysis).filter((k) => k.by === 'agent')) {
        const row = rows.find((n) => n.compaction === compaction.number);
        assert.ok(row, `a row for compaction ${compaction.number}`);
        const offered = row.contextValue === 'boundary';
        const run = await runCliInProcess(['fork-before', file, '--compaction', String(compaction.number), '--json']);
        if (offered) {
          assert.equal(run.status, 0, `offered, then refused: ${run.stderr}`);
          const fork = JSON.parse(run.stdout) as { output: string };
          // The fork, as Claude Code's loader rebuilds it: a valid request that ends with the last message written
          // before the boundary.
          const lines = parse(readFileSync(file, 'utf8'));
          let lastUuid: unknown;
          for (let i = 0; i < compaction.line - 1; i++) if (isMainMessage(lines[i])) lastUuid = lines[i]!.uuid;
          const index = await readSessionIndex(fork.output);
          assert.ok(diagnose(index).apiValid, 'the rebuilt request is valid');
          const loaded = buildChain(index.entries, claudeLoader).main.map((i) => index.entries[i].uuid);
          assert.ok(loaded.includes(lastUuid as string), `resume carries ${String(lastUuid)}`);
          rmSync(fork.output);
        } else {
          const tip = String(row.tooltip);
          const why = /No fork from before it is offered: (.+)\.$/m.exec(tip)?.[1];
          assert.ok(why && why.length > 20, `not offered, and no reason on the row: ${tip}`);
          assert.notEqual(run.status, 0, 'not offered, yet it would have been written');
          assert.ok(run.stderr.includes(why), `the refusal says the row's reason: ${run.stderr} / ${why}`);
        }
      }
    });
  }

  it("a Codex rollout's compaction is not offered, and its row says why", async () => {
    const rollout = join(dir, 'rollout.jsonl');
    copyFileSync(
      agentFixtures('codex').find((f) => f.endsWith('rollout-0.142-alpha-compacted.jsonl'))!,
      rollout,
    );
    const analysis = await inspectFile(rollout, { subagents: false, appendable: false });
    const row = rootNodes({ file: rollout, analysis }).find((n) => n.kind === 'boundary');
    assert.ok(row && row.contextValue !== 'boundary', String(row?.contextValue));
    assert.match(String(row.tooltip), /No fork from before it is offered: A Codex rollout keeps/);
  });
});
