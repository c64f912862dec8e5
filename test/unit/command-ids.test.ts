// One command-id table (src/extension/commandIds.ts) against the manifest and the code: every command package.json
// contributes is in the table and every table entry is contributed; every menu and keybinding names a command that
// exists; no command id is written as a bare string anywhere else in src (registration completeness is checked by
// the compiler: commands/index.ts registers a Record keyed by every CommandId).
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { actionTags } from '../../src/extension/model/sessionsTree';
import { CommandId } from '../../src/extension/commandIds';
import { repoRoot } from '../support/fixtures';

interface Manifest {
  contributes: {
    commands: { command: string }[];
    menus?: Record<string, { command?: string; submenu?: string; when?: string; group?: string }[]>;
    keybindings?: { command: string }[];
  };
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('command ids: one table, the manifest and the code agree', () => {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;
  const table = new Set<string>(Object.values(CommandId));

  it('package.json contributes exactly the commands of the table', () => {
    const contributed = manifest.contributes.commands.map((c) => c.command);
    assert.equal(new Set(contributed).size, contributed.length, 'no command contributed twice');
    assert.deepEqual([...contributed].sort(), [...table].sort());
  });

  it('every menu entry and keybinding names a command of the table', () => {
    const named = [
      ...Object.values(manifest.contributes.menus ?? {})
        .flat()
        .flatMap((m) => (m.command ? [m.command] : [])),
      ...(manifest.contributes.keybindings ?? []).map((k) => k.command),
    ];
    assert.ok(named.length > 20, `${named.length} menu entries and keybindings`);
    for (const c of named) assert.ok(table.has(c) || c.startsWith('workbench.'), `${c} is not a command of the table`);
  });

  it('no command id is written as a bare string outside the table', () => {
    const offenders: string[] = [];
    for (const file of sources(join(repoRoot, 'src'))) {
      if (file.endsWith(join('extension', 'commandIds.ts'))) continue;
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/['"](agentCompactor\.[A-Za-z.]+)['"]/g))
        if (table.has(m[1])) offenders.push(`${relative(repoRoot, file)}: ${m[1]}`);
    }
    assert.deepEqual(offenders, []);
  });

  it("a session row of the Sessions view has its actions: a context menu and inline buttons, a fork's original on forks only", () => {
    const entries = manifest.contributes.menus?.['view/item/context'] ?? [];
    /** The commands shown for a Sessions view row of `contextValue`, in the context menu or inline. */
    const shown = (contextValue: string, inline: boolean) =>
      entries
        .filter(
          (m) =>
            m.command &&
            m.when?.includes('view == agentCompactor.sessions') &&
            inline === (m.group ?? '').startsWith('inline'),
        )
        .filter((m) => {
          const item =
            /viewItem =~ \/(.*)\/$/.exec(m.when ?? '')?.[1] ?? /viewItem == ([\w.]+)/.exec(m.when ?? '')?.[1];
          return (
            item !== undefined && (m.when!.includes('=~') ? new RegExp(item).test(contextValue) : item === contextValue)
          );
        })
        .map((m) => m.command);
    const menu = [
      CommandId.showRounds,
      CommandId.openContextMap,
      CommandId.compact,
      CommandId.resumeSession,
      CommandId.copyResumeCommand,
      CommandId.revealSessionFile,
    ];
    // A Claude Code session's row, as the view tags it from the agent's module (sessionsTree.ts actionTags).
    const claude = `session${actionTags('claude-code')}`;
    for (const row of [claude, `session.live${actionTags('claude-code')}`, `${claude}.fork`]) {
      for (const c of menu) assert.ok(shown(row, false).includes(c), `${c} in the context menu of a ${row} row`);
      for (const c of [CommandId.openContextMap, CommandId.compact])
        assert.ok(shown(row, true).includes(c), `${c} inline on a ${row} row`);
      assert.equal(
        shown(row, false).includes(CommandId.openOriginalSession),
        row.endsWith('.fork'),
        `Open Original Session on forks only (${row})`,
      );
    }
    // Another agent's row offers what its module can do: a Codex session is compacted and resumed (in Codex); a
    // Gemini CLI, Cline or Copilot CLI session is read only.
    const codex = shown(`session${actionTags('codex')}`, false);
    assert.ok(
      codex.includes(CommandId.compact) &&
        codex.includes(CommandId.resumeSession) &&
        codex.includes(CommandId.copyResumeCommand),
      codex.join(' '),
    );
    for (const agent of ['gemini-cli', 'cline', 'copilot-cli'] as const) {
      const row = `session.live${actionTags(agent)}`;
      assert.deepEqual(
        shown(row, false).sort(),
        [CommandId.showRounds, CommandId.openContextMap, CommandId.revealSessionFile].sort(),
        row,
      );
      assert.deepEqual(shown(row, true), [CommandId.openContextMap], row);
    }
    assert.deepEqual(shown('project', false), [], 'no session action on a project row');
    assert.deepEqual(shown('agent', false), [], 'no session action on an agent row');
  });

  it("Repair Session is offered only where core's repair outlook says it can fix something", () => {
    const entries = Object.values(manifest.contributes.menus ?? {})
      .flat()
      .filter((m) => m.command === CommandId.repairSession);
    assert.ok(entries.length > 0);
    for (const m of entries)
      assert.ok(/agentCompactor\.canRepair|viewItem == resumeHealth\.repairable/.test(m.when ?? ''), `${m.when}`);
  });
});
