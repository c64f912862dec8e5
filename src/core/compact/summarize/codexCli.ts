// The summary written by the user's own Codex CLI (`codex exec`), for Codex sessions.
// Facts measured with Codex CLI 0.169.0 against the fake Responses API (test/compat/agent-cli-summary.test.ts): with
// these flags it writes no rollout (`--ephemeral`) and offers the model one tool, `request_user_input` (which cannot
// act in exec mode; there is no flag to remove it); it reads the request from stdin (`-`). `--json` prints one event a
// line: `item.completed` with an `agent_message` item holds the reply, `turn.completed` ends a turn that finished,
// `turn.failed` one that did not (an API error, or "Incomplete response returned, reason: max_output_tokens" for a
// reply cut off), and `error` events also report reconnection attempts, which are not failures.
import { asObject, obj, str } from '../../json';
import type { AgentCliKind, AgentCliReply, AgentCliRun } from './agentCli';

/**
 * The argv after the program: a non-interactive run that persists nothing, reads the request from stdin, prints
 * JSON events, may not write (read-only sandbox), and has its tools, hooks and plugins turned off.
 */
export function codexSummaryArgs(): string[] {
  const off = ['shell_tool', 'unified_exec', 'multi_agent', 'goals', 'hooks', 'plugins', 'apps', 'image_generation'];
  return [
    'exec',
    '--ephemeral',
    '--skip-git-repo-check',
    '--sandbox',
    'read-only',
    '--json',
    '--color',
    'never',
    ...off.flatMap((f) => ['--disable', f]),
    '-c',
    'features.view_image=false',
    '-c',
    'web_search="disabled"',
    '-',
  ];
}

/** Codex's JSON events → the last agent message of a turn that completed, or why there is none. */
export function readCodexReply(run: AgentCliRun): AgentCliReply {
  let text: string | undefined;
  let completed = false;
  let failed: string | undefined;
  for (const line of run.stdout.split('\n')) {
    let event: Record<string, unknown> | undefined;
    try {
      event = asObject(JSON.parse(line));
    } catch {
      continue; // not an event line
    }
    if (!event) continue;
    if (event.type === 'item.completed') {
      const item = obj(event, 'item');
      if (item?.type === 'agent_message' && typeof item.text === 'string') text = item.text;
    } else if (event.type === 'turn.completed') completed = true;
    else if (event.type === 'turn.failed') failed = str(obj(event, 'error'), 'message') ?? 'the turn failed';
  }
  if (failed !== undefined) {
    const cutOff = /max_output_tokens/.test(failed);
    return {
      ok: false,
      problem: cutOff ? `the reply was cut off by the output limit (${failed.slice(0, 300)})` : failed.slice(0, 500),
    };
  }
  if (!completed) {
    const said = run.stderr.trim().slice(-500);
    return {
      ok: false,
      problem: `it ended without finishing its turn (exit code ${run.exitCode ?? 'none'}${said ? `: ${said}` : ''})`,
    };
  }
  if (!text?.trim()) return { ok: false, problem: 'the reply was empty' };
  return { ok: true, text, stopReason: null };
}

export const CODEX_CLI: AgentCliKind = {
  strategy: 'codex-cli',
  label: 'Codex',
  args: codexSummaryArgs(),
  readReply: readCodexReply,
};
