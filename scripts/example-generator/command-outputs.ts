// Command outputs computed from the virtual project: vitest, grep, git diff and status, numbered reads.
import { LOG_HOST } from '../example-data/sized-files';
import { diffCounts, hunks } from './diff';
import { Project } from './project';
import { Rng } from './random';

interface TestCase {
  file: string;
  path: string[];
  line: number;
}

function collectTests(project: Project, files?: string[]): TestCase[] {
  const list = (files ?? project.all().filter((p) => p.startsWith('test/') && p.endsWith('.test.ts'))).sort();
  const cases: TestCase[] = [];
  for (const file of list) {
    const lines = project.read(file).split('\n');
    const stack: { name: string; indent: number }[] = [];
    lines.forEach((l, i) => {
      const m = /^(\s*)(describe|it)\('([^']*)'/.exec(l);
      if (!m) return;
      const indent = m[1].length;
      while (stack.length && stack[stack.length - 1].indent >= indent) stack.pop();
      if (m[2] === 'describe') stack.push({ name: m[3], indent });
      else cases.push({ file, path: [...stack.map((s) => s.name), m[3]], line: i + 1 });
    });
  }
  return cases;
}

export interface TestFailure {
  file: string;
  test: string;
  error: string;
  detail: string[];
}

function clockTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

const RULE = '⎯'.repeat(50);

export function vitestOutput(
  project: Project,
  rng: Rng,
  o: {
    files?: string[];
    failures?: TestFailure[];
    verbose?: boolean;
    npmHeader?: string;
    noiseChars?: number;
    startMs: number;
  },
): { text: string; failed: boolean; durationMs: number } {
  const cases = collectTests(project, o.files);
  const failures = o.failures ?? [];
  const byFile = new Map<string, TestCase[]>();
  for (const c of cases) byFile.set(c.file, [...(byFile.get(c.file) ?? []), c]);
  const out: string[] = [];
  if (o.npmHeader)
    out.push(
      '',
      '> shelfmark@0.9.0 ' + o.npmHeader.split(' ')[0],
      '> ' + o.npmHeader.split(' ').slice(1).join(' '),
      '',
    );
  out.push(' RUN  v3.0.4 ' + project.cwd, '');
  const failedName = (c: TestCase) => failures.find((f) => f.file === c.file && f.test === c.path[c.path.length - 1]);
  let noise = o.noiseChars ?? 0;
  let reqNo = 1;
  let logT = o.startMs;
  let total = 0;
  for (const [file, list] of byFile) {
    const nFailed = list.filter(failedName).length;
    const ms = list.reduce((a) => a + rng.int(2, 60), 0);
    total += ms;
    if (noise > 0) {
      for (const c of list) {
        if (noise <= 0) break;
        const block: string[] = ['stdout | ' + file + ' > ' + c.path.join(' > ')];
        const n = rng.int(2, 7);
        for (let i = 0; i < n; i++) {
          logT += rng.int(1, 30);
          const id = 'req-' + (reqNo++).toString(36);
          block.push(
            JSON.stringify({
              level: 30,
              time: logT,
              pid: 51022,
              hostname: LOG_HOST,
              reqId: id,
              req: {
                method: rng.pick(['GET', 'POST', 'PATCH', 'DELETE']),
                url:
                  '/' +
                  file
                    .slice(5, -8)
                    .replace(/([A-Z])/g, '-$1')
                    .toLowerCase(),
                hostname: 'localhost:80',
                remoteAddress: '127.0.0.1',
              },
              msg: 'incoming request',
            }),
          );
          if (rng.chance(0.5))
            block.push(
              JSON.stringify({
                level: 20,
                time: logT + 1,
                pid: 51022,
                hostname: LOG_HOST,
                reqId: id,
                sql:
                  rng.pick(['SELECT', 'INSERT', 'UPDATE', 'DELETE']) +
                  ' ... ' +
                  rng.pick(['bookmarks', 'tags', 'collections', 'webhooks', 'users']),
                rows: rng.int(0, 20),
                durationMs: Math.round(rng.next() * 900) / 100,
                msg: 'query',
              }),
            );
          block.push(
            JSON.stringify({
              level: 30,
              time: logT + 2,
              pid: 51022,
              hostname: LOG_HOST,
              reqId: id,
              res: { statusCode: rng.pick([200, 200, 201, 204, 400, 404]) },
              responseTime: Math.round(rng.next() * 2500 + 30) / 100,
              msg: 'request completed',
            }),
          );
        }
        block.push('');
        const s = block.join('\n');
        out.push(s);
        noise -= s.length;
      }
    }
    if (nFailed) out.push(` ❯ ${file} (${list.length} tests | ${nFailed} failed) ${ms}ms`);
    else out.push(` ✓ ${file} (${list.length} test${list.length === 1 ? '' : 's'}) ${ms}ms`);
    for (const c of list) {
      const f = failedName(c);
      if (f) {
        out.push(`   × ${c.path.join(' > ')} ${rng.int(2, 40)}ms`, `     → ${f.error.split('\n')[0]}`);
      } else if (o.verbose || nFailed) out.push(`   ✓ ${c.path.join(' > ')} ${rng.int(0, 25)}ms`);
    }
  }
  if (failures.length) {
    out.push('', `${'⎯'.repeat(7)} Failed Tests ${failures.length} ${'⎯'.repeat(7)}`, '');
    failures.forEach((f, i) => {
      const c = cases.find((x) => x.file === f.file && x.path[x.path.length - 1] === f.test);
      out.push(` FAIL  ${f.file} > ${c ? c.path.join(' > ') : f.test}`, f.error, '', ...f.detail, '');
      if (c) {
        const src = project.read(f.file).split('\n');
        let at = c.line;
        while (at < src.length && !src[at - 1].includes('expect(')) at++;
        const col = src[at - 1].indexOf('.to') + 2;
        out.push(` ❯ ${f.file}:${at}:${col}`);
        for (let k = Math.max(1, at - 2); k <= Math.min(src.length, at + 2); k++) {
          out.push(`    ${String(k).padStart(3)}| ${src[k - 1]}`);
          if (k === at) out.push('       | ' + ' '.repeat(Math.max(0, col - 1)) + '^');
        }
      }
      out.push('', `${RULE}[${i + 1}/${failures.length}]⎯`, '');
    });
  }
  const nTests = cases.length;
  const nFiles = byFile.size;
  const failedFiles = new Set(failures.map((f) => f.file)).size;
  const durationMs = 900 + total + rng.int(200, 2500) + (o.files ? 0 : rng.int(7_000, 22_000));
  out.push(
    '',
    ` Test Files  ${failedFiles ? failedFiles + ' failed | ' : ''}${nFiles - failedFiles} passed (${nFiles})`,
    `      Tests  ${failures.length ? failures.length + ' failed | ' : ''}${nTests - failures.length} passed (${nTests})`,
    `   Start at  ${clockTime(o.startMs)}`,
    `   Duration  ${(durationMs / 1000).toFixed(2)}s (transform ${rng.int(180, 700)}ms, setup 0ms, collect ${(rng.int(80, 260) / 100).toFixed(2)}s, tests ${(total / 1000).toFixed(2)}s, environment ${rng.int(0, 4)}ms, prepare ${rng.int(300, 1200)}ms)`,
    '',
  );
  return { text: out.join('\n'), failed: failures.length > 0, durationMs };
}

export function grepProject(
  project: Project,
  pattern: string,
  o: { under?: string; glob?: RegExp; mode: 'content' | 'files_with_matches'; context?: number; headLimit?: number },
): { text: string; files: string[]; lines: number } {
  const re = new RegExp(pattern);
  const files: string[] = [];
  const out: string[] = [];
  for (const rel of project.all()) {
    if (o.under && !rel.startsWith(o.under)) continue;
    if (o.glob && !o.glob.test(rel)) continue;
    if (rel.startsWith('logs/')) continue;
    const lines = project.read(rel).split('\n');
    const hits = lines.map((l, i) => (re.test(l) ? i : -1)).filter((i) => i >= 0);
    if (!hits.length) continue;
    files.push(rel);
    if (o.mode === 'content') {
      const ctx = o.context ?? 0;
      let last = -2;
      for (const h of hits) {
        for (let k = Math.max(0, h - ctx); k <= Math.min(lines.length - 1, h + ctx); k++) {
          if (k <= last) continue;
          if (ctx && last >= 0 && k > last + 1) out.push('--');
          out.push(
            `${rel}${k === h || hits.includes(k) ? ':' : '-'}${k + 1}${k === h || hits.includes(k) ? ':' : '-'}${lines[k]}`,
          );
          last = k;
        }
      }
    }
  }
  let shown = out;
  if (o.headLimit && out.length > o.headLimit) shown = out.slice(0, o.headLimit);
  if (o.mode === 'files_with_matches') {
    return {
      text: files.length
        ? `Found ${files.length} file${files.length === 1 ? '' : 's'}\n${files.join('\n')}`
        : 'No files found',
      files,
      lines: files.length,
    };
  }
  return { text: shown.length ? shown.join('\n') : 'No matches found', files, lines: shown.length };
}

export function shortHash(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  let h2 = 5381;
  for (let i = 0; i < s.length; i++) h2 = (Math.imul(h2, 33) ^ s.charCodeAt(i)) >>> 0;
  return ((h >>> 0).toString(16).padStart(8, '0') + h2.toString(16).padStart(8, '0')).slice(0, 7);
}

function hunkHeader(lines: string[], at: number): string {
  for (let i = at - 2; i >= 0; i--) {
    if (/^(export |function |class |interface |describe\(|const |CREATE )/.test(lines[i]))
      return ' ' + lines[i].slice(0, 80);
  }
  return '';
}

export function gitDiff(project: Project, only?: string[]): string {
  const { modified, added } = project.changed();
  const out: string[] = [];
  for (const p of modified) {
    if (only && !only.includes(p)) continue;
    const a = project.head.get(p) ?? '';
    const b = project.read(p);
    out.push(`diff --git a/${p} b/${p}`, `index ${shortHash(a)}..${shortHash(b)} 100644`, `--- a/${p}`, `+++ b/${p}`);
    const oldLines = a.split('\n');
    for (const h of hunks(a, b)) {
      out.push(
        `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@${hunkHeader(oldLines, h.oldStart)}`,
        ...h.lines,
      );
    }
  }
  for (const p of added) {
    if (only && !only.includes(p)) continue;
    const b = project.read(p);
    const lines = b.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    out.push(
      `diff --git a/${p} b/${p}`,
      'new file mode 100644',
      `index 0000000..${shortHash(b)}`,
      '--- /dev/null',
      `+++ b/${p}`,
      `@@ -0,0 +1,${lines.length} @@`,
      ...lines.map((l) => '+' + l),
    );
  }
  return out.join('\n');
}

export function gitDiffStat(project: Project): string {
  const { modified, added } = project.changed();
  const rows: [string, number, number][] = [];
  for (const p of modified) {
    const c = diffCounts(project.head.get(p) ?? '', project.read(p));
    rows.push([p, c.added, c.removed]);
  }
  for (const p of added) rows.push([p, project.read(p).split('\n').length - 1, 0]);
  const w = Math.max(...rows.map((r) => r[0].length), 10);
  const lines = rows.map(
    ([p, a, r]) =>
      ` ${p.padEnd(w)} | ${String(a + r).padStart(3)} ${'+'.repeat(Math.min(a, 40))}${'-'.repeat(Math.min(r, 20))}`,
  );
  const ins = rows.reduce((s, r) => s + r[1], 0);
  const del = rows.reduce((s, r) => s + r[2], 0);
  lines.push(` ${rows.length} files changed, ${ins} insertions(+), ${del} deletions(-)`);
  return lines.join('\n');
}

export function gitStatus(project: Project, branch: string): string {
  const { modified, added } = project.changed();
  const out = [`On branch ${branch}`];
  if (modified.length) {
    out.push(
      'Changes not staged for commit:',
      '  (use "git add <file>..." to update what will be committed)',
      '  (use "git restore <file>..." to discard changes in working directory)',
      ...modified.map((p) => `\tmodified:   ${p}`),
      '',
    );
  }
  if (added.length) {
    out.push(
      'Untracked files:',
      '  (use "git add <file>..." to include in what will be committed)',
      ...added.map((p) => `\t${p}`),
      '',
    );
  }
  if (!modified.length && !added.length) out.push('nothing to commit, working tree clean');
  else out.push('no changes added to commit (use "git add" and/or "git commit -a")');
  return out.join('\n');
}

export function numbered(
  content: string,
  offset = 1,
  limit = 2000,
): { text: string; numLines: number; totalLines: number; slice: string } {
  const all = content.split('\n');
  const part = all.slice(offset - 1, offset - 1 + limit);
  return {
    text: part.map((l, i) => `${offset + i}\t${l.length > 2000 ? l.slice(0, 2000) : l}`).join('\n'),
    numLines: part.length,
    totalLines: all.length,
    slice: part.join('\n'),
  };
}
