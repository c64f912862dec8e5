// Offline, deterministic summary: the user's requests verbatim, tools used, files touched,
// commands run, errors, and where the work stood. Needs no network, so the main job always works.
import { attachmentText, clipNotingRest } from '../messages';

export interface ExtractiveInput {
  /** Entry objects of the summarized rounds, in chain order. */
  objects: Record<string, any>[];
  /** Approximate size limit of the summary, in characters. */
  maxChars: number;
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

function userTexts(o: Record<string, any>): string[] {
  const c = o.message?.content;
  if (typeof c === 'string') return [c];
  if (!Array.isArray(c)) return [];
  return c.filter((b) => b?.type === 'text' && typeof b.text === 'string').map((b) => b.text as string);
}

/** Prompts typed by the user (not tool results, not injected reminders or command output). */
function isHumanPrompt(text: string): boolean {
  const t = text.trim();
  if (!t) return false;
  return !/^<(system-reminder|local-command-stdout|local-command-stderr|command-name|command-message|command-args)>/.test(t) && !t.startsWith('Caveat: The messages below');
}

/**
 * The part of a line the extractive summary reads, made as the line is parsed so that a long session's summarized
 * lines do not all stay in memory whole: tool outputs only when they are errors, tool inputs only where they name a
 * file or a command, no thinking, no Claude Code copies of tool results, attachments only by kind and file name.
 */
export function shapeForExtractive(o: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = { type: o.type };
  if (o.isCompactSummary) out.isCompactSummary = true;
  if (o.isMeta) out.isMeta = true;
  const content = o.message?.content;
  if (typeof content === 'string') out.message = { content };
  else if (Array.isArray(content)) {
    out.message = {
      content: content
        .filter((b) => b?.type === 'text' || b?.type === 'tool_use' || b?.type === 'tool_result')
        .map((b) => {
          if (b.type === 'tool_result' && b.is_error !== true) return { type: 'tool_result', tool_use_id: b.tool_use_id };
          if (b.type === 'tool_use') {
            const input: Record<string, unknown> = {};
            for (const key of ['file_path', 'notebook_path', 'path', 'command']) if (b.input && typeof b.input === 'object' && key in b.input) input[key] = b.input[key];
            return { type: 'tool_use', id: b.id, name: b.name, input };
          }
          return b;
        }),
    };
  }
  if (o.type === 'attachment' && o.attachment && typeof o.attachment === 'object') {
    out.attachment = { type: o.attachment.type, filename: o.attachment.filename, content: attachmentText(o) ? '(attachment)' : undefined };
  }
  return out;
}

export function extractiveSummary(input: ExtractiveInput): string {
  const requests: string[] = [];
  const earlierSummaries: string[] = [];
  const toolCounts = new Map<string, number>();
  const files = new Map<string, Set<string>>();
  const commands: string[] = [];
  const errors: string[] = [];
  let lastAssistantText = '';
  const toolNames = new Map<string, string>();

  for (const o of input.objects) {
    if (o.type === 'user') {
      if (o.isCompactSummary) {
        earlierSummaries.push(userTexts(o).join('\n'));
        continue;
      }
      if (!o.isMeta) for (const t of userTexts(o)) if (isHumanPrompt(t)) requests.push(t.trim());
      const content = o.message?.content;
      if (Array.isArray(content)) {
        for (const b of content) {
          if (b?.type !== 'tool_result' || b.is_error !== true) continue;
          const text = typeof b.content === 'string' ? b.content : Array.isArray(b.content) ? b.content.map((x: any) => x?.text ?? '').join(' ') : '';
          errors.push(`${toolNames.get(b.tool_use_id) ?? 'tool'}: ${clipNotingRest(oneLine(text.replace(/<\/?tool_use_error>/g, '')), 240)}`);
        }
      }
    } else if (o.type === 'assistant') {
      const content = o.message?.content;
      if (!Array.isArray(content)) continue;
      for (const b of content) {
        if (b?.type === 'text' && typeof b.text === 'string' && b.text.trim()) lastAssistantText = b.text.trim();
        if (b?.type !== 'tool_use') continue;
        const name = String(b.name ?? 'tool');
        if (typeof b.id === 'string') toolNames.set(b.id, name);
        toolCounts.set(name, (toolCounts.get(name) ?? 0) + 1);
        const input = (b.input ?? {}) as Record<string, unknown>;
        for (const key of ['file_path', 'notebook_path', 'path']) {
          const p = input[key];
          if (typeof p !== 'string' || !p) continue;
          const verbs = files.get(p) ?? new Set<string>();
          verbs.add(/^(Edit|MultiEdit|Write|NotebookEdit)$/.test(name) ? 'edited' : name === 'Read' ? 'read' : name.toLowerCase());
          files.set(p, verbs);
        }
        if (typeof input.command === 'string') commands.push(clipNotingRest(oneLine(input.command), 200));
      }
    } else if (o.type === 'attachment') {
      const t = attachmentText(o);
      if (t && o.attachment?.type === 'edited_text_file' && typeof o.attachment.filename === 'string') {
        const verbs = files.get(o.attachment.filename) ?? new Set<string>();
        verbs.add('changed outside the agent');
        files.set(o.attachment.filename, verbs);
      }
    }
  }

  const sections: string[] = [];
  sections.push(
    'This is an extractive summary made offline by Agent Compactor: the user\'s requests are quoted verbatim; tools, files, commands and errors are listed from the transcript; nothing was paraphrased by a model.',
  );
  const budget = input.maxChars;
  const perRequest = Math.max(300, Math.floor((budget * 0.45) / Math.max(1, requests.length)));
  if (earlierSummaries.length) {
    // Whole: an earlier summary is the only record of what came before it.
    sections.push(`## Summary of the conversation before an earlier compaction\n${earlierSummaries.join('\n\n')}`);
  }
  sections.push(
    `## All user requests (verbatim, oldest first)\n` +
      (requests.length ? requests.map((r, i) => `${i + 1}. ${clipNotingRest(r, perRequest)}`).join('\n') : '(no typed user requests in the summarized part)'),
  );
  if (toolCounts.size) sections.push(`## Tools used\n${[...toolCounts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([n, k]) => `- ${n}: ${k}`).join('\n')}`);
  if (files.size) {
    const list = [...files].slice(-60).map(([p, v]) => `- ${p} (${[...v].sort().join(', ')})`);
    sections.push(`## Files touched${files.size > 60 ? ` (last 60 of ${files.size})` : ''}\n${list.join('\n')}`);
  }
  if (commands.length) {
    const recent = commands.slice(-25);
    sections.push(`## Commands run${commands.length > 25 ? ` (last 25 of ${commands.length})` : ''}\n${recent.map((c) => `- ${c}`).join('\n')}`);
  }
  if (errors.length) {
    const recent = errors.slice(-15);
    sections.push(`## Errors met${errors.length > 15 ? ` (last 15 of ${errors.length})` : ''}\n${recent.map((e) => `- ${e}`).join('\n')}`);
  }
  sections.push(`## Where the summarized part ended\n${lastAssistantText ? clipNotingRest(lastAssistantText, 1500) : '(no assistant text)'}`);
  let text = sections.join('\n\n');
  if (text.length > budget) text = clipNotingRest(text, budget);
  return text;
}
