// What the extension says about a Codex compaction, from a real one: the confirmation names the file a fork is
// written to as Codex names it, and the result is resumed in Codex (here, or its command copied), never offered to
// Claude Code. A Claude Code result keeps its own wording and buttons.
import { strict as assert } from 'node:assert';
import { chmodSync, copyFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import type { CompactResult } from '../../src/core/compact/types';
import { contextNow } from '../../src/core/context';
import { inspectFile } from '../../src/core/inspect';
import {
  confirmationText,
  RESULT_ACTIONS,
  resumeAction,
  resultActions,
  resultResumeCommand,
  resultSummary,
  writeTarget,
} from '../../src/extension/model/planText';
import { agentFixtures, fixture } from '../support/fixtures';
import { tempDir } from '../support/temp';

/** A pattern from a written-file template: `<...>` placeholders stand for any run of non-slash characters. */
function templatePattern(template: string): RegExp {
  return new RegExp(
    `^${template
      .split(/<[^>]+>/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+')}$`,
  );
}

describe("the extension's words for a Codex compaction", function () {
  this.timeout(120_000);
  let dir: string;
  let codex: CompactResult;
  let claude: CompactResult;
  let codexFile: string;
  before(async () => {
    dir = tempDir('ac-codex-text-');
    codexFile = join(dir, 'rollout-0.142.jsonl');
    copyFileSync(
      agentFixtures('codex').find((f) => basename(f) === 'rollout-0.142.jsonl')!,
      codexFile,
    );
    chmodSync(codexFile, 0o644);
    codex = await compactFile(codexFile, { summarizer: 'extractive', settings: { targetTokens: 30_000 } });
    const claudeFile = join(dir, 'example.jsonl');
    copyFileSync(fixture('example.jsonl'), claudeFile);
    chmodSync(claudeFile, 0o644);
    claude = await compactFile(claudeFile, {
      summarizer: 'extractive',
      settings: { targetTokens: 6_000, keepRecentTokens: 2_000 },
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the confirmation names the fork Codex writes: rollout-<time>-<new-id>.jsonl', async () => {
    const analysis = await inspectFile(codexFile, { subagents: false });
    const { detail } = confirmationText(codex.plan, contextNow(analysis.report), {
      mode: 'fork',
      summarizer: 'extractive',
      baseUrl: 'https://api.anthropic.com',
      agent: analysis.index.format.id,
    });
    const named = /a new session (\S+) beside/.exec(detail)?.[1];
    assert.equal(named, 'rollout-<time>-<new-id>.jsonl');
    assert.match(basename(codex.output), templatePattern(named), 'the file written has the name the confirmation gave');
    assert.notEqual(basename(codex.output), `${codex.sessionId}.jsonl`);
    // Claude Code's fork is the bare id, as before.
    const claudeNamed = /a new session (\S+) beside/.exec(writeTarget(claude.plan.file, 'fork'))?.[1];
    assert.equal(claudeNamed, '<new-id>.jsonl');
    assert.match(basename(claude.output), templatePattern(claudeNamed));
  });

  it('a Codex result is resumed in Codex with `codex resume <id>` (here, or copied); Resume in Claude Code is not offered', () => {
    assert.equal(codex.agent, 'codex');
    const command = resultResumeCommand(codex, { claudePath: '/opt/claude' });
    assert.equal(command, codex.resumeCommand);
    assert.match(command!, new RegExp(`codex resume ${codex.sessionId}$`));
    assert.doesNotMatch(resultSummary(codex, { programs: { claudePath: '/opt/claude' } }), /claude/i);
    assert.equal(resumeAction(codex), 'Resume in Codex CLI');
    assert.deepEqual(resultActions(codex, command), [
      'Resume in Codex CLI',
      RESULT_ACTIONS.copyResume,
      RESULT_ACTIONS.diff,
    ]);
  });

  it('a Claude Code result keeps Resume in Claude Code and its claude --resume command', () => {
    assert.equal(claude.agent, 'claude-code');
    const command = resultResumeCommand(claude, { claudePath: '/opt/claude' });
    assert.match(command!, new RegExp(`/opt/claude --resume ${claude.sessionId}$`));
    assert.deepEqual(resultActions(claude, command), [
      'Resume in Claude Code',
      RESULT_ACTIONS.copyResume,
      RESULT_ACTIONS.diff,
    ]);
    assert.deepEqual(
      resultActions(claude, null),
      [RESULT_ACTIONS.diff, RESULT_ACTIONS.reveal],
      'no command: no resume',
    );
  });
});
