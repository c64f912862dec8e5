// Templates of the files generated for each entity of the made-up project: schema, service, routes, test.
import { type EntityDef, UPDATED, lowerFirst, snake, words } from './entities';

export function schemaFile(e: EntityDef): string {
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
    ...inputs.map(
      (f) =>
        `    ${f.name}: ${f.zod.replace('.nullable()', '.nullable().optional()')}${f.optional && !f.zod.includes('nullable') ? '.optional()' : ''},`,
    ),
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

export function serviceFile(e: EntityDef, unusedImport: boolean): string {
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
    `      'UPDATE ${e.table} SET ' + sets.join(', ') + '${hasUpdated ? ', updated_at = now()' : ''} WHERE id = $1 AND user_id = $2 RETURNING ' + COLUMNS,`,
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

export function routesFile(e: EntityDef, unusedImport: boolean): string {
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

export function testFile(e: EntityDef): string {
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
    ...(needsBookmark
      ? [
          "    bookmark = (await t.as('alice').post('/bookmarks', { url: 'https://example.org/a', title: 'A' })).json();",
        ]
      : []),
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
    '    expect(res.json().items.every((item: { userId: string }) => item.userId === t.users.alice.id)).toBe(true);',
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
