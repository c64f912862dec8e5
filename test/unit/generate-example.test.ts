// The example transcript generator: deterministic, well-formed, shaped like a real Claude Code 2.1.x session,
// and the shipped examples/demo-session.jsonl is exactly what it produces.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  DEFAULT_OPTIONS,
  generateSession,
  generateSessionFiles,
  type GeneratedSession,
} from '../../scripts/generate-example';

type Line = Record<string, any>;

const examples = resolve(__dirname, '..', '..', 'examples');
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function parse(text: string): Line[] {
  assert.ok(text.endsWith('\n'), 'file ends with a newline');
  return text
    .slice(0, -1)
    .split('\n')
    .map((l, i) => {
      try {
        return JSON.parse(l) as Line;
      } catch (err) {
        throw new Error(`line ${i + 1} is not valid JSON: ${(err as Error).message}`, { cause: err });
      }
    });
}

const isToolResultLine = (o: Line) =>
  o.type === 'user' &&
  Array.isArray(o.message?.content) &&
  o.message.content.some((c: Line) => c.type === 'tool_result');
const ctxOf = (u: Line) => u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;

/** Checks shared by the main file and subagent files. */
function checkWellFormed(lines: Line[], label: string): void {
  // uuids unique
  const seen = new Set<string>();
  for (const o of lines) {
    if (typeof o.uuid !== 'string') continue;
    assert.ok(!seen.has(o.uuid), `${label}: duplicate uuid ${o.uuid}`);
    seen.add(o.uuid);
  }
  // parentUuid names an earlier uuid, or null only for roots
  const earlier = new Set<string>();
  let nulls = 0;
  lines.forEach((o, i) => {
    if (!('parentUuid' in o)) return;
    if (o.parentUuid === null) {
      nulls++;
      const isFirstChainLine = !lines.slice(0, i).some((p) => 'parentUuid' in p);
      assert.ok(
        isFirstChainLine || o.subtype === 'compact_boundary',
        `${label}: line ${i + 1} has parentUuid null but is neither the first chain line nor a compact boundary`,
      );
    } else {
      assert.ok(earlier.has(o.parentUuid), `${label}: line ${i + 1} parentUuid ${o.parentUuid} names no earlier uuid`);
    }
    earlier.add(o.uuid);
  });
  assert.ok(nulls >= 1, `${label}: has a root`);

  // timestamps strictly increase over the lines that have one at the top level
  let last = '';
  lines.forEach((o, i) => {
    if (typeof o.timestamp !== 'string') return;
    assert.ok(
      o.timestamp > last,
      `${label}: timestamp of line ${i + 1} (${o.timestamp}) does not increase after ${last}`,
    );
    last = o.timestamp;
  });

  // responses: one content block per assistant line, lines of one id consistent, ids never reused
  const byId = new Map<string, Line[]>();
  const closed = new Set<string>();
  let current = '';
  for (const o of lines) {
    if (o.type !== 'assistant') continue;
    const id: string = o.message.id;
    assert.match(id, /^msg_01[1-9A-HJ-NP-Za-km-z]{22}$/);
    assert.match(o.requestId, /^req_011C[1-9A-HJ-NP-Za-km-z]{20}$/);
    assert.equal(o.message.content.length, 1, 'one content block per assistant line');
    if (id !== current) {
      assert.ok(!closed.has(id), `${label}: message id ${id} reappears after another response`);
      if (current) closed.add(current);
      current = id;
    }
    byId.set(id, [...(byId.get(id) ?? []), o]);
  }
  const requestIds = new Set<string>();
  for (const [id, group] of byId) {
    const first = group[0];
    const lastLine = group[group.length - 1];
    assert.ok(!requestIds.has(first.requestId), `${label}: requestId reused by ${id}`);
    requestIds.add(first.requestId);
    for (const o of group) {
      assert.equal(o.requestId, first.requestId, `${label}: lines of ${id} share the requestId`);
      assert.equal(o.message.model, first.message.model);
      for (const k of ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens']) {
        assert.equal(o.message.usage[k], lastLine.message.usage[k], `${label}: ${k} repeated on every line of ${id}`);
      }
      assert.ok(
        o.message.usage.output_tokens <= lastLine.message.usage.output_tokens,
        `${label}: final output_tokens of ${id} is at least the placeholders`,
      );
      if (o !== lastLine)
        assert.equal(o.message.stop_reason, null, `${label}: only the last line of ${id} has a stop_reason`);
    }
    assert.ok(
      ['end_turn', 'tool_use'].includes(lastLine.message.stop_reason),
      `${label}: ${id} ends with a stop_reason`,
    );
    const kinds = group.map((o) => o.message.content[0].type);
    assert.equal(lastLine.message.stop_reason === 'tool_use', kinds.includes('tool_use'));
    assert.ok(kinds.indexOf('thinking') <= 0, 'thinking comes first');
  }

  // every tool_use has exactly one tool_result, in a later user line with toolUseResult and sourceToolAssistantUUID
  const useLine = new Map<string, number>();
  lines.forEach((o, i) => {
    if (o.type === 'assistant' && o.message.content[0].type === 'tool_use') {
      const id = o.message.content[0].id;
      assert.match(id, /^toolu_01[1-9A-HJ-NP-Za-km-z]{22}$/);
      assert.ok(!useLine.has(id), `${label}: duplicate tool_use id ${id}`);
      useLine.set(id, i);
    }
  });
  const resultCount = new Map<string, number>();
  lines.forEach((o, i) => {
    if (!isToolResultLine(o)) return;
    for (const c of o.message.content) {
      assert.ok(useLine.has(c.tool_use_id), `${label}: tool_result ${c.tool_use_id} has no tool_use`);
      assert.ok(useLine.get(c.tool_use_id)! < i, `${label}: tool_result ${c.tool_use_id} comes after its tool_use`);
      resultCount.set(c.tool_use_id, (resultCount.get(c.tool_use_id) ?? 0) + 1);
      assert.ok('toolUseResult' in o, `${label}: tool_result line has toolUseResult`);
      assert.equal(o.sourceToolAssistantUUID, lines[useLine.get(c.tool_use_id)!].uuid);
      assert.equal(o.parentUuid, lines[useLine.get(c.tool_use_id)!].uuid, 'a tool_result hangs off its tool_use line');
    }
  });
  for (const id of useLine.keys())
    assert.equal(resultCount.get(id), 1, `${label}: tool_use ${id} has exactly one result`);
}

describe('generate-example', function () {
  let defaults: GeneratedSession;
  let lines: Line[];

  before(function () {
    defaults = generateSessionFiles(DEFAULT_OPTIONS);
    lines = parse(defaults.text);
  });

  it('is deterministic: same options, same bytes; another seed, other bytes', function () {
    const a = generateSession({ seed: 7, rounds: 30 });
    const b = generateSession({ seed: 7, rounds: 30 });
    const c = generateSession({ seed: 8, rounds: 30 });
    assert.equal(a, b);
    assert.notEqual(a, c);
    assert.equal(generateSession(DEFAULT_OPTIONS), defaults.text);
    const again = generateSessionFiles(DEFAULT_OPTIONS);
    assert.deepEqual(again.subagents, defaults.subagents);
  });

  it('writes well-formed lines in the main file and the subagent file', function () {
    checkWellFormed(lines, 'main');
    assert.ok(defaults.subagents.length >= 1, 'has a subagent file');
    for (const sub of defaults.subagents) {
      assert.match(sub.relativePath, new RegExp(`^${defaults.sessionId}/subagents/agent-${sub.agentId}\\.jsonl$`));
      const subLines = parse(sub.text);
      checkWellFormed(subLines, sub.relativePath);
      for (const o of subLines) {
        if (!('parentUuid' in o)) continue;
        assert.equal(o.isSidechain, true);
        assert.equal(o.agentId, sub.agentId);
        assert.equal(o.sessionId, defaults.sessionId);
      }
    }
  });

  it('well-formed for other seeds and sizes too', function () {
    for (const [seed, rounds] of [
      [1, 12],
      [2, 45],
      [3, 90],
    ]) {
      const s = generateSessionFiles({ seed, rounds });
      checkWellFormed(parse(s.text), `seed ${seed}`);
      assert.equal(s.stats.rounds, rounds);
      for (const sub of s.subagents) checkWellFormed(parse(sub.text), `seed ${seed} ${sub.relativePath}`);
    }
  });

  it('looks like a recent Claude Code session', function () {
    assert.match(defaults.sessionId, UUID_RE);
    const chain = lines.filter((o) => 'parentUuid' in o);
    for (const o of chain) {
      assert.equal(o.sessionId, defaults.sessionId);
      assert.equal(o.isSidechain, false);
      assert.equal(o.userType, 'external');
      assert.equal(o.entrypoint, 'cli');
      assert.match(o.version, /^2\.1\.\d+$/);
      assert.equal(typeof o.cwd, 'string');
      assert.equal(typeof o.gitBranch, 'string');
    }
    const types = new Set(
      lines.map((o) =>
        o.type === 'system' ? 'system/' + o.subtype : o.type === 'progress' ? 'progress/' + o.data.type : o.type,
      ),
    );
    for (const k of [
      'permission-mode',
      'file-history-snapshot',
      'attachment',
      'system/turn_duration',
      'system/stop_hook_summary',
      'system/compact_boundary',
      'queue-operation',
      'last-prompt',
      'progress/hook_progress',
      'progress/bash_progress',
    ]) {
      assert.ok(types.has(k), `has a ${k} line`);
    }
    assert.equal(lines[lines.length - 1].type, 'last-prompt');
    const leaf = lines[lines.length - 1].leafUuid;
    assert.ok(
      chain.some((o) => o.uuid === leaf),
      'last-prompt names an existing leaf',
    );
    assert.ok(!chain.some((o) => o.parentUuid === leaf), 'leafUuid is a leaf');

    // rounds, size, final answer
    const ids = [...new Set(lines.filter((o) => o.type === 'assistant').map((o) => o.message.id))];
    assert.equal(ids.length, DEFAULT_OPTIONS.rounds);
    const lastAssistant = lines.filter((o) => o.type === 'assistant').pop()!;
    assert.equal(lastAssistant.message.content[0].type, 'text');
    assert.equal(lastAssistant.message.stop_reason, 'end_turn');
    assert.ok(defaults.stats.bytes > 1_000_000 && defaults.stats.bytes < 3_000_000, `size ${defaults.stats.bytes}`);

    // thinking with signatures at the start of many responses
    const thinking = lines.filter((o) => o.type === 'assistant' && o.message.content[0].type === 'thinking');
    assert.ok(thinking.length > ids.length / 2);
    for (const o of thinking) assert.match(o.message.content[0].signature, /^E[A-Za-z0-9+/]{200,}=?$/);

    // tool results: large ones, an error, an array of text blocks
    const results = lines.filter(isToolResultLine).map((o) => o.message.content[0]);
    const sizes = results.map((c) => (typeof c.content === 'string' ? c.content.length : 0));
    assert.ok(sizes.filter((n) => n >= 20_000 && n <= 120_000).length >= 5, 'several large tool results');
    assert.ok(Math.max(...sizes) <= 120_000);
    assert.ok(results.some((c) => c.is_error === true));
    assert.ok(
      results.some(
        (c) => Array.isArray(c.content) && c.content.length >= 2 && c.content.every((b: Line) => b.type === 'text'),
      ),
    );
  });

  it('branches the chain on parallel tool calls the way Claude Code does', function () {
    const byUuid = new Map(lines.filter((o) => o.uuid).map((o) => [o.uuid, o]));
    const resultFor = new Map<string, Line>();
    for (const o of lines.filter(isToolResultLine)) resultFor.set(o.message.content[0].tool_use_id, o);
    const groups = new Map<string, Line[]>();
    for (const o of lines) {
      if (o.type === 'assistant' && o.message.content[0].type === 'tool_use')
        groups.set(o.message.id, [...(groups.get(o.message.id) ?? []), o]);
    }
    const parallel = [...groups.values()].filter((g) => g.length >= 2);
    assert.ok(parallel.length >= 3, 'several responses with parallel tool calls');
    assert.ok(parallel.some((g) => g.length >= 3) && parallel.every((g) => g.length <= 4));
    let interleaved = 0;
    for (const g of parallel) {
      for (let i = 1; i < g.length; i++) {
        const a = g[i - 1];
        const b = g[i];
        assert.equal(b.parentUuid, a.uuid, "tool_use B's parent is tool_use A");
        assert.equal(resultFor.get(a.message.content[0].id)!.parentUuid, a.uuid, "A's result also hangs off A");
      }
      const idx = (o: Line) => lines.indexOf(o);
      if (idx(resultFor.get(g[0].message.content[0].id)!) < idx(g[g.length - 1])) interleaved++;
      // the next response continues from the result of the last tool_use
      const lastResult = resultFor.get(g[g.length - 1].message.content[0].id)!;
      assert.ok(byUuid.has(lastResult.uuid));
    }
    assert.ok(interleaved >= 1, 'some tool_result lines sit between tool_use lines of their response');
  });

  it('has one auto compaction partway, then the conversation goes on', function () {
    const boundaries = lines.map((o, i) => [o, i] as const).filter(([o]) => o.subtype === 'compact_boundary');
    assert.equal(boundaries.length, 1);
    const [b, at] = boundaries[0];
    assert.equal(b.parentUuid, null);
    assert.equal(b.content, 'Conversation compacted');
    assert.equal(b.compactMetadata.trigger, 'auto');
    assert.ok(b.compactMetadata.preTokens > b.compactMetadata.postTokens);
    assert.ok(
      lines.slice(0, at).some((o) => o.uuid === b.logicalParentUuid),
      'logicalParentUuid names the previous leaf',
    );
    assert.ok(!lines.slice(0, at).some((o) => o.parentUuid === b.logicalParentUuid), 'which was a leaf');
    const summary = lines[at + 1];
    assert.equal(summary.parentUuid, b.uuid);
    assert.equal(summary.isCompactSummary, true);
    assert.equal(summary.isVisibleInTranscriptOnly, true);
    assert.ok(
      summary.message.content.startsWith(
        'This session is being continued from a previous conversation that ran out of context.',
      ),
    );
    const before = lines.slice(0, at).filter((o) => o.type === 'assistant').length;
    const after = lines.slice(at).filter((o) => o.type === 'assistant').length;
    assert.ok(before > 20 && after > 20, 'compaction sits partway');
  });

  it('reports usage that grows with the context, split between cache reads and writes', function () {
    const finals = new Map<string, Line>();
    for (const o of lines) if (o.type === 'assistant') finals.set(o.message.id, o.message.usage);
    const usages = [...finals.values()];
    const contexts = usages.map(ctxOf);
    assert.ok(contexts[0] > 14_000 && contexts[0] < 20_000, `first request ${contexts[0]}`);
    const end = contexts[contexts.length - 1];
    assert.ok(end >= 150_000 && end <= 190_000, `final context ${end}`);
    assert.equal(end, defaults.stats.finalContextTokens);
    const boundary = lines.find((o) => o.subtype === 'compact_boundary')!;
    assert.ok(boundary.compactMetadata.preTokens >= 140_000 && boundary.compactMetadata.preTokens <= 175_000);
    // mostly cache reads of the previous prefix
    let warm = 0;
    for (let i = 1; i < usages.length; i++) {
      if (usages[i].cache_read_input_tokens === ctxOf(usages[i - 1]) - usages[i - 1].input_tokens) warm++;
    }
    assert.ok(warm > usages.length * 0.8, 'most requests read the previous prefix from the cache');
    for (const u of usages)
      assert.equal(
        u.cache_creation.ephemeral_1h_input_tokens + u.cache_creation.ephemeral_5m_input_tokens,
        u.cache_creation_input_tokens,
      );
  });

  it('ships examples/demo-session.jsonl exactly as generated (do not edit it by hand)', function () {
    const file = join(examples, 'demo-session.jsonl');
    assert.ok(
      existsSync(file),
      'examples/demo-session.jsonl exists: regenerate with node --import tsx scripts/generate-example.ts',
    );
    assert.ok(
      readFileSync(file, 'utf8') === defaults.text,
      'examples/demo-session.jsonl differs from generateSession(DEFAULT_OPTIONS): regenerate it',
    );
    for (const sub of defaults.subagents) {
      const p = join(examples, sub.relativePath);
      assert.ok(existsSync(p), `${sub.relativePath} exists`);
      assert.ok(
        readFileSync(p, 'utf8') === sub.text,
        `${sub.relativePath} differs from the generator output: regenerate it`,
      );
    }
  });
});
