// A tool result's preview is part of every later request, so its bytes must not depend on the process that made
// them: a fresh process with another locale and time zone writes the same preview (the exact text is pinned in
// test/unit/budget.test.ts).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { makePreview } from '../../src/core/compact/budget';

describe('tool-result previews across processes', function () {
  this.timeout(60_000);

  it('a fresh process with another locale and time zone writes the same preview bytes', () => {
    const text = Array.from({ length: 500 }, (_, i) => 'row ' + i).join('\n');
    const expected = makePreview(text, 2000, '/x/session.tool-results/toolu_1.txt');
    const script =
      `const { makePreview } = require(${JSON.stringify(resolve(__dirname, '../../src/core/compact/budget.ts'))});` +
      `const text = Array.from({ length: 500 }, (_, i) => 'row ' + i).join('\\n');` +
      `process.stdout.write(makePreview(text, 2000, '/x/session.tool-results/toolu_1.txt'));`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, LANG: 'de_DE.UTF-8', LC_ALL: 'de_DE.UTF-8', TZ: 'Asia/Kolkata' },
    });
    assert.equal(child.status, 0, child.stderr);
    assert.ok(expected.includes('3,889 characters'), 'the preview names the original size');
    assert.equal(child.stdout, expected, 'same preview in a fresh process');
  });
});
