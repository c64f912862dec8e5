// Hand-written files of the made-up project (String.raw keeps backslashes; no backticks inside):
// bookmark, tag and import services, the tag routes and the first migrations.

export const SERVICE_FILES: Record<string, string> = {
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
};
