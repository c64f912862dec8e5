// Episode 8: webhooks answering 410 are retried forever.
import { type Episode, fit, lookAround, passing, pgTime, psqlTable } from './story';
import type { StepF } from '../../example-generator/session-writer';

const WEBHOOK_TEST = String.raw`import { describe, expect, it, vi } from 'vitest';
import type { Pool } from 'pg';
import { deliver } from '../src/services/webhookService';
import type { Webhook } from '../src/schemas/webhook';

function fakeDb() {
  const queries: string[] = [];
  const db = { query: async (sql: string) => (queries.push(sql), { rows: [], rowCount: 1 }) } as unknown as Pool;
  return { db, queries };
}

const webhook: Webhook = {
  id: '5e0b7c21-9d4a-4c8f-a3e6-1b2d0f9c8a47',
  userId: '2f1c9a64-0b7e-4d35-9a51-6c0f3e2b7d18',
  targetUrl: 'https://hooks.example.net/shelfmark',
  events: ['bookmark.created'],
  isActive: true,
  failureCount: 0,
  lastDeliveryAt: null,
  createdAt: new Date('2026-05-01T00:00:00.000Z'),
};

describe('deliver', () => {
  it('disables the webhook on 410 Gone and does not retry', async () => {
    vi.useFakeTimers();
    const { db, queries } = fakeDb();
    const send = vi.fn(async () => ({ status: 410 }));
    await deliver(db, webhook, 'bookmark.created', {}, send);
    await vi.runAllTimersAsync();
    expect(send).toHaveBeenCalledTimes(1);
    expect(queries.some((q) => q.includes('is_active = false'))).toBe(true);
    vi.useRealTimers();
  });

  it('gives up after the last retry delay', async () => {
    vi.useFakeTimers();
    const { db } = fakeDb();
    const send = vi.fn(async () => ({ status: 503 }));
    await deliver(db, webhook, 'bookmark.created', {}, send);
    await vi.runAllTimersAsync();
    expect(send).toHaveBeenCalledTimes(5);
    vi.useRealTimers();
  });

  it('resets the failure count after a success', async () => {
    const { db, queries } = fakeDb();
    await deliver(db, webhook, 'bookmark.created', {}, async () => ({ status: 204 }));
    expect(queries[0]).toContain('failure_count = 0');
  });
});
`;

export const webhookEpisode: Episode = {
  key: 'webhook',
  min: 7,
  max: 9,
  title: 'stop retrying webhooks forever; disable them on 410 Gone',
  done: 'Webhooks: deliver() in src/services/webhookService.ts now disables the webhook (is_active = false) on 410 Gone without retrying, and stops after the last of RETRY_DELAYS_MS instead of retrying forever. New test/webhookDelivery.test.ts with a fake db and fake timers.',
  prompt: (g) =>
    g.queuedPrompt ??
    'While that ran: webhook deliveries get retried forever when the receiver answers 410 Gone. A 410 should disable the webhook instead of retrying.',
  steps: (_g, n) => {
    const core: StepF[] = [
      (g) => ({
        thinking: 'The delivery loop is at the end of the webhook service.',
        tools: [g.read('src/services/webhookService.ts')],
      }),
      (g) => ({
        thinking:
          'deliver() retries on any non-2xx, and the delay index is clamped to the last entry, so attempts never stop. Check the callers before changing the signature or behaviour.',
        text: 'Every failure schedules another attempt and the delay index is clamped, so retries never stop. Checking callers first:',
        tools: [g.grep('deliver\\(', { under: 'src/' })],
      }),
      (g) => ({
        thinking:
          'Before changing it, how bad is it in the dev database? Webhooks with many failures and their last delivery.',
        tools: [
          g.bash(
            `psql "$DATABASE_URL" -c "select id, target_url, is_active, failure_count, last_delivery_at from webhooks order by failure_count desc"`,
            'List webhooks by failure count',
            () => {
              let fails = g.rng.int(3_000, 9_000);
              const out = psqlTable(
                ['id', 'target_url', 'is_active', 'failure_count', 'last_delivery_at'],
                () => {
                  fails = Math.max(0, fails - g.rng.int(0, 400));
                  const host = g.rng.pick([
                    'hooks.example.net',
                    'automation.example.com',
                    'ci.example.io',
                    'zap.example.org',
                  ]);
                  return [
                    g.rng.uuid(),
                    `https://${host}/${g.rng.chars(10, 'abcdefghijklmnopqrstuvwxyz0123456789')}`,
                    't',
                    String(fails),
                    fails > 50 ? '' : pgTime(Date.UTC(2026, 4, g.rng.int(1, 11), g.rng.int(0, 23), g.rng.int(0, 59))),
                  ];
                },
                g.budgetChars(2_000, 105_000),
              );
              return { out, ms: g.rng.int(90, 900) };
            },
          ),
        ],
      }),
      (g) => ({
        thinking:
          'Only the service itself calls deliver. Handle 410 as permanent (disable, no retry) and cap the attempts at the length of RETRY_DELAYS_MS.',
        tools: [
          g.edit(
            'src/services/webhookService.ts',
            "  } else {\n    await db.query('UPDATE webhooks SET failure_count = failure_count + 1 WHERE id = $1', [webhook.id]);\n    const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)];\n    setTimeout(() => void deliver(db, webhook, event, payload, send, attempt + 1), delay).unref();\n  }",
            "  } else if (status === 410) {\n    // The receiver is gone for good: stop delivering until the user re-enables the webhook.\n    await db.query('UPDATE webhooks SET is_active = false, failure_count = failure_count + 1 WHERE id = $1', [webhook.id]);\n  } else {\n    await db.query('UPDATE webhooks SET failure_count = failure_count + 1 WHERE id = $1', [webhook.id]);\n    if (attempt + 1 < RETRY_DELAYS_MS.length) {\n      const delay = RETRY_DELAYS_MS[attempt];\n      setTimeout(() => void deliver(db, webhook, event, payload, send, attempt + 1), delay).unref();\n    }\n  }",
          ),
        ],
      }),
      (g) => ({
        thinking:
          'Unit tests with a fake db and fake timers: 410 disables and sends once, 503 gives up after five attempts, success resets the count.',
        tools: [g.write('test/webhookDelivery.test.ts', WEBHOOK_TEST)],
      }),
      (g) => ({
        thinking: 'Run the new tests and the webhook route tests.',
        tools: [
          g.bash('npx vitest run test/webhookDelivery.test.ts test/webhooks.test.ts', 'Run webhook tests', () =>
            passing(g, ['test/webhookDelivery.test.ts', 'test/webhooks.test.ts']),
          ),
        ],
      }),
    ];
    const extras: StepF[] = [
      lookAround.read('src/schemas/webhook.ts', 'The test needs a Webhook object; let me check the schema fields.'),
      lookAround.curl('/webhooks?limit=100'),
    ];
    const final: StepF = () => ({
      thinking: 'Summarize.',
      text: 'Fixed in `deliver()` (`src/services/webhookService.ts`):\n\n- **410 Gone** now sets `is_active = false` (and bumps `failure_count`) and schedules no retry.\n- **Other failures** retry with the existing delays (1 s, 5 s, 30 s, 2 min, 10 min) and then stop. Before, the delay index was clamped to the last entry, so a dead endpoint was retried every 10 minutes forever.\n\n`test/webhookDelivery.test.ts` covers both cases plus the reset on success, using a fake db and fake timers, so no real timers leak into the suite (which may also help with the flaky timeout from earlier). Webhook tests pass.\n\nThe web app should probably show disabled webhooks with a re-enable button; the API already supports `PATCH /webhooks/:id` with `isActive: true`.',
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};
