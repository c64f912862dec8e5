// Episode 10: review and commit.
import { type Episode, fit, lookAround } from './story';
import { gitDiff, gitDiffStat, gitStatus, shortHash } from '../../example-generator/command-outputs';
import { diffCounts } from '../../example-generator/diff';
import type { StepF } from '../../example-generator/session-writer';

const FEATURE_FILES = [
  'src/routes/tags.ts',
  'src/services/tagService.ts',
  'src/db/migrations/0009_tags_name_prefix.sql',
  'test/tags.search.test.ts',
];

export const reviewEpisode: Episode = {
  key: 'review',
  min: 6,
  max: 7,
  title: 'review the diff and commit in two commits',
  done: 'Committed on feat/tag-prefix-search: one commit with the fixes (pagination, url, rate limiter, import dates, webhooks, lint), one with the tag search feature.',
  prompt: () =>
    "Let's wrap up. Show me what changed overall, then commit it as two commits on this branch: one for the fixes (pagination, url, rate limiter, import, webhooks, lint) and one for the tag search feature.",
  steps: (g, n) => {
    const commit = (candidates: string[], message: string) => {
      const { modified, added } = g.project.changed();
      const files = candidates.filter((p) => modified.includes(p) || added.includes(p));
      const hash = shortHash(message + files.join());
      const stat = files.map((p) => {
        const c = diffCounts(g.project.head.get(p) ?? '', g.project.read(p));
        return c;
      });
      const ins = stat.reduce((s, c) => s + c.added, 0);
      const del = stat.reduce((s, c) => s + c.removed, 0);
      const created = files.filter((p) => !g.project.head.has(p));
      g.project.commit(files);
      g.commitLog.unshift(`${hash} ${message.split('\n')[0]}`);
      return [
        `[${g.gitBranch} ${hash}] ${message.split('\n')[0]}`,
        ` ${files.length} files changed, ${ins} insertions(+), ${del} deletions(-)`,
        ...created.map((p) => ` create mode 100644 ${p}`),
      ].join('\n');
    };
    const core: StepF[] = [
      (g) => ({
        thinking: 'Status and a stat first, then the full diff.',
        tools: [
          g.bash('git status', 'Show working tree status', () => ({ out: gitStatus(g.project, g.gitBranch) })),
          g.bash('git diff --stat', 'Summarize changes', () => ({ out: gitDiffStat(g.project) })),
        ],
      }),
      (g) => ({
        thinking: 'Full diff of tracked files, plus the new files, to review before committing.',
        tools: [
          g.bash(
            'git diff && git diff --no-index /dev/null test/tags.search.test.ts; git diff --no-index /dev/null test/webhookDelivery.test.ts; true',
            'Show the full diff including new files',
            () => ({ out: gitDiff(g.project) }),
          ),
        ],
      }),
      (g) => ({
        thinking: 'Everything matches what we did. Commit the fixes first: everything except the tag search files.',
        tools: [
          g.bash(
            'git add -A -- . ' +
              FEATURE_FILES.map((p) => "':!" + p + "'").join(' ') +
              ' && git commit -m "fix: stable pagination, url case, rate limiter refill, import dates, webhook retries" -m "Keyset pagination breaks ties on id; normalizeUrl keeps path case; the limiter refills per second; imports keep ADD_DATE; webhooks stop on 410 and after the last retry; unused imports removed."',
            'Commit the fixes',
            () => {
              const { modified, added } = g.project.changed();
              const files = [...modified, ...added].filter((p) => !FEATURE_FILES.includes(p));
              return {
                out: commit(
                  files,
                  'fix: stable pagination, url case, rate limiter refill, import dates, webhook retries',
                ),
              };
            },
          ),
        ],
      }),
      (g) => ({
        thinking: 'Then the feature commit with the remaining files.',
        tools: [
          g.bash(
            'git add ' +
              FEATURE_FILES.join(' ') +
              ' && git commit -m "feat(tags): prefix search endpoint for autocomplete"',
            'Commit the tag search feature',
            () => ({
              out: commit(
                FEATURE_FILES.filter((p) => g.project.files.has(p)),
                'feat(tags): prefix search endpoint for autocomplete',
              ),
            }),
          ),
        ],
      }),
      (g) => ({
        thinking: 'Confirm the log.',
        tools: [
          g.bash('git log --oneline -4 && git status --short', 'Show the new commits', () => ({
            out: g.commitLog.slice(0, 4).join('\n'),
          })),
        ],
      }),
    ];
    const extras: StepF[] = [
      lookAround.read(
        'src/lib/pagination.ts',
        'Re-read the final pagination helper once more before committing, it is the riskiest change.',
      ),
    ];
    const final: StepF = () => ({
      thinking: 'Wrap up with what is committed and what is left.',
      text: "Committed on `feat/tag-prefix-search`:\n\n1. **fix: stable pagination, url case, rate limiter refill, import dates, webhook retries**: `pagination.ts` (+ tests), `url.ts`, `rateLimiter.ts` (+ tests), `importService.ts` (+ tests), `webhookService.ts` (+ new `webhookDelivery.test.ts`), and the four lint fixes.\n2. **feat(tags): prefix search endpoint for autocomplete**: route, service method, migration `0009`, tests.\n\nThe working tree is clean. Not pushed yet. Before merging, you may want to split commit 1 into its own PR against main, since the CI fix for `url.ts` is urgent on its own and shouldn't wait for the feature review.",
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};
