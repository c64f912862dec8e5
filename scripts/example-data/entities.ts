// The made-up project: "shelfmark", a small TypeScript bookmarks API (Fastify, pg, zod, vitest).
// Its entities, from which the schema, service, route and test files are generated.

export interface FieldDef {
  name: string;
  ts: string;
  zod: string;
  optional?: boolean;
  input?: boolean;
  sample?: string;
}

export interface EntityDef {
  name: string;
  plural: string;
  table: string;
  fields: FieldDef[];
  service: boolean;
  routes: boolean;
  test: boolean;
}

export function snake(s: string): string {
  return s.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());
}
export function lowerFirst(s: string): string {
  return s[0].toLowerCase() + s.slice(1);
}
export function words(s: string): string {
  return snake(lowerFirst(s)).replace(/_/g, ' ');
}

const ID: FieldDef = { name: 'id', ts: 'string', zod: 'z.string().uuid()' };
const USER_ID: FieldDef = { name: 'userId', ts: 'string', zod: 'z.string().uuid()' };
const CREATED: FieldDef = { name: 'createdAt', ts: 'Date', zod: 'z.coerce.date()' };
export const UPDATED: FieldDef = { name: 'updatedAt', ts: 'Date', zod: 'z.coerce.date()' };

export const ENTITIES: EntityDef[] = [
  {
    name: 'Bookmark',
    plural: 'bookmarks',
    table: 'bookmarks',
    service: false,
    routes: true,
    test: true,
    fields: [
      ID,
      USER_ID,
      {
        name: 'url',
        ts: 'string',
        zod: 'z.string().url().max(2048)',
        input: true,
        sample: "'https://example.org/articles/42'",
      },
      { name: 'normalizedUrl', ts: 'string', zod: 'z.string()' },
      { name: 'title', ts: 'string', zod: 'z.string().min(1).max(500)', input: true, sample: "'Reading list'" },
      {
        name: 'description',
        ts: 'string | null',
        zod: 'z.string().max(4000).nullable()',
        optional: true,
        input: true,
        sample: "'Notes for later'",
      },
      { name: 'faviconUrl', ts: 'string | null', zod: 'z.string().url().nullable()', optional: true },
      { name: 'isArchived', ts: 'boolean', zod: 'z.boolean()', optional: true, input: true, sample: 'true' },
      { name: 'readAt', ts: 'Date | null', zod: 'z.coerce.date().nullable()', optional: true },
      CREATED,
      UPDATED,
    ],
  },
  {
    name: 'Tag',
    plural: 'tags',
    table: 'tags',
    service: false,
    routes: false,
    test: false,
    fields: [
      ID,
      USER_ID,
      { name: 'name', ts: 'string', zod: 'z.string().min(1).max(64)', input: true, sample: "'typescript'" },
      {
        name: 'color',
        ts: 'string | null',
        zod: 'z.string().regex(/^#[0-9a-f]{6}$/i).nullable()',
        optional: true,
        input: true,
        sample: "'#3b82f6'",
      },
      { name: 'usageCount', ts: 'number', zod: 'z.number().int().nonnegative()' },
      CREATED,
    ],
  },
  {
    name: 'Collection',
    plural: 'collections',
    table: 'collections',
    service: true,
    routes: true,
    test: true,
    fields: [
      ID,
      USER_ID,
      { name: 'name', ts: 'string', zod: 'z.string().min(1).max(120)', input: true, sample: "'Weekend reads'" },
      { name: 'slug', ts: 'string', zod: 'z.string().regex(/^[a-z0-9-]+$/)', input: true, sample: "'weekend-reads'" },
      {
        name: 'description',
        ts: 'string | null',
        zod: 'z.string().max(2000).nullable()',
        optional: true,
        input: true,
        sample: "'Longer pieces'",
      },
      { name: 'isPublic', ts: 'boolean', zod: 'z.boolean()', optional: true, input: true, sample: 'false' },
      {
        name: 'position',
        ts: 'number',
        zod: 'z.number().int().nonnegative()',
        optional: true,
        input: true,
        sample: '3',
      },
      CREATED,
      UPDATED,
    ],
  },
  {
    name: 'Highlight',
    plural: 'highlights',
    table: 'highlights',
    service: true,
    routes: true,
    test: true,
    fields: [
      ID,
      USER_ID,
      { name: 'bookmarkId', ts: 'string', zod: 'z.string().uuid()', input: true, sample: 'bookmark.id' },
      {
        name: 'quote',
        ts: 'string',
        zod: 'z.string().min(1).max(8000)',
        input: true,
        sample: "'The best code is no code at all.'",
      },
      {
        name: 'note',
        ts: 'string | null',
        zod: 'z.string().max(4000).nullable()',
        optional: true,
        input: true,
        sample: "'Use in the talk'",
      },
      { name: 'startOffset', ts: 'number', zod: 'z.number().int().nonnegative()', input: true, sample: '120' },
      { name: 'endOffset', ts: 'number', zod: 'z.number().int().positive()', input: true, sample: '154' },
      {
        name: 'color',
        ts: "'yellow' | 'green' | 'blue' | 'pink'",
        zod: "z.enum(['yellow', 'green', 'blue', 'pink'])",
        optional: true,
        input: true,
        sample: "'green'",
      },
      CREATED,
    ],
  },
  {
    name: 'User',
    plural: 'users',
    table: 'users',
    service: false,
    routes: false,
    test: false,
    fields: [
      ID,
      { name: 'email', ts: 'string', zod: 'z.string().email()', input: true, sample: "'maya@example.com'" },
      { name: 'displayName', ts: 'string', zod: 'z.string().min(1).max(80)', input: true, sample: "'Maya'" },
      { name: 'timezone', ts: 'string', zod: 'z.string()', optional: true, input: true, sample: "'Europe/Lisbon'" },
      { name: 'plan', ts: "'free' | 'pro'", zod: "z.enum(['free', 'pro'])" },
      { name: 'lastSeenAt', ts: 'Date | null', zod: 'z.coerce.date().nullable()', optional: true },
      CREATED,
    ],
  },
  {
    name: 'ApiKey',
    plural: 'apiKeys',
    table: 'api_keys',
    service: true,
    routes: true,
    test: true,
    fields: [
      ID,
      USER_ID,
      { name: 'label', ts: 'string', zod: 'z.string().min(1).max(60)', input: true, sample: "'ci pipeline'" },
      { name: 'prefix', ts: 'string', zod: 'z.string().length(8)' },
      {
        name: 'scopes',
        ts: 'string[]',
        zod: "z.array(z.enum(['read', 'write', 'admin'])).min(1)",
        input: true,
        sample: "['read']",
      },
      { name: 'lastUsedAt', ts: 'Date | null', zod: 'z.coerce.date().nullable()', optional: true },
      {
        name: 'expiresAt',
        ts: 'Date | null',
        zod: 'z.coerce.date().nullable()',
        optional: true,
        input: true,
        sample: "'2027-01-01T00:00:00.000Z'",
      },
      CREATED,
    ],
  },
  {
    name: 'Webhook',
    plural: 'webhooks',
    table: 'webhooks',
    service: true,
    routes: true,
    test: true,
    fields: [
      ID,
      USER_ID,
      {
        name: 'targetUrl',
        ts: 'string',
        zod: 'z.string().url()',
        input: true,
        sample: "'https://hooks.example.net/shelfmark'",
      },
      {
        name: 'events',
        ts: 'string[]',
        zod: "z.array(z.enum(['bookmark.created', 'bookmark.deleted', 'highlight.created'])).min(1)",
        input: true,
        sample: "['bookmark.created']",
      },
      { name: 'isActive', ts: 'boolean', zod: 'z.boolean()', optional: true, input: true, sample: 'true' },
      { name: 'failureCount', ts: 'number', zod: 'z.number().int().nonnegative()' },
      { name: 'lastDeliveryAt', ts: 'Date | null', zod: 'z.coerce.date().nullable()', optional: true },
      CREATED,
    ],
  },
  {
    name: 'ReadingSession',
    plural: 'readingSessions',
    table: 'reading_sessions',
    service: true,
    routes: true,
    test: true,
    fields: [
      ID,
      USER_ID,
      { name: 'bookmarkId', ts: 'string', zod: 'z.string().uuid()', input: true, sample: 'bookmark.id' },
      { name: 'startedAt', ts: 'Date', zod: 'z.coerce.date()', input: true, sample: "'2026-04-02T08:00:00.000Z'" },
      {
        name: 'endedAt',
        ts: 'Date | null',
        zod: 'z.coerce.date().nullable()',
        optional: true,
        input: true,
        sample: "'2026-04-02T08:12:30.000Z'",
      },
      {
        name: 'scrollDepth',
        ts: 'number',
        zod: 'z.number().min(0).max(1)',
        optional: true,
        input: true,
        sample: '0.65',
      },
      CREATED,
    ],
  },
  {
    name: 'AuditEvent',
    plural: 'auditEvents',
    table: 'audit_events',
    service: true,
    routes: true,
    test: true,
    fields: [
      ID,
      USER_ID,
      { name: 'action', ts: 'string', zod: 'z.string().min(1)', input: true, sample: "'bookmark.export'" },
      { name: 'subjectType', ts: 'string', zod: 'z.string()', input: true, sample: "'bookmark'" },
      { name: 'subjectId', ts: 'string', zod: 'z.string().uuid()', input: true, sample: 'bookmark.id' },
      {
        name: 'metadata',
        ts: 'Record<string, unknown>',
        zod: 'z.record(z.unknown())',
        optional: true,
        input: true,
        sample: "{ format: 'csv' }",
      },
      { name: 'ip', ts: 'string | null', zod: 'z.string().ip().nullable()', optional: true },
      CREATED,
    ],
  },
  {
    name: 'ImportJob',
    plural: 'importJobs',
    table: 'import_jobs',
    service: true,
    routes: true,
    test: true,
    fields: [
      ID,
      USER_ID,
      {
        name: 'source',
        ts: "'netscape' | 'pocket' | 'pinboard'",
        zod: "z.enum(['netscape', 'pocket', 'pinboard'])",
        input: true,
        sample: "'netscape'",
      },
      {
        name: 'status',
        ts: "'queued' | 'running' | 'done' | 'failed'",
        zod: "z.enum(['queued', 'running', 'done', 'failed'])",
      },
      { name: 'totalItems', ts: 'number', zod: 'z.number().int().nonnegative()' },
      { name: 'importedItems', ts: 'number', zod: 'z.number().int().nonnegative()' },
      { name: 'errorMessage', ts: 'string | null', zod: 'z.string().nullable()', optional: true },
      { name: 'finishedAt', ts: 'Date | null', zod: 'z.coerce.date().nullable()', optional: true },
      CREATED,
    ],
  },
];
