// Codex records the model's context window on every token count (`info.model_context_window`): the reader keeps it
// on the entry, and the context map shows it rather than the 200k a Claude model id would give.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { recordedContextWindow } from '../../src/core/context';
import { inspectFile } from '../../src/core/inspect';
import { buildMapState } from '../../src/extension/model/mapState';
import { agentFixtures, fixture } from '../support/fixtures';

/** The newest token count's model_context_window, read from the file's JSON independently of the reader. */
function newestWindowInFile(file: string): number | null {
  let window: number | null = null;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const o = JSON.parse(line) as {
      type?: string;
      payload?: { type?: string; info?: { model_context_window?: unknown } | null };
    };
    const w =
      o.type === 'event_msg' && o.payload?.type === 'token_count' ? o.payload.info?.model_context_window : undefined;
    if (typeof w === 'number') window = w;
  }
  return window;
}

describe('Codex: the context window the rollout records', () => {
  for (const file of agentFixtures('codex')) {
    it(`${path.basename(file)}: the newest model_context_window is the session's window, on the map too`, async () => {
      const expected = newestWindowInFile(file);
      assert.ok(expected !== null, 'the fixture records a window');
      const analysis = await inspectFile(file, { subagents: false });
      assert.equal(recordedContextWindow(analysis.index.entries), expected);
      assert.equal(buildMapState(file, analysis, null, undefined).contextWindow, expected);
    });
  }

  it('a Claude Code session records none: the window comes from the model id', async () => {
    const file = fixture('example.jsonl');
    const analysis = await inspectFile(file, { subagents: false });
    assert.equal(recordedContextWindow(analysis.index.entries), null);
    assert.equal(buildMapState(file, analysis, null, undefined).contextWindow, 200_000);
  });
});
