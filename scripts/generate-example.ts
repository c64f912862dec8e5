// Deterministic generator of realistic Claude Code (2.1.x) session transcripts.
//
// Everything here is made up: the project ("shelfmark", a small TypeScript bookmarks API), its files,
// the conversation and the ids. The line layout follows what recent Claude Code versions write
// (one content block per assistant line, usage repeated on every line of a response, tool results as
// user lines with toolUseResult and sourceToolAssistantUUID, metadata lines, a compact boundary,
// subagents in <session>/subagents/agent-<id>.jsonl). Same options => byte-identical output:
// no clock, no Math.random, only a seeded PRNG.
//
// CLI: node --import tsx scripts/generate-example.ts [--seed N] [--rounds N] [--out FILE] [--no-subagents]
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface GenerateOptions {
  /** PRNG seed: same options give byte-identical output. */
  seed: number;
  /** Number of API rounds (assistant message ids) in the main session, subagent excluded. */
  rounds: number;
  /** Session UUID; derived from the seed when absent. */
  sessionId?: string;
  /** Working directory of the made-up project. */
  cwd?: string;
  /** ISO time of the first line. */
  startTime?: string;
  /** Claude Code version written on every chain line. */
  version?: string;
  /** Model of the main conversation. */
  model?: string;
  /** Round before which the auto compaction happens; null for none. Default: about half way. */
  compactAtRound?: number | null;
  /**
   * 'placeholder' (default): earlier lines of a response carry a placeholder output_tokens and
   * stop_reason null, the last line the final figures. 'final-everywhere': every line the final figures.
   */
  usageStyle?: 'placeholder' | 'final-everywhere';
  /** Write thinking text (true, default) or empty thinking with only a signature, as some versions do. */
  thinkingText?: boolean;
  /** Also produce the subagent file(s) (`<sessionId>/subagents/agent-<id>.jsonl`). */
  subagentFiles?: boolean;
  /** Context size the session should reach before the compaction and at its end (tokens). */
  peakTokens?: number;
  finalTokens?: number;
}

export const DEFAULT_OPTIONS: Readonly<GenerateOptions> = Object.freeze({
  seed: 20260512,
  rounds: 78,
  subagentFiles: true,
});

export interface GeneratedSubagent {
  agentId: string;
  /** Path relative to the directory of the main file: `<sessionId>/subagents/agent-<id>.jsonl`. */
  relativePath: string;
  text: string;
}

export interface GeneratedSession {
  sessionId: string;
  text: string;
  subagents: GeneratedSubagent[];
  stats: {
    rounds: number;
    lines: number;
    bytes: number;
    finalContextTokens: number;
    compaction: { atRound: number; preTokens: number; postTokens: number } | null;
  };
}

// ---------------------------------------------------------------------------------------------
// PRNG and ids

class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  /** mulberry32 */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
  chars(n: number, alphabet: string): string {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(this.next() * alphabet.length)];
    return s;
  }
  hex(n: number): string {
    return this.chars(n, '0123456789abcdef');
  }
  uuid(): string {
    const h = this.hex(32).split('');
    h[12] = '4';
    h[16] = '89ab'[Math.floor(this.next() * 4)];
    const s = h.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }
}

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

class Ids {
  private used = new Set<string>();
  constructor(private rng: Rng) {}
  private unique(make: () => string): string {
    for (;;) {
      const v = make();
      if (!this.used.has(v)) {
        this.used.add(v);
        return v;
      }
    }
  }
  uuid(): string {
    return this.unique(() => this.rng.uuid());
  }
  message(): string {
    return this.unique(() => 'msg_01' + this.rng.chars(22, B58));
  }
  toolUse(): string {
    return this.unique(() => 'toolu_01' + this.rng.chars(22, B58));
  }
  request(): string {
    return this.unique(() => 'req_011C' + this.rng.chars(20, B58));
  }
  agent(): string {
    return this.unique(() => 'a' + this.rng.hex(16));
  }
  signature(thinkingChars: number): string {
    const body = Math.max(280, Math.round((180 + thinkingChars * 1.3) / 4) * 4);
    return 'E' + this.rng.pick(['o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w']) + this.rng.chars(body, B64) + (this.rng.chance(0.5) ? '=' : '');
  }
}

// ---------------------------------------------------------------------------------------------
// Token estimates (chars / 3.5 for code and tool output, chars / 4 for prose)

function codeTokens(s: string): number {
  return Math.ceil(s.length / 3.5);
}
function proseTokens(s: string): number {
  return Math.ceil(s.length / 4);
}

// ---------------------------------------------------------------------------------------------
// Line diff (Myers) for structuredPatch, git diff and git diff --stat

type DiffOp = { t: ' ' | '-' | '+'; s: string };

function diffLines(a: string[], b: string[]): DiffOp[] {
  // Trim the common prefix and suffix first: edits are small.
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const A = a.slice(pre, a.length - suf);
  const B = b.slice(pre, b.length - suf);
  const n = A.length;
  const m = B.length;
  const max = n + m;
  const v = new Map<number, number>();
  v.set(1, 0);
  const trace: Map<number, number>[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(new Map(v));
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && (v.get(k - 1) ?? -1) < (v.get(k + 1) ?? -1))) x = v.get(k + 1) ?? 0;
      else x = (v.get(k - 1) ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && A[x] === B[y]) {
        x++;
        y++;
      }
      v.set(k, x);
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  // Backtrack
  const mid: DiffOp[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d];
    const k = x - y;
    let prevK: number;
    if (k === -d || (k !== d && (vd.get(k - 1) ?? -1) < (vd.get(k + 1) ?? -1))) prevK = k + 1;
    else prevK = k - 1;
    const prevX = vd.get(prevK) ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      mid.push({ t: ' ', s: A[x - 1] });
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) mid.push({ t: '+', s: B[y - 1] });
      else mid.push({ t: '-', s: A[x - 1] });
    }
    x = prevX;
    y = prevY;
  }
  mid.reverse();
  const ops: DiffOp[] = [];
  for (let i = 0; i < pre; i++) ops.push({ t: ' ', s: a[i] });
  ops.push(...mid);
  for (let i = a.length - suf; i < a.length; i++) ops.push({ t: ' ', s: a[i] });
  return ops;
}

interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

function hunks(oldText: string, newText: string, context = 3): Hunk[] {
  const ops = diffLines(oldText.split('\n'), newText.split('\n'));
  const out: Hunk[] = [];
  let i = 0;
  let oldNo = 1;
  let newNo = 1;
  const posOld: number[] = [];
  const posNew: number[] = [];
  for (const op of ops) {
    posOld.push(oldNo);
    posNew.push(newNo);
    if (op.t !== '+') oldNo++;
    if (op.t !== '-') newNo++;
  }
  while (i < ops.length) {
    if (ops[i].t === ' ') {
      i++;
      continue;
    }
    const start = Math.max(0, i - context);
    let end = i;
    // extend while changes are within 2*context of each other
    for (;;) {
      while (end < ops.length && ops[end].t !== ' ') end++;
      let j = end;
      while (j < ops.length && ops[j].t === ' ' && j - end < 2 * context) j++;
      if (j < ops.length && ops[j].t !== ' ' && j - end <= 2 * context) {
        end = j;
        continue;
      }
      break;
    }
    const stop = Math.min(ops.length, end + context);
    const slice = ops.slice(start, stop);
    const h: Hunk = {
      oldStart: posOld[start],
      oldLines: slice.filter((o) => o.t !== '+').length,
      newStart: posNew[start],
      newLines: slice.filter((o) => o.t !== '-').length,
      lines: slice.map((o) => o.t + o.s),
    };
    out.push(h);
    i = stop;
  }
  return out;
}

function diffCounts(oldText: string, newText: string): { added: number; removed: number } {
  const ops = diffLines(oldText.split('\n'), newText.split('\n'));
  return { added: ops.filter((o) => o.t === '+').length, removed: ops.filter((o) => o.t === '-').length };
}

// ---------------------------------------------------------------------------------------------
// The made-up project: "shelfmark", a small TypeScript bookmarks API (Fastify, pg, zod, vitest).

interface FieldDef {
  name: string;
  ts: string;
  zod: string;
  optional?: boolean;
  input?: boolean;
  sample?: string;
}

interface EntityDef {
  name: string;
  plural: string;
  table: string;
  fields: FieldDef[];
  service: boolean;
  routes: boolean;
  test: boolean;
}

function snake(s: string): string {
  return s.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
}
function lowerFirst(s: string): string {
  return s[0].toLowerCase() + s.slice(1);
}
function words(s: string): string {
  return snake(lowerFirst(s)).replace(/_/g, ' ');
}

const ID: FieldDef = { name: 'id', ts: 'string', zod: 'z.string().uuid()' };
const USER_ID: FieldDef = { name: 'userId', ts: 'string', zod: 'z.string().uuid()' };
const CREATED: FieldDef = { name: 'createdAt', ts: 'Date', zod: 'z.coerce.date()' };
const UPDATED: FieldDef = { name: 'updatedAt', ts: 'Date', zod: 'z.coerce.date()' };

const ENTITIES: EntityDef[] = [
  {
    name: 'Bookmark', plural: 'bookmarks', table: 'bookmarks', service: false, routes: true, test: true,
    fields: [ID, USER_ID,
      { name: 'url', ts: 'string', zod: 'z.string().url().max(2048)', input: true, sample: "'https://example.org/articles/42'" },
      { name: 'normalizedUrl', ts: 'string', zod: 'z.string()' },
      { name: 'title', ts: 'string', zod: 'z.string().min(1).max(500)', input: true, sample: "'Reading list'" },
      { name: 'description', ts: 'string | null', zod: 'z.string().max(4000).nullable()', optional: true, input: true, sample: "'Notes for later'" },
      { name: 'faviconUrl', ts: 'string | null', zod: 'z.string().url().nullable()', optional: true },
      { name: 'isArchived', ts: 'boolean', zod: 'z.boolean()', optional: true, input: true, sample: 'true' },
      { name: 'readAt', ts: 'Date | null', zod: 'z.coerce.date().nullable()', optional: true },
      CREATED, UPDATED],
  },
  {
    name: 'Tag', plural: 'tags', table: 'tags', service: false, routes: false, test: false,
    fields: [ID, USER_ID,
      { name: 'name', ts: 'string', zod: 'z.string().min(1).max(64)', input: true, sample: "'typescript'" },
      { name: 'color', ts: 'string | null', zod: "z.string().regex(/^#[0-9a-f]{6}$/i).nullable()", optional: true, input: true, sample: "'#3b82f6'" },
      { name: 'usageCount', ts: 'number', zod: 'z.number().int().nonnegative()' },
      CREATED],
  },
  {
    name: 'Collection', plural: 'collections', table: 'collections', service: true, routes: true, test: true,
    fields: [ID, USER_ID,
      { name: 'name', ts: 'string', zod: 'z.string().min(1).max(120)', input: true, sample: "'Weekend reads'" },
      { name: 'slug', ts: 'string', zod: "z.string().regex(/^[a-z0-9-]+$/)", input: true, sample: "'weekend-reads'" },
      { name: 'description', ts: 'string | null', zod: 'z.string().max(2000).nullable()', optional: true, input: true, sample: "'Longer pieces'" },
      { name: 'isPublic', ts: 'boolean', zod: 'z.boolean()', optional: true, input: true, sample: 'false' },
      { name: 'position', ts: 'number', zod: 'z.number().int().nonnegative()', optional: true, input: true, sample: '3' },
      CREATED, UPDATED],
  },
  {
    name: 'Highlight', plural: 'highlights', table: 'highlights', service: true, routes: true, test: true,
    fields: [ID, USER_ID,
      { name: 'bookmarkId', ts: 'string', zod: 'z.string().uuid()', input: true, sample: 'bookmark.id' },
      { name: 'quote', ts: 'string', zod: 'z.string().min(1).max(8000)', input: true, sample: "'The best code is no code at all.'" },
      { name: 'note', ts: 'string | null', zod: 'z.string().max(4000).nullable()', optional: true, input: true, sample: "'Use in the talk'" },
      { name: 'startOffset', ts: 'number', zod: 'z.number().int().nonnegative()', input: true, sample: '120' },
      { name: 'endOffset', ts: 'number', zod: 'z.number().int().positive()', input: true, sample: '154' },
      { name: 'color', ts: "'yellow' | 'green' | 'blue' | 'pink'", zod: "z.enum(['yellow', 'green', 'blue', 'pink'])", optional: true, input: true, sample: "'green'" },
      CREATED],
  },
  {
    name: 'User', plural: 'users', table: 'users', service: false, routes: false, test: false,
    fields: [ID,
      { name: 'email', ts: 'string', zod: 'z.string().email()', input: true, sample: "'maya@example.com'" },
      { name: 'displayName', ts: 'string', zod: 'z.string().min(1).max(80)', input: true, sample: "'Maya'" },
      { name: 'timezone', ts: 'string', zod: 'z.string()', optional: true, input: true, sample: "'Europe/Lisbon'" },
      { name: 'plan', ts: "'free' | 'pro'", zod: "z.enum(['free', 'pro'])" },
      { name: 'lastSeenAt', ts: 'Date | null', zod: 'z.coerce.date().nullable()', optional: true },
      CREATED],
  },
  {
    name: 'ApiKey', plural: 'apiKeys', table: 'api_keys', service: true, routes: true, test: true,
    fields: [ID, USER_ID,
      { name: 'label', ts: 'string', zod: 'z.string().min(1).max(60)', input: true, sample: "'ci pipeline'" },
      { name: 'prefix', ts: 'string', zod: 'z.string().length(8)' },
      { name: 'scopes', ts: 'string[]', zod: "z.array(z.enum(['read', 'write', 'admin'])).min(1)", input: true, sample: "['read']" },
      { name: 'lastUsedAt', ts: 'Date | null', zod: 'z.coerce.date().nullable()', optional: true },
      { name: 'expiresAt', ts: 'Date | null', zod: 'z.coerce.date().nullable()', optional: true, input: true, sample: "'2027-01-01T00:00:00.000Z'" },
      CREATED],
  },
  {
    name: 'Webhook', plural: 'webhooks', table: 'webhooks', service: true, routes: true, test: true,
    fields: [ID, USER_ID,
      { name: 'targetUrl', ts: 'string', zod: 'z.string().url()', input: true, sample: "'https://hooks.example.net/shelfmark'" },
      { name: 'events', ts: 'string[]', zod: "z.array(z.enum(['bookmark.created', 'bookmark.deleted', 'highlight.created'])).min(1)", input: true, sample: "['bookmark.created']" },
      { name: 'isActive', ts: 'boolean', zod: 'z.boolean()', optional: true, input: true, sample: 'true' },
      { name: 'failureCount', ts: 'number', zod: 'z.number().int().nonnegative()' },
      { name: 'lastDeliveryAt', ts: 'Date | null', zod: 'z.coerce.date().nullable()', optional: true },
      CREATED],
  },
  {
    name: 'ReadingSession', plural: 'readingSessions', table: 'reading_sessions', service: true, routes: true, test: true,
    fields: [ID, USER_ID,
      { name: 'bookmarkId', ts: 'string', zod: 'z.string().uuid()', input: true, sample: 'bookmark.id' },
      { name: 'startedAt', ts: 'Date', zod: 'z.coerce.date()', input: true, sample: "'2026-04-02T08:00:00.000Z'" },
      { name: 'endedAt', ts: 'Date | null', zod: 'z.coerce.date().nullable()', optional: true, input: true, sample: "'2026-04-02T08:12:30.000Z'" },
      { name: 'scrollDepth', ts: 'number', zod: 'z.number().min(0).max(1)', optional: true, input: true, sample: '0.65' },
      CREATED],
  },
  {
    name: 'AuditEvent', plural: 'auditEvents', table: 'audit_events', service: true, routes: true, test: true,
    fields: [ID, USER_ID,
      { name: 'action', ts: 'string', zod: 'z.string().min(1)', input: true, sample: "'bookmark.export'" },
      { name: 'subjectType', ts: 'string', zod: 'z.string()', input: true, sample: "'bookmark'" },
      { name: 'subjectId', ts: 'string', zod: 'z.string().uuid()', input: true, sample: 'bookmark.id' },
      { name: 'metadata', ts: 'Record<string, unknown>', zod: 'z.record(z.unknown())', optional: true, input: true, sample: "{ format: 'csv' }" },
      { name: 'ip', ts: 'string | null', zod: 'z.string().ip().nullable()', optional: true },
      CREATED],
  },
  {
    name: 'ImportJob', plural: 'importJobs', table: 'import_jobs', service: true, routes: true, test: true,
    fields: [ID, USER_ID,
      { name: 'source', ts: "'netscape' | 'pocket' | 'pinboard'", zod: "z.enum(['netscape', 'pocket', 'pinboard'])", input: true, sample: "'netscape'" },
      { name: 'status', ts: "'queued' | 'running' | 'done' | 'failed'", zod: "z.enum(['queued', 'running', 'done', 'failed'])" },
      { name: 'totalItems', ts: 'number', zod: 'z.number().int().nonnegative()' },
      { name: 'importedItems', ts: 'number', zod: 'z.number().int().nonnegative()' },
      { name: 'errorMessage', ts: 'string | null', zod: 'z.string().nullable()', optional: true },
      { name: 'finishedAt', ts: 'Date | null', zod: 'z.coerce.date().nullable()', optional: true },
      CREATED],
  },
];

function schemaFile(e: EntityDef): string {
  const v = lowerFirst(e.name);
  const inputs = e.fields.filter((f) => f.input);
  const lines = [
    "import { z } from 'zod';",
    '',
    `export const ${v}Schema = z.object({`,
    ...e.fields.map((f) => `  ${f.name}: ${f.zod},`),
    '});',
    '',
    `export type ${e.name} = z.infer<typeof ${v}Schema>;`,
    '',
    `export const create${e.name}Body = z`,
    '  .object({',
    ...inputs.map((f) => `    ${f.name}: ${f.zod.replace('.nullable()', '.nullable().optional()')}${f.optional && !f.zod.includes('nullable') ? '.optional()' : ''},`),
    '  })',
    '  .strict();',
    `export type Create${e.name}Input = z.infer<typeof create${e.name}Body>;`,
    '',
    `export const update${e.name}Body = create${e.name}Body.partial();`,
    `export type Update${e.name}Input = z.infer<typeof update${e.name}Body>;`,
    '',
    'export const idParams = z.object({ id: z.string().uuid() });',
    '',
  ];
  return lines.join('\n');
}

function serviceFile(e: EntityDef, unusedImport: boolean): string {
  const v = lowerFirst(e.name);
  const cols = e.fields.map((f) => snake(f.name));
  const inputs = e.fields.filter((f) => f.input);
  const hasUpdated = e.fields.includes(UPDATED);
  const lines = [
    "import type { Pool } from 'pg';",
    "import { decodeCursor, keysetClause, toPage, type Page, type PageRequest } from '../lib/pagination';",
    "import { NotFoundError } from '../lib/errors';",
    ...(unusedImport ? ["import { logger } from '../logger';"] : []),
    `import type { ${e.name}, Create${e.name}Input, Update${e.name}Input } from '../schemas/${v}';`,
    '',
    `interface ${e.name}Row {`,
    ...e.fields.map((f) => `  ${snake(f.name)}: ${f.ts};`),
    '}',
    '',
    `const COLUMNS = '${cols.join(', ')}';`,
    '',
    `function to${e.name}(row: ${e.name}Row): ${e.name} {`,
    '  return {',
    ...e.fields.map((f) => `    ${f.name}: row.${snake(f.name)},`),
    '  };',
    '}',
    '',
    `export class ${e.name}Service {`,
    '  constructor(private readonly db: Pool) {}',
    '',
    `  async get(userId: string, id: string): Promise<${e.name}> {`,
    `    const { rows } = await this.db.query<${e.name}Row>(`,
    `      'SELECT ' + COLUMNS + ' FROM ${e.table} WHERE id = $1 AND user_id = $2',`,
    '      [id, userId],',
    '    );',
    `    if (rows.length === 0) throw new NotFoundError('${words(e.name)}', id);`,
    `    return to${e.name}(rows[0]);`,
    '  }',
    '',
    `  async list(userId: string, page: PageRequest): Promise<Page<${e.name}>> {`,
    '    const cursor = decodeCursor(page.cursor);',
    '    const keyset = keysetClause(cursor, 2);',
    `    const { rows } = await this.db.query<${e.name}Row>(`,
    `      'SELECT ' + COLUMNS + ' FROM ${e.table} WHERE user_id = $1 ' + keyset.sql + ' LIMIT ' + (page.limit + 1),`,
    '      [userId, ...keyset.params],',
    '    );',
    `    return toPage(rows.map(to${e.name}), page.limit);`,
    '  }',
    '',
    `  async create(userId: string, input: Create${e.name}Input): Promise<${e.name}> {`,
    `    const { rows } = await this.db.query<${e.name}Row>(`,
    `      'INSERT INTO ${e.table} (user_id, ${inputs.map((f) => snake(f.name)).join(', ')}) ' +`,
    `        'VALUES ($1, ${inputs.map((_, i) => '$' + (i + 2)).join(', ')}) RETURNING ' + COLUMNS,`,
    `      [userId, ${inputs.map((f) => (f.optional ? `input.${f.name} ?? null` : `input.${f.name}`)).join(', ')}],`,
    '    );',
    `    return to${e.name}(rows[0]);`,
    '  }',
    '',
    `  async update(userId: string, id: string, input: Update${e.name}Input): Promise<${e.name}> {`,
    '    const sets: string[] = [];',
    '    const params: unknown[] = [id, userId];',
  ];
  for (const f of inputs) {
    lines.push(
      `    if (input.${f.name} !== undefined) {`,
      `      params.push(input.${f.name});`,
      `      sets.push('${snake(f.name)} = $' + params.length);`,
      '    }',
    );
  }
  lines.push(
    '    if (sets.length === 0) return this.get(userId, id);',
    `    const { rows } = await this.db.query<${e.name}Row>(`,
    `      'UPDATE ${e.table} SET ' + sets.join(', ') + '${hasUpdated ? ", updated_at = now()" : ''} WHERE id = $1 AND user_id = $2 RETURNING ' + COLUMNS,`,
    '      params,',
    '    );',
    `    if (rows.length === 0) throw new NotFoundError('${words(e.name)}', id);`,
    `    return to${e.name}(rows[0]);`,
    '  }',
    '',
    '  async remove(userId: string, id: string): Promise<void> {',
    `    const { rowCount } = await this.db.query('DELETE FROM ${e.table} WHERE id = $1 AND user_id = $2', [id, userId]);`,
    `    if (!rowCount) throw new NotFoundError('${words(e.name)}', id);`,
    '  }',
    '}',
    '',
  );
  return lines.join('\n');
}

function routesFile(e: EntityDef, unusedImport: boolean): string {
  const v = lowerFirst(e.name);
  const url = '/' + snake(e.plural).replace(/_/g, '-');
  const lines = [
    "import type { FastifyInstance } from 'fastify';",
    "import { requireUser } from '../plugins/auth';",
    `import { ${e.name}Service } from '../services/${v}Service';`,
    `import { create${e.name}Body, idParams, update${e.name}Body } from '../schemas/${v}';`,
    "import { clampLimit } from '../lib/pagination';",
    ...(unusedImport ? ["import { NotFoundError } from '../lib/errors';"] : []),
    '',
    `export default async function ${v}Routes(app: FastifyInstance): Promise<void> {`,
    `  const service = new ${e.name}Service(app.db);`,
    '',
    `  app.get('${url}', { preHandler: requireUser }, async (req) => {`,
    '    const query = req.query as { limit?: string; cursor?: string };',
    '    return service.list(req.user.id, { limit: clampLimit(query.limit), cursor: query.cursor });',
    '  });',
    '',
    `  app.get('${url}/:id', { preHandler: requireUser }, async (req) => {`,
    '    const { id } = idParams.parse(req.params);',
    '    return service.get(req.user.id, id);',
    '  });',
    '',
    `  app.post('${url}', { preHandler: requireUser }, async (req, reply) => {`,
    `    const body = create${e.name}Body.parse(req.body);`,
    '    const created = await service.create(req.user.id, body);',
    '    reply.code(201);',
    '    return created;',
    '  });',
    '',
    `  app.patch('${url}/:id', { preHandler: requireUser }, async (req) => {`,
    '    const { id } = idParams.parse(req.params);',
    `    const body = update${e.name}Body.parse(req.body);`,
    '    return service.update(req.user.id, id, body);',
    '  });',
    '',
    `  app.delete('${url}/:id', { preHandler: requireUser }, async (req, reply) => {`,
    '    const { id } = idParams.parse(req.params);',
    '    await service.remove(req.user.id, id);',
    '    reply.code(204);',
    '  });',
    '}',
    '',
  ];
  return lines.join('\n');
}

function testFile(e: EntityDef): string {
  const url = '/' + snake(e.plural).replace(/_/g, '-');
  const one = words(e.name);
  const inputs = e.fields.filter((f) => f.input);
  const body = '{ ' + inputs.map((f) => `${f.name}: ${f.sample ?? "'x'"}`).join(', ') + ' }';
  const needsBookmark = inputs.some((f) => (f.sample ?? '').startsWith('bookmark.'));
  const lines = [
    "import { afterAll, beforeAll, describe, expect, it } from 'vitest';",
    "import { buildTestApp, type TestApp } from './helpers';",
    '',
    `describe('${url}', () => {`,
    '  let t: TestApp;',
    ...(needsBookmark ? ['  let bookmark: { id: string };'] : []),
    '',
    '  beforeAll(async () => {',
    '    t = await buildTestApp();',
    ...(needsBookmark ? ["    bookmark = (await t.as('alice').post('/bookmarks', { url: 'https://example.org/a', title: 'A' })).json();"] : []),
    '  });',
    '',
    '  afterAll(async () => {',
    '    await t.close();',
    '  });',
    '',
    `  it('creates a ${one} and returns 201', async () => {`,
    `    const res = await t.as('alice').post('${url}', ${body});`,
    '    expect(res.statusCode).toBe(201);',
    `    expect(res.json()).toMatchObject({ ${inputs[0].name}: ${inputs[0].sample ?? "'x'"} });`,
    '  });',
    '',
    `  it('lists only the ${words(e.plural)} of the caller', async () => {`,
    `    await t.as('bob').post('${url}', ${body});`,
    `    const res = await t.as('alice').get('${url}');`,
    '    expect(res.statusCode).toBe(200);',
    "    expect(res.json().items.every((item: { userId: string }) => item.userId === t.users.alice.id)).toBe(true);",
    '  });',
    '',
    `  it('returns 404 for a ${one} owned by another user', async () => {`,
    `    const created = (await t.as('bob').post('${url}', ${body})).json();`,
    `    const res = await t.as('alice').get('${url}/' + created.id);`,
    '    expect(res.statusCode).toBe(404);',
    '  });',
    '',
  ];
  for (const f of inputs.filter((x) => !x.optional)) {
    lines.push(
      `  it('rejects a body without ${words(f.name)}', async () => {`,
      `    const { ${f.name}: _omitted, ...rest } = ${body};`,
      `    const res = await t.as('alice').post('${url}', rest);`,
      '    expect(res.statusCode).toBe(400);',
      '  });',
      '',
    );
  }
  lines.push(
    `  it('pages through ${words(e.plural)} with a cursor', async () => {`,
    `    for (let i = 0; i < 5; i++) await t.as('carol').post('${url}', ${body});`,
    `    const first = (await t.as('carol').get('${url}?limit=2')).json();`,
    '    expect(first.items).toHaveLength(2);',
    `    const second = (await t.as('carol').get('${url}?limit=2&cursor=' + first.nextCursor)).json();`,
    '    expect(second.items[0].id).not.toBe(first.items[1].id);',
    '  });',
    '',
    `  it('deletes a ${one}', async () => {`,
    `    const created = (await t.as('alice').post('${url}', ${body})).json();`,
    `    const res = await t.as('alice').delete('${url}/' + created.id);`,
    '    expect(res.statusCode).toBe(204);',
    `    expect((await t.as('alice').get('${url}/' + created.id)).statusCode).toBe(404);`,
    '  });',
    '});',
    '',
  );
  return lines.join('\n');
}

// Hand-written files of the made-up project (String.raw keeps backslashes; no backticks inside).
const HAND_FILES: Record<string, string> = {
  'package.json': String.raw`{
  "name": "shelfmark",
  "version": "0.9.0",
  "private": true,
  "description": "Bookmarks and reading-list API",
  "main": "dist/server.js",
  "scripts": {
    "dev": "tsx watch src/server.ts",
    "build": "tsc -p tsconfig.build.json",
    "start": "node dist/server.js",
    "test": "vitest run",
    "test:watch": "vitest",
    "typecheck": "tsc --noEmit",
    "lint": "eslint 'src/**/*.ts' 'test/**/*.ts'",
    "db:migrate": "node scripts/migrate.mjs",
    "openapi": "openapi-typescript openapi.yaml -o src/types/api.generated.ts"
  },
  "dependencies": {
    "@fastify/cookie": "^11.0.2",
    "fastify": "^5.2.1",
    "pg": "^8.13.1",
    "pino": "^9.6.0",
    "zod": "^3.24.1"
  },
  "devDependencies": {
    "@types/node": "^20.17.10",
    "@types/pg": "^8.11.10",
    "eslint": "^9.17.0",
    "openapi-typescript": "^7.5.2",
    "tsx": "^4.19.2",
    "typescript": "^5.7.2",
    "typescript-eslint": "^8.18.2",
    "vitest": "^3.0.4"
  }
}
`,
  'README.md': String.raw`# shelfmark

Bookmarks and reading-list API used by the shelfmark web and mobile apps.

## Running locally

    cp .env.example .env
    docker compose up -d postgres
    npm run db:migrate
    npm run dev

The API listens on http://localhost:3000. Authenticate with a session cookie (web) or
an API key in the Authorization header (Bearer sk_...).

## Tests

    npm test            # vitest, needs the postgres container
    npm run typecheck
    npm run lint

Pagination is keyset based: list endpoints return { items, nextCursor } and accept ?cursor=.
`,
  'CLAUDE.md': String.raw`# Notes for Claude

- Node 20, TypeScript strict, ESM-free (CommonJS output). Fastify 5, pg, zod, vitest.
- Run a single test file with: npx vitest run test/<name>.test.ts
- Never edit src/types/api.generated.ts by hand: change openapi.yaml and run npm run openapi.
- SQL lives next to the service that uses it; migrations are plain SQL in src/db/migrations.
- Keep list endpoints keyset-paginated (src/lib/pagination.ts), newest first.
`,
  'src/server.ts': String.raw`import { buildApp } from './app';
import { config } from './config';
import { logger } from './logger';

async function main(): Promise<void> {
  const app = await buildApp();
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    logger.error({ err }, 'failed to start');
    process.exit(1);
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      void app.close().then(() => process.exit(0));
    });
  }
}

void main();
`,
  'src/config.ts': String.raw`import { z } from 'zod';

const schema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().default(3000),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().url(),
  SESSION_SECRET: z.string().min(32),
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error']).default('info'),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
});

const env = schema.parse(process.env);

export const config = {
  env: env.NODE_ENV,
  port: env.PORT,
  host: env.HOST,
  databaseUrl: env.DATABASE_URL,
  sessionSecret: env.SESSION_SECRET,
  logLevel: env.LOG_LEVEL,
  webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
};
`,
  'src/logger.ts': String.raw`import pino from 'pino';
import { config } from './config';

export const logger = pino({
  level: config.logLevel,
  redact: ['req.headers.authorization', 'req.headers.cookie'],
});
`,
  'src/app.ts': String.raw`import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import { pool } from './db/pool';
import { logger } from './logger';
import { errorHandler } from './lib/errors';
import authPlugin from './plugins/auth';
import bookmarkRoutes from './routes/bookmarks';
import tagRoutes from './routes/tags';
import collectionRoutes from './routes/collections';
import highlightRoutes from './routes/highlights';
import apiKeyRoutes from './routes/apiKeys';
import webhookRoutes from './routes/webhooks';
import readingSessionRoutes from './routes/readingSessions';
import auditEventRoutes from './routes/auditEvents';
import importJobRoutes from './routes/importJobs';

export async function buildApp(): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: logger, trustProxy: true });
  app.decorate('db', pool);
  app.setErrorHandler(errorHandler);
  await app.register(cookie);
  await app.register(authPlugin);

  app.get('/health', async () => ({ ok: true }));

  await app.register(bookmarkRoutes);
  await app.register(tagRoutes);
  await app.register(collectionRoutes);
  await app.register(highlightRoutes);
  await app.register(apiKeyRoutes);
  await app.register(webhookRoutes);
  await app.register(readingSessionRoutes);
  await app.register(auditEventRoutes);
  await app.register(importJobRoutes);
  return app;
}
`,
  'src/db/pool.ts': String.raw`import { Pool } from 'pg';
import { config } from '../config';

export const pool = new Pool({
  connectionString: config.databaseUrl,
  max: config.env === 'test' ? 4 : 20,
  idleTimeoutMillis: 30_000,
});

declare module 'fastify' {
  interface FastifyInstance {
    db: Pool;
  }
}
`,
  'src/lib/errors.ts': String.raw`import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class NotFoundError extends AppError {
  constructor(what: string, id: string) {
    super(404, 'not_found', what + ' ' + id + ' not found');
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, 'conflict', message);
  }
}

export class RateLimitedError extends AppError {
  constructor(readonly retryAfterMs: number) {
    super(429, 'rate_limited', 'too many requests');
  }
}

export function errorHandler(err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply): void {
  if (err instanceof ZodError) {
    void reply.code(400).send({ error: 'invalid_request', issues: err.issues });
    return;
  }
  if (err instanceof RateLimitedError) {
    void reply
      .code(429)
      .header('retry-after', Math.ceil(err.retryAfterMs / 1000))
      .send({ error: err.code });
    return;
  }
  if (err instanceof AppError) {
    void reply.code(err.statusCode).send({ error: err.code, message: err.message });
    return;
  }
  req.log.error({ err }, 'unhandled error');
  void reply.code(500).send({ error: 'internal' });
}
`,
  'src/lib/pagination.ts': String.raw`import { Buffer } from 'node:buffer';

export interface PageRequest {
  limit: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface CursorPayload {
  createdAt: string;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export function clampLimit(raw: unknown): number {
  const n = typeof raw === 'string' ? Number.parseInt(raw, 10) : Number(raw);
  if (!Number.isFinite(n) || n <= 0) return DEFAULT_PAGE_SIZE;
  return Math.min(Math.floor(n), MAX_PAGE_SIZE);
}

export function encodeCursor(payload: CursorPayload): string {
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): CursorPayload | null {
  if (!cursor) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof parsed?.createdAt !== 'string') return null;
    return { createdAt: parsed.createdAt };
  } catch {
    return null;
  }
}

/**
 * WHERE/ORDER BY fragment for keyset pagination, newest first.
 * startIndex is the number of the first free $ placeholder in the caller's query.
 */
export function keysetClause(cursor: CursorPayload | null, startIndex: number): { sql: string; params: unknown[] } {
  if (!cursor) {
    return { sql: 'ORDER BY created_at DESC', params: [] };
  }
  return {
    sql: 'AND created_at < $' + startIndex + ' ORDER BY created_at DESC',
    params: [cursor.createdAt],
  };
}

export function toPage<T extends { createdAt: Date }>(rows: T[], limit: number): Page<T> {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return {
    items,
    nextCursor: hasMore && last ? encodeCursor({ createdAt: last.createdAt.toISOString() }) : null,
  };
}
`,
  'src/lib/url.ts': String.raw`const TRACKING_PARAMS = new Set([
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'fbclid',
  'gclid',
  'mc_eid',
  'ref',
]);

/**
 * Normalizes a URL so that trivially different links dedupe to the same bookmark:
 * lowercases the scheme and host, drops default ports, the fragment and tracking
 * parameters, sorts the remaining query parameters and removes a trailing slash.
 */
export function normalizeUrl(input: string): string {
  const url = new URL(input.trim().toLowerCase());
  if ((url.protocol === 'http:' && url.port === '80') || (url.protocol === 'https:' && url.port === '443')) {
    url.port = '';
  }
  url.hash = '';
  const kept = [...url.searchParams.entries()]
    .filter(([key]) => !TRACKING_PARAMS.has(key))
    .sort(([a], [b]) => a.localeCompare(b));
  url.search = '';
  for (const [key, value] of kept) url.searchParams.append(key, value);
  let out = url.toString();
  if (out.endsWith('/')) out = out.slice(0, -1);
  return out;
}

export function sameResource(a: string, b: string): boolean {
  return normalizeUrl(a) === normalizeUrl(b);
}

export function hostOf(input: string): string | null {
  try {
    return new URL(input).hostname.replace(/^www\./, '');
  } catch {
    return null;
  }
}
`,
  'src/lib/session.ts': String.raw`import { createHmac, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'sm_session';
const MAX_AGE_SECONDS = 60 * 60 * 24 * 30;

export interface SessionPayload {
  userId: string;
  issuedAt: number;
}

function mac(secret: string, data: string): string {
  return createHmac('sha256', secret).update(data).digest('base64url');
}

export function signSession(secret: string, payload: SessionPayload): string {
  const data = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return data + '.' + mac(secret, data);
}

export function verifySession(secret: string, token: string | undefined, nowSeconds: number): SessionPayload | null {
  if (!token) return null;
  const [data, signature] = token.split('.');
  if (!data || !signature) return null;
  const expected = Buffer.from(mac(secret, data));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as SessionPayload;
  if (nowSeconds - payload.issuedAt > MAX_AGE_SECONDS) return null;
  return payload;
}
`,
  'src/plugins/auth.ts': String.raw`import fp from 'fastify-plugin';
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { config } from '../config';
import { RateLimitedError } from '../lib/errors';
import { SESSION_COOKIE, verifySession } from '../lib/session';
import { PLAN_LIMITS, RateLimiter } from '../services/rateLimiter';

export interface AuthUser {
  id: string;
  plan: 'free' | 'pro';
  via: 'session' | 'api_key';
  scopes: string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    user: AuthUser;
  }
}

const limiters = {
  free: new RateLimiter(PLAN_LIMITS.free),
  pro: new RateLimiter(PLAN_LIMITS.pro),
};

async function resolveApiKey(req: FastifyRequest, token: string): Promise<AuthUser | null> {
  const prefix = token.slice(3, 11);
  const hashed = createHash('sha256').update(token).digest('hex');
  const { rows } = await req.server.db.query<{ user_id: string; plan: 'free' | 'pro'; scopes: string[] }>(
    'SELECT k.user_id, u.plan, k.scopes FROM api_keys k JOIN users u ON u.id = k.user_id ' +
      'WHERE k.prefix = $1 AND k.hashed_secret = $2 AND (k.expires_at IS NULL OR k.expires_at > now())',
    [prefix, hashed],
  );
  if (rows.length === 0) return null;
  void req.server.db.query('UPDATE api_keys SET last_used_at = now() WHERE prefix = $1', [prefix]);
  return { id: rows[0].user_id, plan: rows[0].plan, via: 'api_key', scopes: rows[0].scopes };
}

async function resolveSession(req: FastifyRequest): Promise<AuthUser | null> {
  const session = verifySession(config.sessionSecret, req.cookies[SESSION_COOKIE], Math.floor(Date.now() / 1000));
  if (!session) return null;
  const { rows } = await req.server.db.query<{ plan: 'free' | 'pro' }>('SELECT plan FROM users WHERE id = $1', [
    session.userId,
  ]);
  if (rows.length === 0) return null;
  return { id: session.userId, plan: rows[0].plan, via: 'session', scopes: ['read', 'write'] };
}

export async function requireUser(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const header = req.headers.authorization;
  const user = header?.startsWith('Bearer sk_')
    ? await resolveApiKey(req, header.slice('Bearer '.length))
    : await resolveSession(req);
  if (!user) {
    await reply.code(401).send({ error: 'unauthorized' });
    return;
  }
  const decision = limiters[user.plan].take(user.id);
  void reply.header('x-ratelimit-remaining', decision.remaining);
  if (!decision.allowed) throw new RateLimitedError(decision.retryAfterMs);
  req.user = user;
}

export default fp(async (app) => {
  app.decorateRequest('user', null as unknown as AuthUser);
  setInterval(() => {
    limiters.free.sweep();
    limiters.pro.sweep();
  }, 60_000).unref();
});
`,
  'src/services/rateLimiter.ts': String.raw`export interface RateLimitOptions {
  /** Tokens added back per second. */
  refillPerSecond: number;
  /** Bucket size: the largest burst allowed. */
  burst: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  remaining: number;
  retryAfterMs: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly options: RateLimitOptions,
    private readonly now: () => number = Date.now,
  ) {}

  take(key: string, cost = 1): RateLimitDecision {
    const at = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.options.burst, updatedAt: at };
    const elapsed = at - bucket.updatedAt;
    bucket.tokens = Math.min(this.options.burst, bucket.tokens + elapsed * this.options.refillPerSecond);
    bucket.updatedAt = at;
    this.buckets.set(key, bucket);

    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return { allowed: true, remaining: Math.floor(bucket.tokens), retryAfterMs: 0 };
    }
    const missing = cost - bucket.tokens;
    return {
      allowed: false,
      remaining: 0,
      retryAfterMs: Math.ceil(missing / this.options.refillPerSecond),
    };
  }

  /** Drops buckets that are full again so the map does not grow forever. */
  sweep(): number {
    const at = this.now();
    let removed = 0;
    for (const [key, bucket] of this.buckets) {
      const idleSeconds = (at - bucket.updatedAt) / 1000;
      if (bucket.tokens + idleSeconds * this.options.refillPerSecond >= this.options.burst) {
        this.buckets.delete(key);
        removed++;
      }
    }
    return removed;
  }
}

export const PLAN_LIMITS: Record<'free' | 'pro', RateLimitOptions> = {
  free: { refillPerSecond: 10, burst: 20 },
  pro: { refillPerSecond: 50, burst: 100 },
};
`,
  'src/services/bookmarkService.ts': String.raw`import type { Pool, PoolClient } from 'pg';
import { decodeCursor, keysetClause, toPage, type Page, type PageRequest } from '../lib/pagination';
import { ConflictError, NotFoundError } from '../lib/errors';
import { normalizeUrl } from '../lib/url';
import type { Bookmark, CreateBookmarkInput, UpdateBookmarkInput } from '../schemas/bookmark';

interface BookmarkRow {
  id: string;
  user_id: string;
  url: string;
  normalized_url: string;
  title: string;
  description: string | null;
  favicon_url: string | null;
  is_archived: boolean;
  read_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, user_id, url, normalized_url, title, description, favicon_url, is_archived, read_at, created_at, updated_at';

function toBookmark(row: BookmarkRow): Bookmark {
  return {
    id: row.id,
    userId: row.user_id,
    url: row.url,
    normalizedUrl: row.normalized_url,
    title: row.title,
    description: row.description,
    faviconUrl: row.favicon_url,
    isArchived: row.is_archived,
    readAt: row.read_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface ListFilter {
  archived?: boolean;
  tag?: string;
}

export class BookmarkService {
  constructor(private readonly db: Pool) {}

  async get(userId: string, id: string): Promise<Bookmark> {
    const { rows } = await this.db.query<BookmarkRow>(
      'SELECT ' + COLUMNS + ' FROM bookmarks WHERE id = $1 AND user_id = $2',
      [id, userId],
    );
    if (rows.length === 0) throw new NotFoundError('bookmark', id);
    return toBookmark(rows[0]);
  }

  async list(userId: string, page: PageRequest, filter: ListFilter = {}): Promise<Page<Bookmark>> {
    const params: unknown[] = [userId];
    let where = 'WHERE b.user_id = $1';
    if (filter.archived !== undefined) {
      params.push(filter.archived);
      where += ' AND b.is_archived = $' + params.length;
    }
    if (filter.tag) {
      params.push(filter.tag);
      where +=
        ' AND EXISTS (SELECT 1 FROM bookmark_tags bt JOIN tags t ON t.id = bt.tag_id' +
        ' WHERE bt.bookmark_id = b.id AND t.name = $' + params.length + ')';
    }
    const keyset = keysetClause(decodeCursor(page.cursor), params.length + 1);
    const { rows } = await this.db.query<BookmarkRow>(
      'SELECT ' + COLUMNS + ' FROM bookmarks b ' + where + ' ' + keyset.sql + ' LIMIT ' + (page.limit + 1),
      [...params, ...keyset.params],
    );
    return toPage(rows.map(toBookmark), page.limit);
  }

  async create(userId: string, input: CreateBookmarkInput): Promise<Bookmark> {
    const normalized = normalizeUrl(input.url);
    try {
      const { rows } = await this.db.query<BookmarkRow>(
        'INSERT INTO bookmarks (user_id, url, normalized_url, title, description, is_archived) ' +
          'VALUES ($1, $2, $3, $4, $5, $6) RETURNING ' + COLUMNS,
        [userId, input.url, normalized, input.title, input.description ?? null, input.isArchived ?? false],
      );
      return toBookmark(rows[0]);
    } catch (err) {
      if ((err as { code?: string }).code === '23505') {
        throw new ConflictError('a bookmark for ' + normalized + ' already exists');
      }
      throw err;
    }
  }

  async update(userId: string, id: string, input: UpdateBookmarkInput): Promise<Bookmark> {
    const sets: string[] = [];
    const params: unknown[] = [id, userId];
    if (input.url !== undefined) {
      params.push(input.url, normalizeUrl(input.url));
      sets.push('url = $' + (params.length - 1), 'normalized_url = $' + params.length);
    }
    if (input.title !== undefined) {
      params.push(input.title);
      sets.push('title = $' + params.length);
    }
    if (input.description !== undefined) {
      params.push(input.description);
      sets.push('description = $' + params.length);
    }
    if (input.isArchived !== undefined) {
      params.push(input.isArchived);
      sets.push('is_archived = $' + params.length);
    }
    if (sets.length === 0) return this.get(userId, id);
    const { rows } = await this.db.query<BookmarkRow>(
      'UPDATE bookmarks SET ' + sets.join(', ') + ', updated_at = now() WHERE id = $1 AND user_id = $2 RETURNING ' + COLUMNS,
      params,
    );
    if (rows.length === 0) throw new NotFoundError('bookmark', id);
    return toBookmark(rows[0]);
  }

  async markRead(userId: string, id: string, read: boolean): Promise<Bookmark> {
    const { rows } = await this.db.query<BookmarkRow>(
      'UPDATE bookmarks SET read_at = CASE WHEN $3 THEN now() ELSE NULL END, updated_at = now() ' +
        'WHERE id = $1 AND user_id = $2 RETURNING ' + COLUMNS,
      [id, userId, read],
    );
    if (rows.length === 0) throw new NotFoundError('bookmark', id);
    return toBookmark(rows[0]);
  }

  async setTags(userId: string, id: string, tagIds: string[]): Promise<void> {
    const client: PoolClient = await this.db.connect();
    try {
      await client.query('BEGIN');
      const owned = await client.query('SELECT 1 FROM bookmarks WHERE id = $1 AND user_id = $2', [id, userId]);
      if (owned.rowCount === 0) throw new NotFoundError('bookmark', id);
      await client.query('DELETE FROM bookmark_tags WHERE bookmark_id = $1', [id]);
      if (tagIds.length > 0) {
        await client.query(
          'INSERT INTO bookmark_tags (bookmark_id, tag_id) SELECT $1, t.id FROM tags t WHERE t.user_id = $2 AND t.id = ANY($3)',
          [id, userId, tagIds],
        );
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    } finally {
      client.release();
    }
  }

  async remove(userId: string, id: string): Promise<void> {
    const { rowCount } = await this.db.query('DELETE FROM bookmarks WHERE id = $1 AND user_id = $2', [id, userId]);
    if (!rowCount) throw new NotFoundError('bookmark', id);
  }
}
`,
  'src/services/tagService.ts': String.raw`import type { Pool } from 'pg';
import { ConflictError, NotFoundError } from '../lib/errors';
import type { Tag } from '../schemas/tag';

interface TagRow {
  id: string;
  user_id: string;
  name: string;
  color: string | null;
  usage_count: number;
  created_at: Date;
}

function toTag(row: TagRow): Tag {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    color: row.color,
    usageCount: row.usage_count,
    createdAt: row.created_at,
  };
}

const SELECT_WITH_USAGE =
  'SELECT t.id, t.user_id, t.name, t.color, count(bt.bookmark_id)::int AS usage_count, t.created_at ' +
  'FROM tags t LEFT JOIN bookmark_tags bt ON bt.tag_id = t.id ';

export class TagService {
  constructor(private readonly db: Pool) {}

  async listForUser(userId: string): Promise<Tag[]> {
    const { rows } = await this.db.query<TagRow>(
      SELECT_WITH_USAGE + 'WHERE t.user_id = $1 GROUP BY t.id ORDER BY lower(t.name)',
      [userId],
    );
    return rows.map(toTag);
  }

  async create(userId: string, name: string, color: string | null): Promise<Tag> {
    try {
      const { rows } = await this.db.query<TagRow>(
        'INSERT INTO tags (user_id, name, color) VALUES ($1, $2, $3) ' +
          'RETURNING id, user_id, name, color, 0 AS usage_count, created_at',
        [userId, name.trim(), color],
      );
      return toTag(rows[0]);
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw new ConflictError('tag ' + name + ' already exists');
      throw err;
    }
  }

  async rename(userId: string, id: string, name: string): Promise<Tag> {
    const { rowCount } = await this.db.query('UPDATE tags SET name = $3 WHERE id = $1 AND user_id = $2', [
      id,
      userId,
      name.trim(),
    ]);
    if (!rowCount) throw new NotFoundError('tag', id);
    const { rows } = await this.db.query<TagRow>(SELECT_WITH_USAGE + 'WHERE t.id = $1 GROUP BY t.id', [id]);
    return toTag(rows[0]);
  }

  async remove(userId: string, id: string): Promise<void> {
    const { rowCount } = await this.db.query('DELETE FROM tags WHERE id = $1 AND user_id = $2', [id, userId]);
    if (!rowCount) throw new NotFoundError('tag', id);
  }
}
`,
  'src/routes/tags.ts': String.raw`import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { requireUser } from '../plugins/auth';
import { TagService } from '../services/tagService';

const createBody = z
  .object({
    name: z.string().trim().min(1).max(64),
    color: z.string().regex(/^#[0-9a-f]{6}$/i).nullable().optional(),
  })
  .strict();

const renameBody = z.object({ name: z.string().trim().min(1).max(64) }).strict();
const idParams = z.object({ id: z.string().uuid() });

export default async function tagRoutes(app: FastifyInstance): Promise<void> {
  const tags = new TagService(app.db);

  app.get('/tags', { preHandler: requireUser }, async (req) => {
    return { items: await tags.listForUser(req.user.id) };
  });

  app.post('/tags', { preHandler: requireUser }, async (req, reply) => {
    const body = createBody.parse(req.body);
    reply.code(201);
    return tags.create(req.user.id, body.name, body.color ?? null);
  });

  app.patch('/tags/:id', { preHandler: requireUser }, async (req) => {
    const { id } = idParams.parse(req.params);
    const body = renameBody.parse(req.body);
    return tags.rename(req.user.id, id, body.name);
  });

  app.delete('/tags/:id', { preHandler: requireUser }, async (req, reply) => {
    const { id } = idParams.parse(req.params);
    await tags.remove(req.user.id, id);
    reply.code(204);
  });
}
`,
  'src/services/importService.ts': String.raw`import { readFile } from 'node:fs/promises';
import type { Pool } from 'pg';
import { normalizeUrl } from '../lib/url';
import { logger } from '../logger';

export interface ImportedLink {
  url: string;
  title: string;
  tags: string[];
  addedAt: Date | null;
}

export interface ImportResult {
  imported: number;
  skipped: number;
  failed: number;
}

const ANCHOR = /<A\s+([^>]*)>([^<]*)<\/A>/gi;
const ATTRIBUTE = /([A-Z_]+)="([^"]*)"/gi;

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (m) => ENTITIES[m] ?? m);
}

/** Parses the Netscape bookmark file format exported by browsers and most read-later apps. */
export function parseNetscapeBookmarks(html: string): ImportedLink[] {
  const links: ImportedLink[] = [];
  for (const match of html.matchAll(ANCHOR)) {
    const attributes = new Map<string, string>();
    for (const [, key, value] of match[1].matchAll(ATTRIBUTE)) attributes.set(key.toUpperCase(), value);
    const href = attributes.get('HREF');
    if (!href || !/^https?:/i.test(href)) continue;
    links.push({
      url: href,
      title: decodeEntities(match[2].trim()) || href,
      tags: (attributes.get('TAGS') ?? '')
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
      addedAt: null,
    });
  }
  return links;
}

export async function importNetscapeFile(db: Pool, userId: string, filePath: string): Promise<ImportResult> {
  const html = await readFile(filePath, 'utf8');
  const links = parseNetscapeBookmarks(html);
  const result: ImportResult = { imported: 0, skipped: 0, failed: 0 };
  for (const link of links) {
    let normalized: string;
    try {
      normalized = normalizeUrl(link.url);
    } catch {
      result.failed++;
      continue;
    }
    const { rowCount } = await db.query(
      'INSERT INTO bookmarks (user_id, url, normalized_url, title, created_at) VALUES ($1, $2, $3, $4, now()) ' +
        'ON CONFLICT (user_id, normalized_url) DO NOTHING',
      [userId, link.url, normalized, link.title],
    );
    if (rowCount) result.imported++;
    else result.skipped++;
  }
  logger.info({ userId, ...result, total: links.length }, 'netscape import finished');
  return result;
}
`,
  'src/db/migrations/0001_init.sql': String.raw`CREATE EXTENSION IF NOT EXISTS pgcrypto;

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL UNIQUE,
  display_name text NOT NULL,
  timezone text NOT NULL DEFAULT 'UTC',
  plan text NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'pro')),
  last_seen_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE bookmarks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  url text NOT NULL,
  normalized_url text NOT NULL,
  title text NOT NULL,
  description text,
  favicon_url text,
  is_archived boolean NOT NULL DEFAULT false,
  read_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, normalized_url)
);

CREATE INDEX bookmarks_user_created_idx ON bookmarks (user_id, created_at DESC);
`,
  'src/db/migrations/0002_tags.sql': String.raw`CREATE TABLE tags (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  color text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX tags_user_name_idx ON tags (user_id, lower(name));

CREATE TABLE bookmark_tags (
  bookmark_id uuid NOT NULL REFERENCES bookmarks (id) ON DELETE CASCADE,
  tag_id uuid NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
  PRIMARY KEY (bookmark_id, tag_id)
);
`,
  'test/helpers.ts': String.raw`import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app';
import { signSession } from '../src/lib/session';
import { config } from '../src/config';

type Who = 'alice' | 'bob' | 'carol';

export interface TestApp {
  app: FastifyInstance;
  users: Record<Who, { id: string }>;
  as(who: Who): {
    get(url: string): Promise<LightMyRequestResponse>;
    post(url: string, body: unknown): Promise<LightMyRequestResponse>;
    patch(url: string, body: unknown): Promise<LightMyRequestResponse>;
    delete(url: string): Promise<LightMyRequestResponse>;
  };
  close(): Promise<void>;
}

export async function buildTestApp(): Promise<TestApp> {
  const app = await buildApp();
  const users = {} as Record<Who, { id: string }>;
  for (const who of ['alice', 'bob', 'carol'] as const) {
    const { rows } = await app.db.query<{ id: string }>(
      "INSERT INTO users (email, display_name) VALUES ($1, $2) ON CONFLICT (email) DO UPDATE SET display_name = $2 RETURNING id",
      [who + '@test.local', who],
    );
    users[who] = rows[0];
  }
  const cookieFor = (who: Who) =>
    'sm_session=' + signSession(config.sessionSecret, { userId: users[who].id, issuedAt: Math.floor(Date.now() / 1000) });
  return {
    app,
    users,
    as: (who) => ({
      get: (url) => app.inject({ method: 'GET', url, headers: { cookie: cookieFor(who) } }),
      post: (url, body) => app.inject({ method: 'POST', url, payload: body as object, headers: { cookie: cookieFor(who) } }),
      patch: (url, body) => app.inject({ method: 'PATCH', url, payload: body as object, headers: { cookie: cookieFor(who) } }),
      delete: (url) => app.inject({ method: 'DELETE', url, headers: { cookie: cookieFor(who) } }),
    }),
    close: () => app.close(),
  };
}
`,
  'test/pagination.test.ts': String.raw`import { describe, expect, it } from 'vitest';
import { clampLimit, decodeCursor, encodeCursor, keysetClause, toPage } from '../src/lib/pagination';

describe('clampLimit', () => {
  it('defaults to 20 for missing or bad input', () => {
    expect(clampLimit(undefined)).toBe(20);
    expect(clampLimit('abc')).toBe(20);
    expect(clampLimit(-4)).toBe(20);
  });

  it('caps the limit at 100', () => {
    expect(clampLimit('250')).toBe(100);
  });
});

describe('cursor encoding', () => {
  it('round-trips a cursor', () => {
    const cursor = encodeCursor({ createdAt: '2026-01-05T10:00:00.000Z' });
    expect(decodeCursor(cursor)).toEqual({ createdAt: '2026-01-05T10:00:00.000Z' });
  });

  it('returns null for garbage', () => {
    expect(decodeCursor('not-a-cursor')).toBeNull();
    expect(decodeCursor(undefined)).toBeNull();
  });
});

describe('keysetClause', () => {
  it('orders newest first without a cursor', () => {
    expect(keysetClause(null, 2).sql).toBe('ORDER BY created_at DESC');
  });

  it('filters on created_at after the cursor', () => {
    const clause = keysetClause({ createdAt: '2026-01-05T10:00:00.000Z' }, 2);
    expect(clause.sql).toBe('AND created_at < $2 ORDER BY created_at DESC');
    expect(clause.params).toEqual(['2026-01-05T10:00:00.000Z']);
  });
});

describe('toPage', () => {
  const rows = [3, 2, 1].map((n) => ({ id: 'b' + n, createdAt: new Date(Date.UTC(2026, 0, n)) }));

  it('returns a next cursor when there are more rows', () => {
    const page = toPage(rows, 2);
    expect(page.items).toHaveLength(2);
    expect(page.nextCursor).not.toBeNull();
  });

  it('returns no cursor on the last page', () => {
    expect(toPage(rows, 5).nextCursor).toBeNull();
  });
});
`,
  'test/url.test.ts': String.raw`import { describe, expect, it } from 'vitest';
import { hostOf, normalizeUrl, sameResource } from '../src/lib/url';

describe('normalizeUrl', () => {
  it('lowercases scheme and host', () => {
    expect(normalizeUrl('HTTPS://Example.COM/a')).toBe('https://example.com/a');
  });

  it('drops tracking parameters and sorts the rest', () => {
    expect(normalizeUrl('https://example.com/p?utm_source=x&b=2&a=1')).toBe('https://example.com/p?a=1&b=2');
  });

  it('drops the fragment and the default port', () => {
    expect(normalizeUrl('https://example.com:443/p#section-2')).toBe('https://example.com/p');
  });

  it('keeps the case of the path', () => {
    expect(normalizeUrl('https://example.com/Docs/API-Reference')).toBe('https://example.com/Docs/API-Reference');
  });

  it('keeps the case of query values', () => {
    expect(normalizeUrl('https://video.example/watch?v=Zx81LmQ')).toBe('https://video.example/watch?v=Zx81LmQ');
  });

  it('strips a trailing slash', () => {
    expect(normalizeUrl('https://example.com/blog/')).toBe('https://example.com/blog');
  });
});

describe('sameResource', () => {
  it('treats tracking-only differences as the same bookmark', () => {
    expect(sameResource('https://example.com/a?utm_medium=mail', 'https://EXAMPLE.com/a')).toBe(true);
  });
});

describe('hostOf', () => {
  it('strips www and returns null for invalid input', () => {
    expect(hostOf('https://www.example.com/x')).toBe('example.com');
    expect(hostOf('not a url')).toBeNull();
  });
});
`,
  'test/rateLimiter.test.ts': String.raw`import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../src/services/rateLimiter';

function clock(start = 0) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('RateLimiter', () => {
  it('allows a burst up to the bucket size', () => {
    const c = clock();
    const limiter = new RateLimiter({ refillPerSecond: 10, burst: 20 }, c.now);
    const results = Array.from({ length: 21 }, () => limiter.take('u1').allowed);
    expect(results.filter(Boolean)).toHaveLength(20);
  });

  it('refills to a full bucket after a long idle period', () => {
    const c = clock();
    const limiter = new RateLimiter({ refillPerSecond: 10, burst: 20 }, c.now);
    for (let i = 0; i < 20; i++) limiter.take('u1');
    c.advance(5_000);
    expect(limiter.take('u1').remaining).toBe(19);
  });

  it('keeps buckets separate per key', () => {
    const c = clock();
    const limiter = new RateLimiter({ refillPerSecond: 1, burst: 1 }, c.now);
    expect(limiter.take('a').allowed).toBe(true);
    expect(limiter.take('b').allowed).toBe(true);
    expect(limiter.take('a').allowed).toBe(false);
  });

  it('sweeps idle buckets', () => {
    const c = clock();
    const limiter = new RateLimiter({ refillPerSecond: 10, burst: 20 }, c.now);
    limiter.take('a');
    c.advance(10_000);
    expect(limiter.sweep()).toBe(1);
  });
});
`,
  'test/tags.test.ts': String.raw`import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers';

describe('/tags', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('creates a tag and lists it', async () => {
    const res = await t.as('alice').post('/tags', { name: 'typescript', color: '#3b82f6' });
    expect(res.statusCode).toBe(201);
    const list = (await t.as('alice').get('/tags')).json();
    expect(list.items.map((tag: { name: string }) => tag.name)).toContain('typescript');
  });

  it('rejects a duplicate name regardless of case', async () => {
    await t.as('alice').post('/tags', { name: 'Postgres' });
    const res = await t.as('alice').post('/tags', { name: 'postgres' });
    expect(res.statusCode).toBe(409);
  });

  it('renames a tag', async () => {
    const tag = (await t.as('alice').post('/tags', { name: 'wip' })).json();
    const res = await t.as('alice').patch('/tags/' + tag.id, { name: 'in-progress' });
    expect(res.json().name).toBe('in-progress');
  });

  it('deletes a tag', async () => {
    const tag = (await t.as('alice').post('/tags', { name: 'old' })).json();
    expect((await t.as('alice').delete('/tags/' + tag.id)).statusCode).toBe(204);
  });
});
`,
  'test/import.test.ts': String.raw`import { describe, expect, it } from 'vitest';
import { parseNetscapeBookmarks } from '../src/services/importService';

const SAMPLE = [
  '<!DOCTYPE NETSCAPE-Bookmark-file-1>',
  '<DL><p>',
  '<DT><A HREF="https://example.com/one" ADD_DATE="1700000000" TAGS="reading,long">One &amp; only</A>',
  '<DT><A HREF="javascript:alert(1)">Nope</A>',
  '<DT><A HREF="https://example.com/two" ADD_DATE="1700000500">Two</A>',
  '</DL><p>',
].join('\n');

describe('parseNetscapeBookmarks', () => {
  it('reads links, titles and tags', () => {
    const links = parseNetscapeBookmarks(SAMPLE);
    expect(links).toHaveLength(2);
    expect(links[0]).toMatchObject({ url: 'https://example.com/one', title: 'One & only', tags: ['reading', 'long'] });
  });

  it('skips non-http links', () => {
    expect(parseNetscapeBookmarks(SAMPLE).some((l) => l.url.startsWith('javascript:'))).toBe(false);
  });
});
`,
  'vitest.config.ts': String.raw`import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    environment: 'node',
    globalSetup: ['./test/global-setup.ts'],
    pool: 'forks',
    poolOptions: { forks: { singleFork: true } },
    testTimeout: 10_000,
  },
});
`,
};

// Appended to the generated webhook service: the delivery loop that a later task changes.
const WEBHOOK_DELIVERY = String.raw`
const RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000, 600_000];

export interface DeliveryAttempt {
  webhookId: string;
  event: string;
  attempt: number;
  status: number | null;
  durationMs: number;
}

export async function deliver(
  db: Pool,
  webhook: Webhook,
  event: string,
  payload: unknown,
  send: (url: string, body: string) => Promise<{ status: number }>,
  attempt = 0,
): Promise<DeliveryAttempt> {
  const started = Date.now();
  let status: number | null = null;
  try {
    status = (await send(webhook.targetUrl, JSON.stringify({ event, payload }))).status;
  } catch {
    status = null;
  }
  const ok = status !== null && status >= 200 && status < 300;
  if (ok) {
    await db.query('UPDATE webhooks SET failure_count = 0, last_delivery_at = now() WHERE id = $1', [webhook.id]);
  } else {
    await db.query('UPDATE webhooks SET failure_count = failure_count + 1 WHERE id = $1', [webhook.id]);
    const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)];
    setTimeout(() => void deliver(db, webhook, event, payload, send, attempt + 1), delay).unref();
  }
  return { webhookId: webhook.id, event, attempt, status, durationMs: Date.now() - started };
}
`;

// ---------------------------------------------------------------------------------------------
// Virtual project: files, HEAD contents, lazily sized big files

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
  else if (!nullable) s += t === 'boolean' ? ' NOT NULL DEFAULT false' : t === 'integer' ? ' NOT NULL DEFAULT 0' : ' NOT NULL';
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

class Project {
  readonly files = new Map<string, string>();
  readonly head = new Map<string, string>();
  private readonly lazy = new Map<string, (chars: number) => string>();
  readonly unusedImports: string[] = [];

  constructor(
    private readonly rng: Rng,
    readonly cwd: string,
  ) {
    for (const [p, c] of Object.entries(HAND_FILES)) this.files.set(p, c);
    const lintVictims = new Set(rng.shuffle(ENTITIES.filter((e) => e.service || e.routes).map((e) => e.name)).slice(0, 4));
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
    this.files.set('test/global-setup.ts', [
      "import { execSync } from 'node:child_process';",
      '',
      'export default function setup(): void {',
      "  process.env.NODE_ENV = 'test';",
      "  process.env.DATABASE_URL ??= 'postgres://shelfmark:shelfmark@127.0.0.1:5433/shelfmark_test';",
      "  process.env.SESSION_SECRET ??= 'test-secret-test-secret-test-secret-42';",
      "  execSync('node scripts/migrate.mjs --reset', { stdio: 'inherit', env: process.env });",
      '}',
      '',
    ].join('\n'));
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

function apiTypesFile(targetChars: number): string {
  const head = [
    '/**',
    ' * This file was generated by openapi-typescript from openapi.yaml.',
    ' * Do not edit by hand: run npm run openapi.',
    ' */',
    '',
  ];
  const paths: string[] = [];
  const schemas: string[] = [];
  const ops: string[] = [];
  const tsOf = (f: FieldDef) =>
    f.ts.replace('Date', 'string').replace('Record<string, unknown>', '{ [key: string]: unknown }');
  let size = 2000;
  const list = ENTITIES.filter((e) => e.name !== 'User');
  const prefixes = ['', '/v2', '/admin', '/internal', '/v3', '/beta', '/partner', '/export', '/sync', '/mobile'];
  for (let round = 0; size < targetChars && round < prefixes.length; round++) {
    for (const e of list) {
      if (size >= targetChars) break;
      const prefix = prefixes[round];
      const suffix = prefix ? prefix[1].toUpperCase() + prefix.slice(2) : '';
      const url = prefix + '/' + snake(e.plural).replace(/_/g, '-');
      const P = e.name + (e.plural.endsWith('s') ? 's' : '');
      const chunk: string[] = [];
      chunk.push(`    "${url}": {`, '        parameters: {', '            query?: never;', '            header?: never;', '            path?: never;', '            cookie?: never;', '        };');
      chunk.push(`        /** List ${words(e.plural)}, newest first */`, `        get: operations["list${P}${suffix}"];`, '        put?: never;');
      chunk.push(`        /** Create a ${words(e.name)} */`, `        post: operations["create${e.name}${suffix}"];`, '        delete?: never;', '        options?: never;', '        head?: never;', '        patch?: never;', '        trace?: never;', '    };');
      chunk.push(`    "${url}/{id}": {`, '        parameters: {', '            query?: never;', '            header?: never;', '            path: {', '                id: string;', '            };', '            cookie?: never;', '        };');
      chunk.push(`        get: operations["get${e.name}${suffix}"];`, '        put?: never;', '        post?: never;', `        delete: operations["delete${e.name}${suffix}"];`, '        options?: never;', '        head?: never;', `        patch: operations["update${e.name}${suffix}"];`, '        trace?: never;', '    };');
      paths.push(...chunk);
      const sch: string[] = [];
      if (round === 0) {
        sch.push(`        ${e.name}: {`);
        for (const f of e.fields) {
          if (f.ts.startsWith('Date')) sch.push('            /** Format: date-time */');
          else if (f.name === 'id' || f.name.endsWith('Id')) sch.push('            /** Format: uuid */');
          sch.push(`            ${f.name}${f.optional ? '?' : ''}: ${tsOf(f)};`);
        }
        sch.push('        };');
        sch.push(`        Create${e.name}Body: {`);
        for (const f of e.fields.filter((x) => x.input)) sch.push(`            ${f.name}${f.optional ? '?' : ''}: ${tsOf(f)};`);
        sch.push('        };');
        schemas.push(...sch);
      }
      const op: string[] = [];
      const responses = (ok: string, body: string[] | null, codes: string[]) => {
        const r = ['        responses: {', `            /** @description ${ok} */`, `            ${body ? (ok.startsWith('Created') ? 201 : 200) : 204}: {`, '                headers: {', '                    [name: string]: unknown;', '                };'];
        if (body) r.push('                content: {', '                    "application/json": ' + body[0], ...body.slice(1), '                };');
        else r.push('                content?: never;');
        r.push('            };');
        for (const c of codes) r.push(`            ${c}: components["responses"]["${{ 400: 'BadRequest', 401: 'Unauthorized', 404: 'NotFound', 409: 'Conflict', 429: 'RateLimited' }[c]}"];`);
        r.push('        };');
        return r;
      };
      const params = (query: boolean, pathId: boolean) => [
        '        parameters: {',
        ...(query
          ? ['            query?: {', '                /** @description Page size, 1 to 100 (default 20). */', '                limit?: number;', '                /** @description Opaque cursor from a previous page. */', '                cursor?: string;', '            };']
          : ['            query?: never;']),
        '            header?: never;',
        ...(pathId ? ['            path: {', '                id: string;', '            };'] : ['            path?: never;']),
        '            cookie?: never;',
        '        };',
      ];
      const schemaRef = `components["schemas"]["${e.name}"]`;
      op.push(`    list${P}${suffix}: {`, ...params(true, false), '        requestBody?: never;',
        ...responses(`A page of ${words(e.plural)}.`, ['{', `                        items: ${schemaRef}[];`, '                        nextCursor: string | null;', '                    };'], ['401', '429']), '    };');
      op.push(`    create${e.name}${suffix}: {`, ...params(false, false), '        requestBody: {', '            content: {', `                "application/json": components["schemas"]["Create${e.name}Body"];`, '            };', '        };',
        ...responses(`Created ${words(e.name)}.`, [schemaRef + ';'], ['400', '401', '409', '429']), '    };');
      op.push(`    get${e.name}${suffix}: {`, ...params(false, true), '        requestBody?: never;', ...responses(`The ${words(e.name)}.`, [schemaRef + ';'], ['401', '404', '429']), '    };');
      op.push(`    update${e.name}${suffix}: {`, ...params(false, true), '        requestBody: {', '            content: {', `                "application/json": Partial<components["schemas"]["Create${e.name}Body"]>;`, '            };', '        };',
        ...responses(`Updated ${words(e.name)}.`, [schemaRef + ';'], ['400', '401', '404', '429']), '    };');
      op.push(`    delete${e.name}${suffix}: {`, ...params(false, true), '        requestBody?: never;', ...responses('Deleted.', null, ['401', '404', '429']), '    };');
      ops.push(...op);
      size += chunk.join('\n').length + sch.join('\n').length + op.join('\n').length + 40;
    }
  }
  const errorResponse = (name: string, desc: string) => [
    `        /** @description ${desc} */`,
    `        ${name}: {`,
    '            headers: {',
    '                [name: string]: unknown;',
    '            };',
    '            content: {',
    '                "application/json": components["schemas"]["Error"];',
    '            };',
    '        };',
  ];
  return [
    ...head,
    'export interface paths {',
    ...paths,
    '}',
    'export type webhooks = Record<string, never>;',
    'export interface components {',
    '    schemas: {',
    '        Error: {',
    '            error: string;',
    '            message?: string;',
    '        };',
    ...schemas,
    '    };',
    '    responses: {',
    ...errorResponse('BadRequest', 'The request body or parameters are invalid.'),
    ...errorResponse('Unauthorized', 'Missing or invalid credentials.'),
    ...errorResponse('NotFound', 'No such resource for this user.'),
    ...errorResponse('Conflict', 'The resource already exists.'),
    ...errorResponse('RateLimited', 'Too many requests; see the retry-after header.'),
    '    };',
    '    parameters: never;',
    '    requestBodies: never;',
    '    headers: never;',
    '    pathItems: never;',
    '}',
    'export type $defs = Record<string, never>;',
    'export interface operations {',
    ...ops,
    '}',
    '',
  ].join('\n');
}

const LOG_HOST = 'maya-tp14';
const LOG_START = Date.UTC(2026, 4, 11, 15, 2, 9, 117);

function devLog(rng: Rng, targetChars: number): string {
  const out: string[] = [];
  let t = LOG_START;
  let req = 1;
  let size = 0;
  const pid = 48213;
  const users = ['2f1c9a64-0b7e-4d35-9a51-6c0f3e2b7d18', '8a4e2b10-5c3d-4f7a-b1e9-0d6c2a9f4e31', 'c7d90e25-3a18-4b6f-8e42-9f1a5b7c3d06'];
  const routes = ['/bookmarks?limit=20', '/bookmarks?limit=20&cursor=', '/tags', '/collections', '/highlights?limit=50', '/bookmarks/import-jobs', '/health'];
  const line = (o: Record<string, unknown>) => {
    const s = JSON.stringify(o);
    out.push(s);
    size += s.length + 1;
  };
  while (size < targetChars) {
    const burst = rng.chance(0.08);
    const count = burst ? rng.int(25, 60) : 1;
    const user = rng.pick(users);
    for (let i = 0; i < count && size < targetChars; i++) {
      t += burst ? rng.int(3, 30) : rng.int(200, 9000);
      const id = 'req-' + (req++).toString(36);
      let url = rng.pick(routes);
      if (url.endsWith('cursor=')) url += 'eyJjcmVhdGVkQXQiOiIyMDI2LTA1LTEwVDA5OjE0OjAyLjAwMFoifQ';
      const method = burst ? 'GET' : rng.pick(['GET', 'GET', 'GET', 'POST', 'PATCH', 'DELETE']);
      line({ level: 30, time: t, pid, hostname: LOG_HOST, reqId: id, req: { method, url, hostname: 'localhost:3000', remoteAddress: '127.0.0.1', remotePort: rng.int(40000, 65000) }, msg: 'incoming request' });
      if (rng.chance(0.25)) line({ level: 20, time: t + 1, pid, hostname: LOG_HOST, reqId: id, userId: user, via: rng.pick(['session', 'api_key']), remaining: burst ? Math.max(0, 19 - (i % 20)) : rng.int(10, 19), msg: 'rate limit check' });
      if (rng.chance(0.12)) line({ level: 20, time: t + 2, pid, hostname: LOG_HOST, reqId: id, durationMs: Math.round(rng.next() * 4000) / 100, rows: rng.int(0, 21), msg: 'query done' });
      const status = method === 'POST' ? 201 : method === 'DELETE' ? 204 : rng.chance(0.03) ? 404 : 200;
      line({ level: 30, time: t + rng.int(2, 40), pid, hostname: LOG_HOST, reqId: id, res: { statusCode: status }, responseTime: Math.round(rng.next() * 6000 + 40) / 100, msg: 'request completed' });
    }
    if (rng.chance(0.02)) line({ level: 40, time: t + 3, pid, hostname: LOG_HOST, webhookId: '5e0b7c21-9d4a-4c8f-a3e6-1b2d0f9c8a47', status: 410, attempt: rng.int(3, 40), msg: 'webhook delivery failed, retrying' });
  }
  return out.join('\n') + '\n';
}

function netscapeExport(rng: Rng, targetChars: number): string {
  const out = ['<!DOCTYPE NETSCAPE-Bookmark-file-1>', '<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">', '<TITLE>Bookmarks</TITLE>', '<H1>Bookmarks</H1>', '<DL><p>'];
  const hosts = ['blog.example.dev', 'docs.example.org', 'news.example.com', 'engineering.example.io', 'notes.example.net', 'papers.example.edu'];
  const topics = ['postgres', 'indexes', 'typescript', 'testing', 'caching', 'queues', 'http', 'observability', 'rust', 'design', 'security', 'career'];
  const titles = ['A gentle guide to', 'Notes on', 'Debugging', 'Why we moved off', 'The case for', 'Measuring', 'Lessons from', 'Patterns for', 'How we scaled', 'Understanding'];
  let size = 200;
  let date = 1672531200;
  let folder = 0;
  while (size < targetChars) {
    if (rng.chance(0.04)) {
      const name = rng.pick(['Reading', 'Work', 'Talks', 'Later', 'Reference', 'Side projects']) + ' ' + ++folder;
      out.push(`<DT><H3 ADD_DATE="${date}" LAST_MODIFIED="${date + 3600}">${name}</H3>`, '<DL><p>');
    }
    date += rng.chance(0.2) ? 0 : rng.int(60, 86400 * 3);
    const topic = rng.pick(topics);
    const slug = topic + '-' + rng.chars(rng.int(4, 9), 'abcdefghijklmnopqrstuvwxyz') + '-' + rng.int(2, 999);
    const tags = rng.chance(0.6) ? ` TAGS="${[topic, rng.pick(topics)].join(',')}"` : '';
    const s = `<DT><A HREF="https://${rng.pick(hosts)}/${rng.pick(['posts', 'articles', 'p', '2025', '2026'])}/${slug}" ADD_DATE="${date}"${tags}>${rng.pick(titles)} ${topic} ${rng.pick(['in practice', 'at scale', '(part ' + rng.int(1, 4) + ')', 'for small teams', '&amp; friends', ''])}</A>`;
    out.push(s);
    size += s.length + 1;
    if (folder > 0 && rng.chance(0.03)) out.push('</DL><p>');
  }
  out.push('</DL><p>', '');
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Command outputs computed from the virtual project

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

interface TestFailure {
  file: string;
  test: string;
  error: string;
  detail: string[];
}

function clockTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

const RULE = '⎯'.repeat(50);

function vitestOutput(
  project: Project,
  rng: Rng,
  o: { files?: string[]; failures?: TestFailure[]; verbose?: boolean; npmHeader?: string; noiseChars?: number; startMs: number },
): { text: string; failed: boolean; durationMs: number } {
  const cases = collectTests(project, o.files);
  const failures = o.failures ?? [];
  const byFile = new Map<string, TestCase[]>();
  for (const c of cases) byFile.set(c.file, [...(byFile.get(c.file) ?? []), c]);
  const out: string[] = [];
  if (o.npmHeader) out.push('', '> shelfmark@0.9.0 ' + o.npmHeader.split(' ')[0], '> ' + o.npmHeader.split(' ').slice(1).join(' '), '');
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
          block.push(JSON.stringify({ level: 30, time: logT, pid: 51022, hostname: LOG_HOST, reqId: id, req: { method: rng.pick(['GET', 'POST', 'PATCH', 'DELETE']), url: '/' + file.slice(5, -8).replace(/([A-Z])/g, '-$1').toLowerCase(), hostname: 'localhost:80', remoteAddress: '127.0.0.1' }, msg: 'incoming request' }));
          if (rng.chance(0.5)) block.push(JSON.stringify({ level: 20, time: logT + 1, pid: 51022, hostname: LOG_HOST, reqId: id, sql: rng.pick(['SELECT', 'INSERT', 'UPDATE', 'DELETE']) + ' ... ' + rng.pick(['bookmarks', 'tags', 'collections', 'webhooks', 'users']), rows: rng.int(0, 20), durationMs: Math.round(rng.next() * 900) / 100, msg: 'query' }));
          block.push(JSON.stringify({ level: 30, time: logT + 2, pid: 51022, hostname: LOG_HOST, reqId: id, res: { statusCode: rng.pick([200, 200, 201, 204, 400, 404]) }, responseTime: Math.round(rng.next() * 2500 + 30) / 100, msg: 'request completed' }));
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

function grepProject(
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
          out.push(`${rel}${k === h || hits.includes(k) ? ':' : '-'}${k + 1}${k === h || hits.includes(k) ? ':' : '-'}${lines[k]}`);
          last = k;
        }
      }
    }
  }
  let shown = out;
  if (o.headLimit && out.length > o.headLimit) shown = out.slice(0, o.headLimit);
  if (o.mode === 'files_with_matches') {
    return { text: files.length ? `Found ${files.length} file${files.length === 1 ? '' : 's'}\n${files.join('\n')}` : 'No files found', files, lines: files.length };
  }
  return { text: shown.length ? shown.join('\n') : 'No matches found', files, lines: shown.length };
}

function shortHash(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  let h2 = 5381;
  for (let i = 0; i < s.length; i++) h2 = (Math.imul(h2, 33) ^ s.charCodeAt(i)) >>> 0;
  return ((h >>> 0).toString(16).padStart(8, '0') + h2.toString(16).padStart(8, '0')).slice(0, 7);
}

function hunkHeader(lines: string[], at: number): string {
  for (let i = at - 2; i >= 0; i--) {
    if (/^(export |function |class |interface |describe\(|const |CREATE )/.test(lines[i])) return ' ' + lines[i].slice(0, 80);
  }
  return '';
}

function gitDiff(project: Project, only?: string[]): string {
  const { modified, added } = project.changed();
  const out: string[] = [];
  for (const p of modified) {
    if (only && !only.includes(p)) continue;
    const a = project.head.get(p) ?? '';
    const b = project.read(p);
    out.push(`diff --git a/${p} b/${p}`, `index ${shortHash(a)}..${shortHash(b)} 100644`, `--- a/${p}`, `+++ b/${p}`);
    const oldLines = a.split('\n');
    for (const h of hunks(a, b)) {
      out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@${hunkHeader(oldLines, h.oldStart)}`, ...h.lines);
    }
  }
  for (const p of added) {
    if (only && !only.includes(p)) continue;
    const b = project.read(p);
    const lines = b.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    out.push(`diff --git a/${p} b/${p}`, 'new file mode 100644', `index 0000000..${shortHash(b)}`, '--- /dev/null', `+++ b/${p}`, `@@ -0,0 +1,${lines.length} @@`, ...lines.map((l) => '+' + l));
  }
  return out.join('\n');
}

function gitDiffStat(project: Project): string {
  const { modified, added } = project.changed();
  const rows: [string, number, number][] = [];
  for (const p of modified) {
    const c = diffCounts(project.head.get(p) ?? '', project.read(p));
    rows.push([p, c.added, c.removed]);
  }
  for (const p of added) rows.push([p, project.read(p).split('\n').length - 1, 0]);
  const w = Math.max(...rows.map((r) => r[0].length), 10);
  const lines = rows.map(([p, a, r]) => ` ${p.padEnd(w)} | ${String(a + r).padStart(3)} ${'+'.repeat(Math.min(a, 40))}${'-'.repeat(Math.min(r, 20))}`);
  const ins = rows.reduce((s, r) => s + r[1], 0);
  const del = rows.reduce((s, r) => s + r[2], 0);
  lines.push(` ${rows.length} files changed, ${ins} insertions(+), ${del} deletions(-)`);
  return lines.join('\n');
}

function gitStatus(project: Project, branch: string): string {
  const { modified, added } = project.changed();
  const out = [`On branch ${branch}`];
  if (modified.length) {
    out.push('Changes not staged for commit:', '  (use "git add <file>..." to update what will be committed)', '  (use "git restore <file>..." to discard changes in working directory)', ...modified.map((p) => `\tmodified:   ${p}`), '');
  }
  if (added.length) {
    out.push('Untracked files:', '  (use "git add <file>..." to include in what will be committed)', ...added.map((p) => `\t${p}`), '');
  }
  if (!modified.length && !added.length) out.push('nothing to commit, working tree clean');
  else out.push('no changes added to commit (use "git add" and/or "git commit -a")');
  return out.join('\n');
}

function numbered(content: string, offset = 1, limit = 2000): { text: string; numLines: number; totalLines: number; slice: string } {
  const all = content.split('\n');
  const part = all.slice(offset - 1, offset - 1 + limit);
  return {
    text: part.map((l, i) => `${offset + i}\t${l.length > 2000 ? l.slice(0, 2000) : l}`).join('\n'),
    numLines: part.length,
    totalLines: all.length,
    slice: part.join('\n'),
  };
}

// ---------------------------------------------------------------------------------------------
// Session writer

type Obj = Record<string, unknown>;
type TextBlock = { type: 'text'; text: string };

interface ToolOutcome {
  content: string | TextBlock[];
  isError?: boolean;
  /** Bash-like results carry is_error: false when they succeed. */
  bashLike?: boolean;
  result: unknown;
  durationMs: number;
  bashProgress?: boolean;
  hook?: boolean;
}

interface ToolCall {
  name: string;
  input: Obj;
  run: () => ToolOutcome;
  stat: 'read' | 'search' | 'bash' | 'edit' | 'other';
}

interface Step {
  thinking?: string;
  text?: string;
  tools: ToolCall[];
}

type StepF = (g: Gen) => Step;

interface Conv {
  sub: boolean;
  agentId?: string;
  lines: string[];
  leaf: string | null;
  /** Tokens of the conversation messages (window since the last compaction). */
  tokens: number;
  /** System prompt and tool definitions. */
  base: number;
  /** Part of base that stays cached across sessions (read from cache on a cold start). */
  systemCached: number;
  cached: number;
  lastRequestAt: number;
  afterPrompt: boolean;
  model: string;
  ttl: '1h' | '5m';
  promptId: string;
  lastUsage: Obj | null;
  lastContext: number;
  lastOutput: number;
  toolUses: number;
  stats: Record<'read' | 'search' | 'bash' | 'edit' | 'other', number>;
  linesAdded: number;
  linesRemoved: number;
}

interface Tracked {
  backupFileName: string | null;
  version: number;
  backupTime: string;
  content: string;
}

class Gen {
  readonly rng: Rng;
  readonly ids: Ids;
  readonly project: Project;
  readonly sessionId: string;
  readonly cwd: string;
  readonly version: string;
  readonly model: string;
  readonly subModel = 'claude-haiku-4-5-20251001';
  readonly usageStyle: 'placeholder' | 'final-everywhere';
  readonly thinkingText: boolean;
  readonly slug: string;
  gitBranch = 'fix/cursor-pagination';
  slugOn = false;
  permissionMode = 'default';
  now: number;
  readonly main: Conv;
  readonly subagents: GeneratedSubagent[] = [];
  round = 0;
  readonly totalRounds: number;
  compactAt: number | null;
  compaction: { atRound: number; preTokens: number; postTokens: number } | null = null;
  peak = 0;
  final = 0;
  post0 = 0;
  promptUuid = '';
  lastPrompt = '';
  turnStart = 0;
  messageCount = 0;
  readonly tracked = new Map<string, Tracked>();
  private readonly backupNames = new Map<string, string>();
  snapshotTime = '';
  readonly notes: string[] = [];
  currentFiles = new Set<string>();
  readonly contexts: number[] = [];
  readonly userMessages: string[] = [];
  queued: string | null = null;
  queuedPrompt: string | null = null;
  readonly commitLog: string[] = ['4e8d21a auth: per-plan rate limits', '3c71e0a normalize: lowercase urls before parsing (dedupe HTTP://Example.com)', '8f02b6d url: drop mc_eid and ref tracking params'];

  constructor(readonly opts: GenerateOptions) {
    this.rng = new Rng(opts.seed);
    const idRng = new Rng((opts.seed ^ 0x5e551d) >>> 0);
    this.sessionId = opts.sessionId ?? idRng.uuid();
    this.ids = new Ids(this.rng);
    this.cwd = opts.cwd ?? '/home/maya/code/shelfmark';
    this.version = opts.version ?? '2.1.97';
    this.model = opts.model ?? 'claude-sonnet-4-6';
    this.usageStyle = opts.usageStyle ?? 'placeholder';
    this.thinkingText = opts.thinkingText ?? true;
    this.now = Date.parse(opts.startTime ?? '2026-05-12T08:47:13.512Z');
    this.project = new Project(this.rng, this.cwd);
    this.slug = [
      this.rng.pick(['quiet', 'amber', 'brisk', 'gentle', 'lucid', 'mellow', 'nimble', 'sturdy', 'velvet', 'wistful']),
      this.rng.pick(['drifting', 'humming', 'leaping', 'mapping', 'sketching', 'weaving', 'wandering', 'folding']),
      this.rng.pick(['heron', 'otter', 'lynx', 'finch', 'badger', 'marmot', 'gecko', 'puffin']),
    ].join('-');
    this.totalRounds = Math.max(1, Math.floor(opts.rounds));
    const c = opts.compactAtRound === undefined ? Math.round(this.totalRounds * 0.5) : opts.compactAtRound;
    this.compactAt = c !== null && c >= 2 && c < this.totalRounds ? c : null;
    this.main = this.newConv(false, undefined, this.model, '1h', this.rng.int(15_600, 17_400), this.rng.int(11_000, 11_600));
  }

  newConv(sub: boolean, agentId: string | undefined, model: string, ttl: '1h' | '5m', base: number, systemCached: number): Conv {
    return {
      sub, agentId, lines: [], leaf: null, tokens: 0, base, systemCached, cached: 0, lastRequestAt: 0, afterPrompt: true,
      model, ttl, promptId: '', lastUsage: null, lastContext: 0, lastOutput: 0, toolUses: 0,
      stats: { read: 0, search: 0, bash: 0, edit: 0, other: 0 }, linesAdded: 0, linesRemoved: 0,
    };
  }

  // --- time ------------------------------------------------------------------------------
  iso(): string {
    return new Date(this.now).toISOString();
  }
  tick(lo: number, hi: number): string {
    this.now += this.rng.int(lo, hi);
    return this.iso();
  }

  // --- targets -----------------------------------------------------------------------------
  /** Desired context size after k main rounds. */
  targetAt(k: number): number {
    const base = this.main.base;
    const C = this.compactAt;
    if (C !== null && k <= C) return base + ((this.peak - base) * k) / C;
    const from = C === null ? 0 : C;
    const start = C === null ? base : this.post0 || base + 3000;
    const span = Math.max(1, this.totalRounds - 1 - from);
    return start + ((this.final - start) * Math.min(span, k - from)) / span;
  }
  /** Characters a sizeable tool output should have to keep the context on its trajectory. */
  budgetChars(min: number, max: number): number {
    // Aim a few rounds ahead (within the current segment) so that the rounds without big
    // outputs that follow do not leave the context behind its trajectory.
    const end = this.compactAt !== null && this.round <= this.compactAt ? this.compactAt : this.totalRounds - 1;
    const deficit = this.targetAt(Math.min(end, this.round + 6)) - (this.main.base + this.main.tokens);
    const c = Math.round(deficit * 3.5 * (0.9 + this.rng.next() * 0.2));
    return Math.max(min, Math.min(max, c));
  }

  // --- line helpers ----------------------------------------------------------------------
  tail(conv: Conv): Obj {
    return {
      userType: 'external',
      entrypoint: 'cli',
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: this.version,
      gitBranch: this.gitBranch,
      slug: this.slugOn || conv.sub ? this.slug : undefined,
    };
  }
  push(conv: Conv, o: Obj): void {
    conv.lines.push(JSON.stringify(o));
  }
  chain(conv: Conv, head: Obj, body: Obj): string {
    const uuid = this.ids.uuid();
    const o: Obj = { parentUuid: conv.leaf, isSidechain: conv.sub };
    if (conv.sub && !('promptId' in head)) o.agentId = conv.agentId;
    for (const [k, v] of Object.entries(head)) {
      o[k] = v;
      if (k === 'promptId' && conv.sub) o.agentId = conv.agentId;
    }
    Object.assign(o, body);
    // uuid and timestamp go where each kind has them; callers pass placeholders
    for (const k of Object.keys(o)) {
      if (o[k] === UUID) o[k] = uuid;
      if (o[k] === TS) o[k] = this.iso();
    }
    Object.assign(o, this.tail(conv));
    this.push(conv, o);
    conv.leaf = uuid;
    return uuid;
  }

  permissionModeLine(mode: string): void {
    this.permissionMode = mode;
    this.push(this.main, { type: 'permission-mode', permissionMode: mode, sessionId: this.sessionId });
  }

  trackedSnapshot(): Obj {
    const o: Obj = {};
    for (const [rel, t] of this.tracked) o[rel] = { backupFileName: t.backupFileName, version: t.version, backupTime: t.backupTime };
    return o;
  }

  backupName(rel: string): string {
    let n = this.backupNames.get(rel);
    if (!n) {
      n = this.rng.hex(16);
      this.backupNames.set(rel, n);
    }
    return n;
  }

  userPrompt(text: string, extra: Obj = {}): void {
    const conv = this.main;
    this.tick(15_000, 240_000);
    const uuid = this.ids.uuid();
    // Files changed since their last backup get a new version at each prompt.
    for (const [rel, t] of this.tracked) {
      const now = this.project.files.get(rel) ?? '';
      if (now !== t.content) {
        t.version++;
        t.backupFileName = this.backupName(rel) + '@v' + t.version;
        t.backupTime = new Date(this.now + 1).toISOString();
        t.content = now;
      }
    }
    this.snapshotTime = new Date(this.now + 1).toISOString();
    this.push(conv, {
      type: 'file-history-snapshot',
      messageId: uuid,
      snapshot: { messageId: uuid, trackedFileBackups: this.trackedSnapshot(), timestamp: this.snapshotTime },
      isSnapshotUpdate: false,
    });
    conv.promptId = this.ids.uuid();
    const o: Obj = {
      parentUuid: conv.leaf, isSidechain: false, promptId: conv.promptId, type: 'user',
      message: { role: 'user', content: text }, uuid, timestamp: this.iso(), ...extra,
      permissionMode: this.permissionMode, ...this.tail(conv),
    };
    this.push(conv, o);
    conv.leaf = uuid;
    conv.tokens += proseTokens(text) + 8;
    conv.afterPrompt = true;
    this.promptUuid = uuid;
    this.lastPrompt = text;
    this.userMessages.push(text);
    this.turnStart = this.now;
    this.messageCount++;
  }

  attachment(att: Obj): void {
    this.tick(1, 3);
    this.chain(this.main, { attachment: att, type: 'attachment', uuid: UUID, timestamp: TS }, {});
    const text = typeof att.content === 'string' ? att.content : typeof att.snippet === 'string' ? att.snippet : '';
    this.main.tokens += proseTokens(text) + 20;
  }

  /** A command the user ran with "!" in the prompt box: caveat, input and output lines. */
  localCommand(command: string, stdout: string, stderr = ''): void {
    const conv = this.main;
    const promptId = this.ids.uuid();
    this.tick(30_000, 90_000);
    this.chain(conv, { promptId, type: 'user', message: { role: 'user', content: '<local-command-caveat>Caveat: the messages below were produced by a command the user ran locally. Do not act on them unless the user asks.</local-command-caveat>' }, isMeta: true, uuid: UUID, timestamp: TS }, {});
    this.tick(5, 40);
    this.chain(conv, { promptId, type: 'user', message: { role: 'user', content: `<bash-input>${command}</bash-input>` }, uuid: UUID, timestamp: TS }, {});
    this.tick(2_000, 9_000);
    this.chain(conv, { promptId, type: 'user', message: { role: 'user', content: `<bash-stdout>${stdout}</bash-stdout><bash-stderr>${stderr}</bash-stderr>` }, uuid: UUID, timestamp: TS }, {});
    conv.tokens += codeTokens(command + stdout + stderr) + 60;
    this.messageCount += 3;
  }

  queueOperation(operation: 'enqueue' | 'remove', content?: string): void {
    this.tick(1, 5);
    const o: Obj = { type: 'queue-operation', operation, timestamp: this.iso(), sessionId: this.sessionId };
    if (content !== undefined) o.content = content;
    this.push(this.main, o);
  }

  hookProgress(conv: Conv, parent: string | null, event: string, hookName: string, command: string, toolUseID: string): string {
    const uuid = this.ids.uuid();
    this.push(conv, {
      parentUuid: parent, isSidechain: conv.sub, type: 'progress',
      data: { type: 'hook_progress', hookEvent: event, hookName, command },
      parentToolUseID: toolUseID, toolUseID, timestamp: this.iso(), uuid, ...this.tail(conv),
    });
    return uuid;
  }

  endTurn(): void {
    const conv = this.main;
    const hookId = this.ids.uuid();
    this.tick(20, 120);
    conv.leaf = this.hookProgress(conv, conv.leaf, 'Stop', 'Stop', STOP_HOOK, hookId);
    this.tick(300, 1400);
    this.chain(conv, {
      type: 'system', subtype: 'stop_hook_summary', hookCount: 1, hookInfos: [{ command: STOP_HOOK }], hookErrors: [],
      preventedContinuation: false, stopReason: '', hasOutput: false, level: 'suggestion', timestamp: TS, uuid: UUID, toolUseID: hookId,
    }, {});
    this.tick(2, 20);
    this.chain(conv, {
      type: 'system', subtype: 'turn_duration', durationMs: this.now - this.turnStart, messageCount: this.messageCount,
      timestamp: TS, uuid: UUID, isMeta: false,
    }, {});
  }

  compact(summary: string): void {
    const conv = this.main;
    const preTokens = conv.base + conv.tokens;
    const durationMs = this.rng.int(38_000, 95_000);
    this.now += durationMs;
    const logicalParent = conv.leaf;
    const postTokens = conv.base + proseTokens(summary) + 8;
    const boundary = this.ids.uuid();
    this.push(conv, {
      parentUuid: null, logicalParentUuid: logicalParent, isSidechain: false, type: 'system', subtype: 'compact_boundary',
      content: 'Conversation compacted', isMeta: false, timestamp: this.iso(), uuid: boundary, level: 'info',
      compactMetadata: { trigger: 'auto', preTokens, postTokens, durationMs }, ...this.tail(conv),
    });
    conv.leaf = boundary;
    this.tick(1, 3);
    this.chain(conv, { type: 'user', message: { role: 'user', content: summary }, isVisibleInTranscriptOnly: true, isCompactSummary: true, uuid: UUID, timestamp: TS }, {});
    this.tick(40, 400);
    conv.leaf = this.hookProgress(conv, conv.leaf, 'SessionStart', 'SessionStart:compact', SESSION_HOOK, this.ids.uuid());
    conv.tokens = proseTokens(summary) + 8;
    conv.cached = 0;
    conv.afterPrompt = true;
    this.post0 = postTokens;
    this.compaction = { atRound: this.round, preTokens, postTokens };
    this.messageCount = 1;
  }

  // --- rounds ------------------------------------------------------------------------------
  usage(conv: Conv, input: number, read: number, create: number, output: number): Obj {
    return {
      input_tokens: input,
      cache_creation_input_tokens: create,
      cache_read_input_tokens: read,
      output_tokens: output,
      server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
      service_tier: 'standard',
      cache_creation: {
        ephemeral_1h_input_tokens: conv.ttl === '1h' ? create : 0,
        ephemeral_5m_input_tokens: conv.ttl === '5m' ? create : 0,
      },
      inference_geo: '',
      iterations: [],
      speed: 'standard',
    };
  }

  runRound(conv: Conv, step: Step): void {
    const rng = this.rng;
    if (!conv.sub) this.round++;
    const final = step.tools.length === 0;
    // Request: context = system + tools + conversation so far.
    const ctx = conv.base + conv.tokens;
    const input = conv.afterPrompt ? rng.pick([3, 3, 3, 2, 4, 6]) : rng.pick([1, 1, 1, 1, 1, 2]);
    const expired = conv.lastRequestAt > 0 && this.now - conv.lastRequestAt > (conv.ttl === '1h' ? 3_600_000 : 300_000);
    let read = conv.cached === 0 || expired ? conv.systemCached : conv.cached;
    if (read > ctx - input) read = ctx - input;
    const create = ctx - input - read;
    conv.cached = read + create;
    conv.lastRequestAt = this.now;
    conv.afterPrompt = false;
    if (!conv.sub) this.contexts.push(ctx);

    const thinking = step.thinking ?? '';
    const text = step.text ?? '';
    let output = rng.int(6, 30) + proseTokens(thinking) + proseTokens(text);
    for (const t of step.tools) output += codeTokens(JSON.stringify(t.input));
    const placeholder = Math.min(output, rng.int(1, 12));
    const usageFinal = this.usage(conv, input, read, create, output);
    const usageEarly = this.usage(conv, input, read, create, placeholder);
    const stop = final ? 'end_turn' : 'tool_use';
    const msgId = this.ids.message();
    const requestId = this.ids.request();
    const blocks: Obj[] = [];
    if (thinking) blocks.push({ type: 'thinking', thinking: this.thinkingText ? thinking : '', signature: this.ids.signature(thinking.length) });
    if (text) blocks.push({ type: 'text', text });
    const uses = step.tools.map((t) => ({ call: t, id: this.ids.toolUse(), uuid: '' }));
    for (const u of uses) blocks.push({ type: 'tool_use', id: u.id, name: u.call.name, input: u.call.input, caller: { type: 'direct' } });
    if (!blocks.length) throw new Error('generator: empty round');

    if (!conv.sub) this.slugOn = true;
    this.now += rng.int(900, 3200); // time to first token
    let parent = conv.leaf;
    const tokPerSec = rng.int(55, 95);
    const writeAssistant = (block: Obj, index: number): string => {
      const isLast = index === blocks.length - 1;
      let genTokens = 8;
      if (block.type === 'thinking') genTokens = proseTokens(thinking);
      else if (block.type === 'text') genTokens = proseTokens(text);
      else genTokens = codeTokens(JSON.stringify(block.input));
      this.now += Math.max(60, Math.round((genTokens / tokPerSec) * 1000)) + rng.int(0, 120);
      const uuid = this.ids.uuid();
      const early = !isLast && this.usageStyle === 'placeholder';
      const o: Obj = { parentUuid: parent, isSidechain: conv.sub };
      if (conv.sub) o.agentId = conv.agentId;
      o.message = {
        model: conv.model, id: msgId, type: 'message', role: 'assistant', content: [block],
        stop_reason: early ? null : stop, stop_sequence: null, stop_details: null,
        usage: early ? usageEarly : usageFinal,
      };
      o.requestId = requestId;
      o.type = 'assistant';
      o.uuid = uuid;
      o.timestamp = this.iso();
      Object.assign(o, this.tail(conv));
      this.push(conv, o);
      parent = uuid;
      return uuid;
    };
    let lastResult: string | null = null;
    const writeResult = (u: { call: ToolCall; id: string; uuid: string }): void => {
      const started = this.now;
      const out = u.call.run();
      conv.toolUses++;
      conv.stats[u.call.stat]++;
      if (out.bashProgress && out.durationMs >= 3000) {
        let prev = u.uuid;
        const secs = Math.floor(out.durationMs / 1000);
        const stepS = Math.max(1, Math.ceil((secs - 2) / 6));
        const contentLines = typeof out.content === 'string' ? out.content.split('\n') : [];
        let k = 0;
        for (let s = 2; s < secs; s += stepS) {
          this.now = Math.max(this.now + 1, started + s * 1000 + rng.int(0, 60));
          const upTo = Math.floor((contentLines.length * s) / secs);
          const shown = contentLines.slice(Math.max(0, upTo - 5), upTo);
          const uuid = this.ids.uuid();
          this.push(conv, {
            parentUuid: prev, isSidechain: conv.sub, type: 'progress',
            data: { type: 'bash_progress', output: shown.slice(-1).join('\n'), fullOutput: shown.join('\n'), elapsedTimeSeconds: s, totalLines: upTo },
            toolUseID: 'bash-progress-' + k++, parentToolUseID: u.id, uuid, timestamp: this.iso(), ...this.tail(conv),
          });
          prev = uuid;
        }
      }
      this.now = Math.max(this.now + rng.int(2, 40), started + out.durationMs);
      if (out.hook && !conv.sub) {
        this.hookProgress(conv, u.uuid, 'PostToolUse', 'PostToolUse:' + u.call.name, FORMAT_HOOK, u.id);
        this.now += rng.int(1, 4);
      }
      const block: Obj = out.isError
        ? { type: 'tool_result', content: out.content, is_error: true, tool_use_id: u.id }
        : { tool_use_id: u.id, type: 'tool_result', content: out.content, ...(out.bashLike ? { is_error: false } : {}) };
      const uuid = this.ids.uuid();
      const o: Obj = { parentUuid: u.uuid, isSidechain: conv.sub, promptId: conv.promptId };
      if (conv.sub) o.agentId = conv.agentId;
      Object.assign(o, {
        type: 'user', message: { role: 'user', content: [block] }, uuid, timestamp: this.iso(),
        toolUseResult: out.result, sourceToolAssistantUUID: u.uuid, ...this.tail(conv),
      });
      this.push(conv, o);
      lastResult = uuid;
      conv.tokens += (typeof out.content === 'string' ? codeTokens(out.content) : out.content.reduce((s, b) => s + proseTokens(b.text), 0)) + 10;
      if (!conv.sub) this.messageCount++;
    };
    const interleave = uses.length > 1 && rng.chance(0.5);
    let bi = 0;
    if (thinking) writeAssistant(blocks[bi], bi++);
    if (text) writeAssistant(blocks[bi], bi++);
    uses.forEach((u, i) => {
      u.uuid = writeAssistant(blocks[bi], bi++);
      if (!conv.sub && (u.call.name === 'Edit' || u.call.name === 'Write')) this.snapshotUpdate(u.uuid, this.project.rel(String(u.call.input.file_path)));
      if (interleave && i >= 1) writeResult(uses[i - 1]);
    });
    for (let i = interleave ? uses.length - 1 : 0; i < uses.length; i++) writeResult(uses[i]);
    conv.tokens += proseTokens(text) + blocks.length * 6;
    for (const u of uses) conv.tokens += codeTokens(JSON.stringify(u.call.input));
    conv.leaf = lastResult ?? parent;
    conv.lastUsage = usageFinal;
    conv.lastContext = ctx;
    conv.lastOutput = output;
    if (!conv.sub) this.messageCount += 1;
  }

  snapshotUpdate(toolLineUuid: string, rel: string): void {
    if (!this.tracked.has(rel)) {
      const existed = this.project.head.has(rel) || this.project.files.has(rel);
      this.tracked.set(rel, {
        backupFileName: existed ? this.backupName(rel) + '@v1' : null,
        version: 1,
        backupTime: new Date(this.now + 2).toISOString(),
        content: this.project.files.get(rel) ?? '',
      });
    }
    this.push(this.main, {
      type: 'file-history-snapshot',
      messageId: toolLineUuid,
      snapshot: { messageId: this.promptUuid, trackedFileBackups: this.trackedSnapshot(), timestamp: this.snapshotTime },
      isSnapshotUpdate: true,
    });
  }

  // --- tools -------------------------------------------------------------------------------
  read(rel: string, o: { offset?: number; limit?: number; size?: [number, number] } = {}): ToolCall {
    const input: Obj = { file_path: this.project.abs(rel) };
    if (o.offset) input.offset = o.offset;
    if (o.limit) input.limit = o.limit;
    return {
      name: 'Read', input, stat: 'read',
      run: () => {
        const size = o.size ? this.budgetChars(o.size[0], o.size[1]) : 60_000;
        const content = this.project.read(rel, size);
        const n = numbered(content, o.offset ?? 1, o.limit ?? 2000);
        this.currentFiles.add(rel);
        return {
          content: n.text,
          result: { type: 'text', file: { filePath: this.project.abs(rel), content: n.slice, numLines: n.numLines, startLine: o.offset ?? 1, totalLines: n.totalLines } },
          durationMs: this.rng.int(4, 60),
        };
      },
    };
  }

  edit(rel: string, oldString: string, newString: string, o: { expectError?: boolean; replaceAll?: boolean } = {}): ToolCall {
    const abs = this.project.abs(rel);
    const input: Obj = { file_path: abs, old_string: oldString, new_string: newString };
    if (o.replaceAll) input.replace_all = true;
    return {
      name: 'Edit', input, stat: 'edit',
      run: () => {
        const before = this.project.read(rel);
        if (!before.includes(oldString)) {
          if (!o.expectError) throw new Error('generator: edit target not found in ' + rel + ': ' + oldString.slice(0, 80));
          return {
            content: `<tool_use_error>String to replace not found in file.\nString: ${oldString}</tool_use_error>`,
            isError: true,
            result: `Error: String to replace not found in file.\nString: ${oldString}`,
            durationMs: this.rng.int(3, 20),
          };
        }
        if (o.expectError) throw new Error('generator: edit meant to fail matched in ' + rel);
        const after = o.replaceAll ? before.split(oldString).join(newString) : before.replace(oldString, () => newString);
        if (!o.replaceAll && before.indexOf(oldString) !== before.lastIndexOf(oldString)) throw new Error('generator: ambiguous edit in ' + rel);
        this.project.write(rel, after);
        this.currentFiles.add(rel);
        const c = diffCounts(before, after);
        this.main.linesAdded += c.added;
        this.main.linesRemoved += c.removed;
        return {
          content: `The file ${abs} has been updated${o.replaceAll ? '. All occurrences of the string were replaced' : ' successfully'}.`,
          result: { filePath: abs, oldString, newString, originalFile: before, structuredPatch: hunks(before, after), userModified: false, replaceAll: !!o.replaceAll },
          durationMs: this.rng.int(15, 90),
          hook: true,
        };
      },
    };
  }

  write(rel: string, content: string): ToolCall {
    const abs = this.project.abs(rel);
    return {
      name: 'Write', input: { file_path: abs, content }, stat: 'edit',
      run: () => {
        this.project.write(rel, content);
        this.currentFiles.add(rel);
        return {
          content: `File created successfully at: ${abs}`,
          result: { type: 'create', filePath: abs, content, structuredPatch: [], originalFile: null },
          durationMs: this.rng.int(10, 60),
          hook: true,
        };
      },
    };
  }

  bash(command: string, description: string, exec: () => { out: string; code?: number; ms?: number }, extra: Obj = {}): ToolCall {
    return {
      name: 'Bash', input: { command, description, ...extra }, stat: 'bash',
      run: () => {
        const r = exec();
        const ms = r.ms ?? this.rng.int(40, 600);
        const out = r.out.replace(/\n+$/, '');
        if (r.code) {
          return { content: `Exit code ${r.code}\n${out}`, isError: true, result: `Error: Exit code ${r.code}\n${out}`, durationMs: ms, bashProgress: true };
        }
        return {
          content: out,
          bashLike: true,
          result: { stdout: out, stderr: '', interrupted: false, isImage: false, noOutputExpected: false },
          durationMs: ms,
          bashProgress: true,
        };
      },
    };
  }

  grep(pattern: string, o: { under?: string; glob?: string; mode?: 'content' | 'files_with_matches'; context?: number; headLimit?: number } = {}): ToolCall {
    const mode = o.mode ?? 'content';
    const input: Obj = { pattern };
    if (o.under) input.path = this.project.abs(o.under.replace(/\/$/, ''));
    if (o.glob) input.glob = o.glob;
    input.output_mode = mode;
    if (mode === 'content') input['-n'] = true;
    if (o.context) input['-C'] = o.context;
    if (o.headLimit) input.head_limit = o.headLimit;
    return {
      name: 'Grep', input, stat: 'search',
      run: () => {
        this.project.materializeAll();
        const globRe = o.glob ? new RegExp(o.glob.replace(/\./g, '\\.').replace(/\*\*\//g, '(.*/)?').replace(/\*/g, '[^/]*') + '$') : undefined;
        const r = grepProject(this.project, pattern, { under: o.under, glob: globRe, mode, context: o.context, headLimit: o.headLimit });
        const result = mode === 'content'
          ? { mode, numFiles: 0, filenames: [], content: r.text, numLines: r.lines }
          : { mode, filenames: r.files, numFiles: r.files.length };
        return { content: r.text, result, durationMs: this.rng.int(30, 400) };
      },
    };
  }

  glob(pattern: string): ToolCall {
    return {
      name: 'Glob', input: { pattern, path: this.cwd }, stat: 'search',
      run: () => {
        const re = new RegExp('^' + pattern.replace(/\./g, '\\.').replace(/\*\*\//g, '(.*/)?').replace(/\*/g, '[^/]*') + '$');
        const files = this.project.all().filter((p) => re.test(p)).map((p) => this.project.abs(p));
        const ms = this.rng.int(20, 300);
        return { content: files.length ? files.join('\n') : 'No files found', result: { filenames: files, durationMs: ms, numFiles: files.length, truncated: false }, durationMs: ms };
      },
    };
  }

  agent(description: string, prompt: string, subagentType: string, steps: StepF[]): ToolCall {
    return {
      name: 'Agent', input: { description, prompt, subagent_type: subagentType }, stat: 'other',
      run: () => {
        const started = this.now;
        const agentId = this.ids.agent();
        const sub = this.newConv(true, agentId, this.subModel, '5m', this.rng.int(7_200, 9_400), 0);
        sub.promptId = this.main.promptId;
        this.tick(20, 90);
        this.chain(sub, { promptId: sub.promptId, type: 'user', message: { role: 'user', content: prompt }, uuid: UUID, timestamp: TS }, {});
        sub.tokens += proseTokens(prompt) + 8;
        let report = '';
        for (const f of steps) {
          const s = f(this);
          if (!s.tools.length) report = s.text ?? '';
          this.tick(400, 2500);
          this.runRound(sub, s);
        }
        this.subagents.push({ agentId, relativePath: `${this.sessionId}/subagents/agent-${agentId}.jsonl`, text: sub.lines.join('\n') + '\n' });
        const duration = this.now - started + this.rng.int(100, 900);
        const totalTokens = sub.lastContext + sub.lastOutput;
        return {
          content: [
            { type: 'text', text: report },
            { type: 'text', text: `agentId: ${agentId} (use SendMessage with to: '${agentId}' to continue this agent)\n<usage>total_tokens: ${totalTokens}\ntool_uses: ${sub.toolUses}\nduration_ms: ${duration}</usage>` },
          ],
          result: {
            status: 'completed', prompt, agentId, agentType: subagentType, content: [{ type: 'text', text: report }],
            totalDurationMs: duration, totalTokens, totalToolUseCount: sub.toolUses, usage: sub.lastUsage,
            toolStats: {
              readCount: sub.stats.read, searchCount: sub.stats.search, bashCount: sub.stats.bash, editFileCount: sub.stats.edit,
              linesAdded: 0, linesRemoved: 0, otherToolCount: sub.stats.other,
            },
          },
          durationMs: duration,
        };
      },
    };
  }
}

const UUID = '\u0000uuid';
const TS = '\u0000ts';
const STOP_HOOK = 'node .claude/hooks/notify-done.mjs';
const FORMAT_HOOK = 'node .claude/hooks/format-changed.mjs';
const SESSION_HOOK = 'node .claude/hooks/session-context.mjs';

// ---------------------------------------------------------------------------------------------
// The story: episodes (one user turn each) made of steps (one API round each)

interface Episode {
  key: string;
  min: number;
  max: number;
  title: string;
  done: string;
  prompt: (g: Gen) => string;
  before?: (g: Gen) => void;
  attachments?: (g: Gen) => Obj[];
  steps: (g: Gen, n: number) => StepF[];
}

/** Core steps, then optional extra steps inserted after the first ones, then the final answer. */
function fit(core: StepF[], extras: StepF[], final: StepF, n: number): StepF[] {
  if (n - 1 < core.length) throw new Error(`generator: episode needs ${core.length + 1} rounds, got ${n}`);
  const body = core.slice();
  let k = 0;
  while (body.length < n - 1 && extras.length) {
    body.splice(Math.min(body.length, 1 + k), 0, extras[k % extras.length]);
    k++;
  }
  return [...body, final];
}

function pick<T>(g: Gen, items: readonly T[]): T {
  return g.rng.pick(items);
}

function passing(g: Gen, files: string[] | undefined, extra: { verbose?: boolean; noise?: number; header?: string } = {}): { out: string; code: number; ms: number } {
  const r = vitestOutput(g.project, g.rng, { files, verbose: extra.verbose, npmHeader: extra.header, noiseChars: extra.noise, startMs: g.now });
  return { out: r.text, code: 0, ms: r.durationMs };
}

function failing(g: Gen, files: string[] | undefined, failures: TestFailure[], extra: { verbose?: boolean; noise?: number; header?: string } = {}): { out: string; code: number; ms: number } {
  const r = vitestOutput(g.project, g.rng, { files, failures, verbose: extra.verbose, npmHeader: extra.header, noiseChars: extra.noise, startMs: g.now });
  return { out: r.text, code: 1, ms: r.durationMs };
}

function eqDiff(expected: string[], received: string[]): string[] {
  return ['- Expected', '+ Received', '', ...expected.map((l) => '- ' + l), ...received.map((l) => '+ ' + l)];
}

// Extra steps any episode can use to look around (sized reads keep the context on its trajectory).
const lookAround = {
  grep: (pattern: string, under: string, why: string): StepF => (g) => ({
    thinking: `${why} A quick search for ${pattern} will show every place that depends on it.`,
    tools: [g.grep(pattern, { under })],
  }),
  read: (rel: string, why: string): StepF => (g) => ({
    thinking: why,
    tools: [g.read(rel)],
  }),
  apiTypes: (): StepF => (g) => ({
    thinking: 'The response shapes are defined in the generated OpenAPI types; let me check what the client expects before changing anything that is visible on the wire.',
    text: 'Checking the generated API types for the affected endpoints.',
    tools: [g.read('src/types/api.generated.ts', { size: [24_000, 96_000] })],
  }),
  curl: (pathAndQuery: string): StepF => (g) => ({
    thinking: 'Let me look at what the running dev server returns now, with a large page, to check the order and the cursor.',
    tools: [g.bash(`curl -s 'http://localhost:3000${pathAndQuery}' -H "authorization: Bearer $SHELFMARK_DEV_KEY" | jq .`, 'Fetch a large page from the dev server', () => ({ out: curlJson(g, g.budgetChars(6_000, 60_000)), ms: g.rng.int(80, 400) }))],
  }),
};

interface BookmarkJson {
  id: string;
  userId: string;
  url: string;
  normalizedUrl: string;
  title: string;
  description: string | null;
  faviconUrl: null;
  isArchived: boolean;
  readAt: null;
  createdAt: string;
  updatedAt: string;
}

function curlJson(g: Gen, chars: number): string {
  const items: BookmarkJson[] = [];
  let size = 0;
  let t = Date.UTC(2026, 4, 11, 18, 0, 0);
  const topics = ['postgres', 'typescript', 'testing', 'http-caching', 'queues', 'observability', 'security'];
  while (size < chars) {
    if (g.rng.chance(0.7)) t -= g.rng.int(60_000, 9_000_000);
    const topic = g.rng.pick(topics);
    const item: BookmarkJson = {
      id: g.rng.uuid(),
      userId: '2f1c9a64-0b7e-4d35-9a51-6c0f3e2b7d18',
      url: `https://${g.rng.pick(['blog.example.dev', 'docs.example.org', 'news.example.com'])}/${topic}/${g.rng.chars(8, 'abcdefghijklmnopqrstuvwxyz')}`,
      normalizedUrl: '',
      title: `${g.rng.pick(['Notes on', 'Debugging', 'A tour of', 'Patterns for', 'Measuring'])} ${topic.replace('-', ' ')}`,
      description: g.rng.chance(0.4) ? 'Saved from the browser extension' : null,
      faviconUrl: null,
      isArchived: g.rng.chance(0.1),
      readAt: null,
      createdAt: new Date(t).toISOString(),
      updatedAt: new Date(t).toISOString(),
    };
    item.normalizedUrl = item.url;
    items.push(item);
    size += JSON.stringify(item, null, 2).length + 4;
  }
  // Once the pagination fix is in, the dev server (tsx watch) orders ties by id and puts the id in the cursor.
  const fixed = g.project.read('src/lib/pagination.ts').includes('id DESC');
  if (fixed) items.sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1));
  const last = items[items.length - 1];
  const cursor = fixed ? { createdAt: last.createdAt, id: last.id } : { createdAt: last.createdAt };
  return JSON.stringify({ items, nextCursor: Buffer.from(JSON.stringify(cursor)).toString('base64url') }, null, 2);
}

function psqlTable(columns: string[], row: () => string[], chars: number): string {
  const rows: string[][] = [];
  let size = 0;
  while (size < chars) {
    const r = row();
    rows.push(r);
    size += r.join(' | ').length + 4;
  }
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i].length)));
  const numeric = columns.map((_, i) => rows.every((r) => /^-?\d+(\.\d+)?$/.test(r[i])));
  const fmt = (r: string[]) => ' ' + r.map((v, i) => (numeric[i] ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join(' | ').trimEnd();
  const head = ' ' + columns.map((c, i) => c.padStart(Math.floor((widths[i] + c.length) / 2)).padEnd(widths[i])).join(' | ').trimEnd();
  const lines = [head, widths.map((w) => '-'.repeat(w + 2)).join('+')];
  let total = lines.join('\n').length;
  let n = 0;
  for (const r of rows) {
    const l = fmt(r);
    if (n > 0 && total + l.length + 1 > chars) break;
    lines.push(l);
    total += l.length + 1;
    n++;
  }
  return [...lines, `(${n} row${n === 1 ? '' : 's'})`, ''].join('\n');
}

function pgTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '+00');
}

// --- Episode 1: duplicated / missing bookmarks across pages -------------------------------------
const paginationEpisode: Episode = {
  key: 'pagination',
  min: 15,
  max: 17,
  title: 'fix keyset pagination on GET /bookmarks (rows sharing created_at were skipped across pages)',
  done:
    'Pagination fix: src/lib/pagination.ts now carries the row id in the cursor and compares (created_at, id) as a row value, ordering by created_at DESC, id DESC. Root cause: importNetscapeFile stamps every imported row with now() in a tight loop and the cursor keeps only milliseconds, so imported rows tie and the old `created_at < $n` cursor skipped the tied rows after a page boundary. test/pagination.test.ts gained a "ties on created_at" block; three old expectations were updated for the new cursor shape. Full suite green.',
  prompt: (g) =>
    pick(g, [
      'GET /bookmarks is returning the same bookmark twice across pages for a couple of users, and one support ticket says items "disappear" after an import. I think it is the cursor pagination. Can you dig in? Start with src/lib/pagination.ts.',
      'Support has two tickets about GET /bookmarks: one user sees duplicates between pages, another says bookmarks vanish after importing from their browser. My money is on the keyset pagination in src/lib/pagination.ts, can you take a look?',
    ]),
  steps: (_g, n) => {
    const core: StepF[] = [
      (g) => ({
        thinking:
          'Duplicates and missing rows across pages usually mean the keyset is not unique. If the cursor only carries created_at, rows that share the timestamp of the last item on a page are either skipped (with <) or repeated (with <=). Let me read the helper, the bookmark service that uses it, and find every other caller.',
        tools: [g.read('src/lib/pagination.ts'), g.read('src/services/bookmarkService.ts'), g.grep('keysetClause', { under: 'src/', mode: 'files_with_matches' })],
      }),
      (g) => ({
        thinking:
          'The cursor is { createdAt } only and the clause is created_at < $n ORDER BY created_at DESC. Every row with the same created_at as the last row of a page is skipped on the next page. Ties need a source though: ordinary inserts get distinct microsecond timestamps. The ticket mentions imports, so the importer is the first suspect.',
        text: 'The cursor only encodes `createdAt`, so rows that tie with the last item of a page are skipped. Let me check how imports set `created_at`.',
        tools: [g.read('src/services/importService.ts')],
      }),
      (g) => ({
        thinking:
          'importNetscapeFile inserts every link with now(). In Postgres now() is the start time of the current transaction... here each INSERT runs on its own, but the values are still only microseconds apart, and the cursor serializes createdAt with toISOString, which keeps milliseconds. So a batch inserted within the same millisecond ties in the cursor, and the rest of that millisecond is skipped. Either way the fix is the same: add a unique tiebreaker (id) to the order and to the cursor. First let me see what the current tests cover.',
        tools: [g.bash('npx vitest run test/pagination.test.ts', 'Run the pagination unit tests', () => passing(g, ['test/pagination.test.ts']))],
      }),
      (g) => ({
        thinking: 'All green, but none of them has two rows with the same createdAt. I will add tests for the tie case first so the fix is driven by a failing test.',
        text: "The existing tests never have two rows with the same `createdAt`. I'll add a failing test for ties first.",
        tools: [
          g.edit(
            'test/pagination.test.ts',
            "  it('returns no cursor on the last page', () => {\n    expect(toPage(rows, 5).nextCursor).toBeNull();\n  });\n});\n",
            "  it('returns no cursor on the last page', () => {\n    expect(toPage(rows, 5).nextCursor).toBeNull();\n  });\n});\n\ndescribe('ties on created_at', () => {\n  const sameInstant = new Date('2026-05-01T12:00:00.000Z');\n  const tied = ['b4', 'b3', 'b2', 'b1'].map((id) => ({ id, createdAt: sameInstant }));\n\n  it('puts the id of the last row in the cursor', () => {\n    const page = toPage(tied.slice(0, 3), 2);\n    expect(decodeCursor(page.nextCursor ?? undefined)).toEqual({ createdAt: sameInstant.toISOString(), id: 'b3' });\n  });\n\n  it('breaks ties on id in the keyset clause', () => {\n    const clause = keysetClause({ createdAt: sameInstant.toISOString(), id: 'b3' }, 2);\n    expect(clause.sql).toBe('AND (created_at, id) < ($2, $3) ORDER BY created_at DESC, id DESC');\n    expect(clause.params).toEqual([sameInstant.toISOString(), 'b3']);\n  });\n});\n",
          ),
        ],
      }),
      (g) => ({
        thinking: 'Run it to confirm both new tests fail for the right reason.',
        tools: [
          g.bash('npx vitest run test/pagination.test.ts', 'Run pagination tests (expect the new ones to fail)', () =>
            failing(g, ['test/pagination.test.ts'], [
              {
                file: 'test/pagination.test.ts', test: 'puts the id of the last row in the cursor',
                error: "AssertionError: expected { createdAt: '2026-05-01T12:00:00.000Z' } to deeply equal { createdAt: '2026-05-01T12:00:00.000Z', id: 'b3' }",
                detail: eqDiff(['Object {', '  "createdAt": "2026-05-01T12:00:00.000Z",', '  "id": "b3",', '}'], ['Object {', '  "createdAt": "2026-05-01T12:00:00.000Z",', '}']),
              },
              {
                file: 'test/pagination.test.ts', test: 'breaks ties on id in the keyset clause',
                error: "AssertionError: expected 'AND created_at < $2 ORDER BY created_at…' to be 'AND (created_at, id) < ($2, $3) ORDER…' // Object.is equality",
                detail: ['Expected: "AND (created_at, id) < ($2, $3) ORDER BY created_at DESC, id DESC"', 'Received: "AND created_at < $2 ORDER BY created_at DESC"'],
              },
            ]),
          ),
        ],
      }),
      (g) => ({
        thinking:
          'Both fail as expected. Now the fix in pagination.ts: the cursor payload gets an id, decodeCursor requires it, keysetClause compares the row value (created_at, id) which Postgres evaluates lexicographically and can serve from an index on (user_id, created_at DESC, id DESC), and toPage puts the last id in the cursor.',
        text: 'Both fail for the right reason. Now the fix: carry the id in the cursor and compare `(created_at, id)` as a row value.',
        tools: [g.edit('src/lib/pagination.ts', 'export interface CursorPayload {\n    createdAt: string;\n}', 'export interface CursorPayload {\n    createdAt: string;\n    /** Tiebreaker for rows that share created_at. */\n    id: string;\n}', { expectError: true })],
      }),
      (g) => ({
        thinking: 'The file uses two-space indentation, I used four. Retry with the exact text.',
        tools: [g.edit('src/lib/pagination.ts', 'export interface CursorPayload {\n  createdAt: string;\n}', 'export interface CursorPayload {\n  createdAt: string;\n  /** Tiebreaker for rows that share created_at. */\n  id: string;\n}')],
      }),
      (g) => ({
        thinking: 'Now decodeCursor (require a string id, old cursors without one are treated as no cursor, which restarts from the first page: acceptable), and both branches of keysetClause.',
        tools: [
          g.edit('src/lib/pagination.ts', "    if (typeof parsed?.createdAt !== 'string') return null;\n    return { createdAt: parsed.createdAt };", "    if (typeof parsed?.createdAt !== 'string' || typeof parsed?.id !== 'string') return null;\n    return { createdAt: parsed.createdAt, id: parsed.id };"),
          g.edit('src/lib/pagination.ts', "    return { sql: 'ORDER BY created_at DESC', params: [] };", "    return { sql: 'ORDER BY created_at DESC, id DESC', params: [] };"),
          g.edit('src/lib/pagination.ts', "    sql: 'AND created_at < $' + startIndex + ' ORDER BY created_at DESC',\n    params: [cursor.createdAt],", "    sql: 'AND (created_at, id) < ($' + startIndex + ', $' + (startIndex + 1) + ') ORDER BY created_at DESC, id DESC',\n    params: [cursor.createdAt, cursor.id],"),
        ],
      }),
      (g) => ({
        thinking: 'And toPage: constrain T to have an id and put it in the cursor.',
        tools: [
          g.edit('src/lib/pagination.ts', 'export function toPage<T extends { createdAt: Date }>(rows: T[], limit: number): Page<T> {', 'export function toPage<T extends { id: string; createdAt: Date }>(rows: T[], limit: number): Page<T> {'),
          g.edit('src/lib/pagination.ts', 'encodeCursor({ createdAt: last.createdAt.toISOString() })', 'encodeCursor({ createdAt: last.createdAt.toISOString(), id: last.id })'),
        ],
      }),
      (g) => ({
        thinking: 'Run the file again. I expect the old expectations about the cursor shape and the SQL text to fail now.',
        tools: [
          g.bash('npx vitest run test/pagination.test.ts', 'Run pagination tests after the fix', () =>
            failing(g, ['test/pagination.test.ts'], [
              { file: 'test/pagination.test.ts', test: 'round-trips a cursor', error: "AssertionError: expected null to deeply equal { createdAt: '2026-01-05T10:00:00.000Z' }", detail: eqDiff(['Object {', '  "createdAt": "2026-01-05T10:00:00.000Z",', '}'], ['null']) },
              { file: 'test/pagination.test.ts', test: 'orders newest first without a cursor', error: "AssertionError: expected 'ORDER BY created_at DESC, id DESC' to be 'ORDER BY created_at DESC' // Object.is equality", detail: ['Expected: "ORDER BY created_at DESC"', 'Received: "ORDER BY created_at DESC, id DESC"'] },
              { file: 'test/pagination.test.ts', test: 'filters on created_at after the cursor', error: "AssertionError: expected 'AND (created_at, id) < ($2, $3) ORDER…' to be 'AND created_at < $2 ORDER BY created_at…' // Object.is equality", detail: ['Expected: "AND created_at < $2 ORDER BY created_at DESC"', 'Received: "AND (created_at, id) < ($2, $3) ORDER BY created_at DESC, id DESC"'] },
            ]),
          ),
        ],
      }),
      (g) => ({
        thinking: 'These three encode the old behaviour; update them to the new cursor shape and SQL.',
        text: 'The three remaining failures are the old expectations for the cursor shape; updating them.',
        tools: [
          g.edit('test/pagination.test.ts', "    const cursor = encodeCursor({ createdAt: '2026-01-05T10:00:00.000Z' });\n    expect(decodeCursor(cursor)).toEqual({ createdAt: '2026-01-05T10:00:00.000Z' });", "    const cursor = encodeCursor({ createdAt: '2026-01-05T10:00:00.000Z', id: 'b7' });\n    expect(decodeCursor(cursor)).toEqual({ createdAt: '2026-01-05T10:00:00.000Z', id: 'b7' });"),
          g.edit('test/pagination.test.ts', "    expect(keysetClause(null, 2).sql).toBe('ORDER BY created_at DESC');", "    expect(keysetClause(null, 2).sql).toBe('ORDER BY created_at DESC, id DESC');"),
          g.edit('test/pagination.test.ts', "    const clause = keysetClause({ createdAt: '2026-01-05T10:00:00.000Z' }, 2);\n    expect(clause.sql).toBe('AND created_at < $2 ORDER BY created_at DESC');\n    expect(clause.params).toEqual(['2026-01-05T10:00:00.000Z']);", "    const clause = keysetClause({ createdAt: '2026-01-05T10:00:00.000Z', id: 'b7' }, 2);\n    expect(clause.sql).toBe('AND (created_at, id) < ($2, $3) ORDER BY created_at DESC, id DESC');\n    expect(clause.params).toEqual(['2026-01-05T10:00:00.000Z', 'b7']);"),
        ],
      }),
      (g) => ({
        thinking: 'Re-run the pagination tests.',
        tools: [g.bash('npx vitest run test/pagination.test.ts', 'Run pagination tests', () => passing(g, ['test/pagination.test.ts']))],
      }),
      lookAround.curl('/bookmarks?limit=100'),
      (g) => ({
        thinking: 'Now the whole suite: every list endpoint goes through keysetClause, so the route tests that page with a cursor exercise the new SQL against the test database.',
        tools: [g.bash('npm test 2>&1', 'Run the full test suite', () => passing(g, undefined, { header: 'test vitest run', noise: g.budgetChars(2_000, 110_000) }), { timeout: 300000 })],
      }),
    ];
    const extras: StepF[] = [
      lookAround.grep("created_at DESC", 'src/', 'Other queries may order by created_at on their own instead of going through the helper.'),
      lookAround.read('src/routes/bookmarks.ts', 'Let me check how the route passes the cursor through, in case it parses it itself.'),
    ];
    const final: StepF = () => ({
      thinking: 'Summarize: cause, fix, tests, and the follow-ups (index, old cursors).',
      text:
        "Fixed. The cursor pagination skipped rows that share `created_at` with the last item of a page.\n\n**Cause**\n- The cursor only carried `createdAt` and the query used `created_at < $n`, so ties at a page boundary were skipped (and clients retrying with an older cursor saw repeats).\n- Imports create the ties: `importNetscapeFile` stamps every row with `now()` in a tight loop, and the cursor keeps only milliseconds.\n\n**Fix** (`src/lib/pagination.ts`)\n- The cursor now holds `{ createdAt, id }`; `decodeCursor` rejects cursors without an id (old cursors restart at page one).\n- `keysetClause` compares the row value `(created_at, id) < ($n, $n+1)` and orders by `created_at DESC, id DESC`.\n- `toPage` requires an `id` on rows and puts the last one in the cursor.\n\n**Tests**: two new tests for ties in `test/pagination.test.ts`, three old expectations updated, full suite green.\n\nFollow-ups worth doing:\n1. An index on `(user_id, created_at DESC, id DESC)` so the row comparison stays an index scan on large accounts.\n2. Keep the original `ADD_DATE` on import instead of `now()`: that removes most ties at the source.",
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};

// --- Episode 2: how does auth work? (Explore subagent in <session>/subagents) ------------------
const exploreEpisode: Episode = {
  key: 'explore',
  min: 2,
  max: 3,
  title: 'map how requests are authenticated and where the rate limiter sits',
  done:
    'Auth overview (via an Explore subagent): requireUser in src/plugins/auth.ts resolves a Bearer sk_ API key (prefix + sha256 lookup in api_keys joined to users.plan) or the signed sm_session cookie (src/lib/session.ts, HMAC-SHA256, 30 days); then it takes one token from an in-memory per-plan RateLimiter (src/services/rateLimiter.ts, free 10/s burst 20, pro 50/s burst 100). The limiter state is per process.',
  prompt: () =>
    'Before I touch rate limiting: can you map out how a request gets authenticated? Session cookie vs API key, where the plan comes from, and where the limiter sits. Use a subagent if it helps, I do not need every file in the conversation.',
  attachments: () => [{ type: 'task_reminder', content: [], itemCount: 0 }],
  steps: (_g, n) => {
    const report =
      "## How a request is authenticated\n\n**Entry point**: every protected route declares `{ preHandler: requireUser }` (`src/plugins/auth.ts`). 34 route handlers across 9 route files use it; `/health` is the only public route.\n\n**1. API key** (header `Authorization: Bearer sk_...`)\n- `resolveApiKey` takes characters 3..11 of the token as the key prefix and hashes the whole token with SHA-256.\n- One query joins `api_keys` to `users` on `prefix` and `hashed_secret`, skipping expired keys, and returns `user_id`, `users.plan` and the key's `scopes`.\n- It fires an un-awaited `UPDATE api_keys SET last_used_at = now()` (errors from it are not handled).\n\n**2. Session cookie** (`sm_session`, set by the web app)\n- `verifySession` in `src/lib/session.ts`: `base64url(JSON payload) + '.' + HMAC-SHA256(secret, payload)`, compared with `timingSafeEqual`; payload is `{ userId, issuedAt }` and expires after 30 days.\n- The plan is then read from `users.plan`; session users get scopes `['read', 'write']`.\n\n**3. Rate limiting** (after authentication, before the handler)\n- `limiters[user.plan].take(user.id)`: one `RateLimiter` per plan, keyed by user id, from `src/services/rateLimiter.ts` (`PLAN_LIMITS`: free 10/s burst 20, pro 50/s burst 100).\n- Sets `x-ratelimit-remaining`; throws `RateLimitedError` (429 with `retry-after`) when the bucket is empty.\n- State lives in a `Map` inside the process, swept every 60 s. With more than one instance each one has its own buckets.\n\n**Things that looked off**\n- In `RateLimiter.take`, `elapsed` is in milliseconds but is multiplied by `refillPerSecond`.\n- `retryAfterMs` divides by a per-second rate, so it is in seconds, not milliseconds.\n- `git log` shows the limiter was last touched in \"auth: per-plan rate limits\" three weeks ago; no test covers refill over less than a second.";
    const subSteps: StepF[] = [
      (g) => ({ text: "I'll start by finding the files involved in authentication and rate limiting.", tools: [g.grep('requireUser|verifySession|resolveApiKey|RateLimiter', { under: 'src/', mode: 'files_with_matches' })] }),
      (g) => ({ tools: [g.read('src/plugins/auth.ts'), g.read('src/lib/session.ts'), g.read('src/services/rateLimiter.ts')] }),
      (g) => ({ text: 'Now how widely requireUser is used across the routes.', tools: [g.grep('preHandler: requireUser', { under: 'src/routes/' })] }),
      (g) => ({
        tools: [
          g.read('src/db/migrations/0005_api_keys.sql'),
          g.bash('git log --oneline -6 -- src/plugins/auth.ts src/services/rateLimiter.ts', 'Recent history of the auth files', () => ({
            out: ['4e8d21a auth: per-plan rate limits', '9b13f07 auth: accept API keys in the Authorization header', 'c2a6e55 session: timing-safe signature check', '71f0d3b auth: move session parsing to lib/session', 'a05c9e2 initial fastify app'].join('\n'),
          })),
        ],
      }),
      () => ({ text: report, tools: [] }),
    ];
    const core: StepF[] = [
      (g) => ({
        thinking: 'This is a cross-cutting question. An Explore subagent can trace the call graph and report back a summary while I read the auth plugin myself, which keeps the detail out of this conversation.',
        tools: [
          g.agent('Map request authentication', "Map how an incoming request is authenticated in this Fastify app (cwd). Cover: the session cookie path, the API key path, where the user's plan comes from, and where and how rate limiting is applied. Report file paths, function names and anything that looks wrong. Do not modify files.", 'Explore', subSteps),
          g.read('src/plugins/auth.ts'),
        ],
      }),
    ];
    const extras: StepF[] = [lookAround.read('src/lib/session.ts', 'The report mentions the cookie format; let me confirm the expiry handling myself.')];
    const final: StepF = () => ({
      thinking: 'Condense the subagent report for the user and point at the two limiter bugs, since that is what they are about to work on.',
      text:
        "Here's the flow (`src/plugins/auth.ts`):\n\n1. **API key** (`Authorization: Bearer sk_...`): the 8-char prefix plus a SHA-256 of the whole token are looked up in `api_keys` joined to `users`, giving the user id, `users.plan` and the key's scopes.\n2. **Session cookie** (`sm_session`): `verifySession` checks an HMAC-SHA256 signature (timing-safe) and a 30-day age, then the plan is read from `users`.\n3. **Rate limit**: after auth, `limiters[plan].take(user.id)`, one in-memory token bucket per plan keyed by user id (free 10/s burst 20, pro 50/s burst 100). It sets `x-ratelimit-remaining` and throws a 429 with `retry-after` when empty.\n\nTwo things to know before you change it:\n- **Refill bug**: `RateLimiter.take` multiplies an elapsed time in *milliseconds* by `refillPerSecond`, so a bucket refills 1000x too fast. Any pause of a few ms refills it completely.\n- The limiter is **per process**: with several instances behind the load balancer each one has its own buckets.\n\nAlso, `retryAfterMs` is actually in seconds.",
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};

// --- Episode 3: CI red on url normalization ------------------------------------------------------
const urlEpisode: Episode = {
  key: 'url',
  min: 8,
  max: 10,
  title: 'fix normalizeUrl lowercasing paths and query values (CI red on test/url.test.ts)',
  done:
    'URL normalization fix: normalizeUrl in src/lib/url.ts no longer lowercases the whole input (new URL() already lowercases scheme and host; path and query are case-sensitive). test/url.test.ts green. Note for later: rows saved while the bug was live have a lowercased normalized_url.',
  prompt: () => 'CI on main went red an hour ago, test/url.test.ts. Can you fix it without changing what counts as a duplicate bookmark? Host case and tracking params should still dedupe.',
  attachments: () => [{ type: 'task_reminder', content: [], itemCount: 0 }],
  steps: (_g, n) => {
    const core: StepF[] = [
      (g) => ({
        thinking: 'Reproduce first.',
        tools: [
          g.bash('npx vitest run test/url.test.ts', 'Reproduce the failing url tests', () =>
            failing(g, ['test/url.test.ts'], [
              { file: 'test/url.test.ts', test: 'keeps the case of the path', error: "AssertionError: expected 'https://example.com/docs/api-reference' to be 'https://example.com/Docs/API-Reference' // Object.is equality", detail: ['Expected: "https://example.com/Docs/API-Reference"', 'Received: "https://example.com/docs/api-reference"'] },
              { file: 'test/url.test.ts', test: 'keeps the case of query values', error: "AssertionError: expected 'https://video.example/watch?v=zx81lmq' to be 'https://video.example/watch?v=Zx81LmQ' // Object.is equality", detail: ['Expected: "https://video.example/watch?v=Zx81LmQ"', 'Received: "https://video.example/watch?v=zx81lmq"'] },
            ]),
          ),
        ],
      }),
      (g) => ({
        thinking: 'Path and query values come out lowercased. Something lowercases the whole string.',
        tools: [g.read('src/lib/url.ts')],
      }),
      (g) => ({
        thinking: 'input.trim().toLowerCase() before new URL(): that lowercases everything. The WHATWG URL parser already lowercases the scheme and host, so the toLowerCase is redundant for what it tries to do and wrong for the rest. Let me see when it came in.',
        tools: [g.bash("git log -3 --format='%h %an %ar %s' -- src/lib/url.ts", 'Recent changes to url.ts', () => ({ out: ["3c71e0a Jonas Berg 2 hours ago normalize: lowercase urls before parsing (dedupe HTTP://Example.com)", '8f02b6d Maya Lind 5 weeks ago url: drop mc_eid and ref tracking params', '1d9a4c3 Maya Lind 3 months ago bookmarks: dedupe on normalized url'].join('\n') }))],
      }),
      (g) => ({
        thinking: 'The recent commit wanted "HTTP://Example.com" to dedupe with "http://example.com", which new URL() already does. Drop the toLowerCase and leave a comment so it does not come back.',
        text: "The regression is from `3c71e0a`: it lowercases the whole URL before parsing. `new URL()` already lowercases the scheme and host, so I'll remove it and leave a comment.",
        tools: [g.edit('src/lib/url.ts', '  const url = new URL(input.trim().toLowerCase());', '  // new URL() already lowercases the scheme and host; the path and query are case-sensitive.\n  const url = new URL(input.trim());')],
      }),
      (g) => ({
        thinking: 'Re-run the url tests, including the host-case test that the commit was trying to satisfy.',
        tools: [g.bash('npx vitest run test/url.test.ts', 'Run url tests', () => passing(g, ['test/url.test.ts']))],
      }),
      (g) => ({
        thinking: 'Green. Check who else calls normalizeUrl: bookmarks dedupe on normalized_url with a unique index, so anything saved in the last two hours has a lowercased normalized_url that will no longer match a fresh normalization.',
        tools: [g.grep('normalizeUrl\\(', { under: 'src/' })],
      }),
      (g) => ({
        thinking: 'How many rows in the dev database were written with a lowercased normalized_url since that commit? The dev database is a copy of staging from this morning.',
        tools: [
          g.bash(`psql "$DATABASE_URL" -c "select url, normalized_url, created_at from bookmarks where created_at > now() - interval '3 hours' and url <> normalized_url and lower(url) = normalized_url order by created_at desc"`, 'List bookmarks saved since the regression', () => {
            let t = Date.UTC(2026, 4, 12, 8, 40, 0);
            const hosts = ['docs.example.org', 'video.example', 'github.example.com', 'wiki.example.net', 'blog.example.dev'];
            const out = psqlTable(['url', 'normalized_url', 'created_at'], () => {
              t -= g.rng.int(2_000, 60_000);
              const path = '/' + [g.rng.pick(['Guides', 'watch', 'Maya-L', 'Special:Random', 'posts']), g.rng.chars(g.rng.int(5, 11), 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789')].join('/');
              const url = 'https://' + g.rng.pick(hosts) + path;
              return [url, url.toLowerCase(), pgTime(t)];
            }, g.budgetChars(3_000, 60_000));
            return { out, ms: g.rng.int(90, 900) };
          }),
        ],
      }),
    ];
    const extras: StepF[] = [
      lookAround.read('test/url.test.ts', 'Let me read the test file to see which expectations the recent commit added.'),
      lookAround.grep('sameResource', 'src/', 'sameResource wraps normalizeUrl.'),
    ];
    const final: StepF = () => ({
      thinking: 'Report fix and the data caveat.',
      text:
        "Fixed: `normalizeUrl` lowercased the entire URL before parsing (commit `3c71e0a`), which broke case-sensitive paths and query values. `new URL()` already lowercases the scheme and host, so dedupe on `HTTP://Example.COM` vs `http://example.com` still works without it. `test/url.test.ts` is green again.\n\nOne caveat: bookmarks created since that commit landed (about two hours on main) have a lowercased `normalized_url`. If it was deployed, a one-off backfill (`UPDATE bookmarks SET normalized_url = ...` from `url`) avoids duplicates when those users save the same link again. I can write it if you want.",
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};

// --- Episode 4: rate limiter bursts --------------------------------------------------------------
const rateLimitEpisode: Episode = {
  key: 'ratelimit',
  min: 7,
  max: 9,
  title: 'fix the rate limiter letting bursts through (ms vs seconds in the refill)',
  done:
    'Rate limiter fix: RateLimiter.take in src/services/rateLimiter.ts converts the elapsed time to seconds before multiplying by refillPerSecond (it refilled 1000x too fast) and retryAfterMs is now in milliseconds. Confirmed from logs/dev.log (bursts of 40+ requests all 200). Two tests added to test/rateLimiter.test.ts.',
  prompt: () =>
    'OK, rate limiting. Free plan is supposed to be 10 req/s with a burst of 20, but people fire 50+ requests in a burst and get 200s. I reproduced it locally and the dev server log is in logs/dev.log.',
  steps: (_g, n) => {
    const core: StepF[] = [
      (g) => ({
        thinking: 'The subagent already flagged the unit mismatch. Read the limiter and its tests together.',
        tools: [g.read('src/services/rateLimiter.ts'), g.read('test/rateLimiter.test.ts')],
      }),
      (g) => ({
        thinking: 'With elapsed in ms, even 3 ms between two requests adds 30 tokens, so the bucket is always full during a burst. The tests advance the fake clock by whole seconds and only check a full refill, which is why they pass. Let me confirm the pattern in the log before changing anything.',
        text: "`elapsed` is in milliseconds but multiplied by a per-second rate, so any gap of a few ms refills the bucket. Let me confirm in the log.",
        tools: [g.read('logs/dev.log', { size: [30_000, 116_000] })],
      }),
      (g) => ({
        thinking: 'The log shows bursts of dozens of GETs a few ms apart from one user, all 200, and the rate limit checks never go to 0. Count them to be sure there is no 429 at all.',
        tools: [
          g.bash("grep -c '\"msg\":\"rate limit check\"' logs/dev.log; grep -c '\"statusCode\":429' logs/dev.log", 'Count rate limit checks and 429s in the dev log', () => {
            const log = g.project.read('logs/dev.log');
            const checks = log.split('\n').filter((l) => l.includes('"msg":"rate limit check"')).length;
            return { out: `${checks}\n0`, code: 1 };
          }),
        ],
      }),
      (g) => ({
        thinking: 'grep -c exits 1 when the count is 0, that is the 429 count: none at all. Fix both unit problems: the refill and retryAfterMs.',
        text: 'No 429s at all in the log (grep exits 1 on a zero count). Fixing the refill and the retry-after units:',
        tools: [
          g.edit('src/services/rateLimiter.ts', '    const elapsed = at - bucket.updatedAt;\n    bucket.tokens = Math.min(this.options.burst, bucket.tokens + elapsed * this.options.refillPerSecond);', '    const elapsedSeconds = (at - bucket.updatedAt) / 1000;\n    bucket.tokens = Math.min(this.options.burst, bucket.tokens + elapsedSeconds * this.options.refillPerSecond);'),
          g.edit('src/services/rateLimiter.ts', '      retryAfterMs: Math.ceil(missing / this.options.refillPerSecond),', '      retryAfterMs: Math.ceil((missing / this.options.refillPerSecond) * 1000),'),
        ],
      }),
      (g) => ({
        thinking: 'Add tests that would have caught it: a drained bucket must not refill within 100 ms, and retryAfterMs must be in ms.',
        tools: [
          g.edit('test/rateLimiter.test.ts', "  it('keeps buckets separate per key', () => {", "  it('does not refill a drained bucket within 100ms', () => {\n    const c = clock();\n    const limiter = new RateLimiter({ refillPerSecond: 10, burst: 20 }, c.now);\n    for (let i = 0; i < 20; i++) limiter.take('u1');\n    c.advance(100);\n    expect(limiter.take('u1').allowed).toBe(true);\n    expect(limiter.take('u1').allowed).toBe(false);\n  });\n\n  it('reports retry-after in milliseconds', () => {\n    const c = clock();\n    const limiter = new RateLimiter({ refillPerSecond: 10, burst: 1 }, c.now);\n    limiter.take('u1');\n    expect(limiter.take('u1').retryAfterMs).toBe(100);\n  });\n\n  it('keeps buckets separate per key', () => {"),
        ],
      }),
      (g) => ({
        thinking: 'Run the limiter tests.',
        tools: [g.bash('npx vitest run test/rateLimiter.test.ts', 'Run rate limiter tests', () => passing(g, ['test/rateLimiter.test.ts']))],
      }),
    ];
    const extras: StepF[] = [
      lookAround.grep('refillPerSecond|retryAfterMs', 'src/', 'retryAfterMs also feeds the retry-after header.'),
      lookAround.read('src/lib/errors.ts', 'The 429 handler converts retryAfterMs to the retry-after header; let me check it expects milliseconds.'),
    ];
    const final: StepF = () => ({
      thinking: 'Summarize and mention the per-process limitation again.',
      text:
        "Fixed in `src/services/rateLimiter.ts`:\n\n- **Refill**: the elapsed time is converted to seconds before multiplying by `refillPerSecond`. Before, 3 ms between two requests added 30 tokens, so a burst never drained the bucket. `logs/dev.log` shows exactly that: bursts of 40+ requests a few ms apart, every one a 200, and not a single 429.\n- **retry-after**: `retryAfterMs` was in seconds; it is now in milliseconds, which is what `errorHandler` expects when it builds the `retry-after` header.\n\nTwo new tests in `test/rateLimiter.test.ts` (no refill within 100 ms, retry-after in ms); the limiter tests pass.\n\nStill true after this fix: buckets are per process. If you run more than one instance, the effective limit is multiplied by the instance count. Moving the buckets to Postgres or Redis would be the next step if that matters.",
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};

// --- Episode 5: tag prefix search (new branch, new files, accept-edits mode) -------------------
const TAG_SEARCH_TEST = String.raw`import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from './helpers';

describe('GET /tags/search', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp();
    for (const name of ['typescript', 'types', 'Tyre', 'testing', '50%_off', '50-50', '5000']) {
      await t.as('alice').post('/tags', { name });
    }
    await t.as('bob').post('/tags', { name: 'typography' });
  });

  afterAll(async () => {
    await t.close();
  });

  it('returns the tags of the caller that start with the prefix, ignoring case', async () => {
    const res = await t.as('alice').get('/tags/search?q=TY');
    expect(res.statusCode).toBe(200);
    expect(res.json().items.map((tag) => tag.name).sort()).toEqual(['Tyre', 'types', 'typescript']);
  });

  it('treats % and _ as literal characters', async () => {
    const res = await t.as('alice').get('/tags/search?q=50%25_');
    expect(res.json().items.map((tag) => tag.name)).toEqual(['50%_off']);
  });

  it('caps the result at the requested limit', async () => {
    const res = await t.as('alice').get('/tags/search?q=t&limit=2');
    expect(res.json().items).toHaveLength(2);
  });

  it('rejects an empty prefix', async () => {
    const res = await t.as('alice').get('/tags/search?q=');
    expect(res.statusCode).toBe(400);
  });
});
`;

const tagSearchEpisode: Episode = {
  key: 'tags',
  min: 14,
  max: 16,
  title: 'add GET /tags/search (case-insensitive prefix search for tag autocomplete) on branch feat/tag-prefix-search',
  done:
    'Tag prefix search on branch feat/tag-prefix-search: TagService.searchByPrefix (lower(name) LIKE escaped prefix, most used first, limit 1..10) in src/services/tagService.ts, GET /tags/search with a zod query schema in src/routes/tags.ts, migration src/db/migrations/0009_tags_name_prefix.sql (text_pattern_ops index, CONCURRENTLY), tests in test/tags.search.test.ts (including % and _ escaping, found by a failing test). Typecheck clean.',
  before: (g) => g.permissionModeLine('acceptEdits'),
  prompt: () =>
    "New feature, let's do it on a branch: GET /tags/search?q=<prefix> should return the caller's tags whose name starts with the prefix, case-insensitive, most used first, max 10. It's for the autocomplete in the web app so it has to be fast. Tests please.",
  steps: (_g, n) => {
    const core: StepF[] = [
      (g) => ({
        thinking: 'Branch first. The working tree still has the uncommitted fixes from earlier; they will come along to the new branch, which the user can sort out when committing.',
        tools: [
          g.bash('git status --short && git checkout -b feat/tag-prefix-search', 'Create the feature branch', () => {
            const { modified, added } = g.project.changed();
            const out = [...modified.map((p) => ' M ' + p), ...added.map((p) => '?? ' + p), "Switched to a new branch 'feat/tag-prefix-search'"].join('\n');
            g.gitBranch = 'feat/tag-prefix-search';
            return { out };
          }),
        ],
      }),
      (g) => ({
        thinking: 'Read the tag route, the service and the tags migration to see the existing indexes.',
        tools: [g.read('src/routes/tags.ts'), g.read('src/services/tagService.ts'), g.read('src/db/migrations/0002_tags.sql')],
      }),
      lookAround.apiTypes(),
      (g) => ({
        thinking:
          'Design: lower(t.name) LIKE lower($2) || \'%\' with the user id first. The existing unique index on (user_id, lower(name)) uses the default operator class, which cannot serve LIKE prefix matches unless the database collation is C; a second index with text_pattern_ops can. Usage count comes from the bookmark_tags join like listForUser. Tests first, including a prefix that contains LIKE wildcards.',
        text: "Plan: a `searchByPrefix` query on `lower(name) LIKE prefix || '%'`, a `text_pattern_ops` index so the prefix match can use it, and the route. Tests first:",
        tools: [g.write('test/tags.search.test.ts', TAG_SEARCH_TEST)],
      }),
      (g) => ({
        thinking: 'Service method next, same SELECT as listForUser with usage counts.',
        tools: [
          g.edit(
            'src/services/tagService.ts',
            '  async create(userId: string, name: string, color: string | null): Promise<Tag> {',
            "  /** Tags of the user whose name starts with prefix (case-insensitive), most used first. */\n  async searchByPrefix(userId: string, prefix: string, limit = 10): Promise<Tag[]> {\n    const { rows } = await this.db.query<TagRow>(\n      SELECT_WITH_USAGE +\n        \"WHERE t.user_id = $1 AND lower(t.name) LIKE lower($2) || '%' \" +\n        'GROUP BY t.id ORDER BY usage_count DESC, lower(t.name) LIMIT $3',\n      [userId, prefix, limit],\n    );\n    return rows.map(toTag);\n  }\n\n  async create(userId: string, name: string, color: string | null): Promise<Tag> {",
          ),
        ],
      }),
      (g) => ({
        thinking: 'Route: validate q and limit with zod, register before /tags/:id style routes (no conflict here since it is GET /tags/search vs PATCH/DELETE /tags/:id, but keep it next to GET /tags).',
        tools: [
          g.edit('src/routes/tags.ts', 'const idParams = z.object({ id: z.string().uuid() });', 'const idParams = z.object({ id: z.string().uuid() });\nconst searchQuery = z.object({\n  q: z.string().trim().min(1).max(64),\n  limit: z.coerce.number().int().min(1).max(10).default(10),\n});'),
          g.edit('src/routes/tags.ts', "  app.post('/tags', { preHandler: requireUser }, async (req, reply) => {", "  app.get('/tags/search', { preHandler: requireUser }, async (req) => {\n    const query = searchQuery.parse(req.query);\n    return { items: await tags.searchByPrefix(req.user.id, query.q, query.limit) };\n  });\n\n  app.post('/tags', { preHandler: requireUser }, async (req, reply) => {"),
        ],
      }),
      (g) => ({
        thinking: 'Migration for the index. CONCURRENTLY so it does not lock tags on production; the migration runner runs each file outside a transaction when it sees CONCURRENTLY (as the README of the migrations says).',
        tools: [g.write('src/db/migrations/0009_tags_name_prefix.sql', "-- Prefix search for tag autocomplete (GET /tags/search).\n-- text_pattern_ops lets lower(name) LIKE 'abc%' use the index whatever the database collation is.\nCREATE INDEX CONCURRENTLY IF NOT EXISTS tags_user_lower_name_prefix_idx\n  ON tags (user_id, lower(name) text_pattern_ops);\n")],
      }),
      (g) => ({
        thinking: 'Run the new tests together with the existing tag tests.',
        tools: [
          g.bash('npx vitest run test/tags.search.test.ts test/tags.test.ts', 'Run tag tests', () =>
            failing(g, ['test/tags.search.test.ts', 'test/tags.test.ts'], [
              { file: 'test/tags.search.test.ts', test: 'treats % and _ as literal characters', error: "AssertionError: expected [ '50%_off', '50-50', '5000' ] to deeply equal [ '50%_off' ]", detail: eqDiff(['Array [', '  "50%_off",', ']'], ['Array [', '  "50%_off",', '  "50-50",', '  "5000",', ']']) },
            ]),
          ),
        ],
      }),
      (g) => ({
        thinking: "As the test predicted: % and _ in the user's prefix act as wildcards. Escape them (and the backslash, which is LIKE's default escape character in Postgres) before building the pattern.",
        text: 'The wildcard test caught it: `%` and `_` in the prefix act as LIKE wildcards. Escaping them:',
        tools: [
          g.edit('src/services/tagService.ts', "const SELECT_WITH_USAGE =", String.raw`/** Escapes LIKE wildcards so user input matches literally (backslash is the default escape). */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => '\\' + c);
}

const SELECT_WITH_USAGE =`),
          g.edit('src/services/tagService.ts', '      [userId, prefix, limit],', '      [userId, escapeLike(prefix), limit],'),
        ],
      }),
      (g) => ({
        thinking: 'Re-run.',
        tools: [g.bash('npx vitest run test/tags.search.test.ts test/tags.test.ts', 'Run tag tests', () => passing(g, ['test/tags.search.test.ts', 'test/tags.test.ts']))],
      }),
      (g) => ({
        thinking: 'Typecheck too, the tests are part of the tsconfig.',
        tools: [
          g.bash('npx tsc --noEmit', 'Typecheck', () => ({
            out: g.project
              .read('test/tags.search.test.ts')
              .split('\n')
              .map((l, i) => (l.includes('.map((tag) =>') ? `test/tags.search.test.ts(${i + 1},${l.indexOf('(tag)') + 2}): error TS7006: Parameter 'tag' implicitly has an 'any' type.` : ''))
              .filter(Boolean)
              .join('\n'),
            code: 2,
            ms: g.rng.int(5_000, 11_000),
          })),
        ],
      }),
      (g) => ({
        thinking: 'res.json() is any, so the callback parameter needs a type under noImplicitAny. Fix both occurrences at once.',
        tools: [g.edit('test/tags.search.test.ts', '.map((tag) => tag.name)', '.map((tag: { name: string }) => tag.name)', { replaceAll: true })],
      }),
      (g) => ({
        thinking: 'Typecheck and the new tests once more.',
        tools: [
          g.bash('npx tsc --noEmit && npx vitest run test/tags.search.test.ts', 'Typecheck and run the search tests', () => {
            const r = passing(g, ['test/tags.search.test.ts']);
            return { out: r.out, ms: r.ms + g.rng.int(5_000, 9_000) };
          }),
        ],
      }),
    ];
    const extras: StepF[] = [
      lookAround.read('test/tags.test.ts', 'Let me look at the existing tag tests to follow their setup style.'),
      lookAround.grep('tagRoutes|TagService', 'src/', 'Check where the tag service and routes are wired.'),
    ];
    const final: StepF = () => ({
      thinking: 'Summarize the feature and mention the migration needs to run.',
      text:
        "Done, on branch `feat/tag-prefix-search`:\n\n- **`GET /tags/search?q=<prefix>&limit=<1..10>`** (`src/routes/tags.ts`): `q` is trimmed and required, `limit` defaults to 10.\n- **`TagService.searchByPrefix`** (`src/services/tagService.ts`): `lower(name) LIKE lower(prefix) || '%'` for the caller only, ordered by usage count then name. `escapeLike` makes `%`, `_` and `\\` in the prefix match literally (the test for it failed before the escape).\n- **Migration `0009_tags_name_prefix.sql`**: `(user_id, lower(name) text_pattern_ops)` index, created `CONCURRENTLY`, so the prefix match is an index range scan whatever the collation.\n- **Tests**: `test/tags.search.test.ts` (case-insensitivity, caller isolation, wildcards, limit, empty prefix). Tag tests and `tsc --noEmit` pass.\n\nRun `npm run db:migrate` locally before trying it against the dev server. The working tree also still has the earlier fixes (pagination, url, rate limiter), uncommitted.",
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};

// --- Episode 6: keep ADD_DATE on import ----------------------------------------------------------
const importEpisode: Episode = {
  key: 'import',
  min: 6,
  max: 8,
  title: 'keep the ADD_DATE of Netscape exports as created_at when importing',
  done:
    'Import dates: parseNetscapeBookmarks reads ADD_DATE (seconds since the epoch) into addedAt via parseAddDate, and importNetscapeFile inserts coalesce($5, now()) as created_at, so imported bookmarks keep their original dates. Tests added to test/import.test.ts; checked against test/fixtures/netscape-export.html.',
  before: (g) => {
    g.now += g.rng.int(180_000, 420_000);
    g.localCommand('npm run db:migrate', '\n> shelfmark@0.9.0 db:migrate\n> node scripts/migrate.mjs\n\napplied 0009_tags_name_prefix.sql (concurrently) in 412ms\n1 migration applied, 8 already up to date\n');
    const rel = 'src/services/importService.ts';
    const before = g.project.read(rel);
    const anchor = '    const { rowCount } = await db.query(';
    g.project.write(rel, before.replace(anchor, '    // TODO(maya): keep ADD_DATE from the export instead of now()\n' + anchor));
  },
  attachments: (g) => {
    const rel = 'src/services/importService.ts';
    const lines = g.project.read(rel).split('\n');
    const at = lines.findIndex((l) => l.includes('TODO(maya)'));
    return [{ type: 'edited_text_file', filename: g.project.abs(rel), snippet: lines.slice(at - 1, at + 5).map((l, i) => `${at + i}\t${l}`).join('\n') }];
  },
  prompt: () =>
    'Migration ran fine locally. Next: imports should keep the ADD_DATE from the export instead of stamping everything with now(), that also removes most of the ties we saw this morning. I left a TODO in importService. test/fixtures/netscape-export.html is a real-ish export from my browser if you want something to try it on.',
  steps: (_g, n) => {
    const core: StepF[] = [
      (g) => ({
        thinking: 'Read the importer (it changed: the user added a TODO), the fixture export and the existing import tests.',
        tools: [g.read('src/services/importService.ts'), g.read('test/fixtures/netscape-export.html', { size: [20_000, 112_000] }), g.read('test/import.test.ts')],
      }),
      (g) => ({
        thinking: 'ADD_DATE is seconds since the epoch; some exporters write 0 or garbage, and folders (H3) have it too but we only read anchors. Parse it into addedAt, null when missing, not a number, zero or in the future.',
        text: 'ADD_DATE is in seconds since the epoch. Parsing it into `addedAt`, with `null` for missing or nonsense values:',
        tools: [
          g.edit('src/services/importService.ts', "      addedAt: null,", "      addedAt: parseAddDate(attributes.get('ADD_DATE')),"),
          g.edit('src/services/importService.ts', '/** Parses the Netscape bookmark file format exported by browsers and most read-later apps. */', "/** ADD_DATE is seconds since the epoch; anything missing, non-numeric, zero or in the future is ignored. */\nexport function parseAddDate(raw: string | undefined, now = Date.now()): Date | null {\n  if (!raw || !/^\\d+$/.test(raw)) return null;\n  const ms = Number(raw) * 1000;\n  if (ms <= 0 || ms > now) return null;\n  return new Date(ms);\n}\n\n/** Parses the Netscape bookmark file format exported by browsers and most read-later apps. */"),
        ],
      }),
      (g) => ({
        thinking: 'Use it in the INSERT with a fallback to now(), and drop the TODO.',
        tools: [
          g.edit('src/services/importService.ts', "    // TODO(maya): keep ADD_DATE from the export instead of now()\n    const { rowCount } = await db.query(\n      'INSERT INTO bookmarks (user_id, url, normalized_url, title, created_at) VALUES ($1, $2, $3, $4, now()) ' +", "    const { rowCount } = await db.query(\n      'INSERT INTO bookmarks (user_id, url, normalized_url, title, created_at) VALUES ($1, $2, $3, $4, coalesce($5, now())) ' +"),
          g.edit('src/services/importService.ts', '      [userId, link.url, normalized, link.title],', '      [userId, link.url, normalized, link.title, link.addedAt],'),
        ],
      }),
      (g) => ({
        thinking: 'Tests for parseAddDate and for the parser picking it up.',
        tools: [
          g.edit('test/import.test.ts', "import { parseNetscapeBookmarks } from '../src/services/importService';", "import { parseAddDate, parseNetscapeBookmarks } from '../src/services/importService';"),
          g.edit('test/import.test.ts', "  it('skips non-http links', () => {", "  it('reads ADD_DATE as seconds since the epoch', () => {\n    expect(parseNetscapeBookmarks(SAMPLE)[0].addedAt).toEqual(new Date(1_700_000_000_000));\n  });\n\n  it('ignores a missing, zero or future ADD_DATE', () => {\n    const now = Date.UTC(2026, 0, 1);\n    expect(parseAddDate(undefined, now)).toBeNull();\n    expect(parseAddDate('0', now)).toBeNull();\n    expect(parseAddDate('99999999999', now)).toBeNull();\n    expect(parseAddDate('abc', now)).toBeNull();\n  });\n\n  it('skips non-http links', () => {"),
        ],
      }),
      (g) => ({
        thinking: 'Run the import tests, and parse the fixture export for a sanity check of the dates.',
        tools: [
          g.bash("npx vitest run test/import.test.ts && npx tsx -e \"import { readFileSync } from 'node:fs'; import { parseNetscapeBookmarks } from './src/services/importService'; const l = parseNetscapeBookmarks(readFileSync('test/fixtures/netscape-export.html', 'utf8')); const d = l.filter((x) => x.addedAt).map((x) => +x.addedAt!); console.log(l.length + ' links, ' + (l.length - d.length) + ' without ADD_DATE, oldest ' + new Date(Math.min(...d)).toISOString() + ', newest ' + new Date(Math.max(...d)).toISOString() + ', ' + (d.length - new Set(d).size) + ' duplicate timestamps')\"", 'Run import tests and parse the fixture export', () => {
            const r = passing(g, ['test/import.test.ts']);
            const html = g.project.read('test/fixtures/netscape-export.html');
            const dates = [...html.matchAll(/<A HREF="[^"]*" ADD_DATE="(\d+)"/g)].map((m) => Number(m[1]) * 1000);
            const dup = dates.length - new Set(dates).size;
            return { out: r.out + `\n${dates.length} links, 0 without ADD_DATE, oldest ${new Date(Math.min(...dates)).toISOString()}, newest ${new Date(Math.max(...dates)).toISOString()}, ${dup} duplicate timestamps`, ms: r.ms + 1800 };
          }),
        ],
      }),
    ];
    const extras: StepF[] = [lookAround.grep('importNetscapeFile|parseNetscapeBookmarks', 'src/', 'Check the callers of the importer.')];
    const final: StepF = () => ({
      thinking: 'Summarize.',
      text:
        "Imports now keep the original dates:\n\n- `parseAddDate` (new, exported) turns `ADD_DATE` (seconds since the epoch) into a `Date`, and returns `null` for missing, non-numeric, zero or future values.\n- `parseNetscapeBookmarks` fills `addedAt` with it, and the INSERT uses `coalesce($5, now())` for `created_at`.\n- Your TODO is gone; tests added in `test/import.test.ts`, all green.\n\nOn your fixture export every link has an `ADD_DATE`. A few links still share a timestamp (bookmarks saved in the same second), which is exactly the case the `(created_at, id)` cursor from this morning now handles.",
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};

// --- Episode 7: full verbose run with debug logs (big error result, queued prompt) --------------
const fullRunEpisode: Episode = {
  key: 'fullrun',
  min: 3,
  max: 4,
  title: 'full verbose test run with debug logs to look for flaky tests',
  done:
    'Full verbose run with LOG_LEVEL=debug: one failure, a timeout in test/webhooks.test.ts ("pages through webhooks with a cursor"), which passed on a re-run of that file alone: flaky under the single fork, probably pool contention with the webhook retry timers.',
  prompt: () => 'Run the whole suite with LOG_LEVEL=debug and the verbose reporter, I want to see if anything is flaky before I push.',
  steps: (_g, n) => {
    const core: StepF[] = [
      (g) => ({
        thinking: 'Run everything with the verbose reporter and debug logs; the output will be long.',
        tools: [
          g.bash('LOG_LEVEL=debug npx vitest run --reporter=verbose 2>&1', 'Run the whole suite verbosely with debug logs', () => {
            if (g.queued) {
              g.now += g.rng.int(4_000, 9_000);
              g.queueOperation('enqueue', g.queued);
            }
            const r = vitestOutput(g.project, g.rng, {
              verbose: true, noiseChars: g.budgetChars(8_000, 104_000), startMs: g.now,
              failures: [{ file: 'test/webhooks.test.ts', test: 'pages through webhooks with a cursor', error: 'Error: Test timed out in 10000ms.', detail: ['If this is a long-running test, pass a timeout value as the last argument or configure it globally with "testTimeout".'] }],
            });
            return { out: r.text, code: 1, ms: r.durationMs + 10_000 };
          }, { timeout: 600000 }),
        ],
      }),
      (g) => ({
        thinking: 'One timeout in the webhooks route tests while everything else passed. Re-run that file alone to see whether it is deterministic.',
        tools: [g.bash('npx vitest run test/webhooks.test.ts', 'Re-run the webhooks tests alone', () => passing(g, ['test/webhooks.test.ts']))],
      }),
    ];
    const extras: StepF[] = [lookAround.read('test/webhooks.test.ts', 'Let me read the test that timed out.')];
    const final: StepF = () => ({
      thinking: 'Report the flaky test.',
      text:
        "One failure out of the whole run: `test/webhooks.test.ts > /webhooks > pages through webhooks with a cursor` timed out after 10 s. It passes when the file runs alone, so it's flaky rather than broken.\n\nLikely cause: the suite runs in a single fork with a pool of 4 connections, and `deliver()` schedules retry timers that keep issuing `UPDATE webhooks` queries in the background while the paging test inserts rows. Everything else passed, and the debug logs show nothing unusual (no 5xx, no slow queries over 50 ms).\n\nI'd not block the push on it, but worth a ticket: webhook delivery in tests should use a fake `send` and no real timers.",
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};

// --- Episode 8: webhooks answering 410 are retried forever --------------------------------------
const WEBHOOK_TEST = String.raw`import { describe, expect, it, vi } from 'vitest';
import type { Pool } from 'pg';
import { deliver } from '../src/services/webhookService';
import type { Webhook } from '../src/schemas/webhook';

function fakeDb() {
  const queries: string[] = [];
  const db = { query: async (sql: string) => (queries.push(sql), { rows: [], rowCount: 1 }) } as unknown as Pool;
  return { db, queries };
}

const webhook: Webhook = {
  id: '5e0b7c21-9d4a-4c8f-a3e6-1b2d0f9c8a47',
  userId: '2f1c9a64-0b7e-4d35-9a51-6c0f3e2b7d18',
  targetUrl: 'https://hooks.example.net/shelfmark',
  events: ['bookmark.created'],
  isActive: true,
  failureCount: 0,
  lastDeliveryAt: null,
  createdAt: new Date('2026-05-01T00:00:00.000Z'),
};

describe('deliver', () => {
  it('disables the webhook on 410 Gone and does not retry', async () => {
    vi.useFakeTimers();
    const { db, queries } = fakeDb();
    const send = vi.fn(async () => ({ status: 410 }));
    await deliver(db, webhook, 'bookmark.created', {}, send);
    await vi.runAllTimersAsync();
    expect(send).toHaveBeenCalledTimes(1);
    expect(queries.some((q) => q.includes('is_active = false'))).toBe(true);
    vi.useRealTimers();
  });

  it('gives up after the last retry delay', async () => {
    vi.useFakeTimers();
    const { db } = fakeDb();
    const send = vi.fn(async () => ({ status: 503 }));
    await deliver(db, webhook, 'bookmark.created', {}, send);
    await vi.runAllTimersAsync();
    expect(send).toHaveBeenCalledTimes(5);
    vi.useRealTimers();
  });

  it('resets the failure count after a success', async () => {
    const { db, queries } = fakeDb();
    await deliver(db, webhook, 'bookmark.created', {}, async () => ({ status: 204 }));
    expect(queries[0]).toContain('failure_count = 0');
  });
});
`;

const webhookEpisode: Episode = {
  key: 'webhook',
  min: 7,
  max: 9,
  title: 'stop retrying webhooks forever; disable them on 410 Gone',
  done:
    'Webhooks: deliver() in src/services/webhookService.ts now disables the webhook (is_active = false) on 410 Gone without retrying, and stops after the last of RETRY_DELAYS_MS instead of retrying forever. New test/webhookDelivery.test.ts with a fake db and fake timers.',
  prompt: (g) =>
    g.queuedPrompt ?? 'While that ran: webhook deliveries get retried forever when the receiver answers 410 Gone. A 410 should disable the webhook instead of retrying.',
  steps: (_g, n) => {
    const core: StepF[] = [
      (g) => ({
        thinking: 'The delivery loop is at the end of the webhook service.',
        tools: [g.read('src/services/webhookService.ts')],
      }),
      (g) => ({
        thinking: 'deliver() retries on any non-2xx, and the delay index is clamped to the last entry, so attempts never stop. Check the callers before changing the signature or behaviour.',
        text: 'Every failure schedules another attempt and the delay index is clamped, so retries never stop. Checking callers first:',
        tools: [g.grep('deliver\\(', { under: 'src/' })],
      }),
      (g) => ({
        thinking: 'Before changing it, how bad is it in the dev database? Webhooks with many failures and their last delivery.',
        tools: [
          g.bash(`psql "$DATABASE_URL" -c "select id, target_url, is_active, failure_count, last_delivery_at from webhooks order by failure_count desc"`, 'List webhooks by failure count', () => {
            let fails = g.rng.int(3_000, 9_000);
            const out = psqlTable(['id', 'target_url', 'is_active', 'failure_count', 'last_delivery_at'], () => {
              fails = Math.max(0, fails - g.rng.int(0, 400));
              const host = g.rng.pick(['hooks.example.net', 'automation.example.com', 'ci.example.io', 'zap.example.org']);
              return [g.rng.uuid(), `https://${host}/${g.rng.chars(10, 'abcdefghijklmnopqrstuvwxyz0123456789')}`, 't', String(fails), fails > 50 ? '' : pgTime(Date.UTC(2026, 4, g.rng.int(1, 11), g.rng.int(0, 23), g.rng.int(0, 59)))];
            }, g.budgetChars(2_000, 105_000));
            return { out, ms: g.rng.int(90, 900) };
          }),
        ],
      }),
      (g) => ({
        thinking: 'Only the service itself calls deliver. Handle 410 as permanent (disable, no retry) and cap the attempts at the length of RETRY_DELAYS_MS.',
        tools: [
          g.edit(
            'src/services/webhookService.ts',
            "  } else {\n    await db.query('UPDATE webhooks SET failure_count = failure_count + 1 WHERE id = $1', [webhook.id]);\n    const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)];\n    setTimeout(() => void deliver(db, webhook, event, payload, send, attempt + 1), delay).unref();\n  }",
            "  } else if (status === 410) {\n    // The receiver is gone for good: stop delivering until the user re-enables the webhook.\n    await db.query('UPDATE webhooks SET is_active = false, failure_count = failure_count + 1 WHERE id = $1', [webhook.id]);\n  } else {\n    await db.query('UPDATE webhooks SET failure_count = failure_count + 1 WHERE id = $1', [webhook.id]);\n    if (attempt + 1 < RETRY_DELAYS_MS.length) {\n      const delay = RETRY_DELAYS_MS[attempt];\n      setTimeout(() => void deliver(db, webhook, event, payload, send, attempt + 1), delay).unref();\n    }\n  }",
          ),
        ],
      }),
      (g) => ({
        thinking: 'Unit tests with a fake db and fake timers: 410 disables and sends once, 503 gives up after five attempts, success resets the count.',
        tools: [g.write('test/webhookDelivery.test.ts', WEBHOOK_TEST)],
      }),
      (g) => ({
        thinking: 'Run the new tests and the webhook route tests.',
        tools: [g.bash('npx vitest run test/webhookDelivery.test.ts test/webhooks.test.ts', 'Run webhook tests', () => passing(g, ['test/webhookDelivery.test.ts', 'test/webhooks.test.ts']))],
      }),
    ];
    const extras: StepF[] = [
      lookAround.read('src/schemas/webhook.ts', 'The test needs a Webhook object; let me check the schema fields.'),
      lookAround.curl('/webhooks?limit=100'),
    ];
    const final: StepF = () => ({
      thinking: 'Summarize.',
      text:
        "Fixed in `deliver()` (`src/services/webhookService.ts`):\n\n- **410 Gone** now sets `is_active = false` (and bumps `failure_count`) and schedules no retry.\n- **Other failures** retry with the existing delays (1 s, 5 s, 30 s, 2 min, 10 min) and then stop. Before, the delay index was clamped to the last entry, so a dead endpoint was retried every 10 minutes forever.\n\n`test/webhookDelivery.test.ts` covers both cases plus the reset on success, using a fake db and fake timers, so no real timers leak into the suite (which may also help with the flaky timeout from earlier). Webhook tests pass.\n\nThe web app should probably show disabled webhooks with a re-enable button; the API already supports `PATCH /webhooks/:id` with `isActive: true`.",
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};

// --- Episode 9: lint (four parallel edits) ---------------------------------------------------------
function lintOutput(g: Gen, clean: boolean): string {
  const head = "\n> shelfmark@0.9.0 lint\n> eslint 'src/**/*.ts' 'test/**/*.ts'\n";
  if (clean) return head;
  const out = [head];
  let n = 0;
  for (const rel of g.project.unusedImports) {
    const lines = g.project.read(rel).split('\n');
    const at = lines.findIndex((l) => l.startsWith("import { logger }") || l.startsWith("import { NotFoundError } from '../lib/errors';"));
    if (at < 0) continue;
    const name = lines[at].includes('logger') ? 'logger' : 'NotFoundError';
    out.push(g.project.abs(rel), `  ${at + 1}:10  error  '${name}' is defined but never used  @typescript-eslint/no-unused-vars`, '');
    n++;
  }
  out.push(`✖ ${n} problems (${n} errors, 0 warnings)`, '');
  return out.join('\n');
}

const lintEpisode: Episode = {
  key: 'lint',
  min: 5,
  max: 7,
  title: 'clean up eslint errors (unused imports)',
  done: 'Lint: removed the unused imports reported by eslint in four files (generated route/service modules); npm run lint and tsc --noEmit are clean.',
  prompt: () => 'npm run lint is complaining, can you clean it up?',
  steps: (_g, n) => {
    const core: StepF[] = [
      (g) => ({
        thinking: 'See what eslint reports.',
        tools: [g.bash('npm run lint', 'Run eslint', () => ({ out: lintOutput(g, false), code: 1, ms: g.rng.int(4_000, 9_000) }))],
      }),
      (g) => ({
        thinking: 'All four are unused imports left behind when the error handling moved into errorHandler and logging into the request logger. Remove each import line; the files are independent so the edits can go in parallel.',
        text: 'Four unused imports; removing them:',
        tools: g.project.unusedImports.map((rel) => {
          const line = g.project.read(rel).split('\n').find((l) => l.startsWith('import { logger }') || l.startsWith("import { NotFoundError } from '../lib/errors';")) ?? '';
          return g.edit(rel, line + '\n', '');
        }),
      }),
      (g) => ({
        thinking: 'The edits touched four modules; run the whole suite to be safe before re-linting.',
        tools: [g.bash('npm test 2>&1', 'Run the full test suite', () => passing(g, undefined, { header: 'test vitest run', noise: g.budgetChars(2_000, 110_000) }), { timeout: 300000 })],
      }),
      (g) => ({
        thinking: 'Lint and typecheck again.',
        tools: [g.bash('npm run lint && npx tsc --noEmit && echo "lint and typecheck clean"', 'Run eslint and the typecheck', () => ({ out: lintOutput(g, true) + '\nlint and typecheck clean', ms: g.rng.int(9_000, 16_000) }))],
      }),
    ];
    const extras: StepF[] = [(g) => ({ thinking: 'Let me double-check one of the files to be sure the import is really unused and not used in a type position.', tools: [g.read(g.project.unusedImports[0])] })];
    const final: StepF = (g) => ({
      thinking: 'Short summary.',
      text: `Lint is clean. The four errors were unused imports (\`no-unused-vars\`):\n\n${g.project.unusedImports.map((p) => `- \`${p}\``).join('\n')}\n\nRemoved them; \`npm run lint\` and \`tsc --noEmit\` both pass. No behaviour change.`,
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};

// --- Episode 10: review and commit ---------------------------------------------------------------
const FEATURE_FILES = ['src/routes/tags.ts', 'src/services/tagService.ts', 'src/db/migrations/0009_tags_name_prefix.sql', 'test/tags.search.test.ts'];

const reviewEpisode: Episode = {
  key: 'review',
  min: 6,
  max: 7,
  title: 'review the diff and commit in two commits',
  done: 'Committed on feat/tag-prefix-search: one commit with the fixes (pagination, url, rate limiter, import dates, webhooks, lint), one with the tag search feature.',
  prompt: () =>
    "Let's wrap up. Show me what changed overall, then commit it as two commits on this branch: one for the fixes (pagination, url, rate limiter, import, webhooks, lint) and one for the tag search feature.",
  steps: (g, n) => {
    const commit = (candidates: string[], message: string) => {
      const { modified, added } = g.project.changed();
      const files = candidates.filter((p) => modified.includes(p) || added.includes(p));
      const hash = shortHash(message + files.join());
      const stat = files.map((p) => {
        const c = diffCounts(g.project.head.get(p) ?? '', g.project.read(p));
        return c;
      });
      const ins = stat.reduce((s, c) => s + c.added, 0);
      const del = stat.reduce((s, c) => s + c.removed, 0);
      const created = files.filter((p) => !g.project.head.has(p));
      g.project.commit(files);
      g.commitLog.unshift(`${hash} ${message.split('\n')[0]}`);
      return [`[${g.gitBranch} ${hash}] ${message.split('\n')[0]}`, ` ${files.length} files changed, ${ins} insertions(+), ${del} deletions(-)`, ...created.map((p) => ` create mode 100644 ${p}`)].join('\n');
    };
    const core: StepF[] = [
      (g) => ({
        thinking: 'Status and a stat first, then the full diff.',
        tools: [
          g.bash('git status', 'Show working tree status', () => ({ out: gitStatus(g.project, g.gitBranch) })),
          g.bash('git diff --stat', 'Summarize changes', () => ({ out: gitDiffStat(g.project) })),
        ],
      }),
      (g) => ({
        thinking: 'Full diff of tracked files, plus the new files, to review before committing.',
        tools: [g.bash('git diff && git diff --no-index /dev/null test/tags.search.test.ts; git diff --no-index /dev/null test/webhookDelivery.test.ts; true', 'Show the full diff including new files', () => ({ out: gitDiff(g.project) }))],
      }),
      (g) => ({
        thinking: 'Everything matches what we did. Commit the fixes first: everything except the tag search files.',
        tools: [
          g.bash('git add -A -- . ' + FEATURE_FILES.map((p) => "':!" + p + "'").join(' ') + ' && git commit -m "fix: stable pagination, url case, rate limiter refill, import dates, webhook retries" -m "Keyset pagination breaks ties on id; normalizeUrl keeps path case; the limiter refills per second; imports keep ADD_DATE; webhooks stop on 410 and after the last retry; unused imports removed."', 'Commit the fixes', () => {
            const { modified, added } = g.project.changed();
            const files = [...modified, ...added].filter((p) => !FEATURE_FILES.includes(p));
            return { out: commit(files, 'fix: stable pagination, url case, rate limiter refill, import dates, webhook retries') };
          }),
        ],
      }),
      (g) => ({
        thinking: 'Then the feature commit with the remaining files.',
        tools: [
          g.bash('git add ' + FEATURE_FILES.join(' ') + ' && git commit -m "feat(tags): prefix search endpoint for autocomplete"', 'Commit the tag search feature', () => ({ out: commit(FEATURE_FILES.filter((p) => g.project.files.has(p)), 'feat(tags): prefix search endpoint for autocomplete') })),
        ],
      }),
      (g) => ({
        thinking: 'Confirm the log.',
        tools: [
          g.bash('git log --oneline -4 && git status --short', 'Show the new commits', () => ({ out: g.commitLog.slice(0, 4).join('\n') })),
        ],
      }),
    ];
    const extras: StepF[] = [lookAround.read('src/lib/pagination.ts', 'Re-read the final pagination helper once more before committing, it is the riskiest change.')];
    const final: StepF = () => ({
      thinking: 'Wrap up with what is committed and what is left.',
      text:
        "Committed on `feat/tag-prefix-search`:\n\n1. **fix: stable pagination, url case, rate limiter refill, import dates, webhook retries**: `pagination.ts` (+ tests), `url.ts`, `rateLimiter.ts` (+ tests), `importService.ts` (+ tests), `webhookService.ts` (+ new `webhookDelivery.test.ts`), and the four lint fixes.\n2. **feat(tags): prefix search endpoint for autocomplete**: route, service method, migration `0009`, tests.\n\nThe working tree is clean. Not pushed yet. Before merging, you may want to split commit 1 into its own PR against main, since the CI fix for `url.ts` is urgent on its own and shouldn't wait for the feature review.",
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};

// --- Small questions: used to fill the tail, any number of times ---------------------------------
interface Question {
  prompt: string;
  look: (g: Gen) => ToolCall[];
  answer: string;
}

const QUESTIONS: Question[] = [
  {
    prompt: 'Quick one before I push: why does the cursor use base64url JSON instead of just putting the timestamp and id in the query string?',
    look: (g) => [g.read('src/lib/pagination.ts')],
    answer:
      "Mostly to keep it opaque:\n\n- Clients can't build or tweak cursors, so we can change what's inside (like adding `id` today) without breaking an API contract. Old cursors simply decode to `null` and restart from page one.\n- One parameter instead of two avoids half-specified requests (`created_at` without `id`) and URL-encoding issues with `+` in ISO timestamps.\n- base64url (not plain base64) needs no escaping in a query string.\n\nIt isn't a security boundary though: anyone can decode it. If that ever matters, sign it with the session secret the same way `sm_session` is signed.",
  },
  {
    prompt: 'Is there anything in app.ts that would stop us from running two instances behind the load balancer?',
    look: (g) => [g.read('src/app.ts'), g.read('src/plugins/auth.ts')],
    answer:
      "Nothing in `app.ts` itself: no in-process state beyond the pg pool. The catch is in `src/plugins/auth.ts`: the rate limiter buckets live in memory, so with two instances a user gets up to twice the burst and refill rate, depending on how the load balancer spreads requests. Sessions are fine (signed cookies, no server-side store) and webhook retries use in-process timers, so a retry is lost if its instance restarts, but nothing is duplicated.",
  },
  {
    prompt: 'How big is the generated API types file these days? Is it worth splitting?',
    look: (g) => [g.bash('wc -lc src/types/api.generated.ts', 'Size of the generated types', () => {
      const c = g.project.read('src/types/api.generated.ts');
      return { out: `  ${c.split('\n').length - 1} ${c.length} src/types/api.generated.ts` };
    })],
    answer:
      "It's generated, so I wouldn't split it by hand: the next `npm run openapi` would undo it. The size mostly comes from the versioned and admin copies of each path in `openapi.yaml`. If editor performance is the concern, `openapi-typescript` can emit one file per tag, or we could drop the `/v2` duplicates once the mobile app stops using them.",
  },
  {
    prompt: 'Where do we set the pg pool size, and what is it in tests?',
    look: (g) => [g.grep('max: ', { under: 'src/db/' })],
    answer: "`src/db/pool.ts`: `max: config.env === 'test' ? 4 : 20`. So 4 connections in tests (one fork runs all files) and 20 otherwise, with a 30 s idle timeout. Raising the test value would probably make the flaky webhook timeout rarer, but the fake timers in the new delivery tests address the cause.",
  },
  {
    prompt: 'Give me a one-paragraph summary of today for the PR description.',
    look: () => [],
    answer:
      "This branch fixes several production issues and adds tag autocomplete. List endpoints now paginate on `(created_at, id)`, so bookmarks that share a timestamp (common after imports) are no longer skipped or repeated across pages; imports keep each bookmark's original `ADD_DATE`; `normalizeUrl` no longer lowercases paths and query values, which had broken CI; the rate limiter refills per second instead of per millisecond and reports `retry-after` correctly; webhooks are disabled on `410 Gone` and stop retrying after the last backoff step. New: `GET /tags/search` for case-insensitive prefix search, backed by a `text_pattern_ops` index (migration `0009`). Tests cover each change.",
  },
];

function questionEpisode(index: number): Episode {
  const q = QUESTIONS[index % QUESTIONS.length];
  return {
    key: 'question-' + index,
    min: 1,
    max: 3,
    title: 'answer a question: ' + q.prompt,
    done: 'Answered: ' + q.prompt,
    prompt: () => q.prompt,
    steps: (_g, n) => {
      const core: StepF[] = [];
      if (n >= 2) {
        core.push((g) => {
          const tools = q.look(g);
          return tools.length
            ? { thinking: 'Let me check the code rather than answer from memory.', tools }
            : { thinking: 'Let me look at the commits on this branch first.', tools: [g.bash('git log --oneline -6', 'Recent commits', () => ({ out: g.commitLog.slice(0, 6).join('\n') }))] };
        });
      }
      const extras: StepF[] = [
        lookAround.read('README.md', 'The README may already say something about this.'),
        lookAround.read('CLAUDE.md', 'Check the project notes as well.'),
      ];
      const final: StepF = () => ({ thinking: 'Answer concisely.', text: q.answer, tools: [] });
      return fit(core, extras, final, n);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Planning, compaction summary, assembly

const MAIN_EPISODES: Episode[] = [
  exploreEpisode,
  paginationEpisode,
  urlEpisode,
  rateLimitEpisode,
  tagSearchEpisode,
  importEpisode,
  fullRunEpisode,
  webhookEpisode,
  lintEpisode,
  reviewEpisode,
];

const WEBHOOK_PROMPT =
  'While that runs: webhook deliveries get retried forever when the receiver answers 410 Gone. A 410 should disable the webhook instead of retrying.';

function planEpisodes(g: Gen): { ep: Episode; n: number }[] {
  const N = g.totalRounds;
  const reserve = N >= 40 ? 2 : 0;
  const chosen: Episode[] = [];
  let mins = 0;
  for (const ep of MAIN_EPISODES) {
    if (mins + ep.min > N - reserve) break;
    chosen.push(ep);
    mins += ep.min;
  }
  const ns = chosen.map((e) => e.min);
  let slack = N - reserve - mins;
  for (;;) {
    const open = ns.map((_, i) => i).filter((i) => ns[i] < chosen[i].max);
    if (slack <= 0 || !open.length) break;
    ns[g.rng.pick(open)]++;
    slack--;
  }
  slack += reserve;
  const plan = chosen.map((ep, i) => ({ ep, n: ns[i] }));
  let q = 0;
  while (slack > 0) {
    const n = Math.min(slack, g.rng.int(1, 3));
    plan.push({ ep: questionEpisode(q++), n });
    slack -= n;
  }
  return plan;
}

function compactSummary(g: Gen, ep: Episode): string {
  const { modified, added } = g.project.changed();
  const out: string[] = [
    'This session is being continued from a previous conversation that ran out of context. The earlier part of the conversation is summarized below.',
    '',
    'Overview:',
    `The user (Maya) works on shelfmark, a TypeScript bookmarks API (Fastify 5, pg, zod, vitest) in ${g.cwd}, now on branch ${g.gitBranch}. Requests come one at a time; each was investigated, fixed with tests and verified with vitest before moving on.`,
    '',
    '1. User requests, in order:',
    ...g.userMessages.map((m, i) => `   ${i + 1}. "${m}"`),
    '',
    '2. Completed work:',
    ...g.notes.map((n, i) => `   ${i + 1}. ${n}`),
    '',
    '3. Key technical facts:',
    '   - Every service list() goes through src/lib/pagination.ts (decodeCursor, keysetClause(cursor, startIndex), toPage); cursors are base64url JSON.',
    '   - requireUser (src/plugins/auth.ts) resolves an API key or the sm_session cookie, then applies the per-plan in-memory RateLimiter.',
    '   - Tests: npx vitest run test/<file>.test.ts for one file; npm test for all (needs the postgres container on port 5433); npx tsc --noEmit for types.',
    '   - PostToolUse hook formats edited files (node .claude/hooks/format-changed.mjs); src/types/api.generated.ts is generated, never edited by hand.',
    '',
    '4. Files changed (not committed yet):',
    ...modified.map((p) => `   - ${p} (modified)`),
    ...added.map((p) => `   - ${p} (new)`),
    '',
  ];
  if (g.project.changed().modified.includes('src/lib/pagination.ts')) {
    const src = g.project.read('src/lib/pagination.ts');
    const from = src.indexOf('export function keysetClause');
    out.push('5. Important code (src/lib/pagination.ts, current):', '```ts', src.slice(from).trimEnd(), '```', '');
  }
  out.push(
    '6. Errors met and fixes:',
    '   - A first Edit of pagination.ts used 4-space indentation and did not match; retried with the exact 2-space text.',
    '   - After the cursor change, three old pagination tests encoded the previous cursor shape and were updated.',
    '   - grep -c exits 1 on a zero count (no 429 in logs/dev.log): expected, not a failure.',
    '',
    `7. Current task (in progress): ${ep.title}.`,
    `   Last request: "${g.lastPrompt}"`,
    `   Read or changed so far for it: ${[...g.currentFiles].join(', ') || 'nothing yet'}.`,
    '',
    '8. Next step: carry on with the current task from where it stopped, then summarize the result for the user.',
    '',
    'Resume the current task directly; the user does not need to repeat anything.',
  );
  return out.join('\n');
}

function runEpisode(g: Gen, ep: Episode, n: number, first: boolean): void {
  ep.before?.(g);
  g.userPrompt(ep.prompt(g));
  g.currentFiles = new Set();
  if (first) {
    g.attachment({
      type: 'skill_listing',
      content: [
        '- code-review: Review the working tree diff for bugs, missing tests and risky SQL before a commit',
        '- db-migrations: Conventions for writing, naming and testing SQL migrations in src/db/migrations',
        '- openapi-sync: Regenerate src/types/api.generated.ts after changing openapi.yaml and check the diff',
        '- release-notes: Draft release notes from the commits since the last tag',
      ].join('\n'),
      skillCount: 4,
      isInitial: true,
    });
  }
  for (const att of ep.attachments?.(g) ?? []) g.attachment(att);
  for (const f of ep.steps(g, n)) {
    if (g.compactAt !== null && g.compaction === null && g.round === g.compactAt) g.compact(compactSummary(g, ep));
    g.runRound(g.main, f(g));
  }
  g.endTurn();
  g.notes.push(ep.done);
}

export function generateSessionFiles(options: GenerateOptions): GeneratedSession {
  const g = new Gen(options);
  const base = g.main.base;
  const preRounds = g.compactAt ?? g.totalRounds;
  g.peak = options.peakTokens ?? Math.min(g.rng.int(158_000, 166_000), base + preRounds * 5_500);
  const postRounds = g.totalRounds - (g.compactAt ?? 0);
  g.final = options.finalTokens ?? Math.min(g.rng.int(166_000, 182_000), base + 4_000 + postRounds * 5_500);

  g.permissionModeLine('default');
  g.tick(300, 900);
  g.main.leaf = g.hookProgress(g.main, null, 'SessionStart', 'SessionStart:startup', SESSION_HOOK, g.ids.uuid());

  const plan = planEpisodes(g);
  let roundsSoFar = 0;
  let longBreakDone = false;
  plan.forEach(({ ep, n }, i) => {
    if (!longBreakDone && i > 0 && roundsSoFar >= g.totalRounds * 0.6) {
      g.now += g.rng.int(3_900_000, 4_600_000); // lunch: the 1h prompt cache expires
      longBreakDone = true;
    }
    const next = plan[i + 1];
    g.queued = ep.key === 'fullrun' && next?.ep.key === 'webhook' ? WEBHOOK_PROMPT : null;
    runEpisode(g, ep, n, i === 0);
    if (g.queued) {
      g.queueOperation('remove');
      g.queuedPrompt = g.queued;
      g.queued = null;
    } else g.queuedPrompt = null;
    roundsSoFar += n;
  });
  if (g.round !== g.totalRounds) throw new Error(`generator: planned ${g.totalRounds} rounds, wrote ${g.round}`);

  g.push(g.main, { type: 'last-prompt', lastPrompt: g.lastPrompt, leafUuid: g.main.leaf, sessionId: g.sessionId });
  const text = g.main.lines.join('\n') + '\n';
  return {
    sessionId: g.sessionId,
    text,
    subagents: options.subagentFiles === false ? [] : g.subagents,
    stats: {
      rounds: g.round,
      lines: g.main.lines.length,
      bytes: Buffer.byteLength(text),
      finalContextTokens: g.contexts[g.contexts.length - 1] ?? 0,
      compaction: g.compaction,
    },
  };
}

/** The main session transcript (JSONL text) for these options. */
export function generateSession(options: GenerateOptions): string {
  return generateSessionFiles(options).text;
}

// ---------------------------------------------------------------------------------------------
// CLI

export const DEFAULT_OUT = path.join(__dirname, '..', 'examples', 'demo-session.jsonl');

function parseArgs(argv: string[]): { options: GenerateOptions; out: string } {
  const options: GenerateOptions = { ...DEFAULT_OPTIONS };
  let out = DEFAULT_OUT;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    const int = () => {
      const v = value();
      if (!/^\d+$/.test(v)) throw new Error(`${a} needs a non-negative integer, got ${v}`);
      return Number(v);
    };
    if (a === '--seed') options.seed = int();
    else if (a === '--rounds') options.rounds = int();
    else if (a === '--out') out = path.resolve(value());
    else if (a === '--session-id') options.sessionId = value();
    else if (a === '--no-subagents') options.subagentFiles = false;
    else if (a === '--no-compaction') options.compactAtRound = null;
    else if (a === '--help' || a === '-h') {
      process.stdout.write('Usage: node --import tsx scripts/generate-example.ts [--seed N] [--rounds N] [--out FILE] [--session-id UUID] [--no-subagents] [--no-compaction]\n');
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  if (options.rounds < 1) throw new Error('--rounds must be at least 1');
  return { options, out };
}

if (require.main === module) {
  try {
    const { options, out } = parseArgs(process.argv.slice(2));
    const s = generateSessionFiles(options);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, s.text);
    for (const sub of s.subagents) {
      const p = path.join(path.dirname(out), sub.relativePath);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, sub.text);
    }
    const c = s.stats.compaction;
    process.stdout.write(
      `${out}: session ${s.sessionId}, ${s.stats.rounds} rounds, ${s.stats.lines} lines, ${(s.stats.bytes / 1e6).toFixed(2)} MB, ` +
        `final context ${s.stats.finalContextTokens} tokens` +
        (c ? `, compaction before round ${c.atRound + 1} (${c.preTokens} -> ${c.postTokens} tokens)` : '') +
        (s.subagents.length ? `, ${s.subagents.length} subagent file(s)` : '') +
        '\n',
    );
  } catch (err) {
    process.stderr.write(`generate-example: ${(err as Error).message}\n`);
    process.exit(2);
  }
}
