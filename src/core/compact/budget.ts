// Tool-result budgeting at the level the API receives: one outbound user (wire) message at a
// time. Earlier decisions are re-applied exactly; among fresh results the largest are replaced
// by stable previews until the message fits.
import type { Entry } from '../entries';
import type { ToolResultDecision, WireMessageBudget } from './types';
import type { CompactSettings } from '../compactSettings';
import type { BudgetState } from './state';
import { safeToolResultName } from './state';
import type { ResultChoice } from './decisions';
import { ownValue } from '../json';

export interface ResultText {
  toolUseId: string;
  entry: number;
  round: number;
  line: number;
  toolName: string | null;
  text: string;
  /** Images or other non-text blocks: never replaced. */
  binary: boolean;
}

export interface BudgetOutcome {
  decisions: ToolResultDecision[];
  wireMessages: WireMessageBudget[];
  /** Replacement text by tool_use_id, for results that change. */
  replacements: Map<string, { preview: string; fullTextPath: string; original: string }>;
}

/**
 * A stable preview: the first `previewBytes` bytes, cut at a newline when one lies past the
 * middle, and a note with the original size and where the full text is.
 */
export function makePreview(text: string, previewBytes: number, fullTextPath: string): string {
  const bytes = Buffer.byteLength(text, 'utf8');
  let head = Buffer.from(text, 'utf8')
    .subarray(0, previewBytes)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
  const nl = head.lastIndexOf('\n');
  if (nl > head.length / 2) head = head.slice(0, nl);
  return (
    `[Tool result replaced by a preview to save context: the original was ${text.length.toLocaleString('en-US')} characters ` +
    `(${bytes.toLocaleString('en-US')} bytes). Full text saved to: ${fullTextPath}]\n` +
    `Preview (first ${Buffer.byteLength(head, 'utf8').toLocaleString('en-US')} bytes):\n${head}\n[… ${Math.max(0, text.length - head.length).toLocaleString('en-US')} more characters in ${fullTextPath}]`
  );
}

/** Groups the entries sent as user content into wire messages (consecutive user lines merge). */
export function wireMessages(entries: Entry[], ordered: number[]): number[][] {
  const groups: number[][] = [];
  let cur: number[] | null = null;
  for (const i of ordered) {
    const e = entries[i];
    if (e.kind === 'assistant') {
      cur = null;
      continue;
    }
    if (e.kind !== 'user' && e.kind !== 'attachment') continue;
    if (!cur) groups.push((cur = []));
    cur.push(i);
  }
  return groups;
}

/** The limits of an agent whose sessions take no previews (plan.ts settingsForFormat): every result is kept whole. */
export const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/** True when the settings set no limit on tool results (NO_LIMIT). */
export function unbounded(
  settings: Pick<CompactSettings, 'maxToolResultChars' | 'maxToolResultCharsPerMessage'>,
): boolean {
  return settings.maxToolResultChars === NO_LIMIT && settings.maxToolResultCharsPerMessage === NO_LIMIT;
}

export function applyBudget(
  entries: Entry[],
  wire: number[][],
  results: Map<number, ResultText[]>,
  settings: CompactSettings,
  state: BudgetState,
  toolResultsDir: string,
  roundOfEntry: Map<number, number>,
  choices: Readonly<Record<string, ResultChoice>> = {},
): BudgetOutcome {
  const decisions: ToolResultDecision[] = [];
  const budgets: WireMessageBudget[] = [];
  const replacements = new Map<string, { preview: string; fullTextPath: string; original: string }>();
  const exempt = new Set(settings.exemptTools);

  wire.forEach((group, wi) => {
    const inMsg: ResultText[] = [];
    // One by one: a line of many results would overflow the stack as spread arguments.
    for (const i of group) for (const r of results.get(i) ?? []) inMsg.push(r);
    const before = inMsg.reduce((s, r) => s + r.text.length, 0);
    let total = before;
    const fresh: ResultText[] = [];
    const local: ToolResultDecision[] = [];
    const decide = (
      r: ResultText,
      action: ToolResultDecision['action'],
      preview: string | null,
      path: string | null,
      reason: string,
      by: ToolResultDecision['by'] = 'plan',
    ) => {
      local.push({
        toolUseId: r.toolUseId,
        toolName: r.toolName,
        round: r.round,
        line: r.line,
        wireMessage: wi,
        originalChars: r.text.length,
        action,
        preview,
        fullTextPath: path,
        reason,
        by,
      });
    };
    const replace = (r: ResultText, reason: string, by: ToolResultDecision['by']): boolean => {
      const path = `${toolResultsDir}/${safeToolResultName(r.toolUseId)}`;
      const preview = makePreview(r.text, settings.previewBytes, path);
      if (preview.length >= r.text.length) return false;
      total += preview.length - r.text.length;
      replacements.set(r.toolUseId, { preview, fullTextPath: path, original: r.text });
      decide(r, 'replaced', preview, path, reason, by);
      return true;
    };
    for (const r of inMsg) {
      const frozen = ownValue(state.decisions, r.toolUseId);
      const choice = ownValue(choices, r.toolUseId);
      // A frozen decision is what an earlier compaction wrote: changing it would change text the agent has already
      // seen in this form (and whose saved original the preview names), so it stays, and a contrary choice is said.
      const overruled =
        choice && (choice === 'preview') !== (frozen?.action === 'replaced')
          ? `; your choice to ${choice === 'preview' ? 'replace it by a preview' : 'keep it in full'} cannot apply: an earlier compaction already wrote it this way and the agent's context holds it so`
          : '';
      if (frozen) {
        if (frozen.action === 'replaced' && frozen.preview !== undefined) {
          total += frozen.preview.length - r.text.length;
          replacements.set(r.toolUseId, {
            preview: frozen.preview,
            fullTextPath: frozen.fullTextPath ?? '',
            original: r.text,
          });
          decide(
            r,
            'frozen',
            frozen.preview,
            frozen.fullTextPath ?? null,
            `earlier decision re-applied exactly (replaced)${overruled}`,
          );
        } else {
          decide(r, 'frozen', null, null, `earlier decision re-applied exactly (kept)${overruled}`);
        }
      } else if (choice === 'keep-full') {
        decide(r, 'kept', null, null, 'kept in full by you', 'user');
      } else if (choice === 'preview' && !r.binary) {
        if (!replace(r, 'replaced by a preview by you', 'user'))
          decide(
            r,
            'kept',
            null,
            null,
            'you chose a preview, but the preview would be longer than the result; kept in full',
            'user',
          );
      } else if (r.binary || (r.toolName !== null && exempt.has(r.toolName))) {
        decide(r, 'kept', null, null, r.binary ? 'contains images or non-text blocks' : `tool ${r.toolName} is exempt`);
      } else fresh.push(r);
    }
    // Largest first, by original size; each message is touched once per pass.
    fresh.sort((a, b) => b.text.length - a.text.length || a.line - b.line);
    for (const r of fresh) {
      const overSingle = r.text.length > settings.maxToolResultChars;
      const overMessage = total > settings.maxToolResultCharsPerMessage;
      if (overSingle || overMessage) {
        const reason = overSingle
          ? `over the ${settings.maxToolResultChars.toLocaleString('en-US')}-character limit for one result`
          : `message over the ${settings.maxToolResultCharsPerMessage.toLocaleString('en-US')}-character budget; largest fresh result`;
        if (replace(r, reason, 'plan')) continue;
      }
      decide(
        r,
        'kept',
        null,
        null,
        unbounded(settings) ? 'kept whole: no previews for this session' : 'fits the budget',
      );
    }
    local.sort((a, b) => a.line - b.line);
    decisions.push(...local);
    const round = roundOfEntry.get(group[0]) ?? -1;
    budgets.push({
      index: wi,
      round,
      lines: group.map((i) => entries[i].line),
      beforeChars: before,
      afterChars: total,
      limit: settings.maxToolResultCharsPerMessage,
    });
  });
  return { decisions, wireMessages: budgets, replacements };
}
