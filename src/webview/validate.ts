// The one validator kit of the webview protocols (protocol.ts: the Budget Preview; mapProtocol.ts: the Context Map).
// A message, or a part of one, is declared once as a schema: the schema is the guard its receiver runs, and
// `Infer<typeof schema>` is the TypeScript type both sides use, so a type and its check cannot drift apart.
// Every string and every array names its bound (a message carries transcript text, which is untrusted); an object
// refuses a key it does not declare; numbers are finite. Pure TypeScript: no `vscode`, no DOM, so both the
// extension host and the page bundles use it. The extension's commands declare their options objects with it too
// (`options`), and `problemOf` says where a value does not fit and what was expected there.

/** A guard for values of type T: the schema of a field, an object or a message; `expected` says what it accepts. */
export type Schema<T> = ((value: unknown) => value is T) & {
  readonly expected?: string;
  /** An object schema's fields (and whether each may be left out), for `problemOf` to look into. */
  readonly fields?: { shape: Shape; optional: boolean };
};

/** `guard`, saying in words what it accepts. */
function described<T>(guard: (value: unknown) => value is T, expected: string): Schema<T> {
  return Object.assign(guard, { expected });
}

/** The type a schema accepts. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

/** The fields of an object schema, by name. */
export interface Shape {
  [field: string]: Schema<unknown>;
}

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
  return described(
    (v): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max,
    max === Number.MAX_SAFE_INTEGER ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`,
  );
}

/** A finite number of at least 0 (token figures, shares, dollars). */
export function count(): Schema<number> {
  return described(
    (v): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0,
    'a finite number of at least 0',
  );
}

/** A string of at most `max` characters (and at least `min`, default 0). */
export function str(max: number, bounds: { min?: number } = {}): Schema<string> {
  const min = bounds.min ?? 0;
  return described(
    (v): v is string => typeof v === 'string' && v.length >= min && v.length <= max,
    min > 0 ? `a string of ${min} to ${max} characters` : `a string of at most ${max} characters`,
  );
}

export const bool: Schema<boolean> = described((v): v is boolean => typeof v === 'boolean', 'true or false');

/** Exactly `value` (a protocol version, a message's type). */
export function literal<const L extends string | number | boolean>(value: L): Schema<L> {
  return described((v): v is L => v === value, JSON.stringify(value));
}

/** One of `values`. */
export function oneOf<const L extends readonly string[]>(values: L): Schema<L[number]> {
  return described(
    (v): v is L[number] => typeof v === 'string' && values.includes(v),
    `one of ${values.map((x) => JSON.stringify(x)).join(', ')}`,
  );
}

/** `schema`'s values or null. */
export function nullable<T>(schema: Schema<T>): Schema<T | null> {
  return described((v): v is T | null => v === null || schema(v), `${schema.expected ?? 'a value'} or null`);
}

/** An array of at most `max` values of `item`. */
export function array<T>(item: Schema<T>, max: number): Schema<T[]> {
  return described(
    (v): v is T[] => Array.isArray(v) && v.length <= max && v.every((x) => item(x)),
    `an array of at most ${max} items, each ${item.expected ?? 'a value'}`,
  );
}

/** An object with exactly the fields of `shape`: a missing field, a wrong one or one more is refused. */
export function object<S extends Shape>(shape: S): Schema<ObjectOf<S>> {
  const keys = Object.keys(shape);
  const guard = (v: unknown): v is ObjectOf<S> => {
    if (!isPlainObject(v)) return false;
    const own = Object.keys(v);
    if (own.length !== keys.length) return false;
    return keys.every((k) => hasOwn(v, k) && shape[k](v[k]));
  };
  return Object.assign(guard, { expected: 'an object', fields: { shape, optional: false } });
}

/**
 * An options object (a command's): the fields of `shape`, each of which may be left out or undefined; a key it does
 * not declare is refused, as `object` refuses one.
 */
export function options<S extends Shape>(shape: S): Schema<Partial<ObjectOf<S>>> {
  const guard = (v: unknown): v is Partial<ObjectOf<S>> =>
    isPlainObject(v) && Object.keys(v).every((k) => hasOwn(shape, k) && (v[k] === undefined || shape[k](v[k])));
  return Object.assign(guard, { expected: 'an options object', fields: { shape, optional: true } });
}

/** `schema`, with a rule across its fields (e.g. every row as wide as the header says), said in `expected`. */
export function refine<T>(schema: Schema<T>, rule: (value: T) => boolean, expected?: string): Schema<T> {
  const guard = (v: unknown): v is T => schema(v) && rule(v);
  return Object.assign(guard, { expected: expected ?? schema.expected, fields: expected ? undefined : schema.fields });
}

/** A value for display in a refusal: short, and never a whole transcript. */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object' && value !== null) return 'an object';
  const text =
    typeof value === 'string'
      ? JSON.stringify(value)
      : typeof value === 'number' || typeof value === 'boolean' || value === null
        ? String(value)
        : `a ${typeof value}`;
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/**
 * Where `value` does not fit `schema`, and what was expected there (`field "targetTokens": expected a whole number
 * from 1000 to 10000000, got "120k"`); null when it fits.
 */
export function problemOf(schema: Schema<unknown>, value: unknown, at = ''): string | null {
  if (schema(value)) return null;
  const where = at ? `field "${at}": ` : '';
  const fields = schema.fields;
  if (!fields || !isPlainObject(value))
    return `${where}expected ${schema.expected ?? 'another value'}, got ${shown(value)}`;
  const known = Object.keys(fields.shape);
  for (const k of Object.keys(value))
    if (!hasOwn(fields.shape, k)) return `unknown field "${at ? `${at}.` : ''}${k}" (known: ${known.join(', ')})`;
  for (const k of known) {
    const path = at ? `${at}.${k}` : k;
    if (!hasOwn(value, k) || value[k] === undefined) {
      if (fields.optional) continue;
      return `field "${path}": missing (expected ${fields.shape[k].expected ?? 'a value'})`;
    }
    const problem = problemOf(fields.shape[k], value[k], path);
    if (problem) return problem;
  }
  return `${where}expected ${schema.expected ?? 'another value'}`;
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
