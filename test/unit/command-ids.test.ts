// One command-id table (src/extension/commandIds.ts) against the manifest and the code: every command package.json
// contributes is in the table and every table entry is contributed; every menu and keybinding names a command that
// exists; no command id is written as a bare string anywhere else in src (registration completeness is checked by
// the compiler: commands/index.ts registers a Record keyed by every CommandId).
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CommandId } from '../../src/extension/commandIds';
import { repoRoot } from '../support/fixtures';

interface Manifest {
  contributes: { commands: { command: string }[]; menus?: Record<string, { command?: string; submenu?: string }[]>; keybindings?: { command: string }[] };
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
    const named = [...Object.values(manifest.contributes.menus ?? {}).flat().flatMap((m) => (m.command ? [m.command] : [])), ...(manifest.contributes.keybindings ?? []).map((k) => k.command)];
    assert.ok(named.length > 20, `${named.length} menu entries and keybindings`);
    for (const c of named) assert.ok(table.has(c) || c.startsWith('workbench.'), `${c} is not a command of the table`);
  });

  it('no command id is written as a bare string outside the table', () => {
    const offenders: string[] = [];
    for (const file of sources(join(repoRoot, 'src'))) {
      if (file.endsWith(join('extension', 'commandIds.ts'))) continue;
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/['"](agentCompactor\.[A-Za-z.]+)['"]/g)) if (table.has(m[1])) offenders.push(`${relative(repoRoot, file)}: ${m[1]}`);
    }
    assert.deepEqual(offenders, []);
  });
});
