// The virtual project: files, HEAD contents, lazily sized big files.
import { ENTITIES, type EntityDef, type FieldDef, lowerFirst, snake } from '../example-data/entities';
import { routesFile, schemaFile, serviceFile, testFile } from '../example-data/entity-files';
import { LIB_AND_AUTH_FILES } from '../example-data/project-files/lib-and-auth';
import { ROOT_AND_CORE_FILES } from '../example-data/project-files/root-and-core';
import { SERVICE_FILES } from '../example-data/project-files/services';
import { TEST_FILES, WEBHOOK_DELIVERY } from '../example-data/project-files/tests';
import { apiTypesFile, devLog, netscapeExport } from '../example-data/sized-files';
import { Rng } from './random';

// Key order matters: the project keeps files in insertion order, which shows in listings and grep output.
const HAND_FILES: Record<string, string> = {
  ...ROOT_AND_CORE_FILES,
  ...LIB_AND_AUTH_FILES,
  ...SERVICE_FILES,
  ...TEST_FILES,
};

function sqlType(f: FieldDef): string {
  const nullable = f.ts.includes('null') || f.optional;
  let t: string;
  if (f.name === 'id') return 'uuid PRIMARY KEY DEFAULT gen_random_uuid()';
  if (f.name.endsWith('Id')) t = 'uuid';
  else if (f.ts.startsWith('Date')) t = 'timestamptz';
  else if (f.ts === 'boolean') t = 'boolean';
  else if (f.ts === 'number') t = f.name === 'scrollDepth' ? 'real' : 'integer';
  else if (f.ts === 'string[]') t = 'text[]';
  else if (f.ts.startsWith('Record')) t = 'jsonb';
  else t = 'text';
  let s = t;
  if (f.name === 'userId') s += ' NOT NULL REFERENCES users (id) ON DELETE CASCADE';
  else if (f.name === 'bookmarkId') s += ' NOT NULL REFERENCES bookmarks (id) ON DELETE CASCADE';
  else if (f.name === 'createdAt') s += ' NOT NULL DEFAULT now()';
  else if (!nullable)
    s += t === 'boolean' ? ' NOT NULL DEFAULT false' : t === 'integer' ? ' NOT NULL DEFAULT 0' : ' NOT NULL';
  return s;
}

function migrationFor(entities: EntityDef[]): string {
  const out: string[] = [];
  for (const e of entities) {
    out.push(`CREATE TABLE ${e.table} (`);
    const cols = e.fields.filter((f) => f.name !== 'normalizedUrl' && f.name !== 'usageCount');
    cols.forEach((f, i) => out.push(`  ${snake(f.name)} ${sqlType(f)}${i < cols.length - 1 ? ',' : ''}`));
    out.push(');', '');
    out.push(`CREATE INDEX ${e.table}_user_created_idx ON ${e.table} (user_id, created_at DESC);`, '');
  }
  return out.join('\n');
}

export class Project {
  readonly files = new Map<string, string>();
  readonly head = new Map<string, string>();
  private readonly lazy = new Map<string, (chars: number) => string>();
  readonly unusedImports: string[] = [];

  constructor(
    private readonly rng: Rng,
    readonly cwd: string,
  ) {
    for (const [p, c] of Object.entries(HAND_FILES)) this.files.set(p, c);
    const lintVictims = new Set(
      rng.shuffle(ENTITIES.filter((e) => e.service || e.routes).map((e) => e.name)).slice(0, 4),
    );
    let n = 3;
    for (const e of ENTITIES) {
      const v = lowerFirst(e.name);
      this.files.set(`src/schemas/${v}.ts`, schemaFile(e));
      if (e.service) {
        const unused = lintVictims.has(e.name) && rng.chance(0.5);
        let svc = serviceFile(e, unused);
        if (e.name === 'Webhook') svc += WEBHOOK_DELIVERY;
        this.files.set(`src/services/${v}Service.ts`, svc);
        if (unused) this.unusedImports.push(`src/services/${v}Service.ts`);
      }
      if (e.routes) {
        const unused = lintVictims.has(e.name) && !this.unusedImports.includes(`src/services/${v}Service.ts`);
        this.files.set(`src/routes/${e.plural}.ts`, routesFile(e, unused));
        if (unused) this.unusedImports.push(`src/routes/${e.plural}.ts`);
      }
      if (e.test) this.files.set(`test/${e.plural}.test.ts`, testFile(e));
      if (e.service && e.name !== 'ImportJob' && e.name !== 'AuditEvent') {
        this.files.set(`src/db/migrations/000${n}_${e.table}.sql`, migrationFor([e]));
        n++;
      }
    }
    this.files.set(
      `src/db/migrations/000${n}_audit_and_imports.sql`,
      migrationFor(ENTITIES.filter((e) => e.name === 'AuditEvent' || e.name === 'ImportJob')),
    );
    this.files.set(
      'test/global-setup.ts',
      [
        "import { execSync } from 'node:child_process';",
        '',
        'export default function setup(): void {',
        "  process.env.NODE_ENV = 'test';",
        "  process.env.DATABASE_URL ??= 'postgres://shelfmark:shelfmark@127.0.0.1:5433/shelfmark_test';",
        "  process.env.SESSION_SECRET ??= 'test-secret-test-secret-test-secret-42';",
        "  execSync('node scripts/migrate.mjs --reset', { stdio: 'inherit', env: process.env });",
        '}',
        '',
      ].join('\n'),
    );
    for (const [p, c] of this.files) this.head.set(p, c);
    this.lazy.set('src/types/api.generated.ts', (chars) => apiTypesFile(chars));
    this.lazy.set('logs/dev.log', (chars) => devLog(this.rng, chars));
    this.lazy.set('test/fixtures/netscape-export.html', (chars) => netscapeExport(this.rng, chars));
  }

  abs(rel: string): string {
    return this.cwd + '/' + rel;
  }
  rel(abs: string): string {
    return abs.startsWith(this.cwd + '/') ? abs.slice(this.cwd.length + 1) : abs;
  }
  exists(rel: string): boolean {
    return this.files.has(rel) || this.lazy.has(rel);
  }
  /** Content of a file; a lazily sized file gets its size on first access. */
  read(rel: string, sizeHint = 60_000): string {
    let c = this.files.get(rel);
    if (c === undefined) {
      const make = this.lazy.get(rel);
      if (!make) throw new Error('generator: no such file ' + rel);
      c = make(sizeHint);
      this.files.set(rel, c);
      this.head.set(rel, c);
      this.lazy.delete(rel);
    }
    return c;
  }
  write(rel: string, content: string): void {
    this.files.set(rel, content);
  }
  edit(rel: string, oldString: string, newString: string): { before: string; after: string } | null {
    const before = this.read(rel);
    const at = before.indexOf(oldString);
    if (at < 0) return null;
    if (before.indexOf(oldString, at + 1) >= 0) throw new Error('generator: ambiguous edit in ' + rel);
    const after = before.slice(0, at) + newString + before.slice(at + oldString.length);
    this.files.set(rel, after);
    return { before, after };
  }
  changed(): { modified: string[]; added: string[] } {
    const modified: string[] = [];
    const added: string[] = [];
    for (const [p, c] of [...this.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const h = this.head.get(p);
      if (h === undefined) added.push(p);
      else if (h !== c) modified.push(p);
    }
    return { modified, added };
  }
  commit(paths: string[]): void {
    for (const p of paths) {
      const c = this.files.get(p);
      if (c !== undefined) this.head.set(p, c);
    }
  }
  /** Materialized files, sorted: what grep and glob see. */
  all(): string[] {
    return [...this.files.keys()].sort();
  }
  materializeAll(): void {
    for (const rel of [...this.lazy.keys()]) if (rel.endsWith('.ts')) this.read(rel);
  }
}
