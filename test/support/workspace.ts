/**
 * Temporary workspace folders for real-host tests. Fixtures are copied from
 * the shared fixtures folder (../shared/fixtures beside the repository) into
 * a temp dir, never into the repository, and made writable.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from './code-server';
import { keepTempDir, tempDir } from './temp';

/** <repo>/../shared/fixtures (override with AGENT_COMPACTOR_FIXTURES_DIR). */
export const fixturesDir: string =
  process.env.AGENT_COMPACTOR_FIXTURES_DIR ?? path.resolve(repoRoot, '..', 'shared', 'fixtures');

/** Small, varied Claude Code transcripts copied into every default workspace. */
export const DEFAULT_TRANSCRIPTS = [
  'example.jsonl',
  'plan-mode.jsonl',
  'thinking.jsonl',
  'v1.0.98-small.jsonl',
  'with-compactions.jsonl',
];

/**
 * Files to put into a workspace, keyed by their path relative to the
 * workspace root: a string or bytes is written as-is, `{ copyFrom }` copies a
 * file (relative paths are resolved against the fixtures dir).
 */
export type WorkspaceFiles = Record<string, string | Uint8Array | { copyFrom: string }>;

export interface TempWorkspace {
  dir: string;
  /** Absolute paths of the files written, keyed like WorkspaceFiles. */
  files: Record<string, string>;
  dispose(): void;
}

export function defaultWorkspaceFiles(): WorkspaceFiles {
  const files: WorkspaceFiles = {};
  for (const name of DEFAULT_TRANSCRIPTS) files[name] = { copyFrom: path.join('claude-code', name) };
  return files;
}

export function createWorkspace(
  files: WorkspaceFiles = defaultWorkspaceFiles(),
  opts: { keep?: boolean } = {},
): TempWorkspace {
  const dir = fs.realpathSync(tempDir('agent-compactor-ws-'));
  const keep = opts.keep ?? process.env.KEEP_TEST_TMP === '1';
  if (keep) keepTempDir(dir);
  const written: Record<string, string> = {};
  for (const [rel, spec] of Object.entries(files)) {
    const dest = path.resolve(dir, rel);
    if (!dest.startsWith(dir + path.sep)) throw new Error(`workspace file escapes the workspace: ${rel}`);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    if (typeof spec === 'string' || spec instanceof Uint8Array) {
      fs.writeFileSync(dest, spec);
    } else {
      const src = path.resolve(fixturesDir, spec.copyFrom);
      if (!fs.existsSync(src)) throw new Error(`fixture not found: ${src}`);
      // read + write (not copyFile) so the copy is writable even though fixtures are read-only
      fs.writeFileSync(dest, fs.readFileSync(src));
    }
    fs.chmodSync(dest, 0o644);
    written[rel] = dest;
  }
  let disposed = false;
  return {
    dir,
    files: written,
    dispose: () => {
      if (disposed) return;
      disposed = true;
      if (keep) console.log(`[workspace] kept ${dir}`);
      else fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}
