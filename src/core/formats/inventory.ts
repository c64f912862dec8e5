// What an agent's reader knows of the records its agent writes: every record kind and every field it has met, each
// classified as read ('used') or deliberately left alone ('ignored') with a one-line why. An agent's module lists its
// own (src/core/formats/<agent>/inventory.ts); the compat tier walks every line of sessions its pinned CLI wrote and
// fails naming any kind or field the list does not classify, so a new release's additions are decided, not missed.
// The walk is shallow on purpose: a record's own keys and its payload's (as the agent's inventory says), never every
// nested content field.
import { isObject, ownValue, type JsonObject } from '../json';

/** How the reader treats a record kind or a field, and why, in one line. */
export interface Known {
  use: 'used' | 'ignored';
  why: string;
}

/** A record kind the reader knows, and the fields of that kind it knows. */
export interface KnownKind extends Known {
  fields: Readonly<Record<string, Known>>;
}

/** The record kinds and fields one agent's reader knows. */
export interface RecordInventory {
  /** A record's kind, as the inventory names it (Claude Code: its `type`; Codex: `response_item:message`, …). */
  kindOf(record: JsonObject): string;
  /** The paths of a record's fields the inventory classifies: its own keys and its payload's (`payload.model`). */
  fieldsOf(record: JsonObject): string[];
  /** Fields any kind may carry (Claude Code's chain fields, Codex's `timestamp`). */
  common: Readonly<Record<string, Known>>;
  kinds: Readonly<Record<string, KnownKind>>;
}

/** The keys of `value` prefixed by `path` (`payload.id`), or none when it is not an object. */
export function keysUnder(path: string, value: unknown): string[] {
  return isObject(value) ? Object.keys(value).map((k) => `${path}.${k}`) : [];
}

/**
 * What of one record the inventory does not classify: `<kind>` for an unknown kind, `<kind> <field>` for each
 * unknown field of a known one (none: every part of the record is classified). The fields of a kind the reader
 * ignores as a whole are not walked: nothing of it is read, whatever it holds.
 */
export function unclassified(inventory: RecordInventory, record: JsonObject): string[] {
  const kind = inventory.kindOf(record);
  const known = ownValue(inventory.kinds, kind);
  if (!known) return [kind];
  if (known.use === 'ignored') return [];
  return inventory
    .fieldsOf(record)
    .filter((f) => !ownValue(known.fields, f) && !ownValue(inventory.common, f))
    .map((f) => `${kind} ${f}`);
}
