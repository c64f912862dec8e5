// The agent-CLI summarizers' parts that need no agent: the argv each program gets, how each reply is read, the
// request text, the fit of a long span, and the runner (stdin, the stdout cap, abort, a missing program), the runner
// driven with `node` as the program.
import * as assert from 'node:assert/strict';
import {
  agentCliRequestText,
  fitNewest,
  runAgentCli,
  summarizeWithAgentCli,
  type AgentCliRun,
} from '../../src/core/compact/summarize/agentCli';
import {
  CLAUDE_CLI,
  CLAUDE_CLI_SYSTEM_PROMPT,
  claudeSummaryArgs,
  readClaudeReply,
} from '../../src/core/compact/summarize/claudeCli';
import { codexSummaryArgs, readCodexReply } from '../../src/core/compact/summarize/codexCli';
import {
  SUMMARY_INSTRUCTIONS,
  summaryInstructions,
  summaryRequestText,
  summarySizeText,
} from '../../src/core/compact/summarize/prompt';
import { CompactError } from '../../src/core/compact/types';
import { agentCliRefusal } from '../../src/core/compact/summary';
import type { Group } from '../../src/core/compact/ptl';
import type { SummaryMessage } from '../../src/core/compact/summarize/anthropic';

const run = (stdout: string, exitCode: number | null = 0, stderr = ''): AgentCliRun => ({ stdout, stderr, exitCode });
const group = (tokens: number, text: string): Group<SummaryMessage[]> => ({
  tokens,
  firstRole: 'user',
  payload: [{ role: 'user', text }],
});

describe('agent CLI summarizers', () => {
  describe('argv', () => {
    it('claude: print mode, JSON, no session persisted, no tools, no MCP, no slash commands, user settings only, our system prompt', () => {
      const args = claudeSummaryArgs();
      assert.equal(args[0], '-p');
      const after = (flag: string) => args[args.indexOf(flag) + 1];
      assert.ok(args.includes('--no-session-persistence'));
      assert.equal(after('--tools'), '');
      assert.equal(after('--output-format'), 'json');
      assert.equal(after('--setting-sources'), 'user');
      assert.equal(after('--system-prompt'), CLAUDE_CLI_SYSTEM_PROMPT);
      assert.ok(args.includes('--strict-mcp-config') && args.includes('--disable-slash-commands'));
      // The request goes on stdin: no prompt argument, nothing of the transcript in the argv.
      assert.ok(!args.some((a) => a.includes('<conversation>')));
    });

    it('codex: exec, ephemeral, read-only, JSON events, tools and hooks off, the request from stdin', () => {
      const args = codexSummaryArgs();
      assert.equal(args[0], 'exec');
      assert.ok(args.includes('--ephemeral'));
      assert.equal(args[args.indexOf('--sandbox') + 1], 'read-only');
      assert.ok(args.includes('--json'));
      const disabled = args.flatMap((a, i) => (args[i - 1] === '--disable' ? [a] : []));
      for (const f of ['shell_tool', 'unified_exec', 'hooks', 'plugins']) assert.ok(disabled.includes(f), f);
      assert.equal(args[args.length - 1], '-');
    });
  });

  describe("Claude Code's JSON result", () => {
    it('a success: the result text and its stop reason', () => {
      const r = readClaudeReply(
        run(
          JSON.stringify({ type: 'result', is_error: false, result: '<summary>S</summary>', stop_reason: 'end_turn' }),
        ),
      );
      assert.deepEqual(r, { ok: true, text: '<summary>S</summary>', stopReason: 'end_turn' });
    });
    it('an error result (API error, a reply over the output limit) names what it said', () => {
      const r = readClaudeReply(
        run(
          JSON.stringify({
            type: 'result',
            is_error: true,
            result: "API Error: Claude's response exceeded the 128000 output token maximum.",
          }),
          1,
        ),
      );
      assert.equal(r.ok, false);
      assert.match(!r.ok ? r.problem : '', /exceeded the 128000 output token maximum/);
    });
    it('output that is not a result (a crash, a login prompt) says so with stderr', () => {
      const r = readClaudeReply(run('', 1, 'Invalid API key · Please run /login'));
      assert.equal(r.ok, false);
      assert.match(!r.ok ? r.problem : '', /not a JSON result \(exit code 1: Invalid API key/);
    });
    it('an empty result is no reply', () => {
      assert.deepEqual(readClaudeReply(run(JSON.stringify({ type: 'result', is_error: false, result: ' ' }))), {
        ok: false,
        problem: 'the reply was empty',
      });
    });
  });

  describe("Codex's JSON events", () => {
    const events = (...e: object[]) => e.map((x) => JSON.stringify(x)).join('\n') + '\n';
    it('the last agent message of a completed turn; reconnection errors are not failures', () => {
      const r = readCodexReply(
        run(
          events(
            { type: 'thread.started', thread_id: 't' },
            { type: 'error', message: 'Reconnecting... 2/5' },
            { type: 'item.completed', item: { type: 'agent_message', text: '<summary>S</summary>' } },
            { type: 'turn.completed', usage: {} },
          ),
        ),
      );
      assert.deepEqual(r, { ok: true, text: '<summary>S</summary>', stopReason: null });
    });
    it('a turn cut off by max_output_tokens says it was cut off', () => {
      const r = readCodexReply(
        run(
          events(
            { type: 'item.completed', item: { type: 'agent_message', text: '<analysis>part' } },
            { type: 'turn.failed', error: { message: 'Incomplete response returned, reason: max_output_tokens' } },
          ),
          1,
        ),
      );
      assert.equal(r.ok, false);
      assert.match(!r.ok ? r.problem : '', /cut off by the output limit/);
    });
    it('a run that ends without finishing its turn says so with stderr', () => {
      const r = readCodexReply(run(events({ type: 'turn.started' }), 1, 'Error: not logged in'));
      assert.equal(r.ok, false);
      assert.match(!r.ok ? r.problem : '', /without finishing its turn \(exit code 1: Error: not logged in/);
    });
  });

  describe('the request', () => {
    it('the conversation between tags, the summarizing request last', () => {
      const text = agentCliRequestText(
        [
          group(10, 'first prompt'),
          { tokens: 5, firstRole: 'assistant', payload: [{ role: 'assistant', text: 'an answer' }] },
        ],
        SUMMARY_INSTRUCTIONS,
        0,
      );
      assert.ok(text.indexOf('<conversation>') < text.indexOf('[user]\nfirst prompt'));
      assert.ok(text.includes('[assistant]\nan answer'));
      assert.ok(text.indexOf('first prompt') < text.indexOf('an answer'));
      assert.ok(text.endsWith(SUMMARY_INSTRUCTIONS));
      assert.ok(text.indexOf('</conversation>') < text.indexOf(SUMMARY_INSTRUCTIONS));
    });
    it("the summarizing request at the plan's detail level, with the summary's room when one is given", () => {
      const full = summaryRequestText(undefined, { detail: 'full', maxChars: 12_345 });
      assert.ok(full.startsWith(summaryInstructions('full')));
      assert.ok(full.includes(summarySizeText(12_345)));
      assert.match(full, /room for about 12345 characters \(about 2058 words\)/);
      assert.equal(summaryRequestText(undefined, { detail: 'brief' }), summaryInstructions('brief'));
    });
    it('a span over the limit keeps the newest rounds and names the ones left out', () => {
      const fit = fitNewest([group(50, 'a'), group(50, 'b'), group(50, 'c')], [4, 5, 6], 120);
      assert.deepEqual(fit.ids, [5, 6]);
      assert.deepEqual(fit.dropped, [4]);
      // The newest round is always sent, even alone over the limit.
      assert.deepEqual(fitNewest([group(500, 'a')], [1], 120).ids, [1]);
      assert.match(agentCliRequestText(fit.groups, 'R', fit.dropped.length), /the 1 oldest rounds are left out/);
    });
  });

  describe('the runner (node as the program)', () => {
    const node = process.execPath;
    it('gives the input on stdin and returns stdout and the exit code', async () => {
      const r = await runAgentCli({
        label: 'Echo',
        program: node,
        args: ['-e', 'process.stdin.pipe(process.stdout)'],
        input: 'ünï ✓ "q"',
      });
      assert.deepEqual({ stdout: r.stdout, exitCode: r.exitCode }, { stdout: 'ünï ✓ "q"', exitCode: 0 });
    });
    it('runs in an empty temporary folder, not this process’s', async () => {
      const r = await runAgentCli({
        label: 'Cwd',
        program: node,
        args: ['-e', 'console.log(process.cwd()); console.log(require("fs").readdirSync(".").length)'],
        input: '',
      });
      const [cwd, count] = r.stdout.trim().split('\n');
      assert.notEqual(cwd, process.cwd());
      assert.match(cwd, /agent-compactor-summary-/);
      assert.equal(count, '0');
    });
    it('stops a program whose output passes the cap', async () => {
      await assert.rejects(
        runAgentCli({
          label: 'Flood',
          program: node,
          args: ['-e', 'setInterval(() => process.stdout.write("x".repeat(65536)), 1)'],
          input: '',
          maxStdoutBytes: 1024 * 1024,
        }),
        (e: unknown) => e instanceof CompactError && e.code === 'api' && /more than 1 MB of output/.test(e.message),
      );
    });
    it('an abort kills the program (it would otherwise never end)', async () => {
      const controller = new AbortController();
      const pending = runAgentCli({
        label: 'Hang',
        program: node,
        args: ['-e', 'process.stdout.write("ready"); setInterval(() => {}, 1000)'],
        input: '',
        signal: controller.signal,
      });
      // Aborted once the program runs: it has written to stdout only after starting (no timing decides this).
      await new Promise((r) => setImmediate(r));
      controller.abort();
      await assert.rejects(pending, (e: unknown) => e instanceof CompactError && e.code === 'cancelled');
    });
    it('a missing program is a located error that names the path and the setting', async () => {
      await assert.rejects(
        runAgentCli({ label: 'Claude Code', program: '/nonexistent/claude', args: [], input: '' }),
        (e: unknown) =>
          e instanceof CompactError &&
          e.code === 'network' &&
          /Claude Code was not found at '\/nonexistent\/claude'.*settings/.test(e.message),
      );
    });
    it('a missing program makes the summarizer fail with its attempt recorded (the caller then falls back)', async () => {
      await assert.rejects(
        summarizeWithAgentCli(CLAUDE_CLI, [group(10, 'x')], [0], {
          program: '/nonexistent/claude',
          maxInputTokens: 1000,
        }),
        (e: unknown) => {
          const attempts = (e as { attempts?: { strategy: string; outcome: string }[] }).attempts;
          return (
            e instanceof CompactError && attempts?.[0]?.strategy === 'claude-cli' && attempts[0].outcome === 'error'
          );
        },
      );
    });
  });

  it('each agent CLI summarizes only its own sessions', () => {
    assert.equal(agentCliRefusal('claude-cli', 'claude-code'), null);
    assert.equal(agentCliRefusal('codex-cli', 'codex'), null);
    assert.match(agentCliRefusal('claude-cli', 'codex') ?? '', /Claude Code sessions only.*codex-cli/);
    assert.match(agentCliRefusal('codex-cli', 'claude-code') ?? '', /Codex sessions only.*claude-cli/);
    assert.equal(agentCliRefusal('anthropic', 'codex'), null);
  });
});
