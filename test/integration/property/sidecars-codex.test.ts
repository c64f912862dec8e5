// Hostile sidecars, a Codex rollout's: its state file, saved tool results, lock, backup and manifest, and undo
// record, each planted as one of each class of hostile file (sidecars-harness.ts says what is planted and what
// every run must do), against every verb that touches it; then a seeded mix of kinds planted at every path at once
// (Claude Code's, Cline's and Codex's), against every verb. The rest of the suite: sidecars.test.ts (a Claude Code
// session's compaction sidecars) and sidecars-restore.test.ts (the template itself, what inspect, restore, undo,
// Cline's verbs and `sessions` read).
import { assertCliBuilt } from '../../support/cli';
import { Rng } from '../../support/reliability';
import {
  ALL_VERBS,
  type Case,
  exitCodes,
  KINDS,
  type Kind,
  SidecarCases,
  type Target,
  TARGETS,
  targetCases,
} from './sidecars-harness';

describe('hostile sidecars: every verb finishes, touches nothing outside, copies nothing in', function () {
  this.timeout(3_600_000);
  let cases: SidecarCases | undefined;
  const seed = Number(process.env.SIDECAR_FUZZ_SEED ?? 20261125);

  before(async () => {
    assertCliBuilt();
    cases = await SidecarCases.create();
  });
  after(() => cases?.dispose());

  for (const target of TARGETS.filter((t) => t.group === 'codex')) {
    it(`${target.id}: each kind of plant, against the verbs that touch it`, async () => {
      const all = targetCases(target);
      console.log(`      ${exitCodes(all, await cases!.checkAll(all))}`);
    });
  }

  it('a seeded mix of kinds planted at every path at once, against every verb', async () => {
    const rng = new Rng(seed);
    // Four rounds: the first all links to a private key, then seeded mixes (each round runs every verb).
    const all: Case[] = [];
    for (let round = 0; round < 4; round++) {
      const plants = TARGETS.filter((t) => t.withOthers).map((t): [Target, Kind] => [
        t,
        round === 0 ? KINDS[0] : rng.pick(t.kinds ?? KINDS),
      ]);
      for (const verb of ALL_VERBS) all.push([verb, plants]);
    }
    await cases!.checkAll(all);
  });
});
