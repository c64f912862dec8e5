// Hostile sidecars, a Claude Code session's compaction sidecars: its state file, its saved tool results (the folder
// and a file in it) and its lock, each planted as every kind of hostile file (sidecars-harness.ts says what is
// planted and what every run must do), against every verb that reads, writes or deletes it. The suite is split in
// three files that mocha runs side by side: this one, sidecars-restore.test.ts (the template itself, what inspect,
// restore, undo, Cline's verbs and `sessions` read) and sidecars-codex.test.ts (a Codex rollout's sidecars, and every
// path at once). The extension's commands over the same plants: test/host/12-sidecars.
import { assertCliBuilt } from '../../support/cli';
import { exitCodes, SidecarCases, TARGETS, targetCases } from './sidecars-harness';

describe('hostile sidecars: every verb finishes, touches nothing outside, copies nothing in', function () {
  this.timeout(3_600_000);
  let cases: SidecarCases | undefined;

  before(async () => {
    assertCliBuilt();
    cases = await SidecarCases.create();
  });
  after(() => cases?.dispose());

  for (const target of TARGETS.filter((t) => t.group === 'compaction')) {
    it(`${target.id}: each kind of plant, against the verbs that touch it`, async () => {
      const all = targetCases(target);
      console.log(`      ${exitCodes(all, await cases!.checkAll(all))}`);
    });
  }
});
