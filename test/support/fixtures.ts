// Locates the shared real-world transcripts (../shared beside the project; never copied in).
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(__dirname, '..', '..');
export const sharedFixtures = resolve(repoRoot, '..', 'shared', 'fixtures');
export const claudeFixtureDir = join(sharedFixtures, 'claude-code');

export function claudeFixtures(): string[] {
  if (!existsSync(claudeFixtureDir)) {
    throw new Error(
      `shared fixtures not found at ${claudeFixtureDir}: the tests read ../shared/fixtures beside the project`,
    );
  }
  return readdirSync(claudeFixtureDir)
    .filter((n) => n.endsWith('.jsonl'))
    .sort()
    .map((n) => join(claudeFixtureDir, n));
}

export function fixture(name: string): string {
  return join(claudeFixtureDir, name);
}

/** The fixtures of another agent (`codex`, `gemini-cli`, `cline`, `copilot-cli`), files sorted by name. */
export function agentFixtures(agent: string, ext: RegExp = /\.jsonl?$/): string[] {
  const dir = join(sharedFixtures, agent);
  if (!existsSync(dir))
    throw new Error(`shared fixtures not found at ${dir}: the tests read ../shared/fixtures beside the project`);
  return readdirSync(dir)
    .filter((n) => ext.test(n))
    .sort()
    .map((n) => join(dir, n));
}
