// The Rounds tree as plain data: one node per API round (with compact boundaries as
// separators, plan marks, sidechains and malformed lines), children built lazily.
// Pure: no `vscode` import; the view maps these nodes to TreeItems one to one.
// Over 400 lines: every node kind of one view (header, plan, health, groups, rounds, their children and marks)
// shares the label rules here; each builder is short.
import { unsupported } from '../../core/formats/registry';
import type { RoundReport } from '../../core/inspect';
import type { Analysis } from '../../core/analysis';
import { forkPoint, type ForkPoint } from '../../core/repair/forkBefore';
import { roundCost } from '../../core/contextMap';
import type { Entry } from '../../core/entries';
import type { CompactionPlan, PlannedRound, RoundAction, ToolResultDecision } from '../../core/compact/types';
import { USER_ROUND_MARK, toolResultMark } from '../../webview/protocol';
import {
  baseName,
  formatBytes,
  formatChars,
  formatNumber,
  formatTokens,
  formatUsd,
  oneLine,
  plainLabel,
  plural,
} from './format';
import { contextNow } from '../../core/context';
import {
  agentCompactions,
  compactionCostText,
  compactionFigures,
  compactionTitle,
  NEXT_REQUEST_NOTE,
  type AgentCompaction,
} from '../../core/agentCompactions';
import { compactionEconomics, type PlanEconomics } from '../../core/compact/economics';
import type { SummarizerPricing } from '../../core/compact/summarizerCost';
import type { PriceTable } from '../../core/cost';
import { contextPartsText, contextText } from './contextText';
import { contextChangeText, planActionText, planDetail, planSummary } from './planText';
import { healthNode, repairableOf, resumeHealthOf } from './health';

export type { NodeCommand, NodeKind, TreeNodeModel } from './treeNode';
import type { NodeCommand, TreeNodeModel } from './treeNode';
import { CommandId } from '../commandIds';

export interface TreeInput {
  file: string;
  analysis: Analysis;
  plan?: CompactionPlan | null;
  /** The clock the plan's cost line reads the cache state at (default: now). */
  now?: number;
  /** The price table of the `agentCompactor.prices` setting (default: the built-in one). */
  prices?: PriceTable;
  /** The summarizer a compaction would run, priced in the plan's cost line (default: offline). */
  summarizer?: SummarizerPricing;
}

export const REVEAL_COMMAND = CommandId.revealRound;
export const BUDGET_COMMAND = CommandId.openBudget;
export const OPEN_FILE_COMMAND = CommandId.openTranscript;

export const MARK_TEXT: Record<RoundAction, string> = { keep: '', summarize: '[summarize]', drop: '[drop]' };
export const MARK_ICON: Record<RoundAction, string> = {
  keep: 'comment-discussion',
  summarize: 'archive',
  drop: 'trash',
};
export const MARK_COLOR: Record<RoundAction, string | undefined> = {
  keep: undefined,
  summarize: 'agentCompactor.summarizeForeground',
  drop: 'agentCompactor.dropForeground',
};

function planIndex(plan: CompactionPlan | null | undefined): Map<number, PlannedRound> {
  const m = new Map<number, PlannedRound>();
  if (plan) for (const r of plan.rounds) m.set(r.index, r);
  return m;
}

function decisionIndex(plan: CompactionPlan | null | undefined): Map<string, ToolResultDecision> {
  const m = new Map<string, ToolResultDecision>();
  if (plan) for (const d of plan.toolResults) m.set(d.toolUseId, d);
  return m;
}

/** The action the plan takes on a round ('keep' when there is no plan or it does not mention it). */
export function markOf(plan: CompactionPlan | null | undefined, round: number): RoundAction {
  if (!plan) return 'keep';
  return plan.rounds.find((r) => r.index === round)?.action ?? 'keep';
}

/** What a round adds, first in its label: "+1,613" (usage) or "+~1,613" (estimate). */
export function roundAddedText(r: RoundReport): string {
  return `+${r.tokens.source === 'estimate' ? '~' : ''}${formatNumber(r.tokens.added)}`;
}

/** The rest of a round's facts, after its label: the context after it and where the figure comes from. */
export function roundDescription(r: RoundReport): string {
  return `context ${formatTokens(r.cumulative.tokens, r.cumulative.source)}`;
}

/**
 * A round's label, read at the default side-bar width: tokens added first, then the plan's or the user's mark, then
 * the round number and its text without markdown ("+1,613 · [drop] #21 Bash").
 */
export function roundLabel(r: RoundReport, marker: string): string {
  return `${roundAddedText(r)} · ${marker ? `${marker} ` : ''}#${r.index} ${plainLabel(r.label, 60)}`;
}

function roundIcon(r: RoundReport, mark: RoundAction): { icon: string; color?: string } {
  if (mark !== 'keep') return { icon: MARK_ICON[mark], color: MARK_COLOR[mark] };
  if (!r.inContext) return { icon: 'history', color: 'disabledForeground' };
  if (r.startsAtBoundary) return { icon: 'fold' };
  if (r.synthetic) return { icon: 'warning', color: 'problemsWarningIcon.foreground' };
  if (!r.messageId) return { icon: 'account' };
  if (r.toolUses.length) return { icon: 'tools' };
  return { icon: MARK_ICON.keep };
}

type RoundCostFigure = NonNullable<ReturnType<typeof roundCost>>;

function roundTooltip(r: RoundReport, planned: PlannedRound | undefined, cost: RoundCostFigure | null): string {
  const lines = [
    `Round #${r.index}: ${plainLabel(r.label, 200)}`,
    r.firstLine === r.lastLine
      ? `Line ${r.firstLine}`
      : `Lines ${r.firstLine}–${r.lastLine} (${plural(r.lineCount, 'entry', 'entries')})`,
    `Adds ${formatTokens(r.tokens.added, r.tokens.source)} tokens; calibrated estimate ~${formatNumber(r.tokens.estimate)}`,
    `Context after the round: ${formatTokens(r.cumulative.tokens, r.cumulative.source)}`,
  ];
  if (r.usage)
    lines.push(
      `Request usage: ${formatNumber(r.usage.contextTokens)} context, ${formatNumber(r.usage.outputTokens)} output`,
    );
  if (r.model) lines.push(`Model: ${r.model}`);
  if (cost !== null)
    lines.push(
      `Cost of the response: ${formatUsd(cost.usd)} (default price table${cost.assumed ? `; ${r.model ?? 'its model'} is not in it: assumed at the rates of ${cost.priceKey}` : ''})`,
    );
  if (r.messageId) lines.push(`Message id: ${r.messageId}`);
  if (r.toolUses.length) lines.push(`Tool calls: ${r.toolUses.map((t) => t.name).join(', ')}`);
  if (!r.inContext) lines.push('History: before the last compact boundary, not in the active context');
  if (planned) {
    lines.push(`${planned.by === 'user' ? 'Your decision' : 'Plan'}: ${planned.action} (${planned.reason})`);
    if (planned.action === 'keep' && planned.tokensAfter !== planned.tokens) {
      lines.push(
        `Tokens after budgeting: ~${formatNumber(planned.tokensAfter)} (from ~${formatNumber(planned.tokens)})`,
      );
    }
  }
  return lines.join('\n');
}

/** The user's own decisions carry marks of their own beside the plan's. */
export const USER_MARK_TEXT: Record<RoundAction, string> = USER_ROUND_MARK;
export const USER_MARK_ICON: Record<RoundAction, string> = { keep: 'pinned', summarize: 'archive', drop: 'trash' };
const USER_MARK_COLOR = 'charts.purple';

function roundNode(
  file: string,
  r: RoundReport,
  p: PlannedRound | undefined,
  cost: RoundCostFigure | null,
): TreeNodeModel {
  const mark: RoundAction = p?.action ?? 'keep';
  const byUser = p?.by === 'user';
  const { icon, color } = byUser ? { icon: USER_MARK_ICON[mark], color: USER_MARK_COLOR } : roundIcon(r, mark);
  const marker = byUser ? USER_MARK_TEXT[mark] : MARK_TEXT[mark];
  return {
    id: `${file}#round-${r.index}`,
    kind: 'round',
    label: roundLabel(r, marker),
    description: roundDescription(r),
    tooltip: roundTooltip(r, p, cost),
    icon,
    color,
    contextValue: `round.${mark}${byUser ? '.user' : ''}`,
    collapsible: 'collapsed',
    command: { command: REVEAL_COMMAND, title: 'Reveal Round', args: [{ file, round: r.index }] },
    file,
    round: r.index,
    segment: r.segment,
    line: r.firstLine,
    mark,
  };
}

/** Rounds before the last compact boundary, grouped per segment (collapsed: not in the active context). */
function historyGroup(input: TreeInput, segment: number): TreeNodeModel {
  const { file, analysis, plan } = input;
  const rounds = analysis.report.rounds.filter((r) => r.segment === segment && !r.inContext);
  const first = rounds[0];
  const last = rounds[rounds.length - 1];
  const marked = rounds.filter((r) => markOf(plan, r.index) !== 'keep').length;
  const tokens = last ? last.cumulative : undefined;
  return {
    id: `${file}#history-${segment}`,
    kind: 'history',
    label: `History ${segment + 1}: rounds #${first?.index ?? 0}–#${last?.index ?? 0}`,
    description: [
      plural(rounds.length, 'round'),
      tokens ? `ended at ${formatTokens(tokens.tokens, tokens.source)}` : '',
      marked ? `${formatNumber(marked)} marked` : '',
    ]
      .filter(Boolean)
      .join(' · '),
    tooltip: 'Rounds before a compact boundary: kept in the file as history, not sent to the model on resume.',
    icon: 'history',
    color: 'disabledForeground',
    contextValue: 'history',
    collapsible: 'collapsed',
    command: first
      ? { command: REVEAL_COMMAND, title: 'Reveal History', args: [{ file, line: first.firstLine }] }
      : undefined,
    file,
    segment,
    line: first?.firstLine,
  };
}

/** Root nodes: header, plan summary, resume health, malformed lines, notes, sidechains, then rounds with boundary separators. */
export function rootNodes(input: TreeInput): TreeNodeModel[] {
  const nodes = [headerNode(input)];
  if (input.plan)
    nodes.push(
      planNode(
        input.file,
        input.plan,
        input.analysis,
        compactionEconomics(input.analysis, input.plan, {
          now: input.now ?? Date.now(),
          prices: input.prices,
          summarizer: input.summarizer,
          pricesHint: 'the setting agentCompactor.prices',
        }),
      ),
    );
  const health = resumeHealthOf(input.analysis);
  if (health) nodes.push(healthNode(input.file, health, repairableOf(input.analysis, health)));
  nodes.push(...groupNodes(input));
  nodes.push(...roundSequence(input));
  return nodes;
}

/** The transcript itself: the context figure first (the one every surface shows), the rest in the description and tooltip. */
function headerNode(input: TreeInput): TreeNodeModel {
  const { file, analysis } = input;
  const report = analysis.report;
  const t = report.totals;
  const context = contextNow(report);
  return {
    id: `${file}#header`,
    kind: 'header',
    label: contextText(context),
    description: `${baseName(file)} · ${plural(t.rounds, 'round')} · ${report.format.agent}`,
    tooltip: [
      file,
      `${report.format.agent}${report.format.version ? ` ${report.format.version}` : ''} session${report.format.container === 'json' ? ' (one JSON document)' : ''}`,
      unsupported(report.format) ?? '',
      `${formatBytes(report.bytes)}, ${plural(report.lines, 'line')}, ${plural(report.entries, 'entry', 'entries')}`,
      `${plural(t.rounds, 'round')} (${formatNumber(t.activeRounds)} in the active context), ${plural(t.toolUses, 'tool call')}`,
      `The next request would carry: ${contextText(context)} = ${contextPartsText(context)}`,
      t.contextTokens !== null
        ? `Newest request usage: ${formatNumber(t.contextTokens)} tokens`
        : 'No usage records in the file',
      `Output tokens: ${formatNumber(t.outputTokens)}; estimate calibration ×${+t.calibrationFactor.toFixed(3)} from ${plural(t.calibrationSamples, 'sample')}`,
      report.subagentFile ? 'This file is a subagent transcript.' : '',
    ]
      .filter(Boolean)
      .join('\n'),
    icon: 'file',
    contextValue: 'transcript',
    collapsible: 'none',
    command: { command: REVEAL_COMMAND, title: 'Open Transcript', args: [{ file, line: 1 }] },
    file,
  };
}

/** The plan node; its tooltip's cost line prices the offline summarizer (the dialog prices the one chosen). */
function planNode(
  file: string,
  plan: CompactionPlan,
  analysis: Analysis,
  economics: PlanEconomics | null,
): TreeNodeModel {
  const context = contextNow(analysis.report);
  return {
    id: `${file}#plan`,
    kind: 'plan',
    // At the default side-bar width the label holds the figure that matters (the context before → after); what
    // happens to the rounds follows in the description.
    label: plan.nothingToDo ? planSummary(plan, context) : contextChangeText(plan, context),
    description: plan.nothingToDo ? undefined : planActionText(plan),
    tooltip: `${planSummary(plan, context)}\n\n${planDetail(plan, context, economics)}`,
    icon: plan.nothingToDo ? 'check' : 'graph',
    color: plan.nothingToDo ? 'testing.iconPassed' : undefined,
    contextValue: plan.nothingToDo ? 'plan.nothingToDo' : 'plan',
    collapsible: 'none',
    command: { command: BUDGET_COMMAND, title: 'Open Budget Preview', args: [{ file }] },
    file,
  };
}

/** The collapsed groups beside the rounds: malformed lines, chain notes, subagents and sidechains (each only when present). */
function groupNodes(input: TreeInput): TreeNodeModel[] {
  const { file } = input;
  const report = input.analysis.report;
  const nodes: TreeNodeModel[] = [];
  if (report.malformed.length) {
    nodes.push({
      id: `${file}#malformed`,
      kind: 'malformedGroup',
      label: plural(report.malformed.length, 'malformed line'),
      description: 'kept verbatim',
      tooltip: 'Lines that are not valid transcript JSON. They are kept byte-for-byte and never sent anywhere.',
      icon: 'warning',
      color: 'problemsWarningIcon.foreground',
      contextValue: 'malformedGroup',
      collapsible: 'collapsed',
      file,
    });
  }
  if (report.chainNotes.length) {
    nodes.push({
      id: `${file}#notes`,
      kind: 'notes',
      label: plural(report.chainNotes.length, 'chain note'),
      tooltip: 'Repairs made while rebuilding the conversation as Claude Code does on resume.',
      icon: 'info',
      contextValue: 'notes',
      collapsible: 'collapsed',
      file,
    });
  }
  if (report.sidechains.length) {
    const rounds = report.sidechains.reduce((s, c) => s + c.rounds, 0);
    nodes.push({
      id: `${file}#sidechains`,
      kind: 'sidechains',
      label: 'Subagents and sidechains',
      description: `${formatNumber(report.sidechains.length)} · ${plural(rounds, 'round')}`,
      tooltip: 'Subagent conversations (Task tool) and other sidechains. They are not part of the main context.',
      icon: 'type-hierarchy-sub',
      contextValue: 'sidechains',
      collapsible: 'collapsed',
      file,
    });
  }
  return nodes;
}

/**
 * What can be done about a compaction: our own can be undone; before the agent's own, nothing is lost, and a fork from
 * before it is offered where one would resume validly (forkPoint, the function the fork itself follows), else why not.
 */
function compactionWayBack(c: AgentCompaction, fork: ForkPoint | null): string {
  if (c.by === 'agent-compactor')
    return 'Agent Compactor made it: Undo Last Compaction puts the file back as it was before it (while it is the last one recorded).';
  const history = 'The rounds above it stay in the file as history, unchanged.';
  if (fork?.ok)
    return `${history} To go on from before it (a compaction that discarded work), Fork From Before This Compaction (context menu) writes a new session holding the conversation as it was just before it.`;
  return `${history} No fork from before it is offered: ${fork?.reason ?? 'the compaction is not recorded'}.`;
}

function boundaryNode(analysis: Analysis, file: string, r: RoundReport, c: AgentCompaction | undefined): TreeNodeModel {
  const n = c ? c.number : 0;
  const fork = c && c.by === 'agent' ? forkPoint(analysis, c.number) : null;
  return {
    id: `${file}#boundary-${r.index}`,
    kind: 'boundary',
    label: c ? `──── ${plainLabel(compactionTitle(c), 80)} ────` : `──── compact boundary ────`,
    description: c ? `${compactionFigures(c, false)} · line ${c.line}` : `line ${r.firstLine}`,
    tooltip: [
      `Compaction ${n}${c ? `: ${compactionTitle(c)}` : ''}, line ${c?.line ?? r.firstLine}. Rounds above it are history; the summary after it starts a new context.`,
      c ? `Context: ${compactionFigures(c)}.` : '',
      c && c.nextRequest !== null && c.postTokens !== null ? NEXT_REQUEST_NOTE : '',
      c ? `Its own request (the summary): ${compactionCostText(c)}.` : '',
      c && c.durationMs !== null ? `It took ${formatNumber(c.durationMs)} ms.` : '',
      c ? compactionWayBack(c, fork) : '',
    ]
      .filter(Boolean)
      .join('\n'),
    icon: 'fold-up',
    color: 'descriptionForeground',
    // 'boundary' offers Fork From Before This Compaction (package.json menus); 'boundary.noFork' says why not.
    contextValue: c?.by === 'agent-compactor' ? 'boundary.ours' : fork?.ok ? 'boundary' : 'boundary.noFork',
    collapsible: 'none',
    command: { command: REVEAL_COMMAND, title: 'Reveal Boundary', args: [{ file, line: r.firstLine }] },
    file,
    line: r.firstLine,
    compaction: c?.number,
  };
}

/** The rounds in file order: active ones one by one, history grouped per segment, a separator at each compact boundary. */
function roundSequence(input: TreeInput): TreeNodeModel[] {
  const { file, analysis, plan } = input;
  const report = analysis.report;
  const planned = planIndex(plan);
  const nodes: TreeNodeModel[] = [];
  const compactions = new Map(agentCompactions(analysis).map((c) => [c.round, c]));
  const groups = new Set<number>();
  for (const r of report.rounds) {
    if (r.startsAtBoundary) nodes.push(boundaryNode(analysis, file, r, compactions.get(r.index)));
    if (r.inContext) nodes.push(roundNode(file, r, planned.get(r.index), roundCost(analysis, r.messageId)));
    else if (!groups.has(r.segment)) {
      groups.add(r.segment);
      nodes.push(historyGroup(input, r.segment));
    }
  }
  return nodes;
}

function blockSummary(e: Entry): string {
  const parts: string[] = [];
  for (const b of e.blocks) {
    if (b.type === 'tool_use' || b.type === 'server_tool_use')
      parts.push(`tool_use ${b.name ?? '?'} ${formatChars(b.chars)}`);
    else if (b.type === 'tool_result')
      parts.push(
        `tool_result ${formatChars(b.chars)}${b.isError ? ' (error)' : ''}${b.images ? ` +${plural(b.images, 'image')}` : ''}`,
      );
    else if (b.type === 'image') parts.push('image');
    else if (b.type === 'redacted_thinking') parts.push('redacted thinking');
    else parts.push(`${b.type} ${formatChars(b.chars)}`);
  }
  if (e.kind === 'attachment') parts.push(`${e.attachmentType ?? 'attachment'} ${formatChars(e.attachmentChars ?? 0)}`);
  if (e.kind === 'system' && e.subtype) parts.push(e.subtype);
  return parts.join(' · ');
}

function messageIcon(e: Entry): string {
  if (e.kind === 'assistant') return 'hubot';
  if (e.kind === 'user') {
    if (e.isCompactSummary) return 'note';
    if (e.blocks.some((b) => b.type === 'tool_result')) return 'output';
    return e.isMeta ? 'info' : 'account';
  }
  if (e.kind === 'attachment') return 'paperclip';
  if (e.kind === 'system') return 'gear';
  return 'symbol-misc';
}

function messageLabel(e: Entry): string {
  let what = e.kind;
  if (e.kind === 'user') {
    if (e.isCompactSummary) what = 'compact summary';
    else if (e.blocks.length && e.blocks.every((b) => b.type === 'tool_result')) what = 'tool result';
    else if (e.isMeta) what = 'user (meta)';
  }
  return `L${e.line}${e.part ? `.${e.part}` : ''} ${what}`;
}

/** Children of a node (lazy: computed when the node is expanded). */
export function childNodes(input: TreeInput, node: TreeNodeModel): TreeNodeModel[] {
  const { file, analysis, plan } = input;
  const report = analysis.report;
  switch (node.kind) {
    case 'round':
      return roundChildren(input, node.round ?? -1);
    case 'history': {
      const planned = planIndex(plan);
      return report.rounds
        .filter((r) => r.segment === node.segment && !r.inContext)
        .map((r) => roundNode(file, r, planned.get(r.index), roundCost(analysis, r.messageId)));
    }
    case 'malformedGroup':
      return report.malformed.map((m, i) => ({
        id: `${file}#malformed-${i}`,
        kind: 'malformed' as const,
        label: `L${m.line}`,
        description: oneLine(m.error, 120),
        tooltip: m.error,
        icon: 'warning',
        color: 'problemsWarningIcon.foreground',
        contextValue: 'malformed',
        collapsible: 'none' as const,
        command: { command: REVEAL_COMMAND, title: 'Reveal Line', args: [{ file, line: m.line }] },
        file,
        line: m.line,
      }));
    case 'notes':
      return report.chainNotes.map((n, i) => ({
        id: `${file}#note-${i}`,
        kind: 'note' as const,
        label: oneLine(n, 120),
        tooltip: n,
        icon: 'info',
        contextValue: 'note',
        collapsible: 'none' as const,
        file,
      }));
    case 'sidechains':
      return report.sidechains.map((s, i) => {
        const inline = analysis.chain.sidechains.find((c) => c.id === s.id);
        const firstLine = inline && inline.entries.length ? analysis.index.entries[inline.entries[0]].line : undefined;
        const command: NodeCommand | undefined =
          s.source === 'file' && s.file
            ? { command: OPEN_FILE_COMMAND, title: 'Show Subagent Rounds', args: [{ file: s.file }] }
            : firstLine !== undefined
              ? { command: REVEAL_COMMAND, title: 'Reveal Sidechain', args: [{ file, line: firstLine }] }
              : undefined;
        return {
          id: `${file}#sidechain-${i}-${s.id}`,
          kind: 'sidechain' as const,
          label: s.id,
          description: [
            s.source === 'file' ? 'subagent file' : 'inline',
            plural(s.rounds, 'round'),
            plural(s.lines, 'line'),
            s.contextTokens !== null ? `context ${formatNumber(s.contextTokens)} (usage)` : '',
          ]
            .filter(Boolean)
            .join(' · '),
          tooltip:
            s.file ?? `Inline sidechain ${s.id}${firstLine !== undefined ? ` starting at line ${firstLine}` : ''}`,
          icon: s.source === 'file' ? 'file-symlink-file' : 'type-hierarchy-sub',
          contextValue: s.source === 'file' ? 'sidechain.file' : 'sidechain.inline',
          collapsible: 'none' as const,
          command,
          file,
          line: firstLine,
          target: s.file,
        };
      });
    default:
      return [];
  }
}

/** A round's messages (one per entry, in file order) with its tool calls after the line that made them. */
export function roundChildren(input: TreeInput, roundIndex: number): TreeNodeModel[] {
  const { file, analysis, plan } = input;
  const round = analysis.rounds.find((r) => r.index === roundIndex);
  if (!round) return [];
  const decisions = decisionIndex(plan);
  const results = new Map(round.toolResults.map((t) => [t.id, t]));
  const out: TreeNodeModel[] = [];
  const entries = round.entries.map((i) => analysis.index.entries[i]);
  // A call and its result can share a line (a Gemini CLI message holds both): each call is listed once.
  const listed = new Set<string>();
  for (let k = 0; k < entries.length; k++) {
    const e = entries[k];
    out.push({
      // By entry index: a Codex compaction's replacement history is many entries on one line and part.
      id: `${file}#round-${roundIndex}-msg-${round.entries[k]}`,
      kind: 'message',
      label: messageLabel(e),
      description: blockSummary(e),
      tooltip: [
        `Line ${e.line}: ${e.kind}${e.subtype ? ` (${e.subtype})` : ''}`,
        e.uuid ? `uuid ${e.uuid}` : '',
        e.timestamp ?? '',
        blockSummary(e),
      ]
        .filter(Boolean)
        .join('\n'),
      icon: messageIcon(e),
      contextValue: 'message',
      collapsible: 'none',
      command: { command: REVEAL_COMMAND, title: 'Reveal Line', args: [{ file, line: e.line }] },
      file,
      round: roundIndex,
      line: e.line,
    });
    for (const use of round.toolUses) {
      if (use.line !== e.line) continue;
      // Emit each tool call once: after the first entry of its line that carries it.
      if (listed.has(use.id) || !e.blocks.some((b) => b.toolId === use.id)) continue;
      listed.add(use.id);
      const res = results.get(use.id);
      const d = decisions.get(use.id);
      const marker =
        d && (d.action !== 'kept' || d.by === 'user') ? ` ${toolResultMark(d.action, d.by === 'user')}` : '';
      const desc = [`input ${formatChars(use.chars)}`];
      if (res)
        desc.push(
          `→ result ${formatChars(res.chars)}${res.isError ? ' (error)' : ''}${res.images ? ` +${plural(res.images, 'image')}` : ''} at L${res.line}`,
        );
      else desc.push('→ no result in this round');
      const tip = [`${use.name} (${use.id})`, `Input: ${formatChars(use.chars)}`];
      if (res) tip.push(`Result: ${formatChars(res.chars)} at line ${res.line}${res.isError ? ', is_error' : ''}`);
      if (d) tip.push(`${d.by === 'user' ? 'Your decision' : 'Plan'}: ${d.action} (${d.reason})`);
      out.push({
        id: `${file}#round-${roundIndex}-tool-${use.id}`,
        kind: 'tool',
        label: `${use.name}${marker}`,
        description: desc.join(' '),
        tooltip: tip.join('\n'),
        icon: res?.isError ? 'error' : d && d.action !== 'kept' ? 'scissors' : 'tools',
        color: res?.isError
          ? 'problemsErrorIcon.foreground'
          : d && d.action !== 'kept'
            ? MARK_COLOR.summarize
            : undefined,
        contextValue: 'tool',
        collapsible: 'none',
        command: { command: REVEAL_COMMAND, title: 'Reveal Result', args: [{ file, line: res?.line ?? use.line }] },
        file,
        round: roundIndex,
        line: res?.line ?? use.line,
      });
    }
  }
  return out;
}

/** The tree node of a round (inside its history group when it is not in the active context). */
export function roundNodeByIndex(input: TreeInput, index: number): TreeNodeModel | undefined {
  const r = input.analysis.report.rounds.find((x) => x.index === index);
  return r
    ? roundNode(input.file, r, planIndex(input.plan).get(r.index), roundCost(input.analysis, r.messageId))
    : undefined;
}

/** Parent of a node (for TreeView.reveal): round → history group; message/tool → round. */
export function parentNode(input: TreeInput, node: TreeNodeModel): TreeNodeModel | undefined {
  if (node.kind === 'round') {
    const r = input.analysis.report.rounds.find((x) => x.index === node.round);
    return r && !r.inContext ? historyGroup(input, r.segment) : undefined;
  }
  if (node.kind === 'message' || node.kind === 'tool')
    return node.round !== undefined ? roundNodeByIndex(input, node.round) : undefined;
  if (node.kind === 'sidechain') return rootNodes(input).find((n) => n.kind === 'sidechains');
  if (node.kind === 'malformed') return rootNodes(input).find((n) => n.kind === 'malformedGroup');
  if (node.kind === 'note') return rootNodes(input).find((n) => n.kind === 'notes');
  return undefined;
}

/** Single-node trees for states without an analysis (loading, error, a file with no lines yet). */
export function statusNode(
  file: string,
  label: string,
  detail: string | undefined,
  kind: 'loading' | 'error' | 'info',
): TreeNodeModel {
  return {
    id: `${file}#status-${kind}`,
    kind: 'status',
    label,
    description: detail ? oneLine(detail, 120) : undefined,
    tooltip: detail,
    icon: kind === 'loading' ? 'loading~spin' : kind === 'info' ? 'info' : 'error',
    color: kind === 'error' ? 'problemsErrorIcon.foreground' : undefined,
    contextValue: `status.${kind}`,
    collapsible: 'none',
    file,
  };
}

/** Plain snapshot of a tree (for the test API): nodes with children expanded to `depth`. */
export interface TreeSnapshot extends TreeNodeModel {
  children?: TreeSnapshot[];
}

export function snapshot(input: TreeInput, depth = 1): TreeSnapshot[] {
  const expand = (nodes: TreeNodeModel[], d: number): TreeSnapshot[] =>
    nodes.map((n) =>
      d > 0 && n.collapsible !== 'none' ? { ...n, children: expand(childNodes(input, n), d - 1) } : { ...n },
    );
  return expand(rootNodes(input), depth);
}
