// Number and text formatting shared by the tree, the status bar, notifications and tests.
// Pure: no `vscode` import.

const nf = new Intl.NumberFormat('en-US');

/** 12345 → "12,345". */
export function formatNumber(n: number): string {
  return nf.format(Math.round(n));
}

/** Tokens with their provenance: "12,345 (usage)" or "~12,345 (estimate)". */
export function formatTokens(n: number, source?: 'usage' | 'estimate'): string {
  if (source === 'estimate') return `~${formatNumber(n)} (estimate)`;
  if (source === 'usage') return `${formatNumber(n)} (usage)`;
  return formatNumber(n);
}

/** Short size: 950 chars, 12.3k chars, 1.2M chars. */
export function formatChars(n: number): string {
  if (n >= 1_000_000) return `${round1(n / 1_000_000)}M chars`;
  if (n >= 10_000) return `${Math.round(n / 1_000)}k chars`;
  if (n >= 1_000) return `${round1(n / 1_000)}k chars`;
  return `${n} chars`;
}

/** Short token count for tight places (status bar): 950, 12.3k, 1.2M. */
export function shortNumber(n: number): string {
  if (n >= 1_000_000) return `${round1(n / 1_000_000)}M`;
  if (n >= 10_000) return `${Math.round(n / 1_000)}k`;
  if (n >= 1_000) return `${round1(n / 1_000)}k`;
  return String(Math.round(n));
}

function round1(v: number): string {
  return String(Math.round(v * 10) / 10);
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatNumber(n)} ${n === 1 ? one : many}`;
}

export function formatBytes(n: number): string {
  if (n >= 1 << 30) return `${round1(n / (1 << 30))} GiB`;
  if (n >= 1 << 20) return `${round1(n / (1 << 20))} MiB`;
  if (n >= 1 << 10) return `${round1(n / (1 << 10))} KiB`;
  return `${n} B`;
}

/** Last path component, for either separator. */
export function baseName(file: string): string {
  const parts = file.split(/[\\/]/);
  return parts[parts.length - 1] || file;
}

/** One line, at most `max` characters, for labels. */
export function oneLine(text: string, max = 80): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * Text for a tree label: markdown marks a label cannot render taken out (code fences, `**bold**`, `__x__`, inline
 * code ticks, heading hashes; a `**` left open by a cut), then one line of at most `max` characters.
 */
export function plainLabel(text: string, max = 80): string {
  const plain = text
    .replace(/```[^\n]*\n?/g, ' ')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    // A bold mark left open (the text was cut before it closed) is markup as well.
    .replace(/\*\*/g, '')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/^\s*#{1,6}\s+/gm, '');
  return oneLine(plain, max);
}

/** US dollars: cents from $1, four decimals below (one response often costs a fraction of a cent). */
export function formatUsd(n: number): string {
  return n >= 100 ? `$${n.toFixed(0)}` : n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`;
}
