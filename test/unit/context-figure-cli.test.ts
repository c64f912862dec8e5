// One context figure on every CLI surface: `inspect --json`, `plan --json` (its starting figure) and `compact --json`
// show the same "context now", parts named, for every shared fixture of every agent. Before, plan started from its
// own transcript sizes plus the system prompt and tools, which left out what Claude Code re-attaches after its own
// compaction (6-23% apart on compacted sessions).
import { strict as assert } from 'node:assert';
import { copyFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { runCliInProcess } from '../support/cliInProcess';
import { agentFixtures, claudeFixtures, sharedFixtures } from '../support/fixtures';
import { tempDir } from '../support/temp';

interface Figure {
  tokens: number;
  overhead: number;
  transcript: number;
  attached: number;
}

/** The verb in this process, as `agent-compactor` runs it (the bundle's own wiring: test/integration/cli.test.ts). */
async function cli(
  args: string[],
): Promise<{ code: number | null; json: Record<string, unknown> | null; stderr: string }> {
  const r = await runCliInProcess(args);
  return {
    code: r.status,
    json: r.status === 0 ? (JSON.parse(r.stdout) as Record<string, unknown>) : null,
    stderr: r.stderr,
  };
}

const allFixtures = (): string[] => [
  ...claudeFixtures(),
  ...agentFixtures('codex'),
  ...agentFixtures('gemini-cli'),
  ...agentFixtures('copilot-cli'),
  join(sharedFixtures, 'cline', 'task-opus', 'api_conversation_history.json'),
];

function assertParts(f: Figure, where: string): void {
  assert.equal(f.transcript + f.overhead + f.attached, f.tokens, `${where}: the parts add up to the figure`);
  assert.ok(f.transcript >= 0 && f.overhead >= 0 && f.attached >= 0, `${where}: no negative part`);
}

describe('the context figure on the CLI', function () {
  this.timeout(600_000);
  const dir = tempDir('ac-context-cli-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("inspect --json's context figure is plan --json's starting figure, for every shared fixture of every agent", async () => {
    let planned = 0;
    for (const file of allFixtures()) {
      const name = basename(file);
      const inspected = await cli(['inspect', '--json', file]);
      assert.equal(inspected.code, 0, `${name}: inspect: ${inspected.stderr}`);
      // The figure itself; inspect also states the window it is measured against (`context.window`).
      const { window: _window, ...context } = inspected.json!.context as Figure & { window: unknown };
      assert.equal(
        context.tokens,
        (inspected.json!.totals as { currentContextTokens: number }).currentContextTokens,
        `${name}: inspect's figure is its totals'`,
      );
      assertParts(context, `${name} inspect`);
      const plan = await cli(['plan', '--json', file]);
      if (plan.code === 2) {
        // Read-only formats: plan refuses with a one-line reason; there is no starting figure to compare.
        assert.match(plan.stderr, /read-only|not supported|cannot|only/i, `${name}: ${plan.stderr}`);
        continue;
      }
      assert.equal(plan.code, 0, `${name}: plan: ${plan.stderr}`);
      assert.deepEqual(plan.json!.context, context, `${name}: plan starts from the context inspect reports`);
      planned++;
    }
    assert.ok(planned >= 15, `plans compared: ${planned}`);
  });

  it('names what Claude Code attached after its own compaction, which no transcript line holds', async () => {
    const inspected = await cli(['inspect', '--json', join(sharedFixtures, 'claude-code', 'with-compactions.jsonl')]);
    const context = inspected.json!.context as Figure;
    const totals = inspected.json!.totals as {
      currentContextTokens: number;
      overheadTokens: number;
      transcriptEstimateTokens: number;
    };
    // The newest request (by usage) carried more than the system prompt, tools and the transcript's lines.
    assert.ok(context.attached > 0.05 * context.tokens, JSON.stringify(context));
    assert.equal(
      context.attached,
      totals.currentContextTokens - totals.overheadTokens - totals.transcriptEstimateTokens,
    );
  });

  for (const name of ['with-compactions.jsonl', 'example.jsonl']) {
    it(`${name}: compact --json carries the same context figure in its plan`, async () => {
      const file = join(dir, name);
      copyFileSync(join(sharedFixtures, 'claude-code', name), file);
      const { window: _window, ...context } = (await cli(['inspect', '--json', file])).json!.context as Figure & {
        window: unknown;
      };
      const result = await cli([
        'compact',
        '--json',
        '--summarizer',
        'extractive',
        '--target-tokens',
        String(Math.round(context.tokens / 2)),
        '--out',
        join(dir, `out-${name}`),
        file,
      ]);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual((result.json!.plan as { context: Figure }).context, context);
    });
  }
});
