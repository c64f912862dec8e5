// Fuzzing the engine with mutated real transcripts (seeded, bounded in count).
//
// Every shared fixture is mutated many times (truncation, deleted/duplicated/swapped/joined
// lines, flipped bytes, invalid UTF-8, a 20 MB line, 10,000-deep JSON, wrong field types,
// broken parent chains and cycles). For each mutated file:
//   - inspectFile ends with a report or a NotATranscriptError, never a crash or a hang;
//   - an independent line splitter (written here, not the engine's) is the oracle: every entry
//     and every malformed record points at the exact bytes [start,end) of its physical line,
//     and the set of malformed line numbers is exactly the set of lines that are not a JSON
//     object (or not valid UTF-8, or nested over 1,000 levels, which is refused by design) — so a
//     mutation that corrupts line N yields line N (also asserted directly for such mutations);
//   - the report holds no NaN/Infinity;
//   - on a subset, planCompaction + compactFile (extractive, into a temp dir) end with a
//     result or a clean CompactError/NotATranscriptError; on success the output starts with
//     the mutated input byte for byte, its appended lines re-parse and resume cleanly, and only
//     the expected files appear; on failure the folder is exactly as before; 'invalid-output'
//     is accepted only when the input itself was not resumable;
//   - the input file is never changed.
// A watchdog thread kills the run (naming the case) if a synchronous hang stops progress.
//
// The mutation kinds are split into shards (SHARDS), one test file each (fuzz-<shard>.test.ts), so that the unit
// tier's two workers share them; each shard mutates every fixture with each of its kinds. Every (fixture, kind) pair
// runs once per round, in a seeded random order, for FUZZ_ROUNDS rounds (default 2; the 20 MB cases in the first round
// only, on every HEAVY_EVERY-th fixture): a fixed count, the same on a busy machine (a time budget of 40 s ran the
// first round and part of the second on an idle machine, and cut even the first short on a busy one).
// Reproduce a shard with FUZZ_SEED=<seed> and its test file; FUZZ_VERBOSE=1 prints every refused compaction.
// Failing inputs are kept in $TMPDIR/ac-fuzz-failures-<seed>.
import { strict as assert } from 'node:assert';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { inspectFile, type Analysis } from '../../../src/core/inspect';
import { NotATranscriptError } from '../../../src/core/transcript';
import { planCompaction } from '../../../src/core/compact/plan';
import { compactFile } from '../../../src/core/compact/compact';
import { CompactError } from '../../../src/core/compact/types';
import { checkResumable } from '../../../src/core/compact/validate';
import { statePath } from '../../../src/core/compact/state';
import { agentFixtures, claudeFixtures } from '../../support/fixtures';
import { Rng, diffSnapshots, snapshotDir, withTimeout, secs } from '../../support/reliability';
import { tempDir } from '../../support/temp';

const SEED = Number(process.env.FUZZ_SEED ?? 20250101);
const ROUNDS = Number(process.env.FUZZ_ROUNDS ?? 2);
const HANG_MS = 60_000;
const VERBOSE = !!process.env.FUZZ_VERBOSE;
const HUGE = 20 * 1024 * 1024;
const COMPACT_SETTINGS = { targetTokens: 8_000, keepRecentTokens: 3_000, maxToolResultChars: 2_000 };

// ---------------------------------------------------------------------------------------------
// Source fixtures as physical lines.

interface Source {
  name: string;
  bytes: Buffer;
  lines: Buffer[];
  trailingNewline: boolean;
  /** 0-based indices of lines that parse as one JSON object. */
  objLines: number[];
  objects: Map<number, Record<string, any>>;
}

function splitLines(bytes: Buffer): { lines: Buffer[]; trailingNewline: boolean } {
  const lines: Buffer[] = [];
  let from = 0;
  for (;;) {
    const nl = bytes.indexOf(10, from);
    if (nl === -1) break;
    lines.push(bytes.subarray(from, nl));
    from = nl + 1;
  }
  const trailingNewline = from === bytes.length;
  if (!trailingNewline) lines.push(bytes.subarray(from));
  return { lines, trailingNewline };
}

function joinLines(lines: Buffer[], trailingNewline: boolean): Buffer {
  const parts: Buffer[] = [];
  const NL = Buffer.from('\n');
  lines.forEach((l, i) => {
    if (i > 0) parts.push(NL);
    parts.push(l);
  });
  if (trailingNewline && lines.length) parts.push(NL);
  return Buffer.concat(parts);
}

function loadSource(file: string): Source {
  const bytes = readFileSync(file);
  const { lines, trailingNewline } = splitLines(bytes);
  const objLines: number[] = [];
  const objects = new Map<number, Record<string, any>>();
  lines.forEach((l, i) => {
    try {
      const o = JSON.parse(l.toString('utf8'));
      if (o && typeof o === 'object' && !Array.isArray(o)) {
        objLines.push(i);
        objects.set(i, o);
      }
    } catch {
      /* a malformed line of the fixture itself */
    }
  });
  return { name: basename(file), bytes, lines, trailingNewline, objLines, objects };
}

// ---------------------------------------------------------------------------------------------
// Mutations. Each returns the new bytes, and (when the mutation is sure to corrupt a line) the
// 1-based line numbers that must be reported malformed.

interface Mutated {
  bytes: Buffer;
  note: string;
  expectMalformed?: number[];
}

type Mutator = (s: Source, rng: Rng) => Mutated | null;

const J = (o: unknown) => Buffer.from(JSON.stringify(o));
const clone = <T>(o: T): T => JSON.parse(JSON.stringify(o));

function replaceLine(s: Source, i: number, line: Buffer): Buffer {
  const lines = s.lines.slice();
  lines[i] = line;
  return joinLines(lines, s.trailingNewline);
}

function insertLine(s: Source, i: number, line: Buffer): Buffer {
  const lines = s.lines.slice();
  lines.splice(i, 0, line);
  return joinLines(lines, s.trailingNewline || i < s.lines.length);
}

/** Picks an object line matching `pred` and rewrites it with `edit` (returns false to skip). */
function editObject(
  s: Source,
  rng: Rng,
  pred: (o: Record<string, any>) => boolean,
  edit: (o: Record<string, any>, i: number) => string | false,
): Mutated | null {
  const candidates = s.objLines.filter((i) => pred(s.objects.get(i)!));
  if (!candidates.length) return null;
  const i = rng.pick(candidates);
  const o = clone(s.objects.get(i)!);
  const note = edit(o, i);
  if (note === false) return null;
  return { bytes: replaceLine(s, i, J(o)), note: `line ${i + 1}: ${note}` };
}

const isMsg = (o: Record<string, any>) =>
  (o.type === 'user' || o.type === 'assistant') && o.message && typeof o.message === 'object';
const isAssistant = (o: Record<string, any>) => o.type === 'assistant' && o.message && typeof o.message === 'object';
const hasUuid = (o: Record<string, any>) => typeof o.uuid === 'string';

const INVALID_UTF8 = [
  Buffer.from([0xff]),
  Buffer.from([0xfe, 0xff]),
  Buffer.from([0xc3, 0x28]), // bad continuation
  Buffer.from([0x80]), // lone continuation byte
  Buffer.from([0xc0, 0xaf]), // overlong '/'
  Buffer.from([0xed, 0xa0, 0x80]), // UTF-16 surrogate encoded in UTF-8
  Buffer.from([0xf4, 0x90, 0x80, 0x80]), // above U+10FFFF
  Buffer.from([0xe2, 0x82]), // truncated sequence
];

const WEIRD_VALUES: unknown[] = [
  null,
  0,
  -1,
  1e308,
  true,
  false,
  '',
  'x',
  [],
  [null],
  {},
  { a: { b: [1, 2] } },
  '../../etc/passwd',
  'C:\\x',
  'a\u0000b',
];

function deep(n: number, kind: 'array' | 'object' | 'mixed'): string {
  if (kind === 'array') return '['.repeat(n) + ']'.repeat(n);
  if (kind === 'object') return '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  let open = '';
  let close = '';
  for (let i = 0; i < n; i++) {
    if (i % 2) {
      open += '{"k":';
      close = '}' + close;
    } else {
      open += '[';
      close = ']' + close;
    }
  }
  return open + '0' + close;
}

const MUTATORS: Record<string, Mutator> = {
  truncate(s, rng) {
    if (s.bytes.length === 0) return null;
    // One cut in four falls inside the first line (leaving no transcript at all).
    const cut = rng.chance(0.25) ? rng.int(Math.max(1, s.lines[0]?.length ?? 1)) : rng.int(s.bytes.length);
    const bytes = s.bytes.subarray(0, cut);
    // Which line does the cut fall in, and is it left incomplete?
    const { lines } = splitLines(bytes);
    const expect: number[] = [];
    if (bytes.length && bytes[bytes.length - 1] !== 10) {
      const k = lines.length - 1;
      const full = s.lines[k];
      if (
        full &&
        s.objLines.includes(k) &&
        lines[k].toString('utf8').trim() !== full.toString('utf8').trim() &&
        lines[k].toString('utf8').trim() !== ''
      )
        expect.push(k + 1);
    }
    return { bytes: Buffer.from(bytes), note: `cut at byte ${cut}`, expectMalformed: expect };
  },
  deleteLine(s, rng) {
    if (!s.lines.length) return null;
    const i = rng.int(s.lines.length);
    const lines = s.lines.slice();
    lines.splice(i, 1);
    return { bytes: joinLines(lines, s.trailingNewline), note: `deleted line ${i + 1}` };
  },
  duplicateLine(s, rng) {
    if (!s.lines.length) return null;
    const i = rng.int(s.lines.length);
    const at = rng.chance(0.5) ? i + 1 : rng.int(s.lines.length + 1);
    return { bytes: insertLine(s, at, s.lines[i]), note: `line ${i + 1} duplicated at ${at + 1}` };
  },
  swapLines(s, rng) {
    if (s.lines.length < 2) return null;
    const i = rng.int(s.lines.length);
    const j = rng.chance(0.5) ? Math.min(s.lines.length - 1, i + 1) : rng.int(s.lines.length);
    const lines = s.lines.slice();
    [lines[i], lines[j]] = [lines[j], lines[i]];
    return { bytes: joinLines(lines, s.trailingNewline), note: `swapped lines ${i + 1} and ${j + 1}` };
  },
  joinLines(s, rng) {
    const pairs = s.objLines.filter((i) => s.objLines.includes(i + 1));
    if (!pairs.length) return null;
    const i = rng.pick(pairs);
    const lines = s.lines.slice();
    lines.splice(i, 2, Buffer.concat([s.lines[i], s.lines[i + 1]]));
    return {
      bytes: joinLines(lines, s.trailingNewline),
      note: `joined lines ${i + 1} and ${i + 2}`,
      expectMalformed: [i + 1],
    };
  },
  flipBytes(s, rng) {
    if (!s.bytes.length) return null;
    const bytes = Buffer.from(s.bytes);
    const n = 1 + rng.int(8);
    const at: number[] = [];
    for (let k = 0; k < n; k++) {
      const p = rng.int(bytes.length);
      bytes[p] ^= 1 + rng.int(255);
      at.push(p);
    }
    return { bytes, note: `flipped bytes at ${at.join(',')}` };
  },
  invalidUtf8(s, rng) {
    const nonEmpty = s.objLines.filter((i) => s.lines[i].length > 2);
    if (!nonEmpty.length) return null;
    const i = rng.pick(nonEmpty);
    const line = s.lines[i];
    const p = 1 + rng.int(line.length - 1);
    const bad = rng.pick(INVALID_UTF8);
    return {
      bytes: replaceLine(s, i, Buffer.concat([line.subarray(0, p), bad, line.subarray(p)])),
      note: `invalid UTF-8 ${bad.toString('hex')} in line ${i + 1} at ${p}`,
      expectMalformed: [i + 1],
    };
  },
  nulBytes(s, rng) {
    if (!s.objLines.length) return null;
    const i = rng.pick(s.objLines);
    return {
      bytes: replaceLine(s, i, Buffer.concat([Buffer.from([0, 0]), s.lines[i]])),
      note: `NUL bytes before line ${i + 1}`,
      expectMalformed: [i + 1],
    };
  },
  hugeLineJunk(s, rng) {
    const at = rng.int(s.lines.length + 1);
    const junk = Buffer.alloc(HUGE, 'not json at all, just a very long line of junk ');
    return { bytes: insertLine(s, at, junk), note: `20 MB junk line inserted at ${at + 1}`, expectMalformed: [at + 1] };
  },
  hugeLineValid(s, rng) {
    const at = rng.int(s.lines.length + 1);
    const prev = s.objLines.filter((i) => i < at && hasUuid(s.objects.get(i)!)).pop();
    const parentUuid = prev === undefined ? null : s.objects.get(prev)!.uuid;
    const o = {
      type: 'user',
      parentUuid,
      isSidechain: false,
      uuid: 'f0000000-0000-4000-8000-000000000020',
      timestamp: '2030-01-01T00:00:00.000Z',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_huge', content: 'x'.repeat(HUGE) }],
      },
    };
    return { bytes: insertLine(s, at, J(o)), note: `20 MB valid tool_result line inserted at ${at + 1}` };
  },
  deepNesting(s, rng) {
    const at = rng.int(s.lines.length + 1);
    const variant = rng.int(5);
    const n = 10_000;
    let line: string;
    let expect: number[] | undefined;
    switch (variant) {
      case 0:
        line = deep(n, 'array'); // valid JSON, not an object
        expect = [at + 1];
        break;
      case 1:
        line = '{"type":"user","uuid":"deep-1","parentUuid":null,"x":' + deep(n, 'mixed') + '}';
        break;
      case 2:
        line =
          '{"type":"user","uuid":"deep-2","parentUuid":null,"message":{"role":"user","content":' +
          deep(n, 'array') +
          '}}';
        break;
      case 3:
        line = '['.repeat(n); // unbalanced
        expect = [at + 1];
        break;
      default:
        line =
          '{"type":"assistant","uuid":"deep-4","message":{"id":"msg_deep","role":"assistant","content":[{"type":"tool_use","id":"t","name":"x","input":' +
          deep(n, 'object') +
          '}]}}';
    }
    return {
      bytes: insertLine(s, at, Buffer.from(line)),
      note: `10,000-deep JSON (variant ${variant}) at ${at + 1}`,
      expectMalformed: expect,
    };
  },
  messageString(s, rng) {
    return editObject(s, rng, isMsg, (o) => {
      o.message = 'message is a string';
      return 'message → string';
    });
  },
  contentObject(s, rng) {
    return editObject(s, rng, isMsg, (o) => {
      o.message.content = rng.pick<unknown>([
        { type: 'text', text: 'content is an object' },
        { type: 'tool_result', tool_use_id: 'x', content: { nested: true } },
        42,
        null,
        true,
        [null, 1, 'loose string', [], {}],
      ]);
      return `message.content → ${JSON.stringify(o.message.content)}`;
    });
  },
  usageNegative(s, rng) {
    return editObject(s, rng, isAssistant, (o) => {
      o.message.usage = {
        input_tokens: -100,
        cache_creation_input_tokens: -0.5,
        cache_read_input_tokens: -5e9,
        output_tokens: -1,
      };
      return 'usage negative';
    });
  },
  usageHuge(s, rng) {
    return editObject(s, rng, isAssistant, (o) => {
      o.message.usage = rng.pick<unknown>([
        {
          input_tokens: 1e308,
          cache_creation_input_tokens: Number.MAX_VALUE,
          // eslint-disable-next-line no-loss-of-precision -- deliberately past 2^53, as a corrupt usage figure may be
          cache_read_input_tokens: 9007199254740993,
          output_tokens: 1e20,
        },
        { input_tokens: '12', output_tokens: [], cache_read_input_tokens: {}, cache_creation_input_tokens: null },
        'lots',
        [],
        null,
      ]);
      return `usage → ${JSON.stringify(o.message.usage)}`;
    });
  },
  messageIdMissing(s, rng) {
    return editObject(
      s,
      rng,
      (o) => isAssistant(o) && 'id' in o.message,
      (o) => {
        delete o.message.id;
        return 'message.id removed';
      },
    );
  },
  messageIdShared(s, rng) {
    const ids = s.objLines
      .map((i) => s.objects.get(i)!)
      .filter(isAssistant)
      .map((o) => o.message.id)
      .filter((x) => typeof x === 'string');
    if (ids.length < 2) return null;
    return editObject(s, rng, isAssistant, (o) => {
      o.message.id = rng.pick(ids);
      return `message.id → ${o.message.id}`;
    });
  },
  breakParent(s, rng) {
    return editObject(
      s,
      rng,
      (o) => typeof o.parentUuid === 'string',
      (o) => {
        o.parentUuid = rng.pick(['ffffffff-dead-4bad-8bad-000000000000', '', '../../x']);
        return `parentUuid → ${o.parentUuid}`;
      },
    );
  },
  parentCycle(s, rng) {
    const withUuid = s.objLines.filter((i) => hasUuid(s.objects.get(i)!));
    if (withUuid.length < 2) return null;
    const leaf = withUuid[withUuid.length - 1];
    return editObject(
      s,
      rng,
      (o) => hasUuid(o) && o !== s.objects.get(leaf),
      (o) => {
        // An earlier entry now descends from the last one: walking up from the leaf loops.
        o.parentUuid = s.objects.get(leaf)!.uuid;
        return `parentUuid → last entry's uuid (cycle)`;
      },
    );
  },
  selfParent(s, rng) {
    return editObject(s, rng, hasUuid, (o) => {
      o.parentUuid = o.uuid;
      return 'parentUuid → own uuid';
    });
  },
  boundaryCycle(s, rng) {
    const withUuid = s.objLines.filter((i) => hasUuid(s.objects.get(i)!));
    if (withUuid.length < 2) return null;
    const leafUuid = s.objects.get(withUuid[withUuid.length - 1])!.uuid;
    return editObject(s, rng, hasUuid, (o) => {
      for (const k of Object.keys(o)) if (!['uuid', 'timestamp', 'sessionId', 'isSidechain'].includes(k)) delete o[k];
      Object.assign(o, {
        type: 'system',
        subtype: 'compact_boundary',
        parentUuid: null,
        logicalParentUuid: leafUuid,
        content: 'Conversation compacted',
        compactMetadata: { trigger: 'manual', preTokens: rng.pick([1e308, -5, 'x', null]) },
      });
      return 'became a compact_boundary whose logicalParentUuid is the leaf (cycle across a boundary)';
    });
  },
  uuidChaos(s, rng) {
    const uuids = s.objLines.map((i) => s.objects.get(i)!.uuid).filter((u) => typeof u === 'string');
    return editObject(s, rng, hasUuid, (o) => {
      const v = rng.int(3);
      if (v === 0) delete o.uuid;
      else if (v === 1 && uuids.length) o.uuid = rng.pick(uuids);
      else o.uuid = rng.pick(WEIRD_VALUES);
      return `uuid → ${JSON.stringify(o.uuid)}`;
    });
  },
  toolIdChaos(s, rng) {
    const hasTool = (o: Record<string, any>) =>
      isMsg(o) &&
      Array.isArray(o.message.content) &&
      o.message.content.some((b: any) => b && (b.type === 'tool_use' || b.type === 'tool_result'));
    return editObject(s, rng, hasTool, (o) => {
      const b = o.message.content.find((x: any) => x && (x.type === 'tool_use' || x.type === 'tool_result'));
      const v = rng.pick(WEIRD_VALUES);
      if (b.type === 'tool_use') b.id = v;
      else b.tool_use_id = v;
      return `${b.type} id → ${JSON.stringify(v)}`;
    });
  },
  typeChaos(s, rng) {
    const fields = [
      'type',
      'subtype',
      'parentUuid',
      'logicalParentUuid',
      'isSidechain',
      'timestamp',
      'sessionId',
      'message',
      'message.role',
      'message.id',
      'message.model',
      'message.content',
      'message.usage',
      'message.stop_reason',
      'toolUseResult',
      'leafUuid',
      'compactMetadata',
      'isCompactSummary',
      'isMeta',
      'attachment',
      'agentId',
      'requestId',
      'content.block',
    ];
    return editObject(
      s,
      rng,
      () => true,
      (o) => {
        const f = rng.pick(fields);
        const v = clone(rng.pick(WEIRD_VALUES));
        if (f === 'content.block') {
          if (!isMsg(o) || !Array.isArray(o.message.content) || !o.message.content.length) return false;
          o.message.content[rng.int(o.message.content.length)] = v;
        } else if (f.startsWith('message.')) {
          if (!o.message || typeof o.message !== 'object') return false;
          o.message[f.slice(8)] = v;
        } else o[f] = v;
        return `${f} → ${JSON.stringify(v)}`;
      },
    );
  },
  crlf(s) {
    const lines = s.lines.map((l) => (l.length && l[l.length - 1] === 13 ? l : Buffer.concat([l, Buffer.from('\r')])));
    return { bytes: joinLines(lines, s.trailingNewline), note: 'CRLF line ends' };
  },
  bomAndBlanks(s, rng) {
    const lines = s.lines.slice();
    for (let k = 0; k < 3; k++)
      lines.splice(rng.int(lines.length + 1), 0, Buffer.from(rng.pick(['', '   ', '\t', '\r'])));
    return {
      bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), joinLines(lines, s.trailingNewline)]),
      note: 'BOM and blank lines',
    };
  },
  lastPromptChaos(s, rng) {
    const uuids = s.objLines.map((i) => s.objects.get(i)!.uuid).filter((u) => typeof u === 'string');
    const line = J({
      type: 'last-prompt',
      lastPrompt: rng.pick(['hi', 42, null]),
      leafUuid: rng.chance(0.5) && uuids.length ? rng.pick(uuids) : rng.pick(WEIRD_VALUES),
      sessionId: 's',
    });
    return {
      bytes: insertLine(s, rng.int(s.lines.length + 1), line),
      note: 'last-prompt line with an arbitrary leafUuid',
    };
  },
};

const HEAVY = new Set(['hugeLineJunk', 'hugeLineValid']);
/** The 20 MB cases cost ~1 s each: run them on every HEAVY_EVERY-th fixture. */
const HEAVY_EVERY = 4;

// ---------------------------------------------------------------------------------------------
// The oracle: an independent split of the mutated bytes into physical lines.

interface OracleLine {
  line: number;
  start: number;
  end: number;
  /** 'blank' | 'object' | 'bad' */
  verdict: 'blank' | 'object' | 'bad';
}

const strict = new TextDecoder('utf-8', { fatal: true });

/** Nesting depth of a parsed value (iterative: the values can be 10,000 deep). */
function depthOf(v: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[v, 1]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    if (!x || typeof x !== 'object') continue;
    if (d > max) max = d;
    for (const c of Array.isArray(x) ? x : Object.values(x)) if (c && typeof c === 'object') stack.push([c, d + 1]);
  }
  return max;
}

function oracle(bytes: Buffer): OracleLine[] {
  const out: OracleLine[] = [];
  let pos = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let line = 1;
  while (pos < bytes.length) {
    let nl = bytes.indexOf(10, pos);
    const terminated = nl !== -1;
    if (!terminated) nl = bytes.length;
    let end = nl;
    if (terminated && end > pos && bytes[end - 1] === 13) end--;
    const raw = bytes.subarray(pos, end);
    let verdict: OracleLine['verdict'];
    let text: string | null = null;
    try {
      text = strict.decode(raw);
    } catch {
      verdict = 'bad';
    }
    if (text !== null) {
      if (text.trim() === '') verdict = 'blank';
      else {
        try {
          const v = JSON.parse(text);
          // Objects nested over 1,000 levels are refused by design (kept verbatim, reported).
          verdict = v && typeof v === 'object' && !Array.isArray(v) && depthOf(v) <= 1000 ? 'object' : 'bad';
        } catch {
          verdict = 'bad';
        }
      }
    }
    out.push({ line, start: pos, end, verdict: verdict! });
    line++;
    pos = nl + 1;
  }
  return out;
}

function assertFinite(v: unknown, path: string, problems: string[]): void {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) problems.push(`${path} = ${v}`);
  } else if (Array.isArray(v)) v.forEach((x, i) => assertFinite(x, `${path}[${i}]`, problems));
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) assertFinite(x, `${path}.${k}`, problems);
}

/** Checks an index against the oracle; returns the problems found. */
function checkAgainstOracle(bytes: Buffer, analysis: Analysis, expectMalformed: number[] | undefined): string[] {
  const problems: string[] = [];
  const lines = oracle(bytes);
  const { index, report } = analysis;
  if (index.lineCount !== lines.length) problems.push(`lineCount ${index.lineCount}, oracle ${lines.length}`);
  const byLine = new Map(lines.map((l) => [l.line, l]));
  const eq = (a: number, b: number) => a === b;
  for (const e of index.entries) {
    const l = byLine.get(e.line);
    if (!l) {
      problems.push(`entry on line ${e.line} beyond the oracle's ${lines.length} lines`);
      continue;
    }
    if (!eq(e.start, l.start) || !eq(e.end, l.end))
      problems.push(`entry line ${e.line}: [${e.start},${e.end}) but the line is [${l.start},${l.end})`);
  }
  for (const m of index.malformed) {
    const l = byLine.get(m.line);
    if (!l) {
      problems.push(`malformed line ${m.line} beyond the oracle's ${lines.length} lines`);
      continue;
    }
    if (m.start !== l.start || m.end !== l.end)
      problems.push(`malformed line ${m.line}: [${m.start},${m.end}) but the line is [${l.start},${l.end})`);
  }
  const malformed = new Set(index.malformed.map((m) => m.line));
  if (malformed.size !== index.malformed.length) problems.push('a line is reported malformed twice');
  const part0 = new Set(index.entries.filter((e) => e.part === 0).map((e) => e.line));
  for (const l of lines) {
    if (l.verdict === 'bad' && !malformed.has(l.line))
      problems.push(`line ${l.line} is not a JSON object (or not UTF-8) but is not reported malformed`);
    if (l.verdict !== 'bad' && malformed.has(l.line))
      problems.push(
        `line ${l.line} (${l.verdict}) reported malformed: ${index.malformed.find((m) => m.line === l.line)!.error}`,
      );
    if (l.verdict === 'object' && !part0.has(l.line)) problems.push(`line ${l.line} is a JSON object but has no entry`);
    if (l.verdict === 'blank' && part0.has(l.line)) problems.push(`blank line ${l.line} has an entry`);
  }
  for (const n of expectMalformed ?? [])
    if (!malformed.has(n)) problems.push(`mutation corrupted line ${n} but it is not reported malformed`);
  // The report's malformed list is the index's, with the same line numbers.
  if (report.malformed.map((m) => m.line).join() !== index.malformed.map((m) => m.line).join())
    problems.push('report.malformed differs from the index');
  assertFinite(report, 'report', problems);
  for (const r of report.rounds)
    if (r.firstLine < 1 || r.lastLine > index.lineCount || r.firstLine > r.lastLine)
      problems.push(`round ${r.index} spans lines ${r.firstLine}-${r.lastLine}`);
  return problems;
}

// ---------------------------------------------------------------------------------------------
// A watchdog thread: a synchronous infinite loop cannot be caught by a promise timeout, so a
// worker watches a heartbeat and kills the process (naming the case) when it stops.

function startWatchdog(ms: number) {
  const sab = new SharedArrayBuffer(4 + 1024);
  const beat = new Int32Array(sab, 0, 1);
  const label = new Uint8Array(sab, 4, 1024);
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');
     const beat = new Int32Array(workerData.sab, 0, 1);
     const label = new Uint8Array(workerData.sab, 4, 1024);
     let last = -1, since = Date.now();
     setInterval(() => {
       const v = Atomics.load(beat, 0);
       if (v !== last) { last = v; since = Date.now(); return; }
       if (v > 0 && Date.now() - since > workerData.ms) {
         const name = Buffer.from(label).toString('utf8').replace(/\\0+$/, '');
         require('node:fs').writeSync(2, '\\nFUZZ HANG: no progress for ' + workerData.ms + ' ms in case ' + name + '\\n');
         process.kill(process.pid, 'SIGKILL');
       }
     }, 500);`,
    { eval: true, workerData: { sab, ms } },
  );
  worker.unref();
  return {
    beat(name: string) {
      label.fill(0);
      label.set(Buffer.from(name).subarray(0, 1024));
      Atomics.add(beat, 0, 1);
    },
    stop: () => worker.terminate(),
  };
}

// ---------------------------------------------------------------------------------------------

interface KindStats {
  cases: number;
  reports: number;
  notTranscript: number;
  compactRuns: number;
  compacted: number;
  compactErrors: Record<string, number>;
  ms: number;
}

/** Ends the Claude Code checks early for another format's compaction, already checked by compactOtherFormat. */
class OtherFormatChecked extends Error {}

/** `bytes` with every occurrence of `from` replaced by `to`. */
function replaceBytes(bytes: Buffer, from: string, to: string): Buffer {
  const a = Buffer.from(from);
  const parts: Buffer[] = [];
  let at = 0;
  for (let i = bytes.indexOf(a); i !== -1; i = bytes.indexOf(a, at)) {
    parts.push(bytes.subarray(at, i), Buffer.from(to));
    at = i + a.length;
  }
  parts.push(bytes.subarray(at));
  return Buffer.concat(parts);
}

/**
 * Compaction of a non-Claude-Code session: Codex writes a fork `rollout-…-<new id>.jsonl` that is the input (its thread
 * id renamed) plus one compacted record, re-read as Codex with the same malformed lines, and its state file and
 * nothing else; read-only formats refuse
 * with 'unsupported-format'. A CompactError is rethrown for the caller's accounting.
 */
async function compactOtherFormat(
  file: string,
  dir: string,
  input: Buffer,
  analysis: Analysis,
  format: string,
  before: ReturnType<typeof snapshotDir>,
): Promise<string[]> {
  const problems: string[] = [];
  let res;
  try {
    res = await withTimeout(
      compactFile(file, { summarizer: 'extractive', settings: COMPACT_SETTINGS }),
      HANG_MS,
      `compactFile ${file}`,
    );
  } catch (err) {
    if (format !== 'codex' && !(err instanceof CompactError && err.code === 'unsupported-format'))
      problems.push(
        `a read-only format was not refused as such: ${err instanceof Error ? err.message : 'non-error thrown'}`,
      );
    if (problems.length) return problems;
    throw err;
  }
  if (format !== 'codex') return ['a read-only format was compacted'];
  const out = readFileSync(res.output);
  const metaLine = analysis.index.entries.find((e) => e.kind === 'session_meta');
  const oldId = metaLine
    ? (
        JSON.parse(input.subarray(metaLine.start, metaLine.end).toString('utf8')) as {
          payload: { id?: string; session_id?: string };
        }
      ).payload
    : null;
  const restored = oldId ? replaceBytes(out, res.sessionId!, oldId.id ?? oldId.session_id ?? '') : out;
  if (!restored.subarray(0, input.length).equals(input))
    problems.push('output is not the input (thread id renamed) followed by the compaction');
  if (!res.output.endsWith(`-${res.sessionId}.jsonl`) || res.mode !== 'fork')
    problems.push(`not a fork named by its thread id: ${res.mode} ${res.output}`);
  const reread = await inspectFile(res.output, { subagents: false });
  if (reread.index.format.id !== 'codex') problems.push(`output read as ${reread.index.format.id}`);
  const lastBoundary = reread.report.compactBoundaries[reread.report.compactBoundaries.length - 1];
  if (!lastBoundary || lastBoundary.line !== reread.index.lineCount)
    problems.push('the last line is not the compacted record');
  const inMal = analysis.index.malformed.map((x) => x.line).join();
  const outMal = reread.index.malformed.map((x) => x.line).join();
  if (inMal !== outMal && !(input.length && input[input.length - 1] !== 10))
    problems.push(`malformed lines changed: input [${inMal}] output [${outMal}]`);
  const d = diffSnapshots(before, snapshotDir(dir));
  // The fork and, as for every agent's compaction, its state file (the compaction's decisions; no steering).
  const forkFiles = [basename(res.output), basename(statePath(res.output))].sort();
  if (JSON.stringify([...d.added].sort()) !== JSON.stringify(forkFiles) || d.changed.length || d.removed.length)
    problems.push(`files: ${JSON.stringify(d)}`);
  return problems;
}

/**
 * The mutation kinds of each shard (one test file each: fuzz-<shard>.test.ts), about the same CPU each. Together they
 * are every kind of MUTATORS, each once (checked when this module loads, so no kind is left out of the suite).
 */
export const SHARDS: Record<string, readonly string[]> = {
  lines: ['truncate', 'deleteLine', 'duplicateLine', 'swapLines', 'joinLines'],
  bytes: ['flipBytes', 'invalidUtf8', 'nulBytes', 'crlf', 'bomAndBlanks'],
  huge: ['hugeLineJunk', 'hugeLineValid', 'deepNesting', 'lastPromptChaos'],
  fields: ['messageString', 'contentObject', 'usageNegative', 'usageHuge', 'messageIdMissing', 'messageIdShared'],
  links: ['breakParent', 'parentCycle', 'selfParent', 'boundaryCycle', 'uuidChaos', 'toolIdChaos', 'typeChaos'],
};
/** Shards with a kind that applies to any non-empty file (a cut, a flipped byte, an inserted line). */
const ANY_FILE_SHARDS = ['lines', 'bytes', 'huge'];
{
  const sharded = Object.values(SHARDS).flat();
  const missing = Object.keys(MUTATORS).filter((k) => !sharded.includes(k));
  const unknown = sharded.filter((k, i) => !(k in MUTATORS) || sharded.indexOf(k) !== i);
  if (missing.length || unknown.length)
    throw new Error(`fuzz SHARDS: kinds in no shard [${missing.join(', ')}], unknown or twice [${unknown.join(', ')}]`);
}

/** The fuzz test of one shard: every fixture mutated by each of the shard's kinds, ROUNDS times (see the header). */
export function fuzzShard(shard: keyof typeof SHARDS): void {
  const kinds = SHARDS[shard];
  describe(`fuzz: mutated real transcripts (${shard}: ${kinds.join(', ')})`, function () {
    this.timeout(10 * 60_000);

    it(`inspect and compact survive every mutation (seed ${SEED}, ${ROUNDS} rounds)`, async () => {
      await runShard(shard, kinds);
    });
  });
}

async function runShard(shard: string, kinds: readonly string[]): Promise<void> {
  const started = Date.now();
  // Line-based sessions of every agent: Claude Code, Codex CLI rollouts and Copilot CLI events.
  const sources = [
    ...claudeFixtures(),
    ...agentFixtures('codex', /\.jsonl$/),
    ...agentFixtures('copilot-cli', /\.jsonl$/),
  ].map(loadSource);
  const rng = new Rng(SEED);
  const root = tempDir('ac-fuzz-');
  const stats = new Map<string, KindStats>(
    kinds.map((k) => [
      k,
      { cases: 0, reports: 0, notTranscript: 0, compactRuns: 0, compacted: 0, compactErrors: {}, ms: 0 },
    ]),
  );
  const failures: string[] = [];
  const keepDir = join(tmpdir(), `ac-fuzz-failures-${SEED}`);
  const dog = startWatchdog(HANG_MS + 10_000);
  let caseNo = 0;
  let rounds = 0;
  let skipped = 0;
  let bytesFuzzed = 0;
  const fixturesRun = new Set<string>();
  /** Pairs whose kind found nothing to mutate in the fixture (for example a Claude Code field in a Codex rollout). */
  const notApplicable = new Map<string, number>();

  const fail = (label: string, bytes: Buffer, problem: string) => {
    failures.push(`${label}: ${problem}`);
    mkdirSync(keepDir, { recursive: true });
    const p = join(keepDir, `${label.replace(/[^A-Za-z0-9_.-]+/g, '_')}.jsonl`);
    if (bytes.length < 64 << 20) writeFileSync(p, bytes);
  };

  try {
    for (let round = 0; round < ROUNDS; round++) {
      rounds++;
      // Every (fixture, kind) pair once per round, in a seeded random order.
      const pairs = sources.flatMap((src, srcNo) =>
        kinds.map((kind) => ({ src, srcNo, kind, mutate: MUTATORS[kind] })),
      );
      for (let i = pairs.length - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        [pairs[i], pairs[j]] = [pairs[j], pairs[i]];
      }
      for (const { src, srcNo, kind, mutate } of pairs) {
        {
          // The 20 MB cases (~1-2 s each) run in the first round only, on every HEAVY_EVERY-th fixture.
          if (HEAVY.has(kind) && (round > 0 || (srcNo + SEED) % HEAVY_EVERY !== 0)) {
            skipped++;
            continue;
          }
          const m = mutate(src, rng);
          if (!m) {
            notApplicable.set(src.name, (notApplicable.get(src.name) ?? 0) + 1);
            continue;
          }
          const st = stats.get(kind)!;
          st.cases++;
          fixturesRun.add(src.name);
          caseNo++;
          bytesFuzzed += m.bytes.length;
          const label = `${caseNo}-${kind}-${src.name}`;
          const caseStart = Date.now();
          dog.beat(`${label} (${m.note})`);
          const dir = join(root, String(caseNo));
          mkdirSync(dir);
          const file = join(dir, 'case.jsonl');
          writeFileSync(file, m.bytes);

          // 1. inspect
          let analysis: Analysis | null = null;
          try {
            analysis = await withTimeout(inspectFile(file), HANG_MS, `inspectFile ${label}`);
            st.reports++;
          } catch (err) {
            if (err instanceof NotATranscriptError) {
              st.notTranscript++;
              // The refusal names the first bad line, as the oracle sees it.
              const named = /\(line (\d+):/.exec(err.message);
              const firstBad = oracle(m.bytes).find((l) => l.verdict === 'bad');
              if (named && Number(named[1]) !== firstBad?.line)
                fail(
                  label,
                  m.bytes,
                  `NotATranscriptError names line ${named[1]}, the first bad line is ${firstBad?.line}: ${err.message}`,
                );
            } else
              fail(
                label,
                m.bytes,
                `inspectFile crashed (${m.note}): ${err instanceof Error ? err.stack : String(err)}`,
              );
          }
          if (analysis) {
            const problems = checkAgainstOracle(m.bytes, analysis, m.expectMalformed);
            if (problems.length) fail(label, m.bytes, `${m.note}: ${problems.slice(0, 5).join('; ')}`);
          }

          // 2. plan + compact on a subset
          const compactThis = analysis !== null && rng.chance(HEAVY.has(kind) ? 0.5 : 0.35);
          if (compactThis) {
            st.compactRuns++;
            const before = snapshotDir(dir);
            const format = analysis!.index.format.id;
            try {
              if (format !== 'claude-code') {
                const problems = await compactOtherFormat(file, dir, m.bytes, analysis!, format, before);
                if (problems.length) fail(label, m.bytes, `compact ${format} (${m.note}): ${problems.join('; ')}`);
                st.compacted++;
                throw new OtherFormatChecked();
              }
              await withTimeout(planCompaction(analysis!, COMPACT_SETTINGS), HANG_MS, `planCompaction ${label}`);
              const res = await withTimeout(
                compactFile(file, { summarizer: 'extractive', settings: COMPACT_SETTINGS }),
                HANG_MS,
                `compactFile ${label}`,
              );
              st.compacted++;
              const out = readFileSync(res.output);
              const problems: string[] = [];
              if (!out.subarray(0, m.bytes.length).equals(m.bytes))
                problems.push('output does not start with the input bytes');
              const tail = out.subarray(m.bytes.length).toString('utf8').replace(/^\n/, '');
              for (const [i, l] of tail.split('\n').entries()) {
                if (l === '') continue;
                try {
                  JSON.parse(l);
                } catch {
                  problems.push(`appended line ${i + 1} is not JSON`);
                }
              }
              const check = await checkResumable(res.output);
              const fatal = check.problems.filter((p) => !/over the .*target/.test(p));
              if (fatal.length) problems.push(`re-check of the output: ${fatal.slice(0, 3).join('; ')}`);
              const reread = await inspectFile(res.output, { subagents: false });
              // The input's malformed lines stay as they were; an appended line may be reported only for stray
              // non-UTF-8 bytes it carries over, byte for byte, from a kept line that had them (it still parses).
              const inLines = analysis!.index.lineCount;
              const inMal = analysis!.index.malformed.map((x) => x.line).join();
              const outMal = reread.index.malformed
                .filter((x) => x.line <= inLines)
                .map((x) => x.line)
                .join();
              if (inMal !== outMal) problems.push(`malformed lines changed: input [${inMal}] output [${outMal}]`);
              const inputHadStrayBytes = analysis!.index.malformed.some((x) => /invalid UTF-8/.test(x.error));
              for (const x of reread.index.malformed.filter((y) => y.line > inLines)) {
                if (!(inputHadStrayBytes && /^invalid UTF-8 bytes \(kept verbatim\)$/.test(x.error) && x.recovered > 0))
                  problems.push(`appended line ${x.line} is malformed: ${x.error}`);
              }
              const added = diffSnapshots(before, snapshotDir(dir));
              // The default output is a fork: a new session `<id>.jsonl` with its state file.
              const sid = res.sessionId ?? '(none)';
              if (res.mode !== 'fork' || res.output !== join(dir, `${sid}.jsonl`))
                problems.push(`not a fork named by its session id: ${res.mode} ${res.output}`);
              const forkFiles = new Set([`${sid}.jsonl`, `${sid}.compactor-state.json`]);
              const allowed = /^(case\.tool-results|case\.tool-results\/[A-Za-z0-9_-]+\.txt)$/;
              for (const a of added.added)
                if (!allowed.test(a) && !forkFiles.has(a)) problems.push(`unexpected file written: ${a}`);
              if (added.changed.length || added.removed.length)
                problems.push(`changed/removed: ${[...added.changed, ...added.removed].join(', ')}`);
              if (problems.length) fail(label, m.bytes, `compact (${m.note}): ${problems.join('; ')}`);
            } catch (err) {
              if (err instanceof OtherFormatChecked) {
                /* another format's compaction, checked above */
              } else if (err instanceof CompactError || err instanceof NotATranscriptError) {
                const code = err instanceof CompactError ? err.code : 'not-a-transcript';
                st.compactErrors[code] = (st.compactErrors[code] ?? 0) + 1;
                if (VERBOSE && code !== 'nothing-to-compact')
                  console.log(`    ${label} (${m.note}): ${code}: ${err.message}`);
                if (code === 'invalid-output' && format === 'claude-code') {
                  // Refusing is clean, but only right when the input was already not resumable:
                  // a valid input must never be turned into an invalid output.
                  const input = await checkResumable(file);
                  if (input.ok) fail(label, m.bytes, `compact refused an API-valid input (${m.note}): ${err.message}`);
                }
                const d = diffSnapshots(before, snapshotDir(dir));
                if (d.added.length || d.changed.length || d.removed.length)
                  fail(label, m.bytes, `compact failed with ${code} but wrote: ${JSON.stringify(d)}`);
              } else
                fail(label, m.bytes, `compact crashed (${m.note}): ${err instanceof Error ? err.stack : String(err)}`);
            }
          }
          if (!readFileSync(file).equals(m.bytes)) fail(label, m.bytes, 'the input file changed');
          rmSync(dir, { recursive: true, force: true });
          st.ms += Date.now() - caseStart;
        }
      }
    }
  } finally {
    await dog.stop();
    rmSync(root, { recursive: true, force: true });
  }

  // Counts.
  const elapsed = Date.now() - started;
  const rows = [...stats].map(([k, s]) => {
    const errs = Object.entries(s.compactErrors)
      .map(([c, n]) => `${c}:${n}`)
      .join(' ');
    return `  ${k.padEnd(16)} ${String(s.cases).padStart(5)} cases  ${String(s.reports).padStart(5)} reports  ${String(s.notTranscript).padStart(3)} not-a-transcript  ${String(s.compacted).padStart(4)}/${String(s.compactRuns).padEnd(4)} compacted  ${secs(s.ms).padStart(6)} s  ${errs}`;
  });
  const total = [...stats.values()].reduce(
    (a, s) => ({
      cases: a.cases + s.cases,
      compactRuns: a.compactRuns + s.compactRuns,
      compacted: a.compacted + s.compacted,
    }),
    { cases: 0, compactRuns: 0, compacted: 0 },
  );
  console.log(
    `\n  fuzz seed ${SEED}, ${shard}: ${total.cases} mutated inputs from ${sources.length} fixtures (${(bytesFuzzed / 1e6).toFixed(0)} MB), ` +
      `${total.compactRuns} compactions (${total.compacted} written), ${rounds} round(s) (${skipped} pairs skipped: 20 MB cases), ${secs(elapsed)} s\n` +
      rows.join('\n') +
      `\n  failures: ${failures.length}${failures.length ? ` (inputs kept in ${keepDir})` : ''}\n`,
  );
  assert.deepEqual(failures.slice(0, 20), [], `${failures.length} fuzz failures`);
  // Every mutation kind ran (each kind is in one shard), and every fixture was mutated: by any kind in the shards
  // whose kinds apply to any file, else by one of them unless none found anything to mutate in it.
  for (const [k, s] of stats) assert.ok(s.cases > 0, `mutation ${k} never ran`);
  for (const src of sources)
    assert.ok(
      fixturesRun.has(src.name) ||
        (!ANY_FILE_SHARDS.includes(shard) && notApplicable.get(src.name) === kinds.length * rounds),
      `fixture ${src.name} was never mutated`,
    );
}
