// The one validator kit of the webview protocols (protocol.ts: the Budget Preview; mapProtocol.ts: the Context Map).
// A message, or a part of one, is declared once as a schema: the schema is the guard its receiver runs, and
// `Infer<typeof schema>` is the TypeScript type both sides use, so a type and its check cannot drift apart.
// Every string and every array names its bound (a message carries transcript text, which is untrusted); an object
// refuses a key it does not declare; numbers are finite. Pure TypeScript: no `vscode`, no DOM, so both the
// extension host and the page bundles use it.

/** A guard for values of type T: the schema of a field, an object or a message. */
export type Schema<T> = (value: unknown) => value is T;

/** The type a schema accepts. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

/** The fields of an object schema, by name. */
export type Shape = Record<string, Schema<unknown>>;

/** The object type of a shape (each field's documentation is kept from the shape's declaration). */
export type ObjectOf<S extends Shape> = { -readonly [K in keyof S]: Infer<S[K]> };

type Plain = Record<string, unknown>;

function isPlainObject(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/** A whole number from `min` (default 0) to `max` (default the largest safe integer). */
export function int(bounds: { min?: number; max?: number } = {}): Schema<number> {
  const { min = 0, max = Number.MAX_SAFE_INTEGER } = bounds;
  return (v): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;
}

/** A finite number of at least 0 (token figures, shares, dollars). */
export function count(): Schema<number> {
  return (v): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

/** A string of at most `max` characters (and at least `min`, default 0). */
export function str(max: number, bounds: { min?: number } = {}): Schema<string> {
  const min = bounds.min ?? 0;
  return (v): v is string => typeof v === 'string' && v.length >= min && v.length <= max;
}

export const bool: Schema<boolean> = (v): v is boolean => typeof v === 'boolean';

/** Exactly `value` (a protocol version, a message's type). */
export function literal<const L extends string | number | boolean>(value: L): Schema<L> {
  return (v): v is L => v === value;
}

/** One of `values`. */
export function oneOf<const L extends readonly string[]>(values: L): Schema<L[number]> {
  return (v): v is L[number] => typeof v === 'string' && values.includes(v);
}

/** `schema`'s values or null. */
export function nullable<T>(schema: Schema<T>): Schema<T | null> {
  return (v): v is T | null => v === null || schema(v);
}

/** An array of at most `max` values of `item`. */
export function array<T>(item: Schema<T>, max: number): Schema<T[]> {
  return (v): v is T[] => Array.isArray(v) && v.length <= max && v.every((x) => item(x));
}

/** An object with exactly the fields of `shape`: a missing field, a wrong one or one more is refused. */
export function object<S extends Shape>(shape: S): Schema<ObjectOf<S>> {
  const keys = Object.keys(shape);
  return (v): v is ObjectOf<S> => {
    if (!isPlainObject(v)) return false;
    const own = Object.keys(v);
    if (own.length !== keys.length) return false;
    return keys.every((k) => hasOwn(v, k) && shape[k](v[k]));
  };
}

/** `schema`, with a rule across its fields (e.g. every row as wide as the header says). */
export function refine<T>(schema: Schema<T>, rule: (value: T) => boolean): Schema<T> {
  return (v): v is T => schema(v) && rule(v);
}

/** The messages of one direction, by type: each a `{ type, ...fields }` object. */
export type MessageOf<M extends Record<string, Shape>> = {
  [K in keyof M & string]: { type: K } & ObjectOf<M[K]>;
}[keyof M & string];

/** The schema of one direction's messages, with the types it knows (for tests that go through each of them). */
export type MessagesSchema<M extends Record<string, Shape>> = Schema<MessageOf<M>> & { readonly types: (keyof M)[] };

/**
 * The messages of one direction of a protocol, each declared once by its type and fields: `{ ready: {}, revealRound:
 * { round: int() } }` accepts `{ type: 'ready' }` and `{ type: 'revealRound', round: 3 }`, nothing else.
 */
export function messages<M extends Record<string, Shape>>(kinds: M): MessagesSchema<M> {
  const schemas = new Map<string, Schema<unknown>>(
    Object.entries(kinds).map(([type, shape]) => [type, object({ type: literal(type), ...shape })]),
  );
  const guard = (v: unknown): v is MessageOf<M> => {
    if (!isPlainObject(v) || typeof v.type !== 'string') return false;
    const schema = schemas.get(v.type);
    return schema !== undefined && schema(v);
  };
  return Object.assign(guard, { types: Object.keys(kinds) });
}

/** The receiver's side: `value` when `schema` accepts it, else null (a malformed message is dropped). */
export function parse<T>(schema: Schema<T>, value: unknown): T | null {
  return schema(value) ? value : null;
}
