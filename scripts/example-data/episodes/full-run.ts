// Episode 7: full verbose run with debug logs (big error result, queued prompt).
import { type Episode, fit, lookAround, passing } from './story';
import { vitestOutput } from '../../example-generator/command-outputs';
import type { StepF } from '../../example-generator/session-writer';

export const fullRunEpisode: Episode = {
  key: 'fullrun',
  min: 3,
  max: 4,
  title: 'full verbose test run with debug logs to look for flaky tests',
  done: 'Full verbose run with LOG_LEVEL=debug: one failure, a timeout in test/webhooks.test.ts ("pages through webhooks with a cursor"), which passed on a re-run of that file alone: flaky under the single fork, probably pool contention with the webhook retry timers.',
  prompt: () =>
    'Run the whole suite with LOG_LEVEL=debug and the verbose reporter, I want to see if anything is flaky before I push.',
  steps: (_g, n) => {
    const core: StepF[] = [
      (g) => ({
        thinking: 'Run everything with the verbose reporter and debug logs; the output will be long.',
        tools: [
          g.bash(
            'LOG_LEVEL=debug npx vitest run --reporter=verbose 2>&1',
            'Run the whole suite verbosely with debug logs',
            () => {
              if (g.queued) {
                g.now += g.rng.int(4_000, 9_000);
                g.queueOperation('enqueue', g.queued);
              }
              const r = vitestOutput(g.project, g.rng, {
                verbose: true,
                noiseChars: g.budgetChars(8_000, 104_000),
                startMs: g.now,
                failures: [
                  {
                    file: 'test/webhooks.test.ts',
                    test: 'pages through webhooks with a cursor',
                    error: 'Error: Test timed out in 10000ms.',
                    detail: [
                      'If this is a long-running test, pass a timeout value as the last argument or configure it globally with "testTimeout".',
                    ],
                  },
                ],
              });
              return { out: r.text, code: 1, ms: r.durationMs + 10_000 };
            },
            { timeout: 600000 },
          ),
        ],
      }),
      (g) => ({
        thinking:
          'One timeout in the webhooks route tests while everything else passed. Re-run that file alone to see whether it is deterministic.',
        tools: [
          g.bash('npx vitest run test/webhooks.test.ts', 'Re-run the webhooks tests alone', () =>
            passing(g, ['test/webhooks.test.ts']),
          ),
        ],
      }),
    ];
    const extras: StepF[] = [lookAround.read('test/webhooks.test.ts', 'Let me read the test that timed out.')];
    const final: StepF = () => ({
      thinking: 'Report the flaky test.',
      text: "One failure out of the whole run: `test/webhooks.test.ts > /webhooks > pages through webhooks with a cursor` timed out after 10 s. It passes when the file runs alone, so it's flaky rather than broken.\n\nLikely cause: the suite runs in a single fork with a pool of 4 connections, and `deliver()` schedules retry timers that keep issuing `UPDATE webhooks` queries in the background while the paging test inserts rows. Everything else passed, and the debug logs show nothing unusual (no 5xx, no slow queries over 50 ms).\n\nI'd not block the push on it, but worth a ticket: webhook delivery in tests should use a fake `send` and no real timers.",
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};
