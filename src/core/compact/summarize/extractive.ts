// Offline, deterministic summary: the user's requests verbatim, tools used, files touched,
// commands run, errors, and where the work stood. Needs no network, so the main job always works.
import { attachmentText, clipNotingRest } from '../messages';
import { asObject, jsonText, messageContent, obj, str, type JsonObject } from '../../json';

export interface ExtractiveInput {
  /** Entry objects of the summarized rounds, in chain order. */
  objects: JsonObject[];
  /** Approximate size limit of the summary, in characters. */
  maxChars: number;
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

function userTexts(o: JsonObject): string[] {
  const c = messageContent(o);
  if (typeof c === 'string') return [c];
  if (!Array.isArray(c)) return [];
  const out: string[] = [];
  for (const item of c as unknown[]) {
    const b = asObject(item);
    if (b?.type === 'text' && typeof b.text === 'string') out.push(b.text);
  }
  return out;
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
export function shapeForExtractive(o: JsonObject): JsonObject {
  const out: JsonObject = { type: o.type };
  if (o.isCompactSummary) out.isCompactSummary = true;
  if (o.isMeta) out.isMeta = true;
  const content = messageContent(o);
  if (typeof content === 'string') out.message = { content };
  else if (Array.isArray(content)) {
    out.message = {
      content: (content as unknown[])
        .map(asObject)
        .filter((b): b is JsonObject => b?.type === 'text' || b?.type === 'tool_use' || b?.type === 'tool_result')
        .map((b): JsonObject => {
          if (b.type === 'tool_result' && b.is_error !== true) return { type: 'tool_result', tool_use_id: b.tool_use_id };
          if (b.type === 'tool_use') {
            const input: JsonObject = {};
            const given = obj(b, 'input');
            for (const key of ['file_path', 'notebook_path', 'path', 'command']) if (given && key in given) input[key] = given[key];
            return { type: 'tool_use', id: b.id, name: b.name, input };
          }
          return b;
        }),
    };
  }
  const a = o.attachment;
  if (o.type === 'attachment' && a && typeof a === 'object') {
    // An array here has neither field: both come out undefined, as they always did.
    const fields = a as JsonObject;
    out.attachment = { type: fields.type, filename: fields.filename, content: attachmentText(o) ? '(attachment)' : undefined };
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
      const content = messageContent(o);
      if (Array.isArray(content)) {
        for (const item of content as unknown[]) {
          const b = asObject(item);
          if (b?.type !== 'tool_result' || b.is_error !== true) continue;
          const parts = b.content;
          const text = typeof parts === 'string' ? parts : Array.isArray(parts) ? (parts as unknown[]).map((x) => jsonText(asObject(x)?.text ?? '')).join(' ') : '';
          const toolName = typeof b.tool_use_id === 'string' ? toolNames.get(b.tool_use_id) : undefined;
          errors.push(`${toolName ?? 'tool'}: ${clipNotingRest(oneLine(text.replace(/<\/?tool_use_error>/g, '')), 240)}`);
        }
      }
    } else if (o.type === 'assistant') {
      const content = messageContent(o);
      if (!Array.isArray(content)) continue;
      for (const item of content as unknown[]) {
        const b = asObject(item);
        if (b?.type === 'text' && typeof b.text === 'string' && b.text.trim()) lastAssistantText = b.text.trim();
        if (b?.type !== 'tool_use') continue;
        const name = jsonText(b.name ?? 'tool');
        if (typeof b.id === 'string') toolNames.set(b.id, name);
        toolCounts.set(name, (toolCounts.get(name) ?? 0) + 1);
        const input = obj(b, 'input') ?? {};
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
      const a = obj(o, 'attachment');
      const filename = str(a, 'filename');
      if (t && a?.type === 'edited_text_file' && filename !== undefined) {
        const verbs = files.get(filename) ?? new Set<string>();
        verbs.add('changed outside the agent');
        files.set(filename, verbs);
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
