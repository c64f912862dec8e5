// The summary Claude Code writes at the auto compaction, from what the session did so far.
import type { Episode } from './episodes/story';
import { Gen } from '../example-generator/session-writer';

export function compactSummary(g: Gen, ep: Episode): string {
  const { modified, added } = g.project.changed();
  const out: string[] = [
    'This session is being continued from a previous conversation that ran out of context. The earlier part of the conversation is summarized below.',
    '',
    'Overview:',
    `The user (Maya) works on shelfmark, a TypeScript bookmarks API (Fastify 5, pg, zod, vitest) in ${g.cwd}, now on branch ${g.gitBranch}. Requests come one at a time; each was investigated, fixed with tests and verified with vitest before moving on.`,
    '',
    '1. User requests, in order:',
    ...g.userMessages.map((m, i) => `   ${i + 1}. "${m}"`),
    '',
    '2. Completed work:',
    ...g.notes.map((n, i) => `   ${i + 1}. ${n}`),
    '',
    '3. Key technical facts:',
    '   - Every service list() goes through src/lib/pagination.ts (decodeCursor, keysetClause(cursor, startIndex), toPage); cursors are base64url JSON.',
    '   - requireUser (src/plugins/auth.ts) resolves an API key or the sm_session cookie, then applies the per-plan in-memory RateLimiter.',
    '   - Tests: npx vitest run test/<file>.test.ts for one file; npm test for all (needs the postgres container on port 5433); npx tsc --noEmit for types.',
    '   - PostToolUse hook formats edited files (node .claude/hooks/format-changed.mjs); src/types/api.generated.ts is generated, never edited by hand.',
    '',
    '4. Files changed (not committed yet):',
    ...modified.map((p) => `   - ${p} (modified)`),
    ...added.map((p) => `   - ${p} (new)`),
    '',
  ];
  if (g.project.changed().modified.includes('src/lib/pagination.ts')) {
    const src = g.project.read('src/lib/pagination.ts');
    const from = src.indexOf('export function keysetClause');
    out.push('5. Important code (src/lib/pagination.ts, current):', '```ts', src.slice(from).trimEnd(), '```', '');
  }
  out.push(
    '6. Errors met and fixes:',
    '   - A first Edit of pagination.ts used 4-space indentation and did not match; retried with the exact 2-space text.',
    '   - After the cursor change, three old pagination tests encoded the previous cursor shape and were updated.',
    '   - grep -c exits 1 on a zero count (no 429 in logs/dev.log): expected, not a failure.',
    '',
    `7. Current task (in progress): ${ep.title}.`,
    `   Last request: "${g.lastPrompt}"`,
    `   Read or changed so far for it: ${[...g.currentFiles].join(', ') || 'nothing yet'}.`,
    '',
    '8. Next step: carry on with the current task from where it stopped, then summarize the result for the user.',
    '',
    'Resume the current task directly; the user does not need to repeat anything.',
  );
  return out.join('\n');
}
