// Episode 3: CI red on url normalization.
import { type Episode, failing, fit, lookAround, passing, pgTime, psqlTable } from './story';
import type { StepF } from '../../example-generator/session-writer';

export const urlEpisode: Episode = {
  key: 'url',
  min: 8,
  max: 10,
  title: 'fix normalizeUrl lowercasing paths and query values (CI red on test/url.test.ts)',
  done: 'URL normalization fix: normalizeUrl in src/lib/url.ts no longer lowercases the whole input (new URL() already lowercases scheme and host; path and query are case-sensitive). test/url.test.ts green. Note for later: rows saved while the bug was live have a lowercased normalized_url.',
  prompt: () =>
    'CI on main went red an hour ago, test/url.test.ts. Can you fix it without changing what counts as a duplicate bookmark? Host case and tracking params should still dedupe.',
  attachments: () => [{ type: 'task_reminder', content: [], itemCount: 0 }],
  steps: (_g, n) => {
    const core: StepF[] = [
      (g) => ({
        thinking: 'Reproduce first.',
        tools: [
          g.bash('npx vitest run test/url.test.ts', 'Reproduce the failing url tests', () =>
            failing(
              g,
              ['test/url.test.ts'],
              [
                {
                  file: 'test/url.test.ts',
                  test: 'keeps the case of the path',
                  error:
                    "AssertionError: expected 'https://example.com/docs/api-reference' to be 'https://example.com/Docs/API-Reference' // Object.is equality",
                  detail: [
                    'Expected: "https://example.com/Docs/API-Reference"',
                    'Received: "https://example.com/docs/api-reference"',
                  ],
                },
                {
                  file: 'test/url.test.ts',
                  test: 'keeps the case of query values',
                  error:
                    "AssertionError: expected 'https://video.example/watch?v=zx81lmq' to be 'https://video.example/watch?v=Zx81LmQ' // Object.is equality",
                  detail: [
                    'Expected: "https://video.example/watch?v=Zx81LmQ"',
                    'Received: "https://video.example/watch?v=zx81lmq"',
                  ],
                },
              ],
            ),
          ),
        ],
      }),
      (g) => ({
        thinking: 'Path and query values come out lowercased. Something lowercases the whole string.',
        tools: [g.read('src/lib/url.ts')],
      }),
      (g) => ({
        thinking:
          'input.trim().toLowerCase() before new URL(): that lowercases everything. The WHATWG URL parser already lowercases the scheme and host, so the toLowerCase is redundant for what it tries to do and wrong for the rest. Let me see when it came in.',
        tools: [
          g.bash("git log -3 --format='%h %an %ar %s' -- src/lib/url.ts", 'Recent changes to url.ts', () => ({
            out: [
              '3c71e0a Jonas Berg 2 hours ago normalize: lowercase urls before parsing (dedupe HTTP://Example.com)',
              '8f02b6d Maya Lind 5 weeks ago url: drop mc_eid and ref tracking params',
              '1d9a4c3 Maya Lind 3 months ago bookmarks: dedupe on normalized url',
            ].join('\n'),
          })),
        ],
      }),
      (g) => ({
        thinking:
          'The recent commit wanted "HTTP://Example.com" to dedupe with "http://example.com", which new URL() already does. Drop the toLowerCase and leave a comment so it does not come back.',
        text: "The regression is from `3c71e0a`: it lowercases the whole URL before parsing. `new URL()` already lowercases the scheme and host, so I'll remove it and leave a comment.",
        tools: [
          g.edit(
            'src/lib/url.ts',
            '  const url = new URL(input.trim().toLowerCase());',
            '  // new URL() already lowercases the scheme and host; the path and query are case-sensitive.\n  const url = new URL(input.trim());',
          ),
        ],
      }),
      (g) => ({
        thinking: 'Re-run the url tests, including the host-case test that the commit was trying to satisfy.',
        tools: [g.bash('npx vitest run test/url.test.ts', 'Run url tests', () => passing(g, ['test/url.test.ts']))],
      }),
      (g) => ({
        thinking:
          'Green. Check who else calls normalizeUrl: bookmarks dedupe on normalized_url with a unique index, so anything saved in the last two hours has a lowercased normalized_url that will no longer match a fresh normalization.',
        tools: [g.grep('normalizeUrl\\(', { under: 'src/' })],
      }),
      (g) => ({
        thinking:
          'How many rows in the dev database were written with a lowercased normalized_url since that commit? The dev database is a copy of staging from this morning.',
        tools: [
          g.bash(
            `psql "$DATABASE_URL" -c "select url, normalized_url, created_at from bookmarks where created_at > now() - interval '3 hours' and url <> normalized_url and lower(url) = normalized_url order by created_at desc"`,
            'List bookmarks saved since the regression',
            () => {
              let t = Date.UTC(2026, 4, 12, 8, 40, 0);
              const hosts = [
                'docs.example.org',
                'video.example',
                'github.example.com',
                'wiki.example.net',
                'blog.example.dev',
              ];
              const out = psqlTable(
                ['url', 'normalized_url', 'created_at'],
                () => {
                  t -= g.rng.int(2_000, 60_000);
                  const path =
                    '/' +
                    [
                      g.rng.pick(['Guides', 'watch', 'Maya-L', 'Special:Random', 'posts']),
                      g.rng.chars(g.rng.int(5, 11), 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789'),
                    ].join('/');
                  const url = 'https://' + g.rng.pick(hosts) + path;
                  return [url, url.toLowerCase(), pgTime(t)];
                },
                g.budgetChars(3_000, 60_000),
              );
              return { out, ms: g.rng.int(90, 900) };
            },
          ),
        ],
      }),
    ];
    const extras: StepF[] = [
      lookAround.read(
        'test/url.test.ts',
        'Let me read the test file to see which expectations the recent commit added.',
      ),
      lookAround.grep('sameResource', 'src/', 'sameResource wraps normalizeUrl.'),
    ];
    const final: StepF = () => ({
      thinking: 'Report fix and the data caveat.',
      text: 'Fixed: `normalizeUrl` lowercased the entire URL before parsing (commit `3c71e0a`), which broke case-sensitive paths and query values. `new URL()` already lowercases the scheme and host, so dedupe on `HTTP://Example.COM` vs `http://example.com` still works without it. `test/url.test.ts` is green again.\n\nOne caveat: bookmarks created since that commit landed (about two hours on main) have a lowercased `normalized_url`. If it was deployed, a one-off backfill (`UPDATE bookmarks SET normalized_url = ...` from `url`) avoids duplicates when those users save the same link again. I can write it if you want.',
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};
