// A Codex fork gets a new thread id: its session_meta lines are copied with the id's *values* replaced. The line's
// other bytes stay as they were (so the fork is the original byte for byte apart from the id), and a key that happens
// to spell the id (a thread id `id` or `cwd`) is left alone: only string values are compared with the id.
import { CompactError } from '../../errors';

/**
 * `line` (one JSON record) with every string value equal to `oldId` replaced by `newId`, keys and all other bytes
 * unchanged. Strings are compared by their decoded value, so an escaped spelling of the id is found too.
 */
export function replaceIdValues(line: string, oldId: string, newId: string): string {
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < line.length) {
    if (line[i] !== '"') {
      i++;
      continue;
    }
    const start = i;
    i++;
    while (i < line.length && line[i] !== '"') i += line[i] === '\\' ? 2 : 1;
    const end = ++i;
    let next = end;
    while (
      next < line.length &&
      (line[next] === ' ' || line[next] === '\t' || line[next] === '\r' || line[next] === '\n')
    )
      next++;
    const isKey = line[next] === ':';
    if (!isKey && decoded(line.slice(start, end)) === oldId) {
      out += line.slice(copied, start) + JSON.stringify(newId);
      copied = end;
    }
  }
  return out + line.slice(copied);
}

function decoded(token: string): string | null {
  try {
    return JSON.parse(token) as string;
  } catch {
    return null;
  }
}

/**
 * Why `after` is not `before` with the id's values renamed (a key added, lost or renamed, any other value changed),
 * or null when it is exactly that.
 */
export function idRenameProblem(
  before: unknown,
  after: unknown,
  oldId: string,
  newId: string,
  path = '$',
): string | null {
  if (typeof before === 'string') {
    if (before === oldId ? after === newId : after === before) return null;
    return `${path} changed from ${JSON.stringify(before)} to ${JSON.stringify(after)}`;
  }
  if (Array.isArray(before)) {
    if (!Array.isArray(after) || after.length !== before.length)
      return `${path} is no longer an array of ${before.length}`;
    for (let k = 0; k < before.length; k++) {
      const p = idRenameProblem(before[k], after[k], oldId, newId, `${path}[${k}]`);
      if (p) return p;
    }
    return null;
  }
  if (typeof before === 'object' && before !== null) {
    if (typeof after !== 'object' || after === null || Array.isArray(after)) return `${path} is no longer an object`;
    const keysBefore = Object.keys(before);
    const keysAfter = Object.keys(after);
    if (keysBefore.length !== keysAfter.length || keysBefore.some((k, n) => keysAfter[n] !== k)) {
      return `${path} has the keys ${keysAfter.join(', ')} instead of ${keysBefore.join(', ')}`;
    }
    for (const k of keysBefore) {
      const p = idRenameProblem(
        (before as Record<string, unknown>)[k],
        (after as Record<string, unknown>)[k],
        oldId,
        newId,
        `${path}.${k}`,
      );
      if (p) return p;
    }
    return null;
  }
  return Object.is(before, after) ? null : `${path} changed from ${JSON.stringify(before)} to ${JSON.stringify(after)}`;
}

/**
 * A session_meta line of a fork: the thread id renamed in its values, checked to differ from `line` in nothing else.
 * Throws CompactError('invalid-output') when it would (nothing is written then).
 */
export function forkedMetaLine(line: string, oldId: string, newId: string, where: string): string {
  const renamed = replaceIdValues(line, oldId, newId);
  let problem: string | null;
  try {
    problem = idRenameProblem(JSON.parse(line), JSON.parse(renamed), oldId, newId);
  } catch (err) {
    problem = `it no longer parses (${err instanceof Error ? err.message : String(err)})`;
  }
  if (problem)
    throw new CompactError(
      'invalid-output',
      `${where}: renaming the thread id ${JSON.stringify(oldId)} in the fork's session_meta record would change more than the id (${problem}); nothing was written.`,
    );
  return renamed;
}
