// What the user's agent sends now (src/core/agentNow.ts), read from their own newest sessions, and the plan's promise
// for a resume built on it (planBase.ts resumeBasis): the system prompt and tools today's Claude Code records for the
// model the resume uses, else the file's own record, else another model's (said to be assumed), else the estimate.
import { strict as assert } from 'node:assert';
import { mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_NOW_FILES, agentNowFolderOf, readAgentNowOf } from '../../src/core/agentNow';
import {
  claudeAgentNowOf,
  claudeResumeShape as resumeOverhead,
  type ClaudeAgentNow,
} from '../../src/core/formats/claude-code/agentNow';
import { codexAgentNowOf, codexResumeOverhead } from '../../src/core/formats/codex/agentNow';
import { compactFile, planCompactionOf } from '../../src/core/compact/compact';
import { planCompaction } from '../../src/core/compact/plan';
import { inspectFile } from '../../src/core/inspect';
import { tempDir } from '../support/temp';

/** What the user's Claude Code sends now, read from the sessions folder of `file` as a plan reads it. */
async function readClaudeAgentNow(file: string, env: NodeJS.ProcessEnv = process.env): Promise<ClaudeAgentNow> {
  return (await readAgentNowOf('claude-code', file, env)) as ClaudeAgentNow;
}

const claudeSessionsFolderOf = (file: string, env?: NodeJS.ProcessEnv): string | null =>
  agentNowFolderOf('claude-code', file, env);
const codexSessionsFolderOf = (file: string, env?: NodeJS.ProcessEnv): string | null =>
  agentNowFolderOf('codex', file, env);

const ID = {
  old: '11111111-1111-4111-8111-111111111111',
  newer: '22222222-2222-4222-8222-222222222222',
  compacted: '33333333-3333-4333-8333-333333333333',
};

/** A system prompt and tools of roughly `words` words, as an `api-request-shape` holds them. */
function shape(words: number, tag: string): Record<string, unknown> {
  return {
    system: [
      { type: 'text', text: `You are ${tag}. ` + 'Follow the rules of the project carefully. '.repeat(words / 7) },
    ],
    tools: [{ name: 'Read', description: `Reads a file (${tag}).`, input_schema: { type: 'object', properties: {} } }],
  };
}

/** A session of today's Claude Code: announcements, its request shape and records, one exchange with `model`. */
function todaySession(opts: { id: string; model: string; at: string; words: number; env?: string }): string {
  const t = (s: number) => new Date(Date.parse(opts.at) + s * 1000).toISOString();
  const base = { sessionId: opts.id, version: '2.1.330', cwd: '/home/user/work' };
  const hash = `hash-${opts.id}`;
  const lines = [
    {
      type: 'user',
      uuid: `${opts.id}-u1`,
      parentUuid: null,
      timestamp: t(0),
      message: { role: 'user', content: 'Say hello.' },
    },
    {
      type: 'attachment',
      uuid: `${opts.id}-a1`,
      parentUuid: `${opts.id}-u1`,
      timestamp: t(1),
      attachment: { type: 'environment' },
      rendered: [
        { content: opts.env ?? '# Environment\nWorking directory: /home/user/work\nPlatform: linux\n'.repeat(20) },
      ],
      renderedRole: 'system',
    },
    { type: 'api-request-shape', shapeHash: hash, timestamp: t(2), shape: shape(opts.words, opts.model) },
    {
      type: 'api-request',
      id: `${opts.id}-r1`,
      shapeHash: hash,
      timestamp: t(2),
      querySource: 'sdk',
      params: { model: opts.model, max_tokens: 32000 },
    },
    {
      type: 'assistant',
      uuid: `${opts.id}-b1`,
      parentUuid: `${opts.id}-a1`,
      timestamp: t(3),
      message: {
        id: `msg-${opts.id}`,
        role: 'assistant',
        model: opts.model,
        content: [{ type: 'text', text: 'Hello.' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 3000, output_tokens: 4, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    },
  ];
  return lines.map((o) => JSON.stringify({ ...base, ...o })).join('\n') + '\n';
}

/** An older session (no request records) worth compacting: many long rounds with usage, written with `model`. */
function oldSession(id: string, model: string, rounds = 40): string {
  const lines: string[] = [];
  let parent: string | null = null;
  let context = 15_000;
  for (let i = 0; i < rounds; i++) {
    const u = `${id}-u${i}`;
    const a = `${id}-a${i}`;
    const text = `Step ${i}: please look at module ${i} and explain it. `.repeat(30);
    lines.push(
      JSON.stringify({
        type: 'user',
        uuid: u,
        parentUuid: parent,
        sessionId: id,
        version: '1.0.98',
        timestamp: `2025-08-01T00:${String(i).padStart(2, '0')}:00Z`,
        message: { role: 'user', content: text },
      }),
    );
    context += 600;
    lines.push(
      JSON.stringify({
        type: 'assistant',
        uuid: a,
        parentUuid: u,
        sessionId: id,
        version: '1.0.98',
        timestamp: `2025-08-01T00:${String(i).padStart(2, '0')}:30Z`,
        message: {
          id: `msg-${id}-${i}`,
          role: 'assistant',
          model,
          content: [{ type: 'text', text: `Module ${i} does its work in three steps. `.repeat(25) }],
          stop_reason: 'end_turn',
          usage: {
            input_tokens: context,
            output_tokens: 300,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
        },
      }),
    );
    context += 300;
    parent = a;
  }
  return lines.join('\n') + '\n';
}

describe("agentNow: what the user's agent sends now, from their own newest sessions", () => {
  let root: string;
  let projects: string;
  let work: string;
  let other: string;

  beforeEach(() => {
    root = tempDir('ac-agent-now-');
    projects = join(root, '.claude', 'projects');
    work = join(projects, '-home-user-work');
    other = join(projects, '-home-user-other');
    mkdirSync(work, { recursive: true });
    mkdirSync(other, { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('reads the newest recorded system prompt and tools per model, ties each to its model, and the announcements', async () => {
    writeFileSync(
      join(other, `${ID.old}.jsonl`),
      todaySession({ id: ID.old, model: 'claude-opus-4-5-20251101', at: '2026-11-20T10:00:00Z', words: 4000 }),
    );
    writeFileSync(
      join(work, `${ID.newer}.jsonl`),
      todaySession({ id: ID.newer, model: 'claude-opus-5-5', at: '2026-11-26T10:00:00Z', words: 1400 }),
    );
    const file = join(work, `${ID.compacted}.jsonl`);
    writeFileSync(file, oldSession(ID.compacted, 'claude-opus-4-5-20251101'));
    assert.equal(claudeSessionsFolderOf(file), projects, "a session's own sessions folder is read");
    const now = await readClaudeAgentNow(file);
    assert.deepEqual(
      now.shapes.map((s) => [s.model, s.sessionId, s.version]),
      [
        ['claude-opus-5-5', ID.newer, '2.1.330'],
        ['claude-opus-4-5-20251101', ID.old, '2.1.330'],
      ],
      'newest first, one per model',
    );
    assert.ok(now.shapes[1].tokens > 2 * now.shapes[0].tokens, 'each model its own shape');
    assert.equal(now.announced?.sessionId, ID.newer, "the newest session's announcements");
    assert.ok((now.announced?.kinds.environment ?? 0) > 100);

    const exact = resumeOverhead(now, 'claude-opus-4-5-20251101')!;
    assert.equal(exact.source, 'agent-now');
    assert.equal(exact.shape.sessionId, ID.old);
    const assumed = resumeOverhead(now, 'claude-sonnet-4-20250514')!;
    assert.equal(assumed.source, 'agent-now-assumed', 'a model none of them used: the newest, said to be assumed');
    assert.equal(assumed.shape.model, 'claude-opus-5-5');
    assert.equal(resumeOverhead(null, 'claude-opus-5-5'), null);
  });

  it("the plan promises the resume with today's figure, labelled, and reads it itself when compacting", async () => {
    writeFileSync(
      join(other, `${ID.old}.jsonl`),
      todaySession({ id: ID.old, model: 'claude-opus-4-5-20251101', at: '2026-11-20T10:00:00Z', words: 4000 }),
    );
    const file = join(work, `${ID.compacted}.jsonl`);
    writeFileSync(file, oldSession(ID.compacted, 'claude-opus-4-5-20251101'));
    const analysis = await inspectFile(file, { subagents: false });
    const own = analysis.report.totals.overheadTokens!;
    const settings = { targetTokens: own + 8_000, keepRecentTokens: 3_000 };
    const now = await readClaudeAgentNow(file);
    const plan = await planCompaction(analysis, settings, undefined, undefined, now);
    assert.equal(plan.overheadSource, 'agent-now');
    assert.equal(plan.overheadTokens, now.shapes[0].tokens);
    assert.notEqual(plan.overheadTokens, own, "today's agent sends another system prompt than the file's");
    assert.equal(
      plan.overheadFrom,
      `as your Claude Code 2.1.330 sends it with claude-opus-4-5-20251101, from session ${ID.old}`,
    );
    assert.ok(plan.resentTokens! > 100, "today's session-start context is promised too (the file has none)");
    // Without it: the file's own estimate, said so.
    const without = await planCompaction(analysis, settings, undefined, undefined, null);
    assert.equal(without.overheadTokens, own);
    assert.equal(without.overheadSource, 'estimated');
    assert.equal(without.overheadFrom, "estimated from this session's usage");
    assert.equal(without.resentTokens, 0);
    // compactFile and planCompactionOf read it at planning (the edge), from the file's sessions folder.
    const planned = await planCompactionOf(file, { summarizer: 'extractive', settings });
    assert.equal(planned.plan.overheadSource, 'agent-now');
    assert.equal(planned.plan.overheadTokens, plan.overheadTokens);
    const result = await compactFile(file, { summarizer: 'extractive', settings });
    assert.equal(result.plan.overheadFrom, plan.overheadFrom);
  });

  it('a model the agent recorded replacing on resume is looked up as what it resumes with', () => {
    const lines = (o: Record<string, unknown>[]) => o.map((x) => JSON.stringify(x));
    const now = claudeAgentNowOf([
      {
        file: `/p/x/${ID.newer}.jsonl`,
        head: lines([
          {
            type: 'api-request-shape',
            shapeHash: 'h',
            timestamp: '2026-11-26T00:00:00Z',
            version: '2.1.330',
            shape: shape(700, 'x'),
          },
          {
            type: 'api-request',
            shapeHash: 'h',
            timestamp: '2026-11-26T00:00:00Z',
            params: { model: 'claude-opus-5-5' },
          },
          {
            type: 'system',
            subtype: 'informational',
            modelRestriction: {
              requestedModel: 'claude-sonnet-4-20250514',
              effectiveModel: 'claude-opus-5-5',
              at: 'resume',
            },
          },
        ]),
        tail: [],
      },
    ]);
    assert.deepEqual(now.replacedModels, { 'claude-sonnet-4-20250514': 'claude-opus-5-5' });
    const r = resumeOverhead(now, 'claude-sonnet-4-20250514')!;
    assert.equal(r.source, 'agent-now');
    assert.equal(r.model, 'claude-opus-5-5');
  });

  it('is never an error: broken lines, links, odd records and an unreadable folder give what is readable', async () => {
    const good = todaySession({ id: ID.newer, model: 'claude-opus-5-5', at: '2026-11-26T10:00:00Z', words: 700 });
    writeFileSync(
      join(work, `${ID.newer}.jsonl`),
      '{"type":"api-request-shape","shapeHash":"x","shape":"not an object"}\n{broken json\n' +
        '{"type":"api-request","shapeHash":"x","params":null}\n{"type":"attachment","attachment":7}\n' +
        good,
    );
    // A link to a session elsewhere is not followed (another session's file is read only as itself).
    const elsewhere = join(root, 'elsewhere.jsonl');
    writeFileSync(elsewhere, todaySession({ id: ID.old, model: 'claude-x', at: '2026-11-27T00:00:00Z', words: 700 }));
    symlinkSync(elsewhere, join(work, `${ID.old}.jsonl`));
    const now = await readClaudeAgentNow(join(work, `${ID.compacted}.jsonl`));
    assert.deepEqual(
      now.shapes.map((s) => s.model),
      ['claude-opus-5-5'],
    );
    const nowhere = await readClaudeAgentNow(join(root, 'no', 'projects', 'p', 'x.jsonl'), {
      CLAUDE_CONFIG_DIR: join(root, 'missing'),
    });
    assert.deepEqual(nowhere, { agent: 'claude-code', shapes: [], announced: null, replacedModels: {} });
  });

  it(`reads at most the ${AGENT_NOW_FILES} newest sessions, and only their ends`, async () => {
    const oldest = join(other, `${ID.old}.jsonl`);
    writeFileSync(
      oldest,
      todaySession({ id: ID.old, model: 'claude-opus-5-5', at: '2026-11-20T10:00:00Z', words: 700 }),
    );
    utimesSync(oldest, new Date('2026-11-20T10:00:00Z'), new Date('2026-11-20T10:00:00Z'));
    assert.equal((await readClaudeAgentNow(join(work, 'x.jsonl'))).shapes.length, 1, 'found while among the newest');
    for (let i = 0; i < AGENT_NOW_FILES; i++) {
      const id = `44444444-4444-4444-8444-${String(i).padStart(12, '0')}`;
      writeFileSync(join(work, `${id}.jsonl`), oldSession(id, 'claude-sonnet-4-20250514', 2));
    }
    assert.equal(
      (await readClaudeAgentNow(join(work, 'x.jsonl'))).shapes.length,
      0,
      'beyond the newest files nothing is read',
    );
    // A shape in the middle of a long file (beyond both ends read) is not found; one in its tail is.
    rmSync(oldest);
    const long = join(other, `${ID.newer}.jsonl`);
    const filler = oldSession(ID.compacted, 'claude-opus-5-5', 400);
    const record = todaySession({ id: ID.newer, model: 'claude-opus-5-5', at: '2026-11-26T10:00:00Z', words: 700 });
    writeFileSync(long, filler + record + filler);
    const middle = await readClaudeAgentNow(long);
    assert.deepEqual(middle.shapes, [], 'the middle of a long file is not read');
    writeFileSync(long, filler + filler + record);
    assert.equal((await readClaudeAgentNow(long)).shapes.length, 1, 'its tail is');
  });
});

describe("agentNow for Codex: what Codex sends a resumed thread, from the newest rollout of the session's project and version", () => {
  const rec = (type: string, payload: Record<string, unknown>) =>
    JSON.stringify({ timestamp: '2026-11-26T10:00:00Z', type, payload });
  const msg = (role: string, text: string) =>
    rec('response_item', { type: 'message', role, content: [{ type: 'input_text', text }] });
  /** A 0.169 rollout's head: meta, context messages, the prompt, the first answer and its usage. */
  const head = (o: { id: string; at: string; model: string; input: number; base?: string; dynamic?: unknown[] }) => [
    rec('session_meta', {
      id: o.id,
      timestamp: o.at,
      cwd: '/home/u/work',
      cli_version: '0.169.0',
      ...(o.base ? { base_instructions: { text: o.base } } : {}),
      ...(o.dynamic ? { dynamic_tools: o.dynamic } : {}),
    }),
    msg('developer', '<permissions instructions>\nNo sandbox.\n</permissions instructions>'),
    msg('user', '<environment_context>\n  <cwd>/home/u/work</cwd>\n</environment_context>'),
    rec('turn_context', { model: o.model }),
    msg('user', 'Show calc.js.'),
    rec('response_item', { type: 'function_call', name: 'exec_command', arguments: '{}', call_id: 'c1' }),
    rec('event_msg', { type: 'token_count', info: { last_token_usage: { input_tokens: o.input, output_tokens: 5 } } }),
  ];
  const ends = (file: string, lines: string[]) => ({ file, head: lines, tail: [] });
  /** The session at hand before its first answer: its head records no first request of its own. */
  const young = (lines: string[]) => lines.slice(0, 5);

  it('the newest thread by its own start time; its tools and instructions are its first request less its items', () => {
    const older = head({ id: 'old', at: '2026-01-01T00:00:00Z', model: 'gpt-4', input: 9000 });
    const newer = head({ id: 'new', at: '2026-11-26T00:00:00Z', model: 'gpt-5', input: 7000 });
    const own = young(head({ id: 'own', at: '2025-09-01T00:00:00Z', model: 'gpt-5-codex', input: 12000 }));
    const now = codexAgentNowOf([ends('/s/a.jsonl', older), ends('/s/b.jsonl', newer)], own)!;
    assert.equal(now.sessionId, 'new');
    assert.equal(now.model, 'gpt-5');
    assert.ok(now.overheadTokens > 6900 && now.overheadTokens < 7000, 'the usage less the items before the answer');
    assert.ok(now.contextTokens > 10, 'its permissions and environment messages');
    assert.equal(now.fileInstructions, null, 'the thread records no instructions of its own');
    assert.equal(codexAgentNowOf([ends('/s/c.jsonl', newer.slice(0, 4))], own), null, 'no first request: nothing');
    assert.equal(codexResumeOverhead(now, 'gpt-5-codex').tokens, now.overheadTokens + now.contextTokens);
  });

  it("a thread with its own instructions and another model is resumed with them first, then Codex's as a switch", () => {
    const newer = head({ id: 'new', at: '2026-11-26T00:00:00Z', model: 'gpt-5', input: 7000 });
    const base = 'You are Codex, based on GPT-5.5. Follow the rules. '.repeat(80);
    const tools = [
      { name: 'visible', description: 'sent', inputSchema: { type: 'object' } },
      { name: 'deferred', description: 'not sent', inputSchema: { type: 'object' }, deferLoading: true },
    ];
    const own = young(
      head({ id: 'own', at: '2026-06-01T00:00:00Z', model: 'gpt-5.5', input: 9000, base, dynamic: tools }),
    );
    const now = codexAgentNowOf([ends('/s/b.jsonl', newer)], own)!;
    assert.ok(now.fileInstructions! > 500);
    assert.ok(now.fileTools > 0 && now.fileTools < 40, 'only the tools Codex sends (not deferred)');
    const switched = codexResumeOverhead(now, 'gpt-5.5');
    assert.equal(switched.tokens, now.overheadTokens + now.contextTokens + now.fileTools + now.fileInstructions!);
    assert.match(switched.from, /after this session's own instructions for gpt-5\.5/);
    const same = codexResumeOverhead(now, 'gpt-5');
    assert.equal(same.tokens, now.overheadTokens + now.contextTokens + now.fileTools, 'same model: no switch');
  });

  it("a rollout's own sessions folder is read, else the user's", () => {
    assert.equal(
      codexSessionsFolderOf('/home/u/.codex/sessions/2026/11/26/rollout-x.jsonl'),
      '/home/u/.codex/sessions',
    );
    assert.equal(codexSessionsFolderOf('/tmp/rollout-x.jsonl', { CODEX_HOME: '/opt/codex' }), '/opt/codex/sessions');
  });
});
