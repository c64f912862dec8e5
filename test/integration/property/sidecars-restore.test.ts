// Hostile sidecars, what inspect, restore, undo, Cline's verbs and `sessions` read: a session's subagents and its
// folder, the backup with its manifest and state file, the undo record and the fork it names, Cline's
// ui_messages.json, and other sessions, projects and Codex days beside them; each planted as every kind of hostile
// file (sidecars-harness.ts says what is planted and what every run must do), against every verb that touches it.
// First, the template sessions with nothing planted: every verb succeeds on them. The rest of the suite:
// sidecars.test.ts (a Claude Code session's compaction sidecars) and sidecars-codex.test.ts (a Codex rollout's
// sidecars, and every path at once).
import { strict as assert } from 'node:assert';
import { assertCliBuilt } from '../../support/cli';
import { ALL_VERBS, exitCodes, SidecarCases, TARGETS, targetCases } from './sidecars-harness';

describe('hostile sidecars: every verb finishes, touches nothing outside, copies nothing in', function () {
  this.timeout(3_600_000);
  let cases: SidecarCases | undefined;

  before(async () => {
    assertCliBuilt();
    cases = await SidecarCases.create();
  });
  after(() => cases?.dispose());

  it('the template sessions themselves: every verb succeeds (the checks below would pass on a refusal of anything)', async () => {
    const runs = await cases!.checkAll(ALL_VERBS.map((verb) => [verb, []]));
    ALL_VERBS.forEach((verb, i) => {
      const r = runs[i];
      if (verb === 'cline-plan') assert.match(r.stderr, /Cline \/ Roo Code sessions are read-only/, r.stderr);
      else assert.equal(r.code, 0, `${verb}: ${r.stderr}`);
      if (verb === 'sessions') assert.equal(r.stdout.match(/^\S+ {2}(claude-code|codex) /gm)?.length, 4, r.stdout);
    });
  });

  for (const target of TARGETS.filter((t) => t.group === 'read-restore-undo')) {
    it(`${target.id}: each kind of plant, against the verbs that touch it`, async () => {
      const all = targetCases(target);
      console.log(`      ${exitCodes(all, await cases!.checkAll(all))}`);
    });
  }
});
