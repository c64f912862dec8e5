// The agent CLI versions the compat suite runs, read from the one place they are set: the VERSION line of the
// provisioning script that installs each (scripts/provision-claude-code.sh, scripts/provision-codex.sh). Tests name
// and assert the pin through these constants, so moving a pin is a one-line change in its script.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './fixtures';

/** The value of `NAME="x.y.z"` (a line of its own) in scripts/<script>; throws when the line is missing. */
export function pinnedVersion(script: string, name: string): string {
  const file = join(repoRoot, 'scripts', script);
  const m = new RegExp(`^${name}="([^"]+)"$`, 'm').exec(readFileSync(file, 'utf8'));
  if (!m) throw new Error(`${file} has no ${name}="…" line: the pinned version is set there`);
  return m[1];
}

/** The pinned Claude Code (@anthropic-ai/claude-code), e.g. `2.1.332`. */
export const CLAUDE_CODE_VERSION = pinnedVersion('provision-claude-code.sh', 'CLAUDE_CODE_VERSION');
/** The pinned Codex CLI (@openai/codex), e.g. `0.171.0`. */
export const CODEX_VERSION = pinnedVersion('provision-codex.sh', 'CODEX_VERSION');

/** `0.171` for `0.171.0`: how titles and the README name a release by its significant numbers. */
export const shortVersion = (v: string): string => v.replace(/(\.0)+(?=$|-)/, '').replace(/-.*$/, '');

/** A version as a literal inside a RegExp source (`2\.1\.332`). */
export const versionPattern = (v: string): string => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
