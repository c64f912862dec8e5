// `agent-compactor plan <file>`: what a compaction would do, without writing anything.
import { inspectFile } from '../core/inspect';
import { planCompaction } from '../core/compact/plan';
import type { CompactionPlan } from '../core/compact/types';
import { parse, onePositional } from './args';
import { formatTokens, sanitizeForTerminal, table, truncate } from './format';
import { SETTING_FLAGS, settingsFrom } from './settings';

const USAGE = 'agent-compactor plan <file> [--target-tokens N] [--keep-recent-tokens N] [--json]';

export async function runPlan(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, SETTING_FLAGS, USAGE);
  const file = onePositional(positionals, USAGE);
  const analysis = await inspectFile(file, { subagents: false });
  const plan = await planCompaction(analysis, settingsFrom(values));
  process.stdout.write(values.json ? JSON.stringify(plan, null, 2) + '\n' : renderPlan(plan));
  return 0;
}

const MARK = { keep: '  keep', summarize: '» summarize', drop: '✗ drop' } as const;

export function renderPlan(plan: CompactionPlan): string {
  const out: string[] = [];
  const active = plan.rounds.filter((r) => r.inContext);
  out.push(`${plan.file}: target ${formatTokens(plan.settings.targetTokens)} tokens, keep recent ${formatTokens(plan.settings.keepRecentTokens)}`);
  out.push('');
  out.push(
    table(
      ['round', 'lines', 'action', 'tokens', 'after', 'what / why'],
      active.map((r) => [
        String(r.index),
        `${r.firstLine}-${r.lastLine}`,
        MARK[r.action],
        formatTokens(r.tokens),
        r.action === 'keep' ? formatTokens(r.tokensAfter) : '-',
        truncate(sanitizeForTerminal(`${r.label} — ${r.reason}`), 70),
      ]),
      new Set([3, 4]),
    ),
  );
  const replaced = plan.toolResults.filter((t) => t.action !== 'kept' && t.preview !== null);
  if (replaced.length) {
    out.push('');
    out.push('tool results replaced by previews:');
    for (const t of replaced) out.push(`  line ${t.line} ${t.toolName ?? '?'} ${t.toolUseId}: ${t.originalChars.toLocaleString('en-US')} chars → ${t.preview!.length.toLocaleString('en-US')} (${t.action}; ${t.reason})`);
  }
  out.push('');
  if (plan.nothingToDo) out.push(`nothing to do: about ${formatTokens(plan.preTokens)} tokens, within the target`);
  else
    out.push(
      `${plan.summarizedRounds} rounds / ${formatTokens(active.filter((r) => r.action !== 'keep').reduce((s, r) => s + r.tokens, 0))} tokens would be summarized or dropped; ` +
        `${formatTokens(plan.preTokens)} → ${formatTokens(plan.postTokens)} tokens of transcript (estimated, summary included)` +
        (plan.overheadTokens ? `; with about ${formatTokens(plan.overheadTokens)} of system prompt and tools, the resumed context is about ${formatTokens(plan.postTokens + plan.overheadTokens)}` : ''),
    );
  for (const n of plan.notes) out.push(`note: ${n}`);
  return out.join('\n') + '\n';
}
