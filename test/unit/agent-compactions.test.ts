// The compactions a session file records (src/core/agentCompactions.ts), read over the shared fixtures (Claude Code
// 2.1.29's automatic compaction; Codex CLI 0.119 and 0.142's `compacted` records) and over small files for what the
// fixtures do not hold (a newer trigger, none, Agent Compactor's own boundary, the cost between two `cost-state`
// records): the figures are compared with the raw lines of the file, read here apart from the engine. Then the
// surfaces that show them: the Rounds tree's boundary node, the Context Map's state and `inspect` (text and --json).
import { strict as assert } from 'node:assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectFile } from '../../src/core/inspect';
import { agentCompactions, compactionLine } from '../../src/core/agentCompactions';
import { rootNodes } from '../../src/extension/model/tree';
import { buildMapState } from '../../src/extension/model/mapState';
import { isMapState } from '../../src/webview/mapProtocol';
import { agentFixtures, fixture } from '../support/fixtures';
import { runCliInProcess } from '../support/cliInProcess';
import { tempDir } from '../support/temp';

/** The file's lines parsed (1-based: `lines[n - 1]` is line n). */
function rawLines(file: string): any[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

const usageContext = (u: any) =>
  (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);

describe('compactions the file records', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = tempDir('agent-compactions-');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, records: unknown[]) => {
    const file = join(dir, name);
    writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    return file;
  };

  describe('Claude Code', () => {
    it("with-compactions.jsonl (2.1.29): Claude Code's automatic compaction, its preTokens, and the first request after it", async () => {
      const file = fixture('with-compactions.jsonl');
      const lines = rawLines(file);
      const boundaryLine = lines.findIndex((o) => o.type === 'system' && o.subtype === 'compact_boundary') + 1;
      const boundary = lines[boundaryLine - 1];
      const nextLine = lines.findIndex((o, i) => i >= boundaryLine && o.type === 'assistant' && o.message?.usage) + 1;
      const [c, ...rest] = agentCompactions(await inspectFile(file, { subagents: false }));
      assert.equal(rest.length, 0);
      assert.equal(c.line, boundaryLine);
      assert.equal(c.by, 'agent');
      assert.equal(c.agent, 'Claude Code');
      assert.equal(c.trigger, boundary.compactMetadata.trigger);
      assert.equal(c.trigger, 'auto');
      assert.equal(c.preTokens, boundary.compactMetadata.preTokens);
      assert.equal(c.postTokens, null, '2.1.29 does not record what it left');
      assert.deepEqual(c.nextRequest, { line: nextLine, tokens: usageContext(lines[nextLine - 1].message.usage) });
      assert.equal(c.cost, null, 'the file has no cost-state records');
      assert.equal(
        compactionLine(c),
        `line ${boundaryLine}: auto compaction by Claude Code: ${c.preTokens!.toLocaleString('en-US')} → not recorded; next request ${c.nextRequest.tokens.toLocaleString('en-US')}; cost not recorded`,
      );
    });

    it('reads the trigger the record writes (a newer one too), "unknown" when it writes none; our own boundary is ours', async () => {
      const base = {
        parentUuid: null,
        isSidechain: false,
        type: 'system',
        subtype: 'compact_boundary',
        content: 'Conversation compacted',
        sessionId: 's',
      };
      const file = write('triggers.jsonl', [
        {
          type: 'user',
          uuid: 'u1',
          parentUuid: null,
          isSidechain: false,
          sessionId: 's',
          message: { role: 'user', content: 'hi' },
        },
        {
          ...base,
          uuid: 'b1',
          logicalParentUuid: 'u1',
          compactMetadata: { trigger: 'idle', preTokens: 90_000, postTokens: 4_000 },
        },
        {
          type: 'user',
          uuid: 'u2',
          parentUuid: 'b1',
          isSidechain: false,
          sessionId: 's',
          isCompactSummary: true,
          message: { role: 'user', content: 'summary' },
        },
        { ...base, uuid: 'b2', logicalParentUuid: 'u2' },
        {
          type: 'user',
          uuid: 'u3',
          parentUuid: 'b2',
          isSidechain: false,
          sessionId: 's',
          isCompactSummary: true,
          message: { role: 'user', content: 'summary' },
        },
        {
          ...base,
          uuid: 'b3',
          logicalParentUuid: 'u3',
          compactMetadata: { trigger: 'manual', preTokens: 5_000, postTokens: 3_000, compactor: 'agent-compactor' },
        },
        {
          type: 'user',
          uuid: 'u4',
          parentUuid: 'b3',
          isSidechain: false,
          sessionId: 's',
          isCompactSummary: true,
          message: { role: 'user', content: 'summary' },
        },
      ]);
      const found = agentCompactions(await inspectFile(file, { subagents: false }));
      assert.deepEqual(
        found.map((c) => [c.line, c.number, c.trigger, c.by, c.preTokens, c.postTokens]),
        [
          [2, 1, 'idle', 'agent', 90_000, 4_000],
          [4, 2, 'unknown', 'agent', null, null],
          [6, 3, 'manual', 'agent-compactor', 5_000, 3_000],
        ],
      );
      assert.match(
        compactionLine(found[0]),
        /^line 2: idle compaction by Claude Code: 90,000 → 4,000; no request after it yet; cost not recorded$/,
      );
      assert.match(compactionLine(found[1]), /compaction by Claude Code \(trigger not recorded\)/);
      assert.match(compactionLine(found[2]), /manual compaction by Agent Compactor/);
    });

    it("the summary request's cost: the agent's running total across the boundary, only when no response lies between", async () => {
      const cost = (usd: number, input: number, output: number) => ({
        type: 'cost-state',
        sessionId: 's',
        totalCostUSD: usd,
        modelUsage: {
          'claude-opus-4-5': {
            inputTokens: input,
            outputTokens: output,
            cacheReadInputTokens: 0,
            cacheCreationInputTokens: 0,
            costUSD: usd,
          },
        },
      });
      const turn = (n: number, parent: string | null, tokens: number) => [
        {
          type: 'user',
          uuid: `p${n}`,
          parentUuid: parent,
          isSidechain: false,
          sessionId: 's',
          message: { role: 'user', content: `prompt ${n}` },
        },
        {
          type: 'assistant',
          uuid: `a${n}`,
          parentUuid: `p${n}`,
          isSidechain: false,
          sessionId: 's',
          message: {
            id: `msg_${n}`,
            role: 'assistant',
            model: 'claude-opus-4-5',
            content: [{ type: 'text', text: 'ok' }],
            usage: {
              input_tokens: tokens,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: 0,
              output_tokens: 5,
            },
          },
        },
      ];
      const boundary = (uuid: string, parent: string) => [
        {
          parentUuid: null,
          logicalParentUuid: parent,
          isSidechain: false,
          type: 'system',
          subtype: 'compact_boundary',
          uuid,
          sessionId: 's',
          compactMetadata: { trigger: 'manual', preTokens: 1_000, postTokens: 300 },
        },
        {
          type: 'user',
          uuid: `${uuid}-s`,
          parentUuid: uuid,
          isSidechain: false,
          sessionId: 's',
          isCompactSummary: true,
          message: { role: 'user', content: 'summary' },
        },
      ];
      const recorded = write('cost.jsonl', [
        ...turn(1, null, 1_000),
        cost(0.5, 1_000, 5),
        ...boundary('b1', 'a1'),
        cost(0.75, 1_900, 60),
        ...turn(2, 'b1-s', 700),
        cost(0.8, 2_600, 65),
      ]);
      const [c] = agentCompactions(await inspectFile(recorded, { subagents: false }));
      assert.ok(c.cost, 'recorded');
      assert.ok(Math.abs(c.cost.usd - 0.25) < 1e-12, String(c.cost.usd));
      assert.deepEqual(c.cost.tokens, { input: 900, output: 55, cacheRead: 0, cacheCreation: 0 });
      assert.deepEqual([c.cost.fromLine, c.cost.toLine], [3, 6]);
      assert.deepEqual(c.nextRequest, { line: 8, tokens: 700 });
      assert.deepEqual(c.lastRequestBefore, { line: 2, tokens: 1_000 });
      assert.match(
        compactionLine(c),
        /1,000 → 300; next request 700 \(\+400 more than it left\); cost \$0\.25 \(900 input, 55 output tokens\), from the agent's running total at lines 3 and 6$/,
      );
      // A response between the boundary and the next total: the difference holds it too, so it is not the compaction's.
      const mixed = write('cost-mixed.jsonl', [
        ...turn(1, null, 1_000),
        cost(0.5, 1_000, 5),
        ...boundary('b1', 'a1'),
        ...turn(2, 'b1-s', 700),
        cost(0.8, 2_600, 65),
      ]);
      assert.equal(agentCompactions(await inspectFile(mixed, { subagents: false }))[0].cost, null);
      // A total that went down was started anew: no difference to read.
      const reset = write('cost-reset.jsonl', [
        ...turn(1, null, 1_000),
        cost(0.5, 1_000, 5),
        ...boundary('b1', 'a1'),
        cost(0.1, 900, 55),
      ]);
      assert.equal(agentCompactions(await inspectFile(reset, { subagents: false }))[0].cost, null);
    });
  });

  describe('Codex CLI', () => {
    for (const name of ['rollout-0.119-compacted-images.jsonl', 'rollout-0.142-alpha-compacted.jsonl']) {
      it(`${name}: the compacted record, the context Codex counts after it, and the first request after it`, async () => {
        const file = agentFixtures('codex').find((f) => f.endsWith(name))!;
        const lines = rawLines(file);
        const at = lines.findIndex((o) => o.type === 'compacted') + 1;
        const tokenCount = (i: number) =>
          lines[i]?.type === 'event_msg' && lines[i].payload?.type === 'token_count'
            ? lines[i].payload.info?.last_token_usage
            : undefined;
        // The first count after the record: no request (no input, no output), its total the size the compaction left.
        const leftAt = lines.findIndex((_, i) => i >= at && tokenCount(i) !== undefined);
        const left = tokenCount(leftAt);
        assert.deepEqual([left.input_tokens, left.output_tokens], [0, 0]);
        // The next count with input is the first request after it; the last before the record, the last request before.
        const nextAt = lines.findIndex((_, i) => i > leftAt && tokenCount(i)?.input_tokens > 0);
        let beforeAt = at - 2;
        while (!(tokenCount(beforeAt)?.input_tokens > 0)) beforeAt--;
        const [c, ...rest] = agentCompactions(await inspectFile(file, { subagents: false }));
        assert.equal(rest.length, 0);
        assert.equal(c.line, at);
        assert.equal(c.agent, 'Codex CLI');
        assert.equal(c.trigger, 'unknown', 'the record names no trigger');
        assert.equal(c.preTokens, null);
        assert.equal(c.postTokens, left.total_tokens);
        assert.deepEqual(c.nextRequest, { line: nextAt + 1, tokens: tokenCount(nextAt).input_tokens });
        assert.deepEqual(c.lastRequestBefore, { line: beforeAt + 1, tokens: tokenCount(beforeAt).input_tokens });
        assert.equal(c.cost, null, 'Codex records no cost of its compaction');
        assert.match(
          compactionLine(c),
          new RegExp(
            `^line ${at}: compaction by Codex CLI \\(trigger not recorded\\): [\\d,]+ \\(last request before\\) → ${left.total_tokens.toLocaleString('en-US')}; next request`,
          ),
        );
      });
    }
  });

  describe('where it is shown', () => {
    const file = fixture('with-compactions.jsonl');

    it("the Rounds tree's boundary node says who compacted, the trigger, before → after against the next request and the cost", async () => {
      const analysis = await inspectFile(file, { subagents: false });
      const [c] = agentCompactions(analysis);
      const node = rootNodes({ file, analysis }).find((n) => n.kind === 'boundary');
      assert.ok(node);
      assert.equal(node.label, '──── auto compaction by Claude Code ────');
      assert.equal(
        node.description,
        `167,174 → not recorded; next request ${c.nextRequest!.tokens.toLocaleString('en-US')} · line ${c.line}`,
      );
      assert.match(node.tooltip ?? '', /^Compaction 1: auto compaction by Claude Code, line 576\./);
      assert.match(node.tooltip ?? '', /Its own request \(the summary\): not recorded\./);
      assert.match(node.tooltip ?? '', /Fork From Before This Compaction \(context menu\) writes a new session/);
      assert.equal(node.line, c.line);
      assert.equal(node.compaction, 1, 'the node names its compaction for the context menu');
      assert.equal(node.contextValue, 'boundary');
    });

    it("the Context Map's state lists it (valid for the webview)", async () => {
      const analysis = await inspectFile(file, { subagents: false });
      const state = buildMapState(file, analysis, null, undefined);
      assert.ok(isMapState(state), 'the state passes the webview protocol');
      const [c] = agentCompactions(analysis);
      assert.deepEqual(state.compactions, [
        {
          round: c.round,
          line: 576,
          title: 'auto compaction by Claude Code',
          figures: `167,174 → not recorded; next request ${c.nextRequest!.tokens.toLocaleString('en-US')}`,
          cost: 'not recorded',
        },
      ]);
      assert.ok(
        state.rounds.find((r) => r.round === c.round)?.boundary,
        'its round is the one that starts at the boundary',
      );
    });

    it('inspect prints it (text and --json)', async () => {
      // The verb in this process, as `agent-compactor` runs it (the bundle's own wiring: test/integration/cli.test.ts).
      const run = (args: string[]) => runCliInProcess(args);
      const text = await run(['inspect', file]);
      assert.equal(text.status, 0, text.stderr);
      assert.match(
        text.stdout,
        /\ncompactions:\n {2}line 576: auto compaction by Claude Code: 167,174 → not recorded; next request 51,732; cost not recorded\n/,
      );
      const json = await run(['inspect', '--json', file]);
      assert.equal(json.status, 0, json.stderr);
      const j = JSON.parse(json.stdout) as {
        compactions: {
          line: number;
          trigger: string;
          by: string;
          preTokens: number;
          nextRequest: { tokens: number };
        }[];
      };
      assert.deepEqual(
        j.compactions.map((c) => [c.line, c.trigger, c.by, c.preTokens, c.nextRequest.tokens]),
        [[576, 'auto', 'agent', 167_174, 51_732]],
      );
    });
  });
});
