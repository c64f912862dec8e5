// What Repair Session and Restore From Backup say: the confirmation's detail and the result, in words whose numbers
// agree with their nouns. Pure: no `vscode`, so unit tests read the exact text a person sees.
import { basename } from 'node:path';
import type { RepairPlan } from '../../core/repair/repairPlan';
import type { RepairResult } from '../../core/repair/repair';
import { formatNumber, plural } from './format';

/** A share of the messages resume loads, to a tenth of a percent and never rounded up to 100%. */
export const reachPercent = (x: number) => `${Math.floor(x * 1000) / 10}%`;

/** The confirmation's detail: what a repair changes, line by line, and that the rest stays as it is. */
export function repairConfirmDetail(plan: Pick<RepairPlan, 'changes' | 'converted' | 'skipped'>): string {
  const relinked = `${plural(plan.changes.length, 'line')} ${plan.changes.length === 1 ? 'gets' : 'get'} a new parentUuid`;
  const lines = plan.converted.map((c) => formatNumber(c.line));
  const converted = plan.converted.length
    ? `; ${plural(plan.converted.length, 'tool result')} whose call is gone ${plan.converted.length === 1 ? 'becomes a text block' : 'become text blocks'} saying so (${lines.length === 1 ? 'line' : 'lines'} ${lines.join(', ')})`
    : '';
  const skipped = plan.skipped.length
    ? ` ${plural(plan.skipped.length, 'line')} ${plan.skipped.length === 1 ? 'is' : 'are'} left as ${plan.skipped.length === 1 ? 'it is' : 'they are'}.`
    : '';
  return `${relinked}${converted}; every other line stays byte-identical.${skipped} A fork is a new session beside the original, which stays untouched; in place keeps a backup.`;
}

/** The result: how much resume loads now, where it was written and, in place, where the content it replaced is. */
export function repairResultText(file: string, result: RepairResult & { output: string }): string {
  const loads = `resume now loads ${result.after.reachableMessages} of ${result.after.totalMessages} messages (${reachPercent(result.after.reachability)})`;
  const where =
    result.mode === 'in-place'
      ? `repaired in place${result.backup ? `; the content it replaced is in ${basename(result.backup)} (Restore From Backup puts it back)` : ''}`
      : `written to ${basename(result.output)}`;
  return `Repaired ${basename(file)}: ${loads}, ${where}.${result.notes.map((n) => ` Note: ${n}.`).join('')}`;
}

/** Where a transcript's backups come from, for Restore From Backup's texts. */
export const BACKUP_ORIGIN = 'taken before an in-place compaction, repair or restore rewrote the transcript';
