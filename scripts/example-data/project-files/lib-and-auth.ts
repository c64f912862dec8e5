// Hand-written files of the made-up project (String.raw keeps backslashes; no backticks inside):
// url and session helpers, the auth plugin and the rate limiter.

export const LIB_AND_AUTH_FILES: Record<string, string> = {
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
};
