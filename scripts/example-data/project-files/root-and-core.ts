// Hand-written files of the made-up project (String.raw keeps backslashes; no backticks inside):
// the root files and the core of src/ (server, config, app, db pool, errors, pagination).

export const ROOT_AND_CORE_FILES: Record<string, string> = {
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
};
