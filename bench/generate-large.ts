// Builds a large, realistic transcript for the benchmark by chaining copies of the shared
// fixture sessions into one conversation. Every uuid, message id, request id, tool id and
// agent id is rewritten per copy (length-preserving) so ids stay unique across the file,
// timestamps are shifted per copy, and each copy's root is re-parented onto the previous copy's leaf so the whole file is
// one main chain (as a very long live session would be).
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { inspectFile } from '../src/core/inspect';

export const FIXTURE_DIR = process.env.AC_FIXTURES ?? join(__dirname, '..', '..', 'shared', 'fixtures', 'claude-code');

/** Fixtures chained into the large file; live-before is a byte prefix of live-after, so it is left out. */
export function benchFixtures(dir = FIXTURE_DIR): string[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl') && n !== 'v2.1.97-live-before.jsonl')
    .sort()
    .map((n) => join(dir, n));
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const PREFIXED = /\b(?:msg|req|toolu|srvtoolu)_[0-9A-Za-z]{8,}/g;
const AGENT = /(agent-|"agentId":")([0-9a-f]{7,})/g;
/** Copies are moved 20 years apart so timestamp-based chain repair stays within a copy. */
const TIMESTAMP = /"timestamp":"(\d{4})-/g;
/** Hand-written ids in test-made fixtures (e.g. "user-msg-1"): suffixed per copy. */
const OTHER_UUID = /("(?:uuid|parentUuid|leafUuid|logicalParentUuid)":")([^"]{1,60})"/g;
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Rewrites every id in `text` for copy `k` (length-preserving). */
export function rewriteIds(text: string, k: number): string {
  const hex4 = k.toString(16).padStart(4, '0');
  const b36 = k.toString(36).padStart(3, '0');
  const hex3 = k.toString(16).padStart(3, '0');
  return text
    .replace(UUID, (u) => u.slice(0, 24) + hex4 + u.slice(28))
    .replace(PREFIXED, (id) => id.slice(0, -3) + b36)
    .replace(AGENT, (_m, p: string, id: string) => p + id.slice(0, -3) + hex3)
    .replace(TIMESTAMP, (_m, y: string) => `"timestamp":"${Number(y) + 20 * k}-`)
    .replace(OTHER_UUID, (m, p: string, id: string) => (UUID_SHAPE.test(id) ? m : `${p}${id}-c${k}"`));
}

function rewriteUuid(id: string, k: number): string {
  return JSON.parse(rewriteIds(`{"uuid":${JSON.stringify(id)}}`, k)).uuid;
}

interface FixtureInfo {
  file: string;
  lines: string[];
  /** Trailing newline present. */
  rootLine: number;
  rootUuid: string | null;
  leafUuid: string | null;
  bytes: number;
}

async function describeFixture(file: string): Promise<FixtureInfo> {
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const { index, chain } = await inspectFile(file, { subagents: false });
  let rootLine = -1;
  let rootUuid: string | null = null;
  let leafUuid: string | null = null;
  if (!chain.subagentFile && chain.main.length) {
    const root = index.entries[chain.main[0]];
    if (root.parentUuid === null && root.part === 0) {
      rootLine = root.line;
      rootUuid = root.uuid ?? null;
    }
    leafUuid = index.entries[chain.leaf].uuid ?? null;
  }
  return { file, lines, rootLine, rootUuid, leafUuid, bytes: Buffer.byteLength(text) };
}

export interface GeneratedFile {
  path: string;
  bytes: number;
  lines: number;
  copies: number;
  fixtures: string[];
  /** Uuid of the main-chain leaf at the end of the file (to chain an appended round onto). */
  leafUuid: string;
}

/** Re-parents line `lineText` (a JSON object) onto `parent`; returns it unchanged when it does not parse. */
function reparent(lineText: string, parent: string): string {
  try {
    const o = JSON.parse(lineText);
    o.parentUuid = parent;
    return JSON.stringify(o);
  } catch {
    return lineText;
  }
}

/**
 * Writes `out` (≈ targetBytes) from whole copies of the fixtures. Reuses an existing file
 * when its stamp (fixture sizes, target, generator version) matches.
 */
export async function generateLarge(
  out: string,
  targetBytes = 100e6,
  fixtures = benchFixtures(),
): Promise<GeneratedFile> {
  const stampPath = out + '.stamp.json';
  const key = JSON.stringify({ v: 4, targetBytes, fixtures: fixtures.map((f) => [f, statSync(f).size]) });
  if (existsSync(out) && existsSync(stampPath)) {
    const stamp = JSON.parse(readFileSync(stampPath, 'utf8'));
    if (stamp.key === key && statSync(out).size === stamp.file.bytes) return stamp.file as GeneratedFile;
  }
  mkdirSync(dirname(out), { recursive: true });
  const infos: FixtureInfo[] = [];
  for (const f of fixtures) infos.push(await describeFixture(f));
  const perCopy = infos.reduce((s, i) => s + i.bytes, 0);
  const copies = Math.max(1, Math.round(targetBytes / perCopy));
  const fd = openSync(out, 'w');
  let bytes = 0;
  let lines = 0;
  let prevLeaf: string | null = null;
  const seen = new Set<string>();
  try {
    for (let k = 0; k < copies; k++) {
      const mine = new Set<string>();
      for (const info of infos) {
        const mapped = rewriteIds(info.lines.join('\n'), k).split('\n');
        if (info.rootLine > 0 && prevLeaf) mapped[info.rootLine - 1] = reparent(mapped[info.rootLine - 1], prevLeaf);
        if (info.leafUuid) prevLeaf = rewriteUuid(info.leafUuid, k);
        for (const l of mapped) {
          for (const m of l.matchAll(/"uuid":"([^"]+)"/g)) {
            // Ids must be unique across copies (checked on line uuids).
            if (seen.has(m[1])) throw new Error(`uuid collision across copies: ${m[1]}`);
            mine.add(m[1]);
          }
        }
        const chunk = mapped.join('\n') + '\n';
        writeSync(fd, chunk);
        bytes += Buffer.byteLength(chunk);
        lines += mapped.length;
      }
      for (const u of mine) seen.add(u);
    }
  } finally {
    closeSync(fd);
  }
  const file: GeneratedFile = {
    path: out,
    bytes,
    lines,
    copies,
    fixtures: fixtures.map((f) => f.split('/').pop()!),
    leafUuid: prevLeaf ?? '',
  };
  writeFileSync(stampPath, JSON.stringify({ key, file }, null, 2));
  return file;
}

export interface GeneratedRounds extends GeneratedFile {
  /** Rounds in the active context (the whole file: no compaction fixtures are chained). */
  rounds: number;
}

/**
 * A long session of at least `minRounds` API rounds, all in the active context: whole copies of the fixtures without
 * compact boundaries (with-compactions.jsonl left out), chained as `generateLarge` does. Reused while unchanged.
 */
export async function generateRounds(
  out: string,
  minRounds: number,
  fixtures = benchFixtures().filter((f) => !f.endsWith('with-compactions.jsonl')),
): Promise<GeneratedRounds> {
  const stampPath = out + '.rounds.json';
  const perCopy = fixtures.reduce((s, f) => s + statSync(f).size, 0);
  if (existsSync(stampPath)) {
    const stamp = JSON.parse(readFileSync(stampPath, 'utf8')) as {
      minRounds: number;
      perCopy: number;
      copies: number;
      rounds: number;
    };
    if (stamp.minRounds === minRounds && stamp.perCopy === perCopy) {
      const file = await generateLarge(out, stamp.copies * perCopy, fixtures);
      if (file.copies === stamp.copies) return { ...file, rounds: stamp.rounds };
    }
  }
  let perCopyRounds = 0;
  for (const f of fixtures)
    perCopyRounds += (await inspectFile(f, { subagents: false })).rounds.filter((r) => r.inContext).length;
  // Chaining merges a few rounds at the seams; grow one copy at a time until the count is reached.
  for (let copies = Math.max(1, Math.ceil(minRounds / perCopyRounds)); ; copies++) {
    const file = await generateLarge(out, copies * perCopy, fixtures);
    const rounds = (await inspectFile(out, { subagents: false })).rounds.filter((r) => r.inContext).length;
    if (rounds >= minRounds) {
      writeFileSync(stampPath, JSON.stringify({ minRounds, perCopy, copies, rounds }));
      return { ...file, rounds };
    }
  }
}

/**
 * One realistic round to append: the lines of a tool round (assistant tool_use lines and
 * their tool_result lines) taken from a fixture, ids rewritten for copy `k`, re-parented
 * onto `leafUuid`. Returns the bytes to append (newline-terminated lines).
 */
export async function roundToAppend(fixtureFile: string, k: number, leafUuid: string): Promise<Buffer> {
  const { index, rounds } = await inspectFile(fixtureFile, { subagents: false });
  const raw = readFileSync(fixtureFile);
  // The last round with tool calls and their results, preferring one of a few hundred KB at most.
  const candidates = rounds.filter(
    (r) => r.messageId && r.toolUses.length > 0 && r.toolResults.length > 0 && !r.synthetic,
  );
  const pick = candidates[candidates.length - 1];
  if (!pick) throw new Error(`${fixtureFile}: no tool round to append`);
  const lineSeen = new Set<number>();
  const texts: string[] = [];
  for (const i of pick.entries) {
    const e = index.entries[i];
    if (lineSeen.has(e.line)) continue;
    lineSeen.add(e.line);
    texts.push(raw.subarray(e.start, e.end).toString('utf8'));
  }
  const out: string[] = [];
  const uuids = new Set<string>();
  let prev = leafUuid;
  for (const t of texts) {
    const o = JSON.parse(rewriteIds(t, k));
    if (typeof o.parentUuid === 'string' && !uuids.has(o.parentUuid)) o.parentUuid = prev;
    else if (o.parentUuid === null) o.parentUuid = prev;
    if (typeof o.uuid === 'string') {
      uuids.add(o.uuid);
      prev = o.uuid;
    }
    out.push(JSON.stringify(o));
  }
  return Buffer.from(out.join('\n') + '\n');
}

// Run directly (npx tsx bench/generate-large.ts [out] [bytes]); not when bundled into the benchmark.
if (/generate-large\.[tj]s$/.test(process.argv[1] ?? '')) {
  const out = process.argv[2] ?? join(__dirname, 'work', 'large.jsonl');
  const target = Number(process.argv[3] ?? 100e6);
  generateLarge(out, target).then(
    (f) => console.log(JSON.stringify(f, null, 2)),
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}

/**
 * `lines` lines of one conversation (alternating user prompt and assistant reply, `gapMs` apart) in which every
 * `every`-th line's parentUuid names a line that is not in the file: the input of the repair benchmark and of
 * repair's linear-work test (one broken link per `every` lines). A second apart, as agents write them, Claude Code's
 * loader bridges every gap (CLAUDE_CODE_BRIDGE_GAP_MS) and the walk from the leaf continues through all of them; a
 * minute apart it bridges none and stops at the last.
 */
export function brokenLinksTranscript(lines: number, every = 10, gapMs = 60_000): string {
  const t0 = Date.parse('2026-03-01T10:00:00.000Z');
  const out: string[] = [];
  for (let k = 0; k < lines; k++) {
    const parentUuid = k === 0 ? null : k % every === 0 ? `gone-${k}` : `line-${k - 1}`;
    const base = {
      parentUuid,
      isSidechain: false,
      uuid: `line-${k}`,
      timestamp: new Date(t0 + k * gapMs).toISOString(),
      sessionId: 'S',
    };
    out.push(
      JSON.stringify(
        k % 2 === 0
          ? { ...base, type: 'user', message: { role: 'user', content: `prompt ${k}` } }
          : {
              ...base,
              type: 'assistant',
              message: {
                role: 'assistant',
                id: `msg_${k}`,
                model: 'claude-sonnet-4-6',
                content: [{ type: 'text', text: `reply ${k}` }],
              },
            },
      ),
    );
  }
  return out.join('\n') + '\n';
}

/**
 * A conversation of `results` turns, each with a tool result whose call's line is not in the file (never written):
 * the input of the many-orphans repair benchmark and of the doctor-scaling test. Turns alternate between two shapes:
 * one call (its result then continues from a parent that names nothing; repair converts it and links it to the
 * prompt) and two parallel calls of one response whose first line is gone (the other call's line and its result stay,
 * so the converted result hangs beside them and repair splices it in before the turn's closing reply). Lines are
 * `gapMs` apart: a second, as agents write them (Claude Code's loader bridges every missing parent), or a minute (it
 * bridges none).
 */
export function orphanResultsTranscript(results: number, gapMs = 60_000): string {
  const t0 = Date.parse('2026-03-01T10:00:00.000Z');
  const out: string[] = [];
  let line = 0;
  const entry = (uuid: string, parentUuid: string | null, type: 'user' | 'assistant', content: unknown, id?: string) =>
    out.push(
      JSON.stringify({
        parentUuid,
        isSidechain: false,
        uuid,
        timestamp: new Date(t0 + line++ * gapMs).toISOString(),
        sessionId: 'S',
        type,
        message:
          type === 'user' ? { role: 'user', content } : { role: 'assistant', id, model: 'claude-sonnet-4-6', content },
      }),
    );
  const call = (id: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command: 'ls' } });
  const result = (id: string) => [{ type: 'tool_result', tool_use_id: id, content: `output of ${id}` }];
  let parent: string | null = null;
  for (let k = 0; k < results; k++) {
    entry(`u${k}`, parent, 'user', `prompt ${k}`);
    // a${k}, the line of the (first) call, is the one never written.
    if (k % 2 === 0) {
      entry(`r${k}`, `a${k}`, 'user', result(`ta${k}`));
      entry(`b${k}`, `r${k}`, 'assistant', [{ type: 'text', text: `done ${k}` }], `n${k}`);
    } else {
      entry(`c${k}`, `a${k}`, 'assistant', [call(`tc${k}`)], `m${k}`);
      entry(`r${k}`, `a${k}`, 'user', result(`ta${k}`));
      entry(`s${k}`, `c${k}`, 'user', result(`tc${k}`));
      entry(`b${k}`, `s${k}`, 'assistant', [{ type: 'text', text: `done ${k}` }], `n${k}`);
    }
    parent = `b${k}`;
  }
  return out.join('\n') + '\n';
}

/**
 * `turns` turns `gapMs` apart, each: a tool result, the prompt (its parent missing, but the first's), the result's call,
 * a reply, and in two turns of three a reply beside that nothing continues from. The result is written before its
 * call and its prompt (newer Claude Code writes a result before its call): links forward in the file, and a line
 * before each broken prompt that continues from it. Doctor's and the plan's shortcuts must hold on it
 * (test/unit/doctor-index.test.ts) and stay linear (test/integration/doctor-scaling.test.ts).
 */
export function forwardLinkBreaksTranscript(turns: number, gapMs: number): string {
  const t0 = Date.parse('2026-03-01T10:00:00.000Z');
  const out: string[] = [];
  let n = 0;
  const line = (uuid: string, parentUuid: string | null, type: 'user' | 'assistant', content: unknown) =>
    out.push(
      JSON.stringify({
        parentUuid,
        isSidechain: false,
        uuid,
        timestamp: new Date(t0 + n++ * gapMs).toISOString(),
        sessionId: 'S',
        type,
        message:
          type === 'user'
            ? { role: 'user', content }
            : { role: 'assistant', id: `msg_${uuid}`, model: 'claude-sonnet-4-6', content },
      }),
    );
  for (let k = 0; k < turns; k++) {
    // The result first, before its call and the prompt (newer Claude Code writes a result before its call): links
    // forward in the file, and a line before the broken prompt that continues from it (it cannot be linked to).
    line(`r${k}`, `a${k}`, 'user', [{ type: 'tool_result', tool_use_id: `t${k}`, content: 'ok' }]);
    line(`u${k}`, k === 0 ? null : `gone-${k}`, 'user', `prompt ${k}`);
    line(`a${k}`, `u${k}`, 'assistant', [{ type: 'tool_use', id: `t${k}`, name: 'Bash', input: { command: 'ls' } }]);
    line(`b${k}`, `r${k}`, 'assistant', [{ type: 'text', text: `done ${k}` }]);
    if (k % 3 !== 2) line(`x${k}`, `u${k}`, 'assistant', [{ type: 'text', text: `rewound ${k}` }]);
  }
  return out.join('\n') + '\n';
}
