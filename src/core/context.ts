// "The context": what the next request of the session would carry, system prompt and tools included. Defined here
// once; every surface (status bar, tree, input box, plan line, dialog, chart, CLI, the boundary we write) shows this
// figure, and names its parts where it shows one.
import type { InspectReport, TokenSource } from './inspect';

export interface ContextFigure {
  /** Tokens of the next request: the newest request's usage plus estimates of what followed it (else all estimated). */
  tokens: number;
  source: TokenSource;
  /** System prompt and tool definitions, estimated from usage (0 when the file has no usage to tell). */
  overhead: number;
  /** The active transcript: `tokens - overhead`. */
  transcript: number;
  /** True when `overhead` is known (recorded or estimated from usage), false when unknown (then 0). */
  overheadKnown: boolean;
  /** `recorded`: counted from the agent's own record of its requests; `estimated`: from usage; null: unknown. */
  overheadSource: 'recorded' | 'estimated' | null;
}

export function contextNow(report: InspectReport): ContextFigure {
  const t = report.totals;
  const overhead = Math.min(t.overheadTokens ?? 0, t.currentContextTokens);
  return { tokens: t.currentContextTokens, source: t.currentContextSource, overhead, transcript: t.currentContextTokens - overhead, overheadKnown: t.overheadTokens !== null, overheadSource: t.overheadSource };
}
