// What is in a GitHub Copilot CLI session's context (issue 33, item 3): a `session.compaction_complete` event is
// Copilot CLI compacting its context by itself, so the rounds before it are history, as Claude Code's compact
// boundaries make them. And every read-only agent's session states one window, the same on its Sessions row, its
// Context Map and `inspect --json` (`context.window`, with where it comes from), and no context beyond it.
import { strict as assert } from 'node:assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { agentFixtures, sharedFixtures } from '../support/fixtures';
import { runCliInProcess } from '../support/cliInProcess';
import { inspectFile } from '../../src/core/inspect';
import { sessionStats } from '../../src/core/sessionStats';
import type { SessionSummary } from '../../src/core/sessionList';
import { buildMapState } from '../../src/extension/model/mapState';
import { shownContext } from '../../src/extension/model/sessionsTree';
import { tempDir } from '../support/temp';

interface Inspected {
  context: { tokens: number; window?: { tokens: number | null; source: string } };
  rounds: { inContext: boolean; firstLine: number; lastLine: number; startsAtBoundary: boolean }[];
  compactions: { line: number; preTokens: number | null; postTokens: number | null }[];
}

async function inspectJson(file: string): Promise<Inspected> {
  const run = await runCliInProcess(['inspect', '--json', file]);
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as Inspected;
}

describe('Copilot CLI: its own compaction decides what is in context (issue 33)', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => (dir = tempDir('ac-copilot-compaction-')));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const fixture of agentFixtures('copilot-cli')) {
    it(`${basename(fixture)} with a compaction Copilot CLI recorded halfway: the rounds before it are history`, async () => {
      const lines = readFileSync(fixture, 'utf8').split('\n').filter(Boolean);
      const ends = lines.flatMap((l, i) =>
        (JSON.parse(l) as { type: string }).type === 'assistant.turn_end' ? [i] : [],
      );
      const at = ends[Math.floor(ends.length / 2)];
      const { timestamp } = JSON.parse(lines[at]) as { timestamp: string };
      // The event as Copilot CLI writes it (its published session-event schema), figures of its own.
      const pre = 135_816;
      const post = 9_000;
      const event = {
        type: 'session.compaction_complete',
        data: {
          success: true,
          preCompactionTokens: pre,
          postCompactionTokens: post,
          summaryContent: 'A summary of the conversation so far.',
        },
        id: 'compaction-1',
        timestamp,
        parentId: null,
      };
      const file = join(dir, `${basename(fixture, '.jsonl')}-compacted.jsonl`);
      writeFileSync(file, [...lines.slice(0, at + 1), JSON.stringify(event), ...lines.slice(at + 1)].join('\n') + '\n');
      const line = at + 2;

      const whole = await inspectJson(fixture);
      const r = await inspectJson(file);
      assert.equal(r.compactions.length, 1);
      assert.equal(r.compactions[0].line, line);
      assert.equal(r.compactions[0].preTokens, pre);
      assert.equal(r.compactions[0].postTokens, post);
      for (const x of r.rounds) {
        if (x.lastLine < line) assert.ok(!x.inContext, `lines ${x.firstLine}-${x.lastLine} are history`);
        if (x.firstLine >= line) assert.ok(x.inContext, `lines ${x.firstLine}-${x.lastLine} are in context`);
      }
      assert.ok(r.rounds.some((x) => !x.inContext) && r.rounds.some((x) => x.inContext && !x.startsAtBoundary));
      assert.ok(r.context.tokens < whole.context.tokens, `${r.context.tokens} after, ${whole.context.tokens} whole`);
    });
  }

  const readOnly = [
    ...agentFixtures('copilot-cli'),
    ...agentFixtures('gemini-cli', /\.jsonl?$/),
    join(sharedFixtures, 'cline', 'task-opus', 'api_conversation_history.json'),
  ];
  for (const file of readOnly) {
    it(`${basename(file)}: one window on the row, the map and inspect --json, and no context beyond it`, async () => {
      const analysis = await inspectFile(file);
      const map = buildMapState(file, analysis, null, undefined);
      const stats = await sessionStats(file);
      // The row of a session whose whole read is done and holds (its quick read's fields are not used then).
      const row = shownContext({} as SessionSummary, { kind: 'ready', stats, stale: false });
      const json = await inspectJson(file);
      assert.ok(json.context.window, 'inspect --json states context.window');
      assert.equal(json.context.window.tokens, map.contextWindow, 'inspect and the map');
      // The row's 0 is "no window stated" (no fill shown).
      assert.equal(row.contextWindow, map.contextWindow ?? 0, 'the row and the map');
      assert.ok(json.context.window.source.length > 10, json.context.window.source);
      if (map.contextWindow !== null) assert.ok(json.context.tokens <= map.contextWindow);
    });
  }
});
