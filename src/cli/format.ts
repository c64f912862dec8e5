// Plain-text tables for terminal output, and the only place the CLI writes to stdout and stderr.
import { TERMINAL_UNSAFE_CHARS } from '../core/terminalChars';
import { writeJson } from './jsonStream';

export function formatTokens(n: number | null | undefined): string {
  if (n === null || n === undefined) return '-';
  if (Math.abs(n) >= 10_000) return `${(n / 1000).toFixed(1)}k`;
  return String(Math.round(n));
}

export function table(headers: string[], rows: string[][], rightAlign: Set<number> = new Set()): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (rightAlign.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function truncate(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, n - 1) + '…';
}

// Terminal safety. A transcript, a file name or an error message quoting either can hold escape sequences that set
// the window title, clear the screen or plant links (OSC 8), and bidi overrides that make text read in another order.
// Everything the CLI writes goes through printOut / printErr / printJson / the progress line below (lint forbids
// process.stdout.write and process.stderr.write anywhere else in src/cli), so nothing from a transcript reaches a
// terminal raw: C0 and C1 controls, ESC, BEL, DEL, LRM/RLM and the bidi embeddings, overrides and isolates
// (U+202A–202E, U+2066–2069) are shown as `\x1b` or `\u202e`.

const UNSAFE_RE = new RegExp(TERMINAL_UNSAFE_CHARS.source, 'g');
// The same but line breaks and tabs, which a whole block of output keeps.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE_IN_BLOCK_RE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// What JSON.stringify leaves raw inside strings that a terminal may still act on: DEL, C1 controls and bidi marks.
const UNSAFE_IN_JSON_RE = /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const hex = (c: string, width: number) => c.charCodeAt(0).toString(16).padStart(width, '0');
/** `\x1b` for a control character, `\u202e` for a bidi mark: visible, and readable as what it was. */
const visible = (c: string) => (c.charCodeAt(0) <= 0xff ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`);

/** One line of untrusted text, safe for a terminal: every control (line breaks too) and bidi character shown visibly. */
export function sanitizeForTerminal(s: string): string {
  return s.replace(UNSAFE_RE, visible);
}

/** A block of output, safe for a terminal: as sanitizeForTerminal, but line breaks and tabs stay. */
export function terminalText(s: string): string {
  return s.replace(UNSAFE_IN_BLOCK_RE, visible);
}

/** JSON text with DEL, C1 and bidi characters written as `\u` escapes: the same JSON value, nothing a terminal acts on. */
export function terminalSafeJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON_RE, (c) => `\\u${hex(c, 4)}`);
}

/** Writes text to stdout, made terminal-safe. */
export function printOut(text: string): void {
  process.stdout.write(terminalText(text));
}

/** Writes text to stderr, made terminal-safe. */
export function printErr(text: string): void {
  process.stderr.write(terminalText(text));
}

/** Writes JSON text (from JSON.stringify) to stdout, made terminal-safe. */
export function printJson(json: string): void {
  process.stdout.write(terminalSafeJson(json));
}

/** Writes `value` as JSON to stdout a piece at a time (jsonStream.ts), made terminal-safe. */
export function printJsonValue(value: unknown): Promise<void> {
  return writeJson(value, process.stdout, terminalSafeJson);
}

/** Rewrites the progress line on stderr (a terminal): our own carriage return, then the text made safe. */
export function printProgress(text: string): void {
  process.stderr.write(`\r${sanitizeForTerminal(text)}`);
}

/** Clears the progress line: carriage return and erase-to-end-of-line, our own escape sequence. */
export function clearProgress(): void {
  process.stderr.write('\r\x1b[K');
}
