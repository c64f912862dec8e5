// Hand-written files of the made-up project (String.raw keeps backslashes; no backticks inside):
// the tests and the vitest config, and the webhook delivery loop appended to the generated webhook service.

export const TEST_FILES: Record<string, string> = {
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
export const WEBHOOK_DELIVERY = String.raw`
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
