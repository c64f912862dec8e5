// The characters a terminal acts on instead of showing: C0 and C1 controls (escape sequences that set the title,
// clear the screen, plant links), DEL, and the bidi marks, embeddings, overrides and isolates (LRM/RLM,
// U+202A–202E, U+2066–2069) that make text read in another order. The CLI shows each of them visibly
// (cli/format.ts); a command we print to be run (core/resume.ts) must hold none, since the shown form would
// not be the command that works. One set, so both agree.

// eslint-disable-next-line no-control-regex -- finding control characters is the point
export const TERMINAL_UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** True when `s` holds a character a terminal would act on rather than show (see above). */
export function hasTerminalUnsafeChars(s: string): boolean {
  return TERMINAL_UNSAFE_CHARS.test(s);
}
