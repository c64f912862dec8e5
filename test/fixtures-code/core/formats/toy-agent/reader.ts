// Toy Agent sessions: a JSON-lines format made up for the test that adds a written agent (docs/ADDING-AN-AGENT.md
// walks through it). One record a line, each tagged by `toy`:
//
//   {"toy":"session","id":"<session id>","cwd":"/work","version":"1.0","forkOf":"<id>"?}       the head, first
//   {"toy":"message","role":"user","id":"u1","text":"…"}                                       a prompt
//   {"toy":"message","role":"assistant","id":"a1","model":"toy-1","text":"…",
//    "calls":[{"id":"c1","tool":"read","input":{…}}],"usage":{"input":900,"cached":800,"output":40}}   one response
//    (usage: `input` the whole prompt's tokens, `cached` the part of them read from the cache)
//   {"toy":"message","role":"tool","id":"t1","results":[{"call":"c1","output":"…","error":false}]}    tool results
//   {"toy":"compaction","id":"k1","summary":"…","compactor":"agent-compactor"?}
//
// A compaction replaces everything before it by its summary: the toy agent sends the summary and what follows it.
// Agent Compactor's compactions carry the `compactor` mark; the toy agent's own do not.
import { digestEntry, type Entry } from '../../entries';
import { arr, asObject, obj, str, type JsonObject } from '../../json';
import type { RecordReader } from '../agent';

/** True when the first JSON object of a file is a Toy Agent session head. */
export function isToyRecord(first: unknown): boolean {
  const o = asObject(first);
  return o?.toy === 'session' && typeof o.id === 'string';
}

/** A toy response's usage in the engine's model (Anthropic's usage fields). */
function usageOf(u: JsonObject | undefined): JsonObject | undefined {
  if (!u) return undefined;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
  // The toy's `input` is the whole prompt, `cached` the part of it read from the cache (Anthropic's input excludes it).
  const cached = Math.min(n(u.cached), n(u.input));
  return { input_tokens: n(u.input) - cached, cache_read_input_tokens: cached, output_tokens: n(u.output) };
}

/** A toy message record in the engine's message shape (role and Anthropic-style content), or null for none. */
export function toyMessage(o: JsonObject): { role: 'user' | 'assistant'; content: JsonObject[] } | null {
  if (o.toy !== 'message') return null;
  const role = str(o, 'role');
  if (role === 'assistant') {
    const content: JsonObject[] = [];
    const text = str(o, 'text');
    if (text) content.push({ type: 'text', text });
    for (const c of arr(o, 'calls') ?? []) {
      const call = asObject(c);
      if (call)
        content.push({
          type: 'tool_use',
          id: str(call, 'id') ?? '',
          name: str(call, 'tool') ?? 'tool',
          input: call.input ?? {},
        });
    }
    return { role, content };
  }
  if (role === 'tool') {
    const content = (arr(o, 'results') ?? [])
      .map(asObject)
      .filter((r): r is JsonObject => r !== undefined)
      .map((r) => ({
        type: 'tool_result',
        tool_use_id: str(r, 'call') ?? '',
        content: str(r, 'output') ?? '',
        is_error: r.error === true,
      }));
    return { role: 'user', content };
  }
  if (role === 'user') return { role, content: [{ type: 'text', text: str(o, 'text') ?? '' }] };
  return null;
}

interface ToyState {
  lastUuid: string | null;
  sessionId: string | null;
  version: string | null;
}

export class ToyReader implements RecordReader {
  private s: ToyState = { lastUuid: null, sessionId: null, version: null };

  version(): string | null {
    return this.s.version;
  }

  snapshot(): unknown {
    return { ...this.s };
  }

  restore(snapshot: unknown): void {
    this.s = { ...(snapshot as ToyState) };
  }

  digest(value: unknown, line: number, part: number, start: number, end: number): Entry[] {
    const o = asObject(value);
    if (!o) throw new Error('line is JSON but not an object');
    const st = this.s;
    const kind = str(o, 'toy') ?? 'unknown';
    // One linear chain: each conversation entry's parent is the one before (an opaque uuid per entry).
    const chained = (shape: JsonObject, k: number): Entry => {
      const uuid = `toy:${line}:${part}:${k}`;
      const e = digestEntry(
        { ...shape, uuid, parentUuid: st.lastUuid, sessionId: st.sessionId ?? undefined },
        line,
        part,
        start,
        end,
      );
      st.lastUuid = uuid;
      return e;
    };
    if (kind === 'session') {
      st.sessionId = str(o, 'id') ?? st.sessionId;
      st.version = str(o, 'version') ?? st.version;
      return [digestEntry({ type: 'session' }, line, part, start, end)];
    }
    if (kind === 'message') {
      const m = toyMessage(o);
      if (!m) return [digestEntry({ type: 'message' }, line, part, start, end)];
      return [
        chained(
          {
            type: m.role,
            // An earlier compaction's summary that a later one kept (formats/toy-agent/writer.ts).
            ...(o.summary === true && { isCompactSummary: true }),
            message: {
              role: m.role,
              content: m.content,
              ...(m.role === 'assistant' && {
                id: str(o, 'id'),
                model: str(o, 'model'),
                usage: usageOf(obj(o, 'usage')),
              }),
            },
          },
          0,
        ),
      ];
    }
    if (kind === 'compaction') {
      // Everything before is history now: a compact boundary (starting the chain again, its logical parent the entry
      // before), then the summary as the first message of what the toy agent sends from here on.
      const prev = st.lastUuid;
      const boundary = chained(
        {
          type: 'system',
          subtype: 'compact_boundary',
          compactMetadata: { trigger: str(o, 'trigger') ?? 'manual', compactor: str(o, 'compactor') },
        },
        0,
      );
      boundary.parentUuid = null;
      boundary.logicalParentUuid = prev ?? undefined;
      const summary = chained(
        {
          type: 'user',
          isCompactSummary: true,
          message: { role: 'user', content: [{ type: 'text', text: str(o, 'summary') ?? '' }] },
        },
        1,
      );
      return [boundary, summary];
    }
    return [digestEntry({ type: kind }, line, part, start, end)];
  }
}
