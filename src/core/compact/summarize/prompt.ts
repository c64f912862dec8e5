// The summary request: a structured handoff so the agent can continue the work.

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

/** Appended last when an earlier reply came back without a complete <summary> block. */
export const SUMMARY_TAGS_REMINDER =
  'IMPORTANT: Keep the <analysis> short and make sure the summary is complete: write the whole summary inside <summary></summary> tags and end your answer with the closing </summary> tag.';

export interface SummaryRequestOptions {
  /** The conversation is summarized in parts and more parts follow this one. */
  morePartsFollow?: boolean;
  /** Ask explicitly for the <summary></summary> tags (the retry after a cut-off reply). */
  tagsReminder?: boolean;
}

export function summaryRequestText(extraInstructions?: string, options: SummaryRequestOptions = {}): string {
  const extra = extraInstructions?.trim();
  let text = extra ? `${SUMMARY_INSTRUCTIONS}\n\nAdditional instructions from the user:\n${extra}` : SUMMARY_INSTRUCTIONS;
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
