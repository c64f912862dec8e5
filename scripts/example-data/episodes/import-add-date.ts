// Episode 6: keep ADD_DATE on import.
import { type Episode, fit, lookAround, passing } from './story';
import type { StepF } from '../../example-generator/session-writer';

export const importEpisode: Episode = {
  key: 'import',
  min: 6,
  max: 8,
  title: 'keep the ADD_DATE of Netscape exports as created_at when importing',
  done: 'Import dates: parseNetscapeBookmarks reads ADD_DATE (seconds since the epoch) into addedAt via parseAddDate, and importNetscapeFile inserts coalesce($5, now()) as created_at, so imported bookmarks keep their original dates. Tests added to test/import.test.ts; checked against test/fixtures/netscape-export.html.',
  before: (g) => {
    g.now += g.rng.int(180_000, 420_000);
    g.localCommand(
      'npm run db:migrate',
      '\n> shelfmark@0.9.0 db:migrate\n> node scripts/migrate.mjs\n\napplied 0009_tags_name_prefix.sql (concurrently) in 412ms\n1 migration applied, 8 already up to date\n',
    );
    const rel = 'src/services/importService.ts';
    const before = g.project.read(rel);
    const anchor = '    const { rowCount } = await db.query(';
    g.project.write(
      rel,
      before.replace(anchor, '    // TODO(maya): keep ADD_DATE from the export instead of now()\n' + anchor),
    );
  },
  attachments: (g) => {
    const rel = 'src/services/importService.ts';
    const lines = g.project.read(rel).split('\n');
    const at = lines.findIndex((l) => l.includes('TODO(maya)'));
    return [
      {
        type: 'edited_text_file',
        filename: g.project.abs(rel),
        snippet: lines
          .slice(at - 1, at + 5)
          .map((l, i) => `${at + i}\t${l}`)
          .join('\n'),
      },
    ];
  },
  prompt: () =>
    'Migration ran fine locally. Next: imports should keep the ADD_DATE from the export instead of stamping everything with now(), that also removes most of the ties we saw this morning. I left a TODO in importService. test/fixtures/netscape-export.html is a real-ish export from my browser if you want something to try it on.',
  steps: (_g, n) => {
    const core: StepF[] = [
      (g) => ({
        thinking:
          'Read the importer (it changed: the user added a TODO), the fixture export and the existing import tests.',
        tools: [
          g.read('src/services/importService.ts'),
          g.read('test/fixtures/netscape-export.html', { size: [20_000, 112_000] }),
          g.read('test/import.test.ts'),
        ],
      }),
      (g) => ({
        thinking:
          'ADD_DATE is seconds since the epoch; some exporters write 0 or garbage, and folders (H3) have it too but we only read anchors. Parse it into addedAt, null when missing, not a number, zero or in the future.',
        text: 'ADD_DATE is in seconds since the epoch. Parsing it into `addedAt`, with `null` for missing or nonsense values:',
        tools: [
          g.edit(
            'src/services/importService.ts',
            '      addedAt: null,',
            "      addedAt: parseAddDate(attributes.get('ADD_DATE')),",
          ),
          g.edit(
            'src/services/importService.ts',
            '/** Parses the Netscape bookmark file format exported by browsers and most read-later apps. */',
            '/** ADD_DATE is seconds since the epoch; anything missing, non-numeric, zero or in the future is ignored. */\nexport function parseAddDate(raw: string | undefined, now = Date.now()): Date | null {\n  if (!raw || !/^\\d+$/.test(raw)) return null;\n  const ms = Number(raw) * 1000;\n  if (ms <= 0 || ms > now) return null;\n  return new Date(ms);\n}\n\n/** Parses the Netscape bookmark file format exported by browsers and most read-later apps. */',
          ),
        ],
      }),
      (g) => ({
        thinking: 'Use it in the INSERT with a fallback to now(), and drop the TODO.',
        tools: [
          g.edit(
            'src/services/importService.ts',
            "    // TODO(maya): keep ADD_DATE from the export instead of now()\n    const { rowCount } = await db.query(\n      'INSERT INTO bookmarks (user_id, url, normalized_url, title, created_at) VALUES ($1, $2, $3, $4, now()) ' +",
            "    const { rowCount } = await db.query(\n      'INSERT INTO bookmarks (user_id, url, normalized_url, title, created_at) VALUES ($1, $2, $3, $4, coalesce($5, now())) ' +",
          ),
          g.edit(
            'src/services/importService.ts',
            '      [userId, link.url, normalized, link.title],',
            '      [userId, link.url, normalized, link.title, link.addedAt],',
          ),
        ],
      }),
      (g) => ({
        thinking: 'Tests for parseAddDate and for the parser picking it up.',
        tools: [
          g.edit(
            'test/import.test.ts',
            "import { parseNetscapeBookmarks } from '../src/services/importService';",
            "import { parseAddDate, parseNetscapeBookmarks } from '../src/services/importService';",
          ),
          g.edit(
            'test/import.test.ts',
            "  it('skips non-http links', () => {",
            "  it('reads ADD_DATE as seconds since the epoch', () => {\n    expect(parseNetscapeBookmarks(SAMPLE)[0].addedAt).toEqual(new Date(1_700_000_000_000));\n  });\n\n  it('ignores a missing, zero or future ADD_DATE', () => {\n    const now = Date.UTC(2026, 0, 1);\n    expect(parseAddDate(undefined, now)).toBeNull();\n    expect(parseAddDate('0', now)).toBeNull();\n    expect(parseAddDate('99999999999', now)).toBeNull();\n    expect(parseAddDate('abc', now)).toBeNull();\n  });\n\n  it('skips non-http links', () => {",
          ),
        ],
      }),
      (g) => ({
        thinking: 'Run the import tests, and parse the fixture export for a sanity check of the dates.',
        tools: [
          g.bash(
            "npx vitest run test/import.test.ts && npx tsx -e \"import { readFileSync } from 'node:fs'; import { parseNetscapeBookmarks } from './src/services/importService'; const l = parseNetscapeBookmarks(readFileSync('test/fixtures/netscape-export.html', 'utf8')); const d = l.filter((x) => x.addedAt).map((x) => +x.addedAt!); console.log(l.length + ' links, ' + (l.length - d.length) + ' without ADD_DATE, oldest ' + new Date(Math.min(...d)).toISOString() + ', newest ' + new Date(Math.max(...d)).toISOString() + ', ' + (d.length - new Set(d).size) + ' duplicate timestamps')\"",
            'Run import tests and parse the fixture export',
            () => {
              const r = passing(g, ['test/import.test.ts']);
              const html = g.project.read('test/fixtures/netscape-export.html');
              const dates = [...html.matchAll(/<A HREF="[^"]*" ADD_DATE="(\d+)"/g)].map((m) => Number(m[1]) * 1000);
              const dup = dates.length - new Set(dates).size;
              return {
                out:
                  r.out +
                  `\n${dates.length} links, 0 without ADD_DATE, oldest ${new Date(Math.min(...dates)).toISOString()}, newest ${new Date(Math.max(...dates)).toISOString()}, ${dup} duplicate timestamps`,
                ms: r.ms + 1800,
              };
            },
          ),
        ],
      }),
    ];
    const extras: StepF[] = [
      lookAround.grep('importNetscapeFile|parseNetscapeBookmarks', 'src/', 'Check the callers of the importer.'),
    ];
    const final: StepF = () => ({
      thinking: 'Summarize.',
      text: 'Imports now keep the original dates:\n\n- `parseAddDate` (new, exported) turns `ADD_DATE` (seconds since the epoch) into a `Date`, and returns `null` for missing, non-numeric, zero or future values.\n- `parseNetscapeBookmarks` fills `addedAt` with it, and the INSERT uses `coalesce($5, now())` for `created_at`.\n- Your TODO is gone; tests added in `test/import.test.ts`, all green.\n\nOn your fixture export every link has an `ADD_DATE`. A few links still share a timestamp (bookmarks saved in the same second), which is exactly the case the `(created_at, id)` cursor from this morning now handles.',
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};
