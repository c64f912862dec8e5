// Episode 2: how does auth work? (Explore subagent in <session>/subagents).
import { type Episode, fit, lookAround } from './story';
import type { StepF } from '../../example-generator/session-writer';

export const exploreEpisode: Episode = {
  key: 'explore',
  min: 2,
  max: 3,
  title: 'map how requests are authenticated and where the rate limiter sits',
  done: 'Auth overview (via an Explore subagent): requireUser in src/plugins/auth.ts resolves a Bearer sk_ API key (prefix + sha256 lookup in api_keys joined to users.plan) or the signed sm_session cookie (src/lib/session.ts, HMAC-SHA256, 30 days); then it takes one token from an in-memory per-plan RateLimiter (src/services/rateLimiter.ts, free 10/s burst 20, pro 50/s burst 100). The limiter state is per process.',
  prompt: () =>
    'Before I touch rate limiting: can you map out how a request gets authenticated? Session cookie vs API key, where the plan comes from, and where the limiter sits. Use a subagent if it helps, I do not need every file in the conversation.',
  attachments: () => [{ type: 'task_reminder', content: [], itemCount: 0 }],
  steps: (_g, n) => {
    const report =
      "## How a request is authenticated\n\n**Entry point**: every protected route declares `{ preHandler: requireUser }` (`src/plugins/auth.ts`). 34 route handlers across 9 route files use it; `/health` is the only public route.\n\n**1. API key** (header `Authorization: Bearer sk_...`)\n- `resolveApiKey` takes characters 3..11 of the token as the key prefix and hashes the whole token with SHA-256.\n- One query joins `api_keys` to `users` on `prefix` and `hashed_secret`, skipping expired keys, and returns `user_id`, `users.plan` and the key's `scopes`.\n- It fires an un-awaited `UPDATE api_keys SET last_used_at = now()` (errors from it are not handled).\n\n**2. Session cookie** (`sm_session`, set by the web app)\n- `verifySession` in `src/lib/session.ts`: `base64url(JSON payload) + '.' + HMAC-SHA256(secret, payload)`, compared with `timingSafeEqual`; payload is `{ userId, issuedAt }` and expires after 30 days.\n- The plan is then read from `users.plan`; session users get scopes `['read', 'write']`.\n\n**3. Rate limiting** (after authentication, before the handler)\n- `limiters[user.plan].take(user.id)`: one `RateLimiter` per plan, keyed by user id, from `src/services/rateLimiter.ts` (`PLAN_LIMITS`: free 10/s burst 20, pro 50/s burst 100).\n- Sets `x-ratelimit-remaining`; throws `RateLimitedError` (429 with `retry-after`) when the bucket is empty.\n- State lives in a `Map` inside the process, swept every 60 s. With more than one instance each one has its own buckets.\n\n**Things that looked off**\n- In `RateLimiter.take`, `elapsed` is in milliseconds but is multiplied by `refillPerSecond`.\n- `retryAfterMs` divides by a per-second rate, so it is in seconds, not milliseconds.\n- `git log` shows the limiter was last touched in \"auth: per-plan rate limits\" three weeks ago; no test covers refill over less than a second.";
    const subSteps: StepF[] = [
      (g) => ({
        text: "I'll start by finding the files involved in authentication and rate limiting.",
        tools: [
          g.grep('requireUser|verifySession|resolveApiKey|RateLimiter', { under: 'src/', mode: 'files_with_matches' }),
        ],
      }),
      (g) => ({
        tools: [g.read('src/plugins/auth.ts'), g.read('src/lib/session.ts'), g.read('src/services/rateLimiter.ts')],
      }),
      (g) => ({
        text: 'Now how widely requireUser is used across the routes.',
        tools: [g.grep('preHandler: requireUser', { under: 'src/routes/' })],
      }),
      (g) => ({
        tools: [
          g.read('src/db/migrations/0005_api_keys.sql'),
          g.bash(
            'git log --oneline -6 -- src/plugins/auth.ts src/services/rateLimiter.ts',
            'Recent history of the auth files',
            () => ({
              out: [
                '4e8d21a auth: per-plan rate limits',
                '9b13f07 auth: accept API keys in the Authorization header',
                'c2a6e55 session: timing-safe signature check',
                '71f0d3b auth: move session parsing to lib/session',
                'a05c9e2 initial fastify app',
              ].join('\n'),
            }),
          ),
        ],
      }),
      () => ({ text: report, tools: [] }),
    ];
    const core: StepF[] = [
      (g) => ({
        thinking:
          'This is a cross-cutting question. An Explore subagent can trace the call graph and report back a summary while I read the auth plugin myself, which keeps the detail out of this conversation.',
        tools: [
          g.agent(
            'Map request authentication',
            "Map how an incoming request is authenticated in this Fastify app (cwd). Cover: the session cookie path, the API key path, where the user's plan comes from, and where and how rate limiting is applied. Report file paths, function names and anything that looks wrong. Do not modify files.",
            'Explore',
            subSteps,
          ),
          g.read('src/plugins/auth.ts'),
        ],
      }),
    ];
    const extras: StepF[] = [
      lookAround.read(
        'src/lib/session.ts',
        'The report mentions the cookie format; let me confirm the expiry handling myself.',
      ),
    ];
    const final: StepF = () => ({
      thinking:
        'Condense the subagent report for the user and point at the two limiter bugs, since that is what they are about to work on.',
      text: "Here's the flow (`src/plugins/auth.ts`):\n\n1. **API key** (`Authorization: Bearer sk_...`): the 8-char prefix plus a SHA-256 of the whole token are looked up in `api_keys` joined to `users`, giving the user id, `users.plan` and the key's scopes.\n2. **Session cookie** (`sm_session`): `verifySession` checks an HMAC-SHA256 signature (timing-safe) and a 30-day age, then the plan is read from `users`.\n3. **Rate limit**: after auth, `limiters[plan].take(user.id)`, one in-memory token bucket per plan keyed by user id (free 10/s burst 20, pro 50/s burst 100). It sets `x-ratelimit-remaining` and throws a 429 with `retry-after` when empty.\n\nTwo things to know before you change it:\n- **Refill bug**: `RateLimiter.take` multiplies an elapsed time in *milliseconds* by `refillPerSecond`, so a bucket refills 1000x too fast. Any pause of a few ms refills it completely.\n- The limiter is **per process**: with several instances behind the load balancer each one has its own buckets.\n\nAlso, `retryAfterMs` is actually in seconds.",
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};
