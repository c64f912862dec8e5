// Small questions: used to fill the tail, any number of times.
import { type Episode, fit, lookAround } from './story';
import { Gen, type StepF, type ToolCall } from '../../example-generator/session-writer';

interface Question {
  prompt: string;
  look: (g: Gen) => ToolCall[];
  answer: string;
}

const QUESTIONS: Question[] = [
  {
    prompt:
      'Quick one before I push: why does the cursor use base64url JSON instead of just putting the timestamp and id in the query string?',
    look: (g) => [g.read('src/lib/pagination.ts')],
    answer:
      "Mostly to keep it opaque:\n\n- Clients can't build or tweak cursors, so we can change what's inside (like adding `id` today) without breaking an API contract. Old cursors simply decode to `null` and restart from page one.\n- One parameter instead of two avoids half-specified requests (`created_at` without `id`) and URL-encoding issues with `+` in ISO timestamps.\n- base64url (not plain base64) needs no escaping in a query string.\n\nIt isn't a security boundary though: anyone can decode it. If that ever matters, sign it with the session secret the same way `sm_session` is signed.",
  },
  {
    prompt: 'Is there anything in app.ts that would stop us from running two instances behind the load balancer?',
    look: (g) => [g.read('src/app.ts'), g.read('src/plugins/auth.ts')],
    answer:
      'Nothing in `app.ts` itself: no in-process state beyond the pg pool. The catch is in `src/plugins/auth.ts`: the rate limiter buckets live in memory, so with two instances a user gets up to twice the burst and refill rate, depending on how the load balancer spreads requests. Sessions are fine (signed cookies, no server-side store) and webhook retries use in-process timers, so a retry is lost if its instance restarts, but nothing is duplicated.',
  },
  {
    prompt: 'How big is the generated API types file these days? Is it worth splitting?',
    look: (g) => [
      g.bash('wc -lc src/types/api.generated.ts', 'Size of the generated types', () => {
        const c = g.project.read('src/types/api.generated.ts');
        return { out: `  ${c.split('\n').length - 1} ${c.length} src/types/api.generated.ts` };
      }),
    ],
    answer:
      "It's generated, so I wouldn't split it by hand: the next `npm run openapi` would undo it. The size mostly comes from the versioned and admin copies of each path in `openapi.yaml`. If editor performance is the concern, `openapi-typescript` can emit one file per tag, or we could drop the `/v2` duplicates once the mobile app stops using them.",
  },
  {
    prompt: 'Where do we set the pg pool size, and what is it in tests?',
    look: (g) => [g.grep('max: ', { under: 'src/db/' })],
    answer:
      "`src/db/pool.ts`: `max: config.env === 'test' ? 4 : 20`. So 4 connections in tests (one fork runs all files) and 20 otherwise, with a 30 s idle timeout. Raising the test value would probably make the flaky webhook timeout rarer, but the fake timers in the new delivery tests address the cause.",
  },
  {
    prompt: 'Give me a one-paragraph summary of today for the PR description.',
    look: () => [],
    answer:
      "This branch fixes several production issues and adds tag autocomplete. List endpoints now paginate on `(created_at, id)`, so bookmarks that share a timestamp (common after imports) are no longer skipped or repeated across pages; imports keep each bookmark's original `ADD_DATE`; `normalizeUrl` no longer lowercases paths and query values, which had broken CI; the rate limiter refills per second instead of per millisecond and reports `retry-after` correctly; webhooks are disabled on `410 Gone` and stop retrying after the last backoff step. New: `GET /tags/search` for case-insensitive prefix search, backed by a `text_pattern_ops` index (migration `0009`). Tests cover each change.",
  },
];

export function questionEpisode(index: number): Episode {
  const q = QUESTIONS[index % QUESTIONS.length];
  return {
    key: 'question-' + index,
    min: 1,
    max: 3,
    title: 'answer a question: ' + q.prompt,
    done: 'Answered: ' + q.prompt,
    prompt: () => q.prompt,
    steps: (_g, n) => {
      const core: StepF[] = [];
      if (n >= 2) {
        core.push((g) => {
          const tools = q.look(g);
          return tools.length
            ? { thinking: 'Let me check the code rather than answer from memory.', tools }
            : {
                thinking: 'Let me look at the commits on this branch first.',
                tools: [
                  g.bash('git log --oneline -6', 'Recent commits', () => ({ out: g.commitLog.slice(0, 6).join('\n') })),
                ],
              };
        });
      }
      const extras: StepF[] = [
        lookAround.read('README.md', 'The README may already say something about this.'),
        lookAround.read('CLAUDE.md', 'Check the project notes as well.'),
      ];
      const final: StepF = () => ({ thinking: 'Answer concisely.', text: q.answer, tools: [] });
      return fit(core, extras, final, n);
    },
  };
}
