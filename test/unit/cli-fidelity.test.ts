// `plan --summary` and `compact --json` report what the summary keeps of the summarized part's facts (fidelity.ts),
// through the CLI as `agent-compactor` runs it (in this process; the bundle's own wiring: test/integration/cli.test.ts)
// on a copy of a real session.
import { strict as assert } from 'node:assert';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FACT_CATEGORIES, type FidelityReport } from '../../src/core/compact/fidelity';
import { fixture } from '../support/fixtures';
import { runCliInProcess } from '../support/cliInProcess';
import { tempDir } from '../support/temp';

const SETTINGS = ['--target-tokens', '20000'];

/** The verb without any Anthropic variable (runCliInProcess removes them). */
const run = (args: string[]) => runCliInProcess(args);

/** The report is whole and adds up: per category kept ≤ total, totals the sums, one missing label per fact not kept. */
function checkReport(r: FidelityReport): void {
  assert.deepEqual(Object.keys(r.categories), [...FACT_CATEGORIES]);
  const kept = FACT_CATEGORIES.reduce((n, c) => n + r.categories[c].kept, 0);
  const total = FACT_CATEGORIES.reduce((n, c) => n + r.categories[c].total, 0);
  for (const c of FACT_CATEGORIES) assert.ok(r.categories[c].kept <= r.categories[c].total, c);
  assert.deepEqual([r.kept, r.total, r.missing.length], [kept, total, total - kept]);
}

describe('the CLI reports the fidelity of the summary it writes or would write', () => {
  let dir: string;
  let transcript: string;
  before(() => {
    dir = tempDir('ac-fidelity-');
    transcript = join(dir, 's.jsonl');
    copyFileSync(fixture('v2.1.97-live-before.jsonl'), transcript);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('plan --summary --json: the offline summary keeps the facts; a bare given summary keeps almost none; stdout stays the summary alone', async () => {
    const offline = await run(['plan', transcript, ...SETTINGS, '--summary', '--json']);
    assert.equal(offline.status, 0, offline.stderr);
    const drafted = JSON.parse(offline.stdout) as { summary: string; fidelity: FidelityReport };
    checkReport(drafted.fidelity);
    assert.ok(drafted.fidelity.total >= 20, `${drafted.fidelity.total} facts`);
    assert.ok(drafted.fidelity.kept >= 0.9 * drafted.fidelity.total, JSON.stringify(drafted.fidelity.missing));

    const bare = join(dir, 'bare.md');
    writeFileSync(bare, 'We worked on the project and made progress.\n');
    const given = JSON.parse(
      (await run(['plan', transcript, ...SETTINGS, '--summary', '--summary-file', bare, '--json'])).stdout,
    ) as { summary: string; fidelity: FidelityReport };
    checkReport(given.fidelity);
    // A short given summary frees its reserve for kept rounds: the summarized part (and its facts) may be a little smaller.
    assert.ok(given.fidelity.total >= 20, `${given.fidelity.total} facts`);
    assert.ok(given.fidelity.kept <= 0.1 * given.fidelity.total, `${given.fidelity.kept} kept by a bare sentence`);
    assert.ok(given.fidelity.missing.some((m) => m.category === 'requests' && m.label.startsWith('the request "')));

    const text = await run(['plan', transcript, ...SETTINGS, '--summary', '--summary-file', bare]);
    assert.equal(text.stdout, 'We worked on the project and made progress.\n');
    assert.match(
      text.stderr,
      new RegExp(
        `^the summary keeps ${given.fidelity.kept} of ${given.fidelity.total} facts of the summarized part \\(user requests \\d+/\\d+, .*; missing: the request "`,
        'm',
      ),
    );
  });

  it('compact --json: the result carries the fidelity of the summary written, the same as planned', async () => {
    const planned = JSON.parse((await run(['plan', transcript, ...SETTINGS, '--summary', '--json'])).stdout) as {
      summary: string;
      fidelity: FidelityReport;
    };
    const c = await run(['compact', transcript, ...SETTINGS, '--json']);
    assert.equal(c.status, 0, c.stderr);
    const result = JSON.parse(c.stdout) as { output: string; fidelity: FidelityReport };
    checkReport(result.fidelity);
    assert.deepEqual(result.fidelity, planned.fidelity);
    const written = readFileSync(result.output, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { isCompactSummary?: boolean; message?: { content: unknown } })
      .find((o) => o.isCompactSummary);
    assert.ok(
      typeof written?.message?.content === 'string' && written.message.content.endsWith(planned.summary),
      'the summary measured is the one written',
    );
  });
});
