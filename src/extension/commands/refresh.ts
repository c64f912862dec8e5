// Refresh: re-reads the shown transcript (appended bytes only; `{ full: true }` re-parses).
import type { Services } from '../services';
import { bool, options, str } from '../../webview/validate';
import { optionsOf } from './call';
import { shownTranscript } from './args';

/** `{ file, full }`: the transcript to read again (default: the shown one) and whether to re-parse it whole. */
export const REFRESH_OPTIONS = options({ file: str(4_096, { min: 1 }), full: bool });

export interface RefreshResult {
  file: string;
  rounds: number;
  contextTokens: number;
}

/** Reads `file` again (only what was appended unless `full`); undefined when it cannot be read. */
export async function refreshTranscript(s: Services, file: string, full: boolean): Promise<RefreshResult | undefined> {
  const analysis = file === s.store.file ? await s.store.refresh(full) : await s.store.load(file, { force: true });
  if (!analysis) return undefined;
  return { file, rounds: analysis.report.totals.rounds, contextTokens: analysis.report.totals.currentContextTokens };
}

export async function refreshCommand(s: Services, arg: unknown): Promise<RefreshResult | undefined> {
  const o = optionsOf(REFRESH_OPTIONS, 'Refresh', arg);
  const file = shownTranscript(s, arg);
  return file ? refreshTranscript(s, file, o.full === true) : undefined;
}
