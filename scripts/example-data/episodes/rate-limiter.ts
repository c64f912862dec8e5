// Episode 4: rate limiter bursts.
import { type Episode, fit, lookAround, passing } from './story';
import type { StepF } from '../../example-generator/session-writer';

export const rateLimitEpisode: Episode = {
  key: 'ratelimit',
  min: 7,
  max: 9,
  title: 'fix the rate limiter letting bursts through (ms vs seconds in the refill)',
  done: 'Rate limiter fix: RateLimiter.take in src/services/rateLimiter.ts converts the elapsed time to seconds before multiplying by refillPerSecond (it refilled 1000x too fast) and retryAfterMs is now in milliseconds. Confirmed from logs/dev.log (bursts of 40+ requests all 200). Two tests added to test/rateLimiter.test.ts.',
  prompt: () =>
    'OK, rate limiting. Free plan is supposed to be 10 req/s with a burst of 20, but people fire 50+ requests in a burst and get 200s. I reproduced it locally and the dev server log is in logs/dev.log.',
  steps: (_g, n) => {
    const core: StepF[] = [
      (g) => ({
        thinking: 'The subagent already flagged the unit mismatch. Read the limiter and its tests together.',
        tools: [g.read('src/services/rateLimiter.ts'), g.read('test/rateLimiter.test.ts')],
      }),
      (g) => ({
        thinking:
          'With elapsed in ms, even 3 ms between two requests adds 30 tokens, so the bucket is always full during a burst. The tests advance the fake clock by whole seconds and only check a full refill, which is why they pass. Let me confirm the pattern in the log before changing anything.',
        text: '`elapsed` is in milliseconds but multiplied by a per-second rate, so any gap of a few ms refills the bucket. Let me confirm in the log.',
        tools: [g.read('logs/dev.log', { size: [30_000, 116_000] })],
      }),
      (g) => ({
        thinking:
          'The log shows bursts of dozens of GETs a few ms apart from one user, all 200, and the rate limit checks never go to 0. Count them to be sure there is no 429 at all.',
        tools: [
          g.bash(
            'grep -c \'"msg":"rate limit check"\' logs/dev.log; grep -c \'"statusCode":429\' logs/dev.log',
            'Count rate limit checks and 429s in the dev log',
            () => {
              const log = g.project.read('logs/dev.log');
              const checks = log.split('\n').filter((l) => l.includes('"msg":"rate limit check"')).length;
              return { out: `${checks}\n0`, code: 1 };
            },
          ),
        ],
      }),
      (g) => ({
        thinking:
          'grep -c exits 1 when the count is 0, that is the 429 count: none at all. Fix both unit problems: the refill and retryAfterMs.',
        text: 'No 429s at all in the log (grep exits 1 on a zero count). Fixing the refill and the retry-after units:',
        tools: [
          g.edit(
            'src/services/rateLimiter.ts',
            '    const elapsed = at - bucket.updatedAt;\n    bucket.tokens = Math.min(this.options.burst, bucket.tokens + elapsed * this.options.refillPerSecond);',
            '    const elapsedSeconds = (at - bucket.updatedAt) / 1000;\n    bucket.tokens = Math.min(this.options.burst, bucket.tokens + elapsedSeconds * this.options.refillPerSecond);',
          ),
          g.edit(
            'src/services/rateLimiter.ts',
            '      retryAfterMs: Math.ceil(missing / this.options.refillPerSecond),',
            '      retryAfterMs: Math.ceil((missing / this.options.refillPerSecond) * 1000),',
          ),
        ],
      }),
      (g) => ({
        thinking:
          'Add tests that would have caught it: a drained bucket must not refill within 100 ms, and retryAfterMs must be in ms.',
        tools: [
          g.edit(
            'test/rateLimiter.test.ts',
            "  it('keeps buckets separate per key', () => {",
            "  it('does not refill a drained bucket within 100ms', () => {\n    const c = clock();\n    const limiter = new RateLimiter({ refillPerSecond: 10, burst: 20 }, c.now);\n    for (let i = 0; i < 20; i++) limiter.take('u1');\n    c.advance(100);\n    expect(limiter.take('u1').allowed).toBe(true);\n    expect(limiter.take('u1').allowed).toBe(false);\n  });\n\n  it('reports retry-after in milliseconds', () => {\n    const c = clock();\n    const limiter = new RateLimiter({ refillPerSecond: 10, burst: 1 }, c.now);\n    limiter.take('u1');\n    expect(limiter.take('u1').retryAfterMs).toBe(100);\n  });\n\n  it('keeps buckets separate per key', () => {",
          ),
        ],
      }),
      (g) => ({
        thinking: 'Run the limiter tests.',
        tools: [
          g.bash('npx vitest run test/rateLimiter.test.ts', 'Run rate limiter tests', () =>
            passing(g, ['test/rateLimiter.test.ts']),
          ),
        ],
      }),
    ];
    const extras: StepF[] = [
      lookAround.grep('refillPerSecond|retryAfterMs', 'src/', 'retryAfterMs also feeds the retry-after header.'),
      lookAround.read(
        'src/lib/errors.ts',
        'The 429 handler converts retryAfterMs to the retry-after header; let me check it expects milliseconds.',
      ),
    ];
    const final: StepF = () => ({
      thinking: 'Summarize and mention the per-process limitation again.',
      text: 'Fixed in `src/services/rateLimiter.ts`:\n\n- **Refill**: the elapsed time is converted to seconds before multiplying by `refillPerSecond`. Before, 3 ms between two requests added 30 tokens, so a burst never drained the bucket. `logs/dev.log` shows exactly that: bursts of 40+ requests a few ms apart, every one a 200, and not a single 429.\n- **retry-after**: `retryAfterMs` was in seconds; it is now in milliseconds, which is what `errorHandler` expects when it builds the `retry-after` header.\n\nTwo new tests in `test/rateLimiter.test.ts` (no refill within 100 ms, retry-after in ms); the limiter tests pass.\n\nStill true after this fix: buckets are per process. If you run more than one instance, the effective limit is multiplied by the instance count. Moving the buckets to Postgres or Redis would be the next step if that matters.',
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};
