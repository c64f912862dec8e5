// Keeps API keys out of logs and notifications. Pure: no `vscode` import.

const KEY_PATTERNS = [
  /sk-ant-[A-Za-z0-9_-]{8,}/g,
  /\b(x-api-key|authorization)(["']?\s*[:=]\s*["']?)(Bearer\s+)?[^\s"',}]+/gi,
];

/** Replaces known secrets and anything shaped like an Anthropic key or auth header. */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  out = out.replace(KEY_PATTERNS[0], 'sk-ant-[redacted]');
  out = out.replace(
    KEY_PATTERNS[1],
    (_m, name: string, sep: string, bearer: string | undefined) => `${name}${sep}${bearer ?? ''}[redacted]`,
  );
  return out;
}
