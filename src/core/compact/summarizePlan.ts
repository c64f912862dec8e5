// The summary of a plan and the plan settled by it: made by the summarizer chosen (summary.ts) or given, clipped to
// its reserve when it is longer (said in the attempts and the notes), the plan settled by its real size (settle.ts:
// a new plan, and what changed) and what it keeps of the summarized rounds' facts (fidelity.ts). Writes nothing.
import type { Analysis } from '../analysis';
import type { PreparedOutput } from '../formats/writer';
import type { ConversationRecord } from '../conversation';
import type { PlanDetails } from './planBase';
import type { PlanInputs, RuntimeHooks, SummarizerOptions } from './options';
import { settleSummary } from './settle';
import type { AttemptRecord } from './types';
import { givenSummary, makeSummary, summaryCharBudget, type SummaryOutcome } from './summary';
import { measureFidelity, spanFacts, type Fact, type FidelityReport } from './fidelity';
import { summarizedRounds, type Loaded } from './loadLines';
import { checkCancelled, progressOf } from './writeOut';

/** What `summarize` reads of a planned compaction: its plan and lines, the summary's inputs and how it is watched. */
export interface SummaryInput {
  analysis: Analysis;
  details: PlanDetails;
  loaded: Loaded;
  /** `summaryText`: the summary given, used verbatim instead of one the summarizer writes. */
  inputs: Pick<PlanInputs, 'summaryText'>;
  summarizer: SummarizerOptions;
  runtime: RuntimeHooks;
}

/**
 * The summary for a plan (made, given, or clipped to its reserve) and the plan settled by it (settle.ts: a new plan,
 * and what changed); writes nothing.
 */
export async function summarize(input: SummaryInput): Promise<PreparedOutput> {
  const { analysis, details, loaded, runtime } = input;
  const summarized = summarizedRounds(analysis, details);
  const progress = progressOf(runtime);
  const given = input.inputs.summaryText;
  const made =
    given !== undefined
      ? givenSummary(given)
      : await makeSummary(
          { analysis, details, summarized, earlier: loaded.earlier, records: loaded.records, progress },
          input.summarizer,
          runtime,
        );
  checkCancelled(runtime.signal);
  const fitted = clipToReserve(made, details);
  const settled = settleSummary(analysis, details, { ...fitted, dropped: made.dropped });
  const measured = recordsOf(
    analysis,
    loaded,
    summarized.filter((ri) => !made.dropped.includes(ri)),
  );
  const { facts, fidelity } = fidelityOf(measured, made.summarizer, fitted.summary);
  return {
    analysis,
    readSize: analysis.index.size,
    readMtime: analysis.index.mtimeMs,
    details: settled.details,
    settled: settled.changes,
    objects: loaded.objects,
    rawBytes: loaded.rawBytes,
    made: fitted.made,
    summary: fitted.summary,
    fidelity,
    facts,
  };
}

/**
 * The summary cut to what its reserve holds (never an earlier summary it quotes whole, nor one written verbatim), the
 * clip recorded as an attempt and said in a note; as it was when it fits.
 */
function clipToReserve(
  made: SummaryOutcome,
  details: PlanDetails,
): { made: SummaryOutcome; summary: string; clipped: string | null } {
  const summaryChars = Math.max(
    summaryCharBudget(details.plan.settings.summaryTokens, details.calibration),
    made.protectedChars + 2_000,
  );
  const summary = made.summary;
  if (made.verbatimContent !== undefined || summary.length <= summaryChars || made.protectedChars >= summary.length)
    return { made, summary, clipped: null };
  // Said where the run's outcome is read (the attempts, the notes), not only in the summary's last line.
  const clipped = clipNote(made, summaryChars, details);
  const attempt: AttemptRecord = {
    attempt: made.attempts.length + 1,
    strategy: made.summarizer === 'none' || made.summarizer === 'given' ? 'extractive' : made.summarizer,
    outcome: 'clipped',
    detail: clipped,
  };
  return {
    made: { ...made, attempts: [...made.attempts, attempt] },
    summary: summary.slice(0, summaryChars) + '\n[summary clipped to fit the target]',
    clipped,
  };
}

/** The records loaded of the given rounds' entries, in order. */
function recordsOf(analysis: Analysis, loaded: Loaded, rounds: number[]): ConversationRecord[] {
  return rounds
    .flatMap((ri) => analysis.rounds[ri].entries)
    .map((e) => loaded.records.get(e))
    .filter((o): o is ConversationRecord => o !== undefined);
}

/** The facts of the records summarized and what the summary keeps of them; none when nothing was summarized. */
function fidelityOf(
  span: ConversationRecord[],
  summarizer: SummaryOutcome['summarizer'],
  summary: string,
): { facts?: Fact[]; fidelity?: FidelityReport } {
  const facts = summarizer === 'none' || !span.length ? undefined : spanFacts(span);
  const fidelity = facts ? measureFidelity(facts, summary) : undefined;
  return { facts, fidelity };
}

/** What a clip of the summary to its reserve cut, for the attempts and the notes. */
function clipNote(made: SummaryOutcome, summaryChars: number, details: PlanDetails): string {
  const { summaryTokens, summaryDetail } = details.plan.settings;
  return `the summary was ${made.summary.length} characters, over the ${summaryChars} its reserve holds (${summaryTokens} tokens, ${summaryDetail} detail): its last ${made.summary.length - summaryChars} characters were cut`;
}
