// One context-key table (src/extension/contextKeys.ts) against the manifest and the code: every `agentCompactor.*`
// key a `when` or `enablement` clause of package.json reads is in the table and set somewhere in src; every key of
// the table is read by a clause and set; no key is written as a bare string, or set by hand, outside the table's file.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ContextKey } from '../../src/extension/contextKeys';
import { CommandId } from '../../src/extension/commandIds';
import { repoRoot } from '../support/fixtures';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every `when` and `enablement` clause of the manifest, wherever it is (commands, menus, views, welcome, keys). */
function clauses(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const x of node) clauses(x, out);
  else if (node && typeof node === 'object')
    for (const [k, v] of Object.entries(node)) {
      if ((k === 'when' || k === 'enablement') && typeof v === 'string') out.push(v);
      else clauses(v, out);
    }
  return out;
}

describe('context keys: one table, the manifest and the code agree', () => {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    contributes: { views: Record<string, { id: string }[]> };
  };
  const table = new Set<string>(Object.values(ContextKey));
  // View ids appear in clauses as values (`view == agentCompactor.rounds`), not as keys.
  const viewIds = new Set(
    Object.values(manifest.contributes.views)
      .flat()
      .map((v) => v.id),
  );
  const all = clauses(manifest.contributes);
  const read = new Set(
    all.flatMap((c) => [...c.matchAll(/agentCompactor\.[A-Za-z]+/g)].map((m) => m[0])).filter((k) => !viewIds.has(k)),
  );
  const files = sources(join(repoRoot, 'src')).map((f) => ({ f, text: readFileSync(f, 'utf8') }));
  /** The keys set through the table (`setContext(ContextKey.x, …)`), by their value. */
  const set = new Set<string>(
    files.flatMap(({ text }) =>
      [...text.matchAll(/setContext\(\s*ContextKey\.(\w+)/g)].map((m) => ContextKey[m[1] as keyof typeof ContextKey]),
    ),
  );

  it('the manifest has clauses that read keys of ours', () => {
    assert.ok(all.length > 50, `${all.length} clauses`);
    assert.ok(read.size >= 8, `${[...read].join(', ')}`);
  });

  it('every key a clause reads is in the table, and set somewhere', () => {
    for (const k of read) {
      assert.ok(table.has(k), `${k} is read by package.json but is not in ContextKey`);
      assert.ok(set.has(k), `${k} is read by package.json but never set`);
    }
  });

  it('every key of the table is read by a clause and set somewhere', () => {
    for (const k of table) {
      assert.ok(read.has(k), `${k} is in ContextKey but no clause of package.json reads it`);
      assert.ok(set.has(k), `${k} is in ContextKey but never set`);
    }
  });

  it('no key is written as a bare string, and none is set but through the table', () => {
    const offenders: string[] = [];
    for (const { f, text } of files) {
      if (f.endsWith(join('extension', 'contextKeys.ts')) || f.endsWith(join('extension', 'setContext.ts'))) continue;
      for (const m of text.matchAll(/['"](agentCompactor\.[A-Za-z]+)['"]/g))
        if (table.has(m[1])) offenders.push(`${relative(repoRoot, f)}: ${m[1]}`);
      if (/executeCommand\(\s*['"]setContext['"]/.test(text))
        offenders.push(`${relative(repoRoot, f)}: setContext by hand`);
    }
    assert.deepEqual(offenders, []);
  });

  it('a context key is not also a command id (a clause could not tell them apart)', () => {
    const commands = new Set<string>(Object.values(CommandId));
    for (const k of table) assert.ok(!commands.has(k), k);
  });
});
