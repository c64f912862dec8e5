// One neutral model (issue 32): the engine outside src/core/formats/ asks an agent's module instead of naming the
// agent. Measured here so it stays so: no agent id as a string literal in core outside formats/, and no import of an
// agent's own folder. Core's root importing nothing from core/compact/ is dependency-cruiser's rule
// (core-root-below-compact), and the agent folders its engine-reads-no-agent-schema rule (.dependency-cruiser.cjs).
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { AGENT_IDS, AGENTS, chainLoaderOf, unsupported } from '../../src/core/formats/registry';

const ROOT = join(__dirname, '..', '..');
const CORE = join(ROOT, 'src', 'core');

/** The TypeScript files of src/core outside src/core/formats/, relative to the repository. */
function coreOutsideFormats(dir = CORE): string[] {
  const out: string[] = [];
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) {
      if (p !== join(CORE, 'formats')) out.push(...coreOutsideFormats(p));
    } else if (d.name.endsWith('.ts')) out.push(relative(ROOT, p).split('\\').join('/'));
  }
  return out.sort();
}

/** A line of code, not of a comment (`//` lines and the lines of a `/** … *\/` block). */
const isCode = (line: string): boolean => !/^\s*(\/\/|\/\*|\*)/.test(line);

describe('one neutral model: core outside formats/ names no agent (issue 32)', () => {
  const files = coreOutsideFormats();

  it('no agent id as a string literal in code', () => {
    const literal = new RegExp(`(['"\`])(${AGENT_IDS.join('|')})\\1`);
    const found = files.flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .map((line, i) => ({ at: `${f}:${i + 1}`, line }))
        .filter(({ line }) => isCode(line) && literal.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    assert.deepEqual(found, [], 'ask the agent module (src/core/formats/agent.ts) instead');
  });

  it("no file imports an agent's own folder", () => {
    const agentFolder = new RegExp(`from '[./]*formats/(${AGENT_IDS.join('|')})/`);
    const importing = files.filter((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .some((l) => agentFolder.test(l)),
    );
    // The last one, the sessions list's quick read of Claude Code's records, moved to formats/claude-code/
    // (sessionSummary.ts, asked through `sessions.projects`).
    assert.deepEqual(importing, [], 'ask the agent module through the registry (src/core/formats/registry.ts)');
  });

  it('an agent has a loader model exactly when resume health, repair or fork-before is offered for its sessions', () => {
    for (const agent of AGENTS) {
      const offered = (['jsonl', 'json'] as const).filter((container) => {
        const can = agent.capabilities(container);
        return can.doctor || can.repair || can.forkBefore;
      });
      assert.equal(!!agent.loader, offered.length > 0, `${agent.name}: a loader model exactly when one is used`);
      for (const container of ['jsonl', 'json'] as const)
        if (offered.includes(container)) assert.equal(chainLoaderOf({ id: agent.id, container }), agent.loader);
        else
          assert.throws(
            () => chainLoaderOf({ id: agent.id, container }),
            (e: Error) => e.message === unsupported({ id: agent.id, container }, 'doctor'),
          );
    }
    assert.ok(
      AGENTS.some((a) => a.loader),
      'at least one registered agent has a loader model (else resume health is never offered)',
    );
  });

  it('an agent summarizes sessions in project folders exactly when one of its locations has them', () => {
    for (const agent of AGENTS) {
      const projectFolders = (agent.sessions?.locations ?? []).some((l) => l.projectFolders);
      assert.equal(!!agent.sessions?.projects, projectFolders, `${agent.name}: sessions.projects`);
    }
    assert.ok(
      AGENTS.some((a) => a.sessions?.projects),
      'at least one registered agent keeps its sessions in project folders (else the Sessions view has no projects)',
    );
  });
});
