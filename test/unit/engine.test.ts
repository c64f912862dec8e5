// The transcript engine against every real fixture: values computed independently from
// a plain JSON.parse of the file are compared with what the engine reports.
import { strict as assert } from 'node:assert';
import { appendFileSync, copyFileSync, readFileSync, readFileSync as rf } from 'node:fs';
import { join } from 'node:path';
import { basename } from 'node:path';
import { inspectFile, analyze } from '../../src/core/inspect';
import { extendIndex, indexTranscript } from '../../src/core/transcript';
import { claudeFixtures, fixture } from '../support/fixtures';
import { tempDir } from '../support/temp';

interface Raw {
  line: number;
  obj: Record<string, any>;
}

/** Independent reading: every line that parses (joined lines split by hand). */
function rawLines(file: string): Raw[] {
  const out: Raw[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (!text.trim()) return;
      try {
        out.push({ line: i + 1, obj: JSON.parse(text) });
      } catch {
        for (const part of text.replace(/}{"/g, '}\n{"').split('\n')) {
          try {
            out.push({ line: i + 1, obj: JSON.parse(part) });
          } catch {
            /* unrecoverable */
          }
        }
      }
    });
  return out;
}

describe('engine on every shared fixture', () => {
  for (const file of claudeFixtures()) {
    const name = basename(file);
    describe(name, () => {
      const raws = rawLines(file);
      let analysis: Awaited<ReturnType<typeof inspectFile>>;
      before(async () => {
        analysis = await inspectFile(file);
      });

      it('indexes every parseable object with its line number', () => {
        assert.equal(analysis.index.entries.length, raws.length);
        const lines = analysis.index.entries.map((e) => e.line);
        assert.deepEqual(
          lines,
          raws.map((r) => r.line),
        );
      });

      it('has one round per distinct assistant message.id on the main chain (plus preambles)', () => {
        const { chain, rounds, index } = analysis;
        const ids = new Set<string>();
        for (const i of chain.main) {
          const e = index.entries[i];
          if (e.kind === 'assistant' && e.messageId) ids.add(e.messageId);
        }
        const withId = rounds.filter((r) => r.messageId !== null);
        assert.equal(withId.length, ids.size);
        assert.deepEqual(new Set(withId.map((r) => r.messageId)), ids);
        // Preambles only at the start or at a compact boundary.
        rounds.forEach((r, i) => {
          if (r.messageId === null) assert.ok(i === 0 || r.startsAtBoundary, `preamble round ${i} in the middle`);
        });
      });

      it("matches the file's own distinct assistant ids when the file is one linear conversation", () => {
        const sidechainFile = raws.every((r) => r.obj.isSidechain === true || r.obj.uuid === undefined);
        const ids = new Set(
          raws
            .filter((r) => r.obj.type === 'assistant' && (sidechainFile || r.obj.isSidechain !== true))
            .map((r) => r.obj.message?.id),
        );
        const onChain = new Set(analysis.rounds.filter((r) => r.messageId).map((r) => r.messageId));
        // Every id the engine reports exists in the file; ids left out sit on abandoned branches.
        for (const id of onChain) assert.ok(ids.has(id), `unknown id ${id}`);
        if (analysis.chain.offChain === 0) assert.equal(onChain.size, ids.size);
      });

      it('never separates a tool_use from its tool_result', () => {
        const roundOfUse = new Map<string, number>();
        for (const r of analysis.rounds) for (const u of r.toolUses) roundOfUse.set(u.id, r.index);
        let checked = 0;
        for (const r of analysis.rounds) {
          for (const t of r.toolResults) {
            if (!roundOfUse.has(t.id)) continue; // result of a tool_use before a compact boundary
            assert.equal(
              roundOfUse.get(t.id),
              r.index,
              `tool_result ${t.id} in round ${r.index}, tool_use in ${roundOfUse.get(t.id)}`,
            );
            checked++;
          }
        }
        const uses = analysis.rounds.reduce((s, r) => s + r.toolUses.length, 0);
        assert.ok(uses === 0 || checked > 0);
      });

      it('reports no orphan tool results on the main chain (parallel-call siblings recovered)', () => {
        const uses = new Set<string>();
        const orphans: string[] = [];
        for (const r of analysis.rounds) {
          for (const u of r.toolUses) uses.add(u.id);
          for (const t of r.toolResults)
            if (!uses.has(t.id) && !r.startsAtBoundary && r.segment === 0) orphans.push(t.id);
        }
        assert.deepEqual(orphans, []);
      });

      it('takes usage from the last line of each message id', () => {
        const lastUsage = new Map<string, any>();
        for (const r of raws)
          if (r.obj.type === 'assistant' && r.obj.message?.usage) lastUsage.set(r.obj.message.id, r.obj.message.usage);
        let checked = 0;
        for (const r of analysis.report.rounds) {
          if (!r.messageId || !r.usage) continue;
          const u = lastUsage.get(r.messageId);
          assert.equal(
            r.usage.contextTokens,
            u.input_tokens + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0),
          );
          assert.equal(r.usage.outputTokens, u.output_tokens);
          checked++;
        }
        const anyUsage = raws.some((r) => r.obj.type === 'assistant' && r.obj.message?.usage);
        assert.equal(checked > 0, anyUsage);
      });

      it('takes the stop reason and model from the last line of each message id that states them', () => {
        const lastStop = new Map<string, string>();
        const lastModel = new Map<string, string>();
        for (const r of raws) {
          const m = r.obj.type === 'assistant' ? r.obj.message : undefined;
          if (!m?.id) continue;
          if (typeof m.stop_reason === 'string') lastStop.set(m.id, m.stop_reason);
          if (typeof m.model === 'string' && m.model) lastModel.set(m.id, m.model);
        }
        let checked = 0;
        for (const r of analysis.rounds) {
          if (!r.messageId) continue;
          assert.equal(r.stopReason, lastStop.get(r.messageId), `stop reason of ${r.messageId}`);
          assert.equal(r.model, lastModel.get(r.messageId), `model of ${r.messageId}`);
          checked++;
        }
        assert.equal(
          checked > 0,
          analysis.rounds.some((r) => r.messageId),
        );
      });

      it('labels every token figure with its source and keeps figures sane', () => {
        for (const r of analysis.report.rounds) {
          assert.ok(r.tokens.source === 'usage' || r.tokens.source === 'estimate');
          assert.ok(Number.isFinite(r.tokens.added) && r.tokens.added >= 0);
          assert.ok(Number.isFinite(r.tokens.estimate) && r.tokens.estimate > 0);
          assert.ok(r.firstLine <= r.lastLine);
        }
      });
    });
  }

  it('splits the inline sidechains of an old file from the main conversation', async () => {
    const { report, index, chain } = await inspectFile(fixture('v1.0.x-inline-sidechains.jsonl'));
    const sideLines = index.entries.filter((e) => e.isSidechain).length;
    assert.equal(sideLines, 405);
    assert.equal(
      report.sidechains.reduce((s, c) => s + c.lines, 0),
      405,
    );
    assert.ok(report.sidechains.length >= 2);
    for (const i of chain.main) assert.equal(index.entries[i].isSidechain, false);
  });

  it('treats a subagent file (every line a sidechain) as its own conversation', async () => {
    const { report } = await inspectFile(fixture('v2.1.63-subagent.jsonl'));
    assert.equal(report.subagentFile, true);
    assert.ok(report.rounds.length > 10);
  });

  it('cuts the active context at the last compact boundary', async () => {
    const { report } = await inspectFile(fixture('with-compactions.jsonl'));
    assert.equal(report.compactBoundaries.length, 1);
    const boundaryLine = report.compactBoundaries[0].line;
    const first = report.rounds.findIndex((r) => r.inContext);
    assert.ok(first > 0);
    assert.equal(report.rounds[first].startsAtBoundary, true);
    assert.equal(report.rounds[first].firstLine, boundaryLine);
    for (const r of report.rounds.slice(0, first)) assert.equal(r.inContext, false);
  });

  it('recovers both objects of joined lines and reports the lines', async () => {
    const { report, index } = await inspectFile(fixture('malformed-joined-lines.jsonl'));
    assert.deepEqual(
      report.malformed.map((m) => m.line),
      [115, 241],
    );
    for (const m of report.malformed) assert.match(m.error, /2 JSON objects joined/);
    assert.equal(index.entries.filter((e) => e.line === 115).length, 2);
  });

  it('re-inspects a live session incrementally to the same result as a full read', async () => {
    const dir = tempDir('ac-live-');
    const file = join(dir, 'live.jsonl');
    copyFileSync(fixture('v2.1.97-live-before.jsonl'), file);
    const index = await indexTranscript(file);
    const before = analyze(index).rounds.length;
    const after = rf(fixture('v2.1.97-live-after.jsonl'));
    const prefix = rf(fixture('v2.1.97-live-before.jsonl')).length;
    // Append in two steps, the first ending mid-line as a writing agent would leave it.
    const cut = prefix + Math.floor((after.length - prefix) / 2);
    appendFileSync(file, after.subarray(prefix, cut));
    await extendIndex(index);
    appendFileSync(file, after.subarray(cut));
    await extendIndex(index);
    const incremental = analyze(index).report;
    const full = (await inspectFile(fixture('v2.1.97-live-after.jsonl'))).report;
    assert.ok(incremental.rounds.length > before);
    assert.deepEqual(
      incremental.rounds.map((r) => [r.messageId, r.firstLine, r.lastLine, r.tokens.added]),
      full.rounds.map((r) => [r.messageId, r.firstLine, r.lastLine, r.tokens.added]),
    );
    assert.deepEqual(incremental.malformed, full.malformed);
  });
});
