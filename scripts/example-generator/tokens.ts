// Token estimates: chars / 3.5 for code and tool output, chars / 4 for prose.

export function codeTokens(s: string): number {
  return Math.ceil(s.length / 3.5);
}
export function proseTokens(s: string): number {
  return Math.ceil(s.length / 4);
}
