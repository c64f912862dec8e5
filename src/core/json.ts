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
