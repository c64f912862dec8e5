/**
 * Every number the same, in the real VS Code: a compaction's result is the figure the new session's status bar, Rounds
 * header and last round then show, and the figure the plan promised or one explained by its parts; the live status
 * item and the Sessions row of a session right after Claude Code's own compaction say the context figure (they said
 * nothing), with the thresholds the session shows.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentCompactorApi } from '../../src/extension/api';
import type { CompactionPlan, CompactResult } from '../../src/core/compact/types';
import { contextNow } from '../../src/core/context';
import { promisedContext } from '../../src/core/compact/promise';
import {
  copyFixture,
  fixture,
  getApi,
  roundNodes,
  showTranscript,
  waitFor,
  withTimeout,
  workspaceDir,
} from './helpers';

const count = (n: number) => n.toLocaleString('en-US');

describe('host: every number the same', function () {
  this.timeout(180_000);
  let api: AgentCompactorApi;

  before(async () => {
    api = await getApi();
  });

  it("the result is the new session's own figure: its status bar, Rounds header and last round; the promise is the dialog's", async () => {
    const file = copyFixture('v2.1.97-live-after.jsonl', 'every-number.jsonl');
    await showTranscript(api, file);
    const plan = await withTimeout(
      vscode.commands.executeCommand<CompactionPlan>('agentCompactor.preview', { file, targetTokens: 40_000 }),
      60_000,
      'preview',
    );
    const result = await withTimeout(
      vscode.commands.executeCommand<CompactResult>('agentCompactor.compact', {
        file,
        confirm: false,
        summarizer: 'extractive',
        targetTokens: 40_000,
      }),
      120_000,
      'compact',
    );
    assert.ok(result?.promised && result.delivered, 'the result says what it promised and delivered');
    assert.equal(result.promised.tokens, promisedContext(plan).tokens, 'the promise is the plan shown');
    assert.ok(result.promised.tokens <= 40_000, `the promise meets the target: ${result.promised.tokens}`);
    // The result opens: the views show the new session, and every one of them says the delivered figure.
    await waitFor(
      () => api.getCurrentFile() === result.output && api.getState().status === 'ready',
      60_000,
      'the new session shown',
    );
    await api.whenIdle();
    const delivered = result.delivered.tokens;
    assert.equal(contextNow(api.getAnalysis()!.report).tokens, delivered);
    assert.ok(api.getStatusBarTooltip()?.includes(`~${count(delivered)}`), api.getStatusBarTooltip());
    const tree = api.getRoundsTree(1);
    const header = tree.find((n) => n.kind === 'header')!;
    assert.ok(String(header.label).includes(`~${count(delivered)}`), String(header.label));
    const rounds = roundNodes(api.getRoundsTree(1));
    assert.match(String(rounds.at(-1)!.description), new RegExp(`^context ~${count(delivered)} \\(estimate\\)`));
  });

  it('right after Claude Code compacted a live session itself: the live item and the row say its context and threshold', async () => {
    const home = process.env.AGENT_COMPACTOR_TEST_HOME;
    assert.ok(home, 'the runner names the extension host HOME');
    const root = path.join(process.env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude'), 'projects');
    const dir = path.join(root, workspaceDir().replace(/[^a-zA-Z0-9]/g, '-'));
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, '12121212-0000-4000-8000-000000000012.jsonl');
    // The session as it is on disk a moment after its automatic compaction: no request after it yet.
    const lines = fs.readFileSync(fixture('with-compactions.jsonl'), 'utf8').split('\n').slice(0, 579);
    fs.writeFileSync(
      file,
      lines.join('\n').replace(/"cwd":"[^"]*"/g, `"cwd":${JSON.stringify(workspaceDir())}`) + '\n',
    );
    try {
      // 45,038 of 200,000 (its Rounds header's figure); it compacted itself at 167,174.
      const text = await waitFor(
        () => {
          const t = api.getLiveStatusText();
          return t?.includes('45k / 200k · 23%') ? t : undefined;
        },
        60_000,
        `the live item with the context figure (it shows ${api.getLiveStatusText()})`,
      );
      assert.match(text, /live: /);
      const row = await waitFor(
        () =>
          api
            .getSessionsTree()
            .flatMap((p) => p.children ?? [])
            .find((s) => s.file === file && s.label.startsWith('23% ·')),
        60_000,
        'the Sessions row with the same figure',
      );
      assert.match(row.tooltip, /Context: .*45k \/ 200k · 23%/);
      await showTranscript(api, file);
      assert.equal(contextNow(api.getAnalysis()!.report).tokens, 45_038);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});
