// The summary written by the user's own Claude Code (`claude -p`), for users with a subscription and no API key.
// Facts measured with Claude Code 2.1.330 against the fake Anthropic server (test/compat/agent-cli-summary.test.ts):
// with these flags it sends ONE /v1/messages request with `tools: []`, our system prompt after its two fixed lines
// (billing header, "You are a Claude agent…"), the whole stdin as the user message plus an "# Environment" system
// message; it writes no session file (`--no-session-persistence`). `--output-format json` prints one object:
// `result` (the reply text), `stop_reason`, `is_error` (true for an API error, and for a reply cut off by the output
// limit: `result` then says so).
import { asObject, str } from '../../json';
import type { AgentCliKind, AgentCliReply, AgentCliRun } from './agentCli';

export const CLAUDE_CLI_SYSTEM_PROMPT =
  'You write handoff summaries of coding-agent conversations, so that the work can continue from the summary. Answer with text only.';

/**
 * The argv after the program: print mode reading the request from stdin; one JSON result; no session saved among
 * the user's sessions; no built-in tools, no MCP servers, no skills or slash commands; only the user's settings
 * (login, model, proxy), not a project's; our system prompt instead of the coding agent's.
 */
export function claudeSummaryArgs(): string[] {
  return [
    '-p',
    '--output-format',
    'json',
    '--no-session-persistence',
    '--tools',
    '',
    '--strict-mcp-config',
    '--disable-slash-commands',
    '--setting-sources',
    'user',
    '--system-prompt',
    CLAUDE_CLI_SYSTEM_PROMPT,
  ];
}

/** Claude Code's JSON result → the reply, or why there is none (an error it reports, output that is not its result). */
export function readClaudeReply(run: AgentCliRun): AgentCliReply {
  const result = lastJsonObject(run.stdout);
  if (!result || result.type !== 'result') {
    const said = (run.stderr.trim() || run.stdout.trim()).slice(-500);
    return {
      ok: false,
      problem: `its output was not a JSON result (exit code ${run.exitCode ?? 'none'}${said ? `: ${said}` : ''})`,
    };
  }
  const text = str(result, 'result') ?? '';
  if (result.is_error === true)
    return {
      ok: false,
      problem: text.trim()
        ? text.trim().slice(0, 500)
        : `it reported an error (${str(result, 'subtype') ?? 'no detail'})`,
    };
  if (!text.trim()) return { ok: false, problem: 'the reply was empty' };
  return { ok: true, text, stopReason: str(result, 'stop_reason') ?? null };
}

/** The last line of `stdout` that is a JSON object (the result comes last; nothing else is expected). */
function lastJsonObject(stdout: string): Record<string, unknown> | undefined {
  const lines = stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const o = asObject(JSON.parse(lines[i]));
      if (o) return o;
    } catch {
      // not JSON: look further up
    }
  }
  return undefined;
}

export const CLAUDE_CLI: AgentCliKind = {
  strategy: 'claude-cli',
  label: 'Claude Code',
  args: claudeSummaryArgs(),
  readReply: readClaudeReply,
};
