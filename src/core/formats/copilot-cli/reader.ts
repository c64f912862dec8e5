// GitHub Copilot CLI session events (~/.copilot/session-state/<id>/events.jsonl): one `{type, data, id, timestamp,
// parentId}` event a line. Messages and tool executions become common entries on one linear chain (each
// `assistant.message` is one model response, so one round); hooks, turn markers and notices stay off the chain.
import { digestEntry, type Entry } from '../../entries';
import { arr, asObject, obj, str, type JsonObject } from '../../json';
import type { RecordReader } from '../agent';

/** True when a parsed JSONL value is a Copilot CLI session event. */
export function isCopilotEvent(v: unknown): boolean {
  const o = asObject(v);
  const type = str(o, 'type');
  return type !== undefined && /^[a-z_]+\.[a-z_.]+$/.test(type) && asObject(o?.data) !== undefined;
}

interface CopilotState {
  lastUuid: string | null;
  version: string | null;
  sessionId: string | null;
  model: string | null;
}

function resultContent(data: JsonObject): unknown {
  const result = obj(data, 'result');
  if (result) return result.content ?? result.detailedContent ?? '';
  const error = obj(data, 'error');
  return error ? (str(error, 'message') ?? JSON.stringify(error)) : '';
}

export class CopilotReader implements RecordReader {
  private s: CopilotState = { lastUuid: null, version: null, sessionId: null, model: null };

  version(): string | null {
    return this.s.version;
  }

  snapshot(): unknown {
    return { ...this.s };
  }

  restore(snapshot: unknown): void {
    this.s = { ...(snapshot as CopilotState) };
  }

  digest(value: unknown, line: number, part: number, start: number, end: number): Entry[] {
    const o = asObject(value);
    if (!o) throw new Error('line is JSON but not an object');
    const st = this.s;
    const data = obj(o, 'data') ?? {};
    const type = str(o, 'type') ?? 'unknown';
    const timestamp = str(o, 'timestamp');
    const chained = (shape: JsonObject): Entry => {
      const uuid = `copilot:${line}:${part}`;
      const e = digestEntry(
        { ...shape, uuid, parentUuid: st.lastUuid, timestamp, sessionId: st.sessionId ?? undefined },
        line,
        part,
        start,
        end,
      );
      st.lastUuid = uuid;
      return e;
    };
    switch (type) {
      case 'session.start':
        st.sessionId = str(data, 'sessionId') ?? st.sessionId;
        st.version = str(data, 'copilotVersion') ?? st.version;
        break;
      case 'session.model_change':
        st.model = str(data, 'newModel') ?? st.model;
        break;
      case 'user.message':
        return [chained({ type: 'user', message: { role: 'user', content: str(data, 'content') ?? '' } })];
      case 'system.message':
        return [
          chained({ type: 'user', isMeta: true, message: { role: 'user', content: str(data, 'content') ?? '' } }),
        ];
      case 'assistant.message': {
        const content: JsonObject[] = [];
        const reasoning = str(data, 'reasoningText');
        if (reasoning) content.push({ type: 'thinking', thinking: reasoning });
        const text = str(data, 'content');
        if (text && text.trim()) content.push({ type: 'text', text });
        for (const r of arr(data, 'toolRequests') ?? []) {
          const req = asObject(r);
          if (req)
            content.push({
              type: 'tool_use',
              id: str(req, 'toolCallId') ?? '',
              name: str(req, 'name') ?? 'tool',
              input: req.arguments ?? {},
            });
        }
        const model = str(data, 'model') ?? st.model ?? undefined;
        return [
          chained({
            type: 'assistant',
            message: { id: str(data, 'messageId') ?? `copilot-${line}`, role: 'assistant', model, content },
          }),
        ];
      }
      case 'session.compaction_complete': {
        // Copilot CLI compacted its context by itself: what it sends from now on is its summary and what follows, so
        // the rounds before are history (read as a Claude Code compact boundary and its summary are). A failed
        // compaction changed nothing.
        if (data.success === false) break;
        const figure = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
        const prev = st.lastUuid;
        const boundary = chained({
          type: 'system',
          subtype: 'compact_boundary',
          compactMetadata: {
            trigger: str(data, 'trigger'),
            preTokens: figure(data.preCompactionTokens),
            postTokens: figure(data.postCompactionTokens),
          },
        });
        // A boundary starts the chain again (its logical parent is the turn before), as Claude Code writes one.
        boundary.parentUuid = null;
        boundary.logicalParentUuid = prev ?? undefined;
        const out = [boundary];
        const summary = str(data, 'summaryContent');
        if (summary)
          out.push(
            chained({
              type: 'user',
              isCompactSummary: true,
              message: { role: 'user', content: [{ type: 'text', text: summary }] },
            }),
          );
        return out;
      }
      case 'session.usage_info': {
        // The window Copilot CLI works with for its model, when it records it (`tokenLimit`).
        const e = digestEntry({ type, timestamp }, line, part, start, end);
        const limit = data.tokenLimit;
        if (typeof limit === 'number' && Number.isFinite(limit) && limit > 0) e.contextWindow = limit;
        return [e];
      }
      case 'tool.execution_complete':
        return [
          chained({
            type: 'user',
            message: {
              role: 'user',
              content: [
                {
                  type: 'tool_result',
                  tool_use_id: str(data, 'toolCallId') ?? '',
                  content: resultContent(data),
                  is_error: data.success === false,
                },
              ],
            },
          }),
        ];
      default:
        break;
    }
    return [digestEntry({ type, timestamp }, line, part, start, end)];
  }
}
