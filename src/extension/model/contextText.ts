// The one context figure (src/core/context.ts `contextNow`) as every surface words it: status bar, tree header,
// target input box, plan line, dialog. One function per wording, so the figure reads the same everywhere.
// Pure: no `vscode` import.
import { ATTACHED_NOTE, RESENT_NOTE, type ContextFigure } from '../../core/context';
import type { InspectReport } from '../../core/inspect';
import { formatNumber, plural } from './format';
import { statusName } from './liveStatus';

/** The figure with its provenance mark: "48,314" (usage) or "~48,314" (estimate). */
export function contextFigureText(c: ContextFigure): string {
  return `${c.source === 'estimate' ? '~' : ''}${formatNumber(c.tokens)}`;
}

/** "context ~48,314 tokens (estimate)": the tree header, the input box, the status bar's tooltip. */
export function contextText(c: ContextFigure): string {
  return `context ${contextFigureText(c)} tokens (${c.source})`;
}

/**
 * "system prompt and tools ~6,102 (estimated) + transcript 42,212", "… 8,613 (recorded) + …" when the session
 * records them (or only the transcript when the overhead is unknown).
 */
export function contextPartsText(c: ContextFigure): string {
  if (!c.overheadKnown)
    return `transcript ${formatNumber(c.transcript)}; system prompt and tools unknown (no usage in the file)`;
  const overhead =
    c.overheadSource === 'recorded'
      ? `${formatNumber(c.overhead)} (recorded)`
      : `~${formatNumber(c.overhead)} (estimated)`;
  const attached = c.attached ? ` + ~${formatNumber(c.attached)} ${ATTACHED_NOTE}` : '';
  const resent = c.resent ? ` + ~${formatNumber(c.resent)} ${RESENT_NOTE}` : '';
  return `system prompt and tools ${overhead} + transcript ${formatNumber(c.transcript)}${attached}${resent}`;
}

/** "transcript 5,947 of 48,314": where only the transcript part of the context is meant. */
export function transcriptOfContextText(transcript: number, c: ContextFigure): string {
  return `transcript ${formatNumber(transcript)} of ${contextFigureText(c)}`;
}

/** The status bar item's text (without its icon): "context ~48,314 · 230 rounds". */
export function statusBarText(c: ContextFigure, report: InspectReport): string {
  return `context ${contextFigureText(c)} · ${plural(report.totals.rounds, 'round')}`;
}

/** The target input box's prompt. */
export function targetPrompt(c: ContextFigure, smallest: number): string {
  return `Target for the whole context in tokens: ${contextText(c)} = ${contextPartsText(c)}; the smallest reachable target is about ${formatNumber(smallest)}. Accept to use it; the setting agentCompactor.targetTokens is the default.`;
}

/**
 * The shown transcript's status bar item, named (a live session's item may sit beside it: each says which session it
 * is), and its accessible name in plain words (the tooltip's markdown is no name: it read out `&nbsp;`).
 */
export function statusBarItem(
  name: string,
  c: ContextFigure,
  report: InspectReport,
): { text: string; accessibilityLabel: string } {
  const short = statusName(name);
  return {
    text: `${short}: ${statusBarText(c, report)}`,
    accessibilityLabel: `${short}: context ${c.source === 'estimate' ? 'about ' : ''}${formatNumber(c.tokens)} tokens, ${plural(report.totals.rounds, 'round')}`,
  };
}
