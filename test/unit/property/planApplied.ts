// Plan shown = plan applied (the harness of plan-applied-claude-code.test.ts and plan-applied-codex.test.ts, one file
// per agent so that the unit tier's two workers share them), for both agents we write: every decision kind (pin, drop,
// summarize, the two ranges, keep a tool result in full, replace it by a preview) on a random round or result of every
// Claude Code and Codex fixture. What `plan` prints for the decisions (planCompaction) and what `plan --summary` prints
// (draftSummary, the plan with the summary's real size) are compared with what compact applies:
//  - the applied plan is the drafted plan, round for round and result for result, with the same conflicts;
//  - every round the user decided is applied as `plan` shows it, and only those are marked the user's;
//  - a chosen tool result that `plan` shows decided by the user is applied so;
//  - the written file holds exactly that: a kept round's calls and results (a replaced result shorter, a kept one
//    whole), no call of a summarized or dropped round, and the given summary verbatim.
import { strict as assert } from 'node:assert';
import { chmodSync, copyFileSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { inspectFile, type Analysis } from '../../../src/core/inspect';
import { planCompaction } from '../../../src/core/compact/plan';
import { applyCompaction, draftSummary, planCompactionOf } from '../../../src/core/compact/compact';
import { loadEntryObjects } from '../../../src/core/lines';
import {
  chooseRounds,
  chooseToolResult,
  keepFrom,
  noDecisions,
  summarizeUpTo,
  type UserDecisions,
} from '../../../src/core/compact/decisions';
import { SUMMARY_PREFIX } from '../../../src/core/compact/summarize/prompt';
import { CompactError, type CompactResult, type CompactionPlan } from '../../../src/core/compact/types';
import { type CompactSettings } from '../../../src/core/compactSettings';
import { agentFixtures, claudeFixtures } from '../../support/fixtures';
import { diffSnapshots, Rng, snapshotDir } from '../../support/reliability';
import { tempDir } from '../../support/temp';

/** The steering property's seed (steer.test.ts); each fixture's stream is SEED + 100 + its place in both lists. */
const SEED = 20261124;

type Json = Record<string, unknown>;

const KINDS = [
  'keep',
  'drop',
  'summarize',
  'summarize up to',
  'keep from',
  'keep a result in full',
  'preview a result',
] as const;

function decisionOfKind(
  kind: (typeof KINDS)[number],
  rng: Rng,
  analysis: Analysis,
): { d: UserDecisions; what: string } | null {
  const active = analysis.rounds.filter((r) => r.inContext).map((r) => r.index);
  // The older half: what the plan alone summarizes, so a pin there changes something.
  const older = active.slice(0, Math.max(1, Math.floor(active.length / 2)));
  const results = active.flatMap((ri) => analysis.rounds[ri].toolResults.map((t) => t.id));
  const d = noDecisions();
  switch (kind) {
    case 'keep': {
      const r = rng.pick(older);
      return { d: chooseRounds(d, [r], 'keep'), what: `keep ${r}` };
    }
    case 'drop':
    case 'summarize': {
      const r = rng.pick(active);
      return { d: chooseRounds(d, [r], kind), what: `${kind} ${r}` };
    }
    case 'summarize up to': {
      const r = rng.pick(active);
      return { d: summarizeUpTo(d, r), what: `summarize up to ${r}` };
    }
    case 'keep from': {
      const r = rng.pick(active);
      return { d: keepFrom(d, r), what: `keep from ${r}` };
    }
    default: {
      if (results.length === 0) return null;
      const id = rng.pick(results);
      return {
        d: chooseToolResult(d, id, kind === 'preview a result' ? 'preview' : 'keep-full'),
        what: `${kind} ${id}`,
      };
    }
  }
}

/** Calls of the active context that no round answers. */
function unanswered(analysis: Analysis): string[] {
  const answered = new Set(analysis.rounds.flatMap((r) => r.toolResults.map((t) => t.id)));
  return analysis.rounds
    .filter((r) => r.inContext)
    .flatMap((r) => r.toolUses.map((u) => u.id))
    .filter((id) => !answered.has(id));
}

/** The summary text the written file resumes with (Claude Code's summary line, or Codex's compacted record). */
async function writtenSummary(file: string, analysis: Analysis): Promise<string> {
  let at = analysis.index.entries.length - 1;
  while (at >= 0 && !analysis.index.entries[at].isCompactSummary) at--;
  const o = (await loadEntryObjects(file, analysis.index.entries, [at])).get(at) as Json;
  if (o.type === 'compacted')
    return (((o.payload as Json).replacement_history as Json[])[0].content as Json[])[0].text as string;
  const content = (o.message as Json).content;
  return typeof content === 'string' ? content : (content as Json[]).map((b) => b.text).join('');
}

/** The test of one agent's fixtures (Claude Code's or Codex's), every decision kind on each. */
export function planAppliedSuite(agent: 'claude-code' | 'codex'): void {
  describe(`plan shown = plan applied: every decision kind over ${agent === 'codex' ? 'Codex' : 'Claude Code'} fixtures`, function () {
    this.timeout(20 * 60_000);
    // Both agents' fixtures numbered as one list, so that each fixture draws the decisions it drew in one file.
    const all = [...claudeFixtures(), ...agentFixtures('codex')];
    const fixtures = [...all.entries()].filter(([, f]) => (agent === 'codex') === agentFixtures('codex').includes(f));
    const written = new Map<string, number>();
    after(() => {
      // Some decisions leave nothing to gain; the agent must still have been written under every kind.
      for (const kind of KINDS)
        assert.ok((written.get(`${agent} ${kind}`) ?? 0) > 0, `no ${agent} compaction was written for "${kind}"`);
    });
    for (const [n, src] of fixtures) {
      it(`${basename(src)}: each decision kind, planned then applied`, async () => {
        const rng = new Rng(SEED + 100 + n);
        for (const kind of KINDS) {
          const dir = tempDir('ac-steer-apply-');
          try {
            const file = join(dir, basename(src));
            copyFileSync(src, file);
            chmodSync(file, 0o644);
            const analysis = await inspectFile(file, { subagents: false });
            const chosen = decisionOfKind(kind, rng, analysis);
            if (!chosen) continue;
            const { d } = chosen;
            const where = `${basename(src)} (${chosen.what})`;
            const pre = analysis.report.rounds.filter((r) => r.inContext).reduce((s, r) => s + r.tokens.estimate, 0);
            const settings: Partial<CompactSettings> = {
              targetTokens: Math.max(2_000, Math.round(pre * 0.4) + (analysis.report.totals.overheadTokens ?? 0)),
              keepRecentTokens: 2_000,
              maxToolResultChars: 1_000,
            };
            const summaryText = `Summary by hand for ${chosen.what}: ünïcödé ✓ "quoted" \\ ${rng.int(1e9)}\n`;
            const options = { summarizer: 'extractive' as const, settings, decisions: d, summaryText };

            const shown = await planCompaction(analysis, settings, undefined, d);
            const before = snapshotDir(dir);
            const original = readFileSync(file);
            let drafted: Awaited<ReturnType<typeof draftSummary>> | null = null;
            let planned: Awaited<ReturnType<typeof planCompactionOf>> | null = null;
            let applied: CompactionPlan | null = null;
            let result: CompactResult;
            try {
              drafted = await draftSummary(file, options);
              planned = await planCompactionOf(file, options);
              applied = structuredClone(planned.plan);
              result = await applyCompaction(planned);
            } catch (err) {
              // Known limitation of the Claude Code planner (not of steering): a kept round whose call the input never
              // answered fails validation; the refusal must still write nothing.
              const knownRefusal =
                err instanceof CompactError &&
                err.code === 'invalid-output' &&
                analysis.index.format.id === 'claude-code' &&
                unanswered(analysis).length > 0 &&
                /has no tool_result/.test(err.message);
              if (!(err instanceof CompactError) || (err.code !== 'nothing-to-compact' && !knownRefusal))
                throw new Error(`${where}: ${String(err)}`, { cause: err });
              const diff = diffSnapshots(before, snapshotDir(dir));
              assert.deepEqual(
                [diff.added, diff.removed, diff.changed],
                [[], [], []],
                `${where}: a refusal writes nothing`,
              );
              continue;
            }
            const agent = analysis.index.format.id;
            written.set(`${agent} ${kind}`, (written.get(`${agent} ${kind}`) ?? 0) + 1);
            assert.deepEqual(readFileSync(file), original, `${where}: the original is untouched`);

            // The plan object applied is the plan written: round by round (action, who, tokens after budgeting), the
            // predicted kept tokens, the tool results and the conflicts; and applying it left it as it was.
            assert.equal(result.replanned, undefined, `${where}: nothing changed between plan and apply`);
            assert.deepEqual(planned.plan, applied, `${where}: applying leaves the plan object as it was shown`);
            const exact = (p: CompactionPlan) => ({
              rounds: p.rounds.map((r) => `${r.index}:${r.action}:${r.by}:${r.tokens}:${r.tokensAfter}`),
              preTokens: p.preTokens,
              keptTokens: p.keptTokens,
              messageTarget: p.messageTarget,
              toolResults: p.toolResults,
              conflicts: p.conflicts,
              settings: p.settings,
            });
            assert.deepEqual(
              exact(result.plan),
              exact(applied),
              `${where}: the applied result is the plan object applied`,
            );
            const view = (p: CompactionPlan) => p.rounds.map((r) => `${r.index}:${r.action}:${r.by}`);
            assert.deepEqual(view(result.plan), view(drafted.plan), `${where}: the applied plan is the drafted one`);
            assert.deepEqual(result.plan.conflicts, drafted.plan.conflicts, `${where}: the same conflicts`);
            const userRounds = (p: CompactionPlan) =>
              p.rounds.filter((r) => r.by === 'user').map((r) => `${r.index}:${r.action}`);
            assert.deepEqual(
              userRounds(result.plan),
              userRounds(shown),
              `${where}: the rounds decided by the user, as plan shows them`,
            );
            assert.deepEqual(
              result.plan.toolResults,
              drafted.plan.toolResults,
              `${where}: the tool results as plan --summary shows them`,
            );
            for (const id of Object.keys(d.toolResults)) {
              const decided = (p: CompactionPlan) =>
                p.toolResults.filter((t) => t.toolUseId === id && t.by === 'user').map((t) => t.action);
              // A result of a round `plan` shows summarized may be kept once the summary's real size is known.
              if (decided(shown).length)
                assert.deepEqual(decided(result.plan), decided(shown), `${where}: tool result ${id} as plan shows it`);
            }

            const out = await inspectFile(result.output, { subagents: false });
            const outActive = out.rounds.filter((r) => r.inContext);
            const calls = new Set(outActive.flatMap((r) => r.toolUses.map((u) => u.id)));
            const resultChars = new Map(
              outActive.flatMap((r) => r.toolResults.map((t): [string, number] => [t.id, t.chars])),
            );
            const keptCalls = new Set(
              result.plan.rounds
                .filter((r) => r.inContext && r.action === 'keep')
                .flatMap((r) => analysis.rounds[r.index].toolUses.map((u) => u.id)),
            );
            for (const r of result.plan.rounds) {
              if (!r.inContext) continue;
              const round = analysis.rounds[r.index];
              if (r.action !== 'keep') {
                for (const u of round.toolUses)
                  if (!keptCalls.has(u.id))
                    assert.ok(
                      !calls.has(u.id),
                      `${where}: ${r.action} round ${r.index} (${r.by}) left no call ${u.id} in the output`,
                    );
                continue;
              }
              for (const u of round.toolUses)
                assert.ok(calls.has(u.id), `${where}: kept round ${r.index} (${r.by}) has its call ${u.id} written`);
              for (const t of round.toolResults) {
                const decision = result.plan.toolResults.find((x) => x.toolUseId === t.id);
                const replaced =
                  decision?.action === 'replaced' || (decision?.action === 'frozen' && decision.preview !== null);
                const got = resultChars.get(t.id);
                if (replaced)
                  assert.ok(
                    got !== undefined && got < t.chars,
                    `${where}: result ${t.id} of kept round ${r.index} is written as its preview (${got} of ${t.chars} chars)`,
                  );
                else assert.equal(got, t.chars, `${where}: result ${t.id} of kept round ${r.index} is written whole`);
              }
            }
            assert.equal(
              await writtenSummary(result.output, out),
              SUMMARY_PREFIX + summaryText,
              `${where}: the summary is the given text`,
            );
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        }
      });
    }
  });
}
