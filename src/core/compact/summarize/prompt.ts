// The summary request: a structured handoff so the agent can continue the work, as detailed as the level asks.
import { DEFAULT_SUMMARY_DETAIL, type SummaryDetail } from '../../summaryDetail';

/** The standard request (today's): every section of the handoff. */
export const SUMMARY_INSTRUCTIONS = `Your task is to create a detailed summary of the conversation so far, so that work can continue without losing context. The most recent part of the conversation is kept verbatim after your summary; summarize everything above this request.

First think in <analysis> tags, then write the summary in <summary> tags with these sections:
1. Primary Request and Intent: all of the user's explicit requests and intents, in detail.
2. Key Technical Concepts: technologies, frameworks and concepts discussed.
3. Files and Code Sections: files examined, modified or created, with why they matter and the important code snippets.
4. Errors and Fixes: every error met and how it was fixed, including user feedback.
5. Problem Solving: problems solved and ongoing troubleshooting.
6. All User Messages: every user message that is not a tool result, verbatim or nearly so.
7. Pending Tasks: tasks explicitly asked for and not yet done.
8. Current Work: precisely what was being worked on just before this request.
9. Optional Next Step: the next step in line with the user's most recent explicit request, quoting it.`;

const BRIEF_INSTRUCTIONS = `Your task is to create a brief summary of the conversation so far, so that work can continue: only what is needed to pick the work up again, in short lines, no code beyond names. The most recent part of the conversation is kept verbatim after your summary; summarize everything above this request.

First think in <analysis> tags (briefly), then write the summary in <summary> tags with these sections:
1. Current Task: what was being worked on just before this request, in one or two sentences.
2. User Requests: every explicit request of the user, one line each, quoting its key words.
3. Files Edited: the path of every file modified or created, one line each with what changed.
4. Last Error: the last error met and whether it was fixed, quoting its key line; "none" if there was none.
5. Next Step: the next step in line with the user's most recent explicit request, quoting it.`;

const FULL_INSTRUCTIONS = `Your task is to create a full, detailed summary of the conversation so far, so that work can continue without losing anything: leave nothing out that a developer picking up the work would have to rediscover. The most recent part of the conversation is kept verbatim after your summary; summarize everything above this request.

First think in <analysis> tags, then write the summary in <summary> tags with these sections:
1. Primary Request and Intent: all of the user's explicit requests and intents, in full detail.
2. Key Technical Concepts: technologies, frameworks, concepts and decisions, with why they were chosen.
3. Files and Code Sections: every file examined, modified or created, with why it matters, what changed and the important code snippets in full.
4. Errors and Fixes: every error met, quoting the line that says what went wrong, with the command or tool that met it and how it was fixed, including user feedback.
5. Commands: the commands run that mattered, which failed and why.
6. Problem Solving: problems solved, approaches tried and dropped, and ongoing troubleshooting.
7. All User Messages: every user message that is not a tool result, verbatim.
8. Pending Tasks: every task explicitly asked for and not yet done, and every open TODO item.
9. Current Work: precisely what was being worked on just before this request, naming the files, functions and identifiers involved, with the latest code snippets.
10. Latest Findings: what the assistant said last about where the work stood, what it decided and what it would do next, nearly verbatim.
11. Optional Next Step: the next step in line with the user's most recent explicit request, quoting it.`;

const INSTRUCTIONS_BY_DETAIL: Readonly<Record<SummaryDetail, string>> = {
  brief: BRIEF_INSTRUCTIONS,
  standard: SUMMARY_INSTRUCTIONS,
  full: FULL_INSTRUCTIONS,
};

/** What a model is asked to write at a detail level: the sections of the handoff and how much goes in each. */
export function summaryInstructions(detail: SummaryDetail = DEFAULT_SUMMARY_DETAIL): string {
  return INSTRUCTIONS_BY_DETAIL[detail];
}

/** Appended last when an earlier reply came back without a complete <summary> block. */
export const SUMMARY_TAGS_REMINDER =
  'IMPORTANT: Keep the <analysis> short and make sure the summary is complete: write the whole summary inside <summary></summary> tags and end your answer with the closing </summary> tag.';

export interface SummaryRequestOptions {
  /** The conversation is summarized in parts and more parts follow this one. */
  morePartsFollow?: boolean;
  /** Ask explicitly for the <summary></summary> tags (the retry after a cut-off reply). */
  tagsReminder?: boolean;
  /** How much the summary keeps (summaryInstructions); standard when not given. */
  detail?: SummaryDetail;
  /**
   * The room the summary has, in characters, when nothing else bounds the reply (an agent CLI has no max_tokens we
   * set): the request says it, since a longer summary is clipped to it.
   */
  maxChars?: number;
}

/** The sentence that gives the model the summary's room (SummaryRequestOptions.maxChars). */
export function summarySizeText(maxChars: number): string {
  return `Size: the summary inside the <summary> tags has room for about ${maxChars} characters (about ${Math.round(maxChars / 6)} words). Anything longer is cut off at that size, so keep within it and put what matters most for continuing the work first.`;
}

export function summaryRequestText(extraInstructions?: string, options: SummaryRequestOptions = {}): string {
  const extra = extraInstructions?.trim();
  const instructions = summaryInstructions(options.detail);
  let text = extra ? `${instructions}\n\nAdditional instructions from the user:\n${extra}` : instructions;
  if (options.maxChars !== undefined) text += `\n\n${summarySizeText(options.maxChars)}`;
  if (options.morePartsFollow) text += '\n\n(This is one part of a longer conversation; later parts follow.)';
  if (options.tagsReminder) text += `\n\n${SUMMARY_TAGS_REMINDER}`;
  return text;
}

export const SUMMARY_PREFIX =
  'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation; the most recent exchanges follow it verbatim.\n\n';

/**
 * The body of the first complete <summary>…</summary> block, with any <analysis> scratchpad
 * removed first (it may mention the tags); null when there is no complete block, so a reply
 * cut off before or inside the summary is never mistaken for one.
 */
export function extractSummary(reply: string): string | null {
  const noAnalysis = reply.replace(/<analysis>[\s\S]*?<\/analysis>/gi, '');
  const m = /<summary>([\s\S]*?)<\/summary>/i.exec(noAnalysis);
  return m ? m[1].trim() : null;
}
