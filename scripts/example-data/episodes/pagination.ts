// Episode 1: duplicated / missing bookmarks across pages.
import { type Episode, eqDiff, failing, fit, lookAround, passing, pick } from './story';
import type { StepF } from '../../example-generator/session-writer';

export const paginationEpisode: Episode = {
  key: 'pagination',
  min: 15,
  max: 17,
  title: 'fix keyset pagination on GET /bookmarks (rows sharing created_at were skipped across pages)',
  done: 'Pagination fix: src/lib/pagination.ts now carries the row id in the cursor and compares (created_at, id) as a row value, ordering by created_at DESC, id DESC. Root cause: importNetscapeFile stamps every imported row with now() in a tight loop and the cursor keeps only milliseconds, so imported rows tie and the old `created_at < $n` cursor skipped the tied rows after a page boundary. test/pagination.test.ts gained a "ties on created_at" block; three old expectations were updated for the new cursor shape. Full suite green.',
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
        tools: [
          g.read('src/lib/pagination.ts'),
          g.read('src/services/bookmarkService.ts'),
          g.grep('keysetClause', { under: 'src/', mode: 'files_with_matches' }),
        ],
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
        tools: [
          g.bash('npx vitest run test/pagination.test.ts', 'Run the pagination unit tests', () =>
            passing(g, ['test/pagination.test.ts']),
          ),
        ],
      }),
      (g) => ({
        thinking:
          'All green, but none of them has two rows with the same createdAt. I will add tests for the tie case first so the fix is driven by a failing test.',
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
            failing(
              g,
              ['test/pagination.test.ts'],
              [
                {
                  file: 'test/pagination.test.ts',
                  test: 'puts the id of the last row in the cursor',
                  error:
                    "AssertionError: expected { createdAt: '2026-05-01T12:00:00.000Z' } to deeply equal { createdAt: '2026-05-01T12:00:00.000Z', id: 'b3' }",
                  detail: eqDiff(
                    ['Object {', '  "createdAt": "2026-05-01T12:00:00.000Z",', '  "id": "b3",', '}'],
                    ['Object {', '  "createdAt": "2026-05-01T12:00:00.000Z",', '}'],
                  ),
                },
                {
                  file: 'test/pagination.test.ts',
                  test: 'breaks ties on id in the keyset clause',
                  error:
                    "AssertionError: expected 'AND created_at < $2 ORDER BY created_at…' to be 'AND (created_at, id) < ($2, $3) ORDER…' // Object.is equality",
                  detail: [
                    'Expected: "AND (created_at, id) < ($2, $3) ORDER BY created_at DESC, id DESC"',
                    'Received: "AND created_at < $2 ORDER BY created_at DESC"',
                  ],
                },
              ],
            ),
          ),
        ],
      }),
      (g) => ({
        thinking:
          'Both fail as expected. Now the fix in pagination.ts: the cursor payload gets an id, decodeCursor requires it, keysetClause compares the row value (created_at, id) which Postgres evaluates lexicographically and can serve from an index on (user_id, created_at DESC, id DESC), and toPage puts the last id in the cursor.',
        text: 'Both fail for the right reason. Now the fix: carry the id in the cursor and compare `(created_at, id)` as a row value.',
        tools: [
          g.edit(
            'src/lib/pagination.ts',
            'export interface CursorPayload {\n    createdAt: string;\n}',
            'export interface CursorPayload {\n    createdAt: string;\n    /** Tiebreaker for rows that share created_at. */\n    id: string;\n}',
            { expectError: true },
          ),
        ],
      }),
      (g) => ({
        thinking: 'The file uses two-space indentation, I used four. Retry with the exact text.',
        tools: [
          g.edit(
            'src/lib/pagination.ts',
            'export interface CursorPayload {\n  createdAt: string;\n}',
            'export interface CursorPayload {\n  createdAt: string;\n  /** Tiebreaker for rows that share created_at. */\n  id: string;\n}',
          ),
        ],
      }),
      (g) => ({
        thinking:
          'Now decodeCursor (require a string id, old cursors without one are treated as no cursor, which restarts from the first page: acceptable), and both branches of keysetClause.',
        tools: [
          g.edit(
            'src/lib/pagination.ts',
            "    if (typeof parsed?.createdAt !== 'string') return null;\n    return { createdAt: parsed.createdAt };",
            "    if (typeof parsed?.createdAt !== 'string' || typeof parsed?.id !== 'string') return null;\n    return { createdAt: parsed.createdAt, id: parsed.id };",
          ),
          g.edit(
            'src/lib/pagination.ts',
            "    return { sql: 'ORDER BY created_at DESC', params: [] };",
            "    return { sql: 'ORDER BY created_at DESC, id DESC', params: [] };",
          ),
          g.edit(
            'src/lib/pagination.ts',
            "    sql: 'AND created_at < $' + startIndex + ' ORDER BY created_at DESC',\n    params: [cursor.createdAt],",
            "    sql: 'AND (created_at, id) < ($' + startIndex + ', $' + (startIndex + 1) + ') ORDER BY created_at DESC, id DESC',\n    params: [cursor.createdAt, cursor.id],",
          ),
        ],
      }),
      (g) => ({
        thinking: 'And toPage: constrain T to have an id and put it in the cursor.',
        tools: [
          g.edit(
            'src/lib/pagination.ts',
            'export function toPage<T extends { createdAt: Date }>(rows: T[], limit: number): Page<T> {',
            'export function toPage<T extends { id: string; createdAt: Date }>(rows: T[], limit: number): Page<T> {',
          ),
          g.edit(
            'src/lib/pagination.ts',
            'encodeCursor({ createdAt: last.createdAt.toISOString() })',
            'encodeCursor({ createdAt: last.createdAt.toISOString(), id: last.id })',
          ),
        ],
      }),
      (g) => ({
        thinking:
          'Run the file again. I expect the old expectations about the cursor shape and the SQL text to fail now.',
        tools: [
          g.bash('npx vitest run test/pagination.test.ts', 'Run pagination tests after the fix', () =>
            failing(
              g,
              ['test/pagination.test.ts'],
              [
                {
                  file: 'test/pagination.test.ts',
                  test: 'round-trips a cursor',
                  error: "AssertionError: expected null to deeply equal { createdAt: '2026-01-05T10:00:00.000Z' }",
                  detail: eqDiff(['Object {', '  "createdAt": "2026-01-05T10:00:00.000Z",', '}'], ['null']),
                },
                {
                  file: 'test/pagination.test.ts',
                  test: 'orders newest first without a cursor',
                  error:
                    "AssertionError: expected 'ORDER BY created_at DESC, id DESC' to be 'ORDER BY created_at DESC' // Object.is equality",
                  detail: ['Expected: "ORDER BY created_at DESC"', 'Received: "ORDER BY created_at DESC, id DESC"'],
                },
                {
                  file: 'test/pagination.test.ts',
                  test: 'filters on created_at after the cursor',
                  error:
                    "AssertionError: expected 'AND (created_at, id) < ($2, $3) ORDER…' to be 'AND created_at < $2 ORDER BY created_at…' // Object.is equality",
                  detail: [
                    'Expected: "AND created_at < $2 ORDER BY created_at DESC"',
                    'Received: "AND (created_at, id) < ($2, $3) ORDER BY created_at DESC, id DESC"',
                  ],
                },
              ],
            ),
          ),
        ],
      }),
      (g) => ({
        thinking: 'These three encode the old behaviour; update them to the new cursor shape and SQL.',
        text: 'The three remaining failures are the old expectations for the cursor shape; updating them.',
        tools: [
          g.edit(
            'test/pagination.test.ts',
            "    const cursor = encodeCursor({ createdAt: '2026-01-05T10:00:00.000Z' });\n    expect(decodeCursor(cursor)).toEqual({ createdAt: '2026-01-05T10:00:00.000Z' });",
            "    const cursor = encodeCursor({ createdAt: '2026-01-05T10:00:00.000Z', id: 'b7' });\n    expect(decodeCursor(cursor)).toEqual({ createdAt: '2026-01-05T10:00:00.000Z', id: 'b7' });",
          ),
          g.edit(
            'test/pagination.test.ts',
            "    expect(keysetClause(null, 2).sql).toBe('ORDER BY created_at DESC');",
            "    expect(keysetClause(null, 2).sql).toBe('ORDER BY created_at DESC, id DESC');",
          ),
          g.edit(
            'test/pagination.test.ts',
            "    const clause = keysetClause({ createdAt: '2026-01-05T10:00:00.000Z' }, 2);\n    expect(clause.sql).toBe('AND created_at < $2 ORDER BY created_at DESC');\n    expect(clause.params).toEqual(['2026-01-05T10:00:00.000Z']);",
            "    const clause = keysetClause({ createdAt: '2026-01-05T10:00:00.000Z', id: 'b7' }, 2);\n    expect(clause.sql).toBe('AND (created_at, id) < ($2, $3) ORDER BY created_at DESC, id DESC');\n    expect(clause.params).toEqual(['2026-01-05T10:00:00.000Z', 'b7']);",
          ),
        ],
      }),
      (g) => ({
        thinking: 'Re-run the pagination tests.',
        tools: [
          g.bash('npx vitest run test/pagination.test.ts', 'Run pagination tests', () =>
            passing(g, ['test/pagination.test.ts']),
          ),
        ],
      }),
      lookAround.curl('/bookmarks?limit=100'),
      (g) => ({
        thinking:
          'Now the whole suite: every list endpoint goes through keysetClause, so the route tests that page with a cursor exercise the new SQL against the test database.',
        tools: [
          g.bash(
            'npm test 2>&1',
            'Run the full test suite',
            () => passing(g, undefined, { header: 'test vitest run', noise: g.budgetChars(2_000, 110_000) }),
            { timeout: 300000 },
          ),
        ],
      }),
    ];
    const extras: StepF[] = [
      lookAround.grep(
        'created_at DESC',
        'src/',
        'Other queries may order by created_at on their own instead of going through the helper.',
      ),
      lookAround.read(
        'src/routes/bookmarks.ts',
        'Let me check how the route passes the cursor through, in case it parses it itself.',
      ),
    ];
    const final: StepF = () => ({
      thinking: 'Summarize: cause, fix, tests, and the follow-ups (index, old cursors).',
      text: 'Fixed. The cursor pagination skipped rows that share `created_at` with the last item of a page.\n\n**Cause**\n- The cursor only carried `createdAt` and the query used `created_at < $n`, so ties at a page boundary were skipped (and clients retrying with an older cursor saw repeats).\n- Imports create the ties: `importNetscapeFile` stamps every row with `now()` in a tight loop, and the cursor keeps only milliseconds.\n\n**Fix** (`src/lib/pagination.ts`)\n- The cursor now holds `{ createdAt, id }`; `decodeCursor` rejects cursors without an id (old cursors restart at page one).\n- `keysetClause` compares the row value `(created_at, id) < ($n, $n+1)` and orders by `created_at DESC, id DESC`.\n- `toPage` requires an `id` on rows and puts the last one in the cursor.\n\n**Tests**: two new tests for ties in `test/pagination.test.ts`, three old expectations updated, full suite green.\n\nFollow-ups worth doing:\n1. An index on `(user_id, created_at DESC, id DESC)` so the row comparison stays an index scan on large accounts.\n2. Keep the original `ADD_DATE` on import instead of `now()`: that removes most ties at the source.',
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};
