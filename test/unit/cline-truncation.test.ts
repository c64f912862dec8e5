// What is in a Cline task's context is what Cline sends (issue 33, item 3): its api_conversation_history less the
// ranges it truncated. A range Cline recorded (`conversationHistoryDeletedRange`, stamped on its ui messages) leaves
// those messages out; with no ui_messages.json to record any, a history that does not fit the window was truncated by
// Cline's rules (it always truncates before a request that would not fit), said as such, never shown as a context
// beyond the window. Tasks built from the shared fixture's own messages, written one message a line so that each
// round's line names its message.
import { strict as assert } from 'node:assert';
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sharedFixtures } from '../support/fixtures';
import { runCliInProcess } from '../support/cliInProcess';
import { tempDir } from '../support/temp';

const task = join(sharedFixtures, 'cline', 'task-opus');
const history = JSON.parse(readFileSync(join(task, 'api_conversation_history.json'), 'utf8')) as unknown[];
const ui = JSON.parse(readFileSync(join(task, 'ui_messages.json'), 'utf8')) as Record<string, unknown>[];

interface Inspected {
  context: { tokens: number; window: { tokens: number | null; source: string } };
  rounds: { inContext: boolean; firstLine: number; lastLine: number; startsAtBoundary: boolean }[];
  compactions: { trigger: string }[];
}

/** Message k of a history written by `write` is on line k + 2 (the array's bracket is line 1). */
const lineOf = (k: number) => k + 2;

describe('Cline: what is in context is what Cline sends (issue 33)', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => (dir = tempDir('ac-cline-truncation-')));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A task folder holding `messages` (one a line) and, when given, `uiMessages`; inspected by the CLI. */
  async function inspect(name: string, messages: unknown[], uiMessages?: unknown[]): Promise<Inspected> {
    const folder = join(dir, name);
    mkdirSync(folder);
    const file = join(folder, 'api_conversation_history.json');
    writeFileSync(file, `[\n${messages.map((m) => JSON.stringify(m)).join(',\n')}\n]\n`);
    if (uiMessages) writeFileSync(join(folder, 'ui_messages.json'), JSON.stringify(uiMessages));
    const run = await runCliInProcess(['inspect', '--json', file]);
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout) as Inspected;
  }

  // The task, then its turns six times over: a history far beyond a 200k window.
  const long = [...history.slice(0, 2), ...Array.from({ length: 6 }, () => history.slice(2)).flat()];

  it('the fixture as it is: nothing truncated, every round in context, within the window', async () => {
    for (const [name, withUi] of [
      ['as-is', true],
      ['as-is-no-ui', false],
    ] as const) {
      const r = await inspect(name, history, withUi ? ui : undefined);
      assert.deepEqual(r.compactions, []);
      assert.ok(r.rounds.every((x) => x.inContext));
      assert.ok(r.context.window.tokens !== null && r.context.tokens <= r.context.window.tokens);
    }
  });

  it('no ui_messages.json and a history beyond the window: truncated by Cline’s rules, said so, within the window', async () => {
    const r = await inspect('long-no-ui', long);
    const { window } = r.context;
    assert.ok(window.tokens !== null && window.tokens > 0, JSON.stringify(window));
    assert.ok(
      r.context.tokens <= window.tokens,
      `context ${r.context.tokens} of a ${window.tokens} window (${window.source})`,
    );
    assert.ok(r.compactions.length > 0, 'the truncation is shown');
    for (const c of r.compactions) assert.match(c.trigger, /assumed truncation.*no ui_messages\.json/);
    // Cline keeps the task and its first reply; the newest messages are sent; old ones are not.
    const roundAt = (k: number) => r.rounds.find((x) => x.firstLine <= lineOf(k) && lineOf(k) <= x.lastLine)!;
    assert.ok(roundAt(0).inContext, 'the task');
    assert.ok(roundAt(long.length - 1).inContext, 'the newest message');
    assert.ok(!roundAt(2).inContext, 'the oldest message after the task and its first reply');
  });

  it('a truncation Cline recorded leaves its range out of the context', async () => {
    // The range Cline records: from the third message (the task and its first reply kept) to a reply, here the
    // messages of the first four of the six copies; stamped on the ui messages of the second half of the task.
    const end = 2 + 4 * (history.length - 2) - 1;
    assert.equal((long[end] as { role: string }).role, 'assistant', 'a range ends on a reply');
    const stamped = ui.map((m, i) => (i < ui.length / 2 ? m : { ...m, conversationHistoryDeletedRange: [2, end] }));
    const r = await inspect('long-recorded', long, stamped);
    assert.deepEqual(
      r.compactions.map((c) => c.trigger),
      ['truncation'],
    );
    for (const x of r.rounds) {
      // The round the truncation starts: its boundary, and the task and first reply Cline keeps before the range.
      if (x.startsAtBoundary) {
        assert.ok(x.inContext && x.firstLine === lineOf(0), `lines ${x.firstLine}-${x.lastLine}`);
        continue;
      }
      // (A round is a reply and the messages after it: the first reply, kept, is followed by the first message sent
      // after the range, so its lines span the range without holding any of it.)
      const deleted = x.firstLine >= lineOf(2) && x.lastLine <= lineOf(end);
      if (deleted) assert.ok(!x.inContext, `lines ${x.firstLine}-${x.lastLine}: truncated, yet in context`);
      else if (x.firstLine > lineOf(end) || x.lastLine < lineOf(2))
        assert.ok(x.inContext, `lines ${x.firstLine}-${x.lastLine}: sent, yet not in context`);
    }
    assert.ok(r.rounds.some((x) => !x.inContext));
    assert.ok(r.context.window.tokens !== null && r.context.tokens <= r.context.window.tokens);
  });
});
