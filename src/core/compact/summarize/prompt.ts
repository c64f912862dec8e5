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

export function summaryRequestText(extraInstructions?: string): string {
  const extra = extraInstructions?.trim();
  return extra ? `${SUMMARY_INSTRUCTIONS}\n\nAdditional instructions from the user:\n${extra}` : SUMMARY_INSTRUCTIONS;
}

export const SUMMARY_PREFIX =
  'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation; the most recent exchanges follow it verbatim.\n\n';

/** Keeps the <summary> body and drops an <analysis> scratchpad. */
export function extractSummary(reply: string): string {
  const noAnalysis = reply.replace(/<analysis>[\s\S]*?<\/analysis>/gi, '').trim();
  const m = /<summary>([\s\S]*?)(<\/summary>|$)/i.exec(noAnalysis);
  return (m ? m[1] : noAnalysis).trim();
}
