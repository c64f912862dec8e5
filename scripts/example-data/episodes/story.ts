// The story: episodes (one user turn each) made of steps (one API round each), and helpers shared by episodes.
import { type TestFailure, vitestOutput } from '../../example-generator/command-outputs';
import { Gen, type Obj, type StepF } from '../../example-generator/session-writer';

export interface Episode {
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
export function fit(core: StepF[], extras: StepF[], final: StepF, n: number): StepF[] {
  if (n - 1 < core.length) throw new Error(`generator: episode needs ${core.length + 1} rounds, got ${n}`);
  const body = core.slice();
  let k = 0;
  while (body.length < n - 1 && extras.length) {
    body.splice(Math.min(body.length, 1 + k), 0, extras[k % extras.length]);
    k++;
  }
  return [...body, final];
}

export function pick<T>(g: Gen, items: readonly T[]): T {
  return g.rng.pick(items);
}

export function passing(
  g: Gen,
  files: string[] | undefined,
  extra: { verbose?: boolean; noise?: number; header?: string } = {},
): { out: string; code: number; ms: number } {
  const r = vitestOutput(g.project, g.rng, {
    files,
    verbose: extra.verbose,
    npmHeader: extra.header,
    noiseChars: extra.noise,
    startMs: g.now,
  });
  return { out: r.text, code: 0, ms: r.durationMs };
}

export function failing(
  g: Gen,
  files: string[] | undefined,
  failures: TestFailure[],
  extra: { verbose?: boolean; noise?: number; header?: string } = {},
): { out: string; code: number; ms: number } {
  const r = vitestOutput(g.project, g.rng, {
    files,
    failures,
    verbose: extra.verbose,
    npmHeader: extra.header,
    noiseChars: extra.noise,
    startMs: g.now,
  });
  return { out: r.text, code: 1, ms: r.durationMs };
}

export function eqDiff(expected: string[], received: string[]): string[] {
  return ['- Expected', '+ Received', '', ...expected.map((l) => '- ' + l), ...received.map((l) => '+ ' + l)];
}

// Extra steps any episode can use to look around (sized reads keep the context on its trajectory).
export const lookAround = {
  grep:
    (pattern: string, under: string, why: string): StepF =>
    (g) => ({
      thinking: `${why} A quick search for ${pattern} will show every place that depends on it.`,
      tools: [g.grep(pattern, { under })],
    }),
  read:
    (rel: string, why: string): StepF =>
    (g) => ({
      thinking: why,
      tools: [g.read(rel)],
    }),
  apiTypes: (): StepF => (g) => ({
    thinking:
      'The response shapes are defined in the generated OpenAPI types; let me check what the client expects before changing anything that is visible on the wire.',
    text: 'Checking the generated API types for the affected endpoints.',
    tools: [g.read('src/types/api.generated.ts', { size: [24_000, 96_000] })],
  }),
  curl:
    (pathAndQuery: string): StepF =>
    (g) => ({
      thinking:
        'Let me look at what the running dev server returns now, with a large page, to check the order and the cursor.',
      tools: [
        g.bash(
          `curl -s 'http://localhost:3000${pathAndQuery}' -H "authorization: Bearer $SHELFMARK_DEV_KEY" | jq .`,
          'Fetch a large page from the dev server',
          () => ({ out: curlJson(g, g.budgetChars(6_000, 60_000)), ms: g.rng.int(80, 400) }),
        ),
      ],
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
  if (fixed)
    items.sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1));
  const last = items[items.length - 1];
  const cursor = fixed ? { createdAt: last.createdAt, id: last.id } : { createdAt: last.createdAt };
  return JSON.stringify({ items, nextCursor: Buffer.from(JSON.stringify(cursor)).toString('base64url') }, null, 2);
}

export function psqlTable(columns: string[], row: () => string[], chars: number): string {
  const rows: string[][] = [];
  let size = 0;
  while (size < chars) {
    const r = row();
    rows.push(r);
    size += r.join(' | ').length + 4;
  }
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i].length)));
  const numeric = columns.map((_, i) => rows.every((r) => /^-?\d+(\.\d+)?$/.test(r[i])));
  const fmt = (r: string[]) =>
    ' ' +
    r
      .map((v, i) => (numeric[i] ? v.padStart(widths[i]) : v.padEnd(widths[i])))
      .join(' | ')
      .trimEnd();
  const head =
    ' ' +
    columns
      .map((c, i) => c.padStart(Math.floor((widths[i] + c.length) / 2)).padEnd(widths[i]))
      .join(' | ')
      .trimEnd();
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

export function pgTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '+00');
}
