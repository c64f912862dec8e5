// Narrow types for parsed JSON (transcript lines, API blocks): an object is a `JsonObject`, and its fields are read
// through small checked accessors instead of `any`.

/** A parsed JSON object whose fields are not known yet. */
export type JsonObject = Record<string, unknown>;

/** True for a non-null, non-array object. */
export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `v` when it is an object (not an array), else undefined. */
export function asObject(v: unknown): JsonObject | undefined {
  return isObject(v) ? v : undefined;
}

/** The object a JSON line holds, or null for a line that is not JSON or not an object (a torn or foreign line). */
export function parseObjectLine(line: string): JsonObject | null {
  try {
    return asObject(JSON.parse(line)) ?? null;
  } catch {
    return null;
  }
}

/** The record's `timestamp` in epoch milliseconds; 0 when it has none or it does not parse. */
export function timestampMs(o: JsonObject): number {
  const t = typeof o.timestamp === 'string' ? Date.parse(o.timestamp) : NaN;
  return Number.isFinite(t) ? t : 0;
}

/** `v` when it is a non-empty string, else null. */
export function nonEmptyString(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/**
 * `d[key]` when `key` is one of d's own keys, else undefined. Dictionaries keyed by strings a transcript controls
 * (tool ids, model names) are read through it: a key named like an Object.prototype member (`constructor`,
 * `toString`, `__proto__`) must find nothing, not the inherited member.
 */
export function ownValue<T>(d: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return d !== undefined && Object.hasOwn(d, key) ? d[key] : undefined;
}

/**
 * Sets `d[key]` as an own property. Plain assignment of `__proto__` would replace d's prototype instead of storing
 * an entry (and the entry would vanish from JSON), so dictionaries keyed by untrusted strings are written through it.
 */
export function setOwn<T>(d: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(d, key, { value, writable: true, enumerable: true, configurable: true });
}

/** `o[key]` when it is an object, else undefined. */
export function obj(o: JsonObject | undefined, key: string): JsonObject | undefined {
  return asObject(o?.[key]);
}

/** `o[key]` when it is a string, else undefined. */
export function str(o: JsonObject | undefined, key: string): string | undefined {
  const v = o?.[key];
  return typeof v === 'string' ? v : undefined;
}

/** `o[key]` when it is an array, else undefined. */
export function arr(o: JsonObject | undefined, key: string): unknown[] | undefined {
  const v = o?.[key];
  return Array.isArray(v) ? (v as unknown[]) : undefined;
}

/** `o.message.content` of a transcript line (string, array of blocks, or anything else a line holds). */
export function messageContent(o: JsonObject | undefined): unknown {
  return obj(o, 'message')?.content;
}

/** `String(v)`: how a template literal or `join` renders a JSON value whose type is not known (an object as `[object Object]`). */
export function jsonText(v: unknown): string {
  return String(v);
}
