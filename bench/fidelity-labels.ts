// An independent check of the fidelity measure: facts picked by a person reading the span of each compaction an agent
// made in the shared fixtures (the user's requests, the assistant's messages from the start of the span to its end,
// the files, the errors), written down with the words a summary must hold to carry each one: what a developer picking
// the work up would need (the goal, the decisions and the user's preferences, the files, the errors met, the latest
// request, where the work stood and what came next). Neither the facts nor their words come from the code of the
// measure (src/core/compact/fidelity.ts) or of the offline summary, and their rule is not the measure's: a summary keeps
// a labelled fact when, for each of its groups of terms, it holds one of the terms (case-insensitive, anywhere). The
// labels were written from the transcripts before any summary was scored against them, and are not changed to fit a
// result.
//
// The limits: one person's reading of three spans (about 50 facts), partly through listings made with the measure's
// own extraction (requests, files changed, failures, the latest messages) beside the raw records; terms are literal,
// so a summary that says a fact in other words misses it, as the measure's own text facts do. bench/fidelity.ts prints
// the scores beside the measure's; test/unit/fidelity.test.ts holds ours to them.

export interface LabelledFact {
  /** The fact, in words. */
  what: string;
  /** Every group must be matched by one of its terms. */
  terms: string[][];
}

/** By compaction: `<fixture file>:<line of the compaction>`. */
export const LABELLED_FACTS: Readonly<Record<string, readonly LabelledFact[]>> = {
  // Claude Code 2.1.x, entireio/cli: session-end hooks for Claude Code and Gemini CLI.
  'with-compactions.jsonl:576': [
    {
      what: 'the goal: session-end hooks for Claude and Gemini that set an ended_at field in the session state',
      terms: [
        ['ended_at', 'EndedAt'],
        ['session end', 'session-end', 'SessionEnd'],
      ],
    },
    { what: "Gemini CLI's hook is SessionEnd too", terms: [['gemini'], ['SessionEnd']] },
    { what: 'a last-interaction time is a separate feature, not this one', terms: [['lastInteraction']] },
    { what: "the state update goes in handleGeminiSessionEnd (the user's call)", terms: [['handleGeminiSessionEnd']] },
    { what: 'a shared helper marks the session ended', terms: [['markSessionEnded']] },
    { what: 'the state struct lives in session/state.go', terms: [['state.go']] },
    { what: "Claude Code's hooks are installed in claudecode/hooks.go", terms: [['hooks.go']] },
    { what: 'the design doc written first', terms: [['session-end-tracking']] },
    { what: 'the work was committed and PR #136 opened', terms: [['136', '7e00b6e']] },
    {
      what: "Copilot's review comments on the PR are being worked through",
      terms: [['copilot'], ['review', 'comment']],
    },
    {
      what: 'the user wants the HookSessionEnd constant the review suggested (the assistant had proposed to skip it)',
      terms: [['HookSessionEnd']],
    },
    {
      what: "review comment 3: the Claude handler should log a warning and return nil, as Gemini's does",
      terms: [['warn'], ['nil']],
    },
    { what: 'EndedAt is a pointer: nil while the session is active', terms: [['*time.Time']] },
    { what: "Claude Code's new handler handleClaudeCodeSessionEnd", terms: [['handleClaudeCodeSessionEnd']] },
    {
      what: "Gemini's session end reads stdin once (the commit consumes it): the session id comes from the persisted current session",
      terms: [['ReadCurrentSession', 'stdin']],
    },
    {
      what: "Gemini's session-end logging said stop (fixed in parseGeminiSessionEnd)",
      terms: [['parseGeminiSessionEnd']],
    },
    {
      what: 'the latest request: consolidate the agent-specific hook names with the generic hook types',
      terms: [['consolidat'], ['HookName', 'hook name', 'agent-specific']],
    },
  ],
  // Codex 0.119 (Codex Desktop), session-bridge: the session details panel of a VS Code extension.
  'rollout-0.119-compacted-images.jsonl:776': [
    {
      what: 'first request: the session details panel loads when a session is selected in the tree',
      terms: [['sessionDetailsPanel', 'session details'], ['select']],
    },
    { what: 'the tree selection is wired in extension.ts', terms: [['extension.ts']] },
    {
      what: 'the root cause: the sessions view had no TreeView and no selection listener',
      terms: [['onDidChangeSelection', 'TreeView']],
    },
    { what: 'a stale load is ignored when the user selects again quickly', terms: [['stale']] },
    { what: 'an unrelated suite failure: the Workspace Probe timeout', terms: [['Workspace Probe']] },
    {
      what: 'second request: a redesign after a screenshot, tool calls and thinking collapsible',
      terms: [['collaps'], ['thinking', 'tool']],
    },
    { what: 'the transcript turn model in models.ts was extended', terms: [['models.ts']] },
    {
      what: 'the native transcript normalizer splits message text from auxiliary blocks',
      terms: [['nativeTranscript']],
    },
    {
      what: 'the latest request: the agent name and the user name instead of "Agent" and "User"',
      terms: [['name'], ['agent'], ['user']],
    },
    { what: 'the latest request: icons instead of initials in the avatar', terms: [['icon'], ['avatar']] },
    { what: 'the panel and its tests are in sessionDetailsPanel.test.ts', terms: [['sessionDetailsPanel.test']] },
    { what: 'an earlier type error: EntireSessionDetailModel was not exported', terms: [['EntireSessionDetailModel']] },
    { what: 'a patch did not apply to orchestration.ts (it had moved on)', terms: [['orchestration.ts']] },
    { what: 'verification runs type-check and the test slices', terms: [['check-types', 'type-check', 'typecheck']] },
    {
      what: 'the failures left are pre-existing ones: the Cursor wrapper and ISO timestamp normalization',
      terms: [['cursor'], ['timestamp']],
    },
  ],
  // Codex 0.142-alpha (Codex Desktop), a token-cost benchmark of the Entire CLI.
  'rollout-0.142-alpha-compacted.jsonl:1318': [
    { what: 'the goal: whether the Entire CLI reduces token costs', terms: [['entire'], ['token']] },
    {
      what: 'the benchmark works on copies of planetfall-seed-signalkit, one without Entire',
      terms: [['planetfall-seed-signalkit', 'signalkit']],
    },
    {
      what: 'the reviewer model differs from the worker model (the user prefers it)',
      terms: [['reviewer'], ['worker']],
    },
    {
      what: 'the design: /goal as supervisor, a Ralph-style loop running child codex exec sessions',
      terms: [['ralph', '/goal', 'codex exec']],
    },
    {
      what: 'two clean roots: planetfall-bench-baseline (Entire disabled) and planetfall-bench-entire',
      terms: [['planetfall-bench-baseline', 'planetfall-bench-entire']],
    },
    { what: 'a pilot first: few tasks, one replicate', terms: [['replicate', 'pilot']] },
    {
      what: 'a fix: the clones keep the real GitHub origin (a local-path origin impaired Entire search)',
      terms: [['origin']],
    },
    { what: 'the runner script token-benchmark.mjs', terms: [['token-benchmark.mjs']] },
    { what: 'the task manifest tasks.json', terms: [['tasks.json']] },
    {
      what: 'results go to the public repo entire-token-costs-benchmark-tests',
      terms: [['entire-token-costs-benchmark-tests']],
    },
    { what: 'the corrected rerun: all six trials passed blind review', terms: [['6/6', 'six trials', 'all six']] },
    { what: 'Entire used 41.35% more worker tokens', terms: [['41.35', '41%']] },
    { what: 'the rerun summary was pushed as commit 8af9240', terms: [['8af9240']] },
    {
      what: 'the caveat: entire checkpoint search returned no indexed results',
      terms: [['checkpoint search'], ['zero', 'no indexed', 'empty', 'no results']],
    },
    {
      what: 'the three tasks: level-2-evolution, level-progression-navigation, planetfall-favicon-replay',
      terms: [['level-2-evolution', 'level-progression', 'favicon']],
    },
    {
      what: 'the latest request: is it because the user is not logged in to Entire; should they log in',
      terms: [['logged in', 'log in', 'login']],
    },
    { what: 'the assistant was checking entire auth status', terms: [['auth status', 'auth contexts']] },
  ],
};

/** Which labelled facts a summary keeps (see the header). */
export function labelledKept(
  facts: readonly LabelledFact[],
  summary: string,
): { kept: number; total: number; missing: string[] } {
  const text = summary.toLowerCase();
  const missing = facts
    .filter((f) => !f.terms.every((group) => group.some((t) => text.includes(t.toLowerCase()))))
    .map((f) => f.what);
  return { kept: facts.length - missing.length, total: facts.length, missing };
}
