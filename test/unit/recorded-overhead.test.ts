/**
 * System prompt and tools from the agent's own record. Claude Code 2.1.330 writes an `api-request-shape` line
 * `{shapeHash, shape: {system, tools}}` before the requests that carry them (see docs/FORMATS.md); HAND-BUILT files
 * here mirror that shape (the real CLI's own sessions are checked in test/compat/today-sessions.test.ts).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { contextNow } from '../../src/core/context';
import { inspectFile } from '../../src/core/inspect';
import { countTokensExact, countTokensInPieces } from '../../src/core/tokens/exact';
import { contextPartsText } from '../../src/extension/model/contextText';
import { tempDir } from '../support/temp';

const SESSION = '5d1e2f3a-2222-4333-8444-a55566667777';
const SYSTEM = [
  "You are a Claude agent, built on Anthropic's Claude Agent SDK.",
  'You help with software engineering tasks in the sample project.\n\nBe concise.',
];
const TOOLS = [
  {
    name: 'Read',
    description: 'Reads a file from the local filesystem.',
    input_schema: {
      type: 'object',
      properties: { file_path: { type: 'string', description: 'The absolute path' } },
      required: ['file_path'],
    },
  },
  {
    name: 'Bash',
    description: 'Runs a shell command.',
    input_schema: { type: 'object', properties: { command: { type: 'string' } } },
  },
];

function lines(withShape: boolean, tools: unknown[] = TOOLS): string {
  const t = (s: number) => `2026-11-25T01:00:0${s}.000Z`;
  const out: unknown[] = [
    {
      parentUuid: null,
      type: 'user',
      uuid: 'u1',
      sessionId: SESSION,
      isSidechain: false,
      timestamp: t(1),
      message: { role: 'user', content: 'Hello there' },
    },
  ];
  if (withShape)
    out.push({
      type: 'api-request-shape',
      shapeHash: 'abc',
      shape: { system: SYSTEM.map((text) => ({ type: 'text', text })), tools },
    });
  out.push({
    parentUuid: 'u1',
    type: 'assistant',
    uuid: 'a1',
    sessionId: SESSION,
    isSidechain: false,
    timestamp: t(2),
    requestId: 'req_1',
    message: {
      id: 'msg_1',
      role: 'assistant',
      model: 'claude-opus-5-5',
      type: 'message',
      content: [{ type: 'text', text: 'Hi.' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 5000, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  });
  return out.map((o) => JSON.stringify(o)).join('\n') + '\n';
}

describe("system prompt and tools from the agent's recorded request shape", () => {
  let dir: string;
  before(() => (dir = tempDir('recorded-overhead-')));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };

  it('counts the recorded system blocks and tool definitions, labelled recorded', async () => {
    const { report } = await inspectFile(write('shape.jsonl', lines(true)), { subagents: false });
    const expected = SYSTEM.reduce((n, s) => n + countTokensExact(s), 0) + countTokensExact(JSON.stringify(TOOLS));
    assert.equal(report.totals.overheadSource, 'recorded');
    assert.equal(report.totals.overheadTokens, expected);
    const ctx = contextNow(report);
    assert.equal(ctx.overheadSource, 'recorded');
    assert.match(
      contextPartsText(ctx),
      new RegExp(`^system prompt and tools ${expected} \\(recorded\\) \\+ transcript `),
    );
  });

  it('without a record, estimates from usage and says so', async () => {
    const { report } = await inspectFile(write('plain.jsonl', lines(false)), { subagents: false });
    assert.equal(report.totals.overheadSource, 'estimated');
    assert.ok(report.totals.overheadTokens! > 4900, String(report.totals.overheadTokens));
    assert.match(contextPartsText(contextNow(report)), /^system prompt and tools ~[\d,]+ \(estimated\) \+ transcript /);
  });

  it("a hostile shape (a 300,000-character word) is counted in pieces, without the tokenizer's quadratic blow-up", async function () {
    this.timeout(120_000); // a hang detector only: whole, this word takes the encoder many minutes
    const hostile = [{ name: 'X', description: 'x'.repeat(300_000), input_schema: { type: 'object' } }];
    const { report } = await inspectFile(write('hostile.jsonl', lines(true, hostile)), { subagents: false });
    assert.equal(report.totals.overheadSource, 'recorded');
    assert.ok(report.totals.overheadTokens! > 300_000 / 16, String(report.totals.overheadTokens));
  });

  it('counting in pieces gives the whole-text count on ordinary text', () => {
    for (const f of ['docs/FORMATS.md', 'src/core/chain.ts', 'package.json']) {
      const text = fs.readFileSync(path.join(__dirname, '..', '..', f), 'utf8');
      assert.equal(countTokensInPieces(text), countTokensExact(text), f);
    }
    // Pretty-printed JSON of short strings: lines of indentation and a quoted word, no space after a non-space for
    // more than a piece (a cut inside the indentation counted one token more).
    const lists = JSON.stringify(
      { a: { b: { c: Array.from({ length: 400 }, (_, i) => `**/x${i}/*.jsonl`) } } },
      null,
      4,
    );
    assert.equal(countTokensInPieces(lists), countTokensExact(lists), 'indented JSON');
  });

  it('a long text counted again gives its own count: the memo of counts is keyed by the whole text', () => {
    const text = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'FORMATS.md'), 'utf8').slice(0, 8_000);
    const whole = countTokensExact(text);
    assert.equal(countTokensInPieces(text), whole);
    assert.equal(countTokensInPieces(text), whole, 'counted again (from the memo)');
    // One character changed at the end, and one in the middle: not the memo's count of the first text.
    const longer = text + ' appended words';
    assert.equal(countTokensInPieces(longer), countTokensExact(longer));
    assert.notEqual(countTokensExact(longer), whole, 'the changed text counts otherwise');
    const changed = text.slice(0, 4_000) + ' an inserted sentence of several words. ' + text.slice(4_000);
    assert.equal(countTokensInPieces(changed), countTokensExact(changed));
    assert.equal(countTokensInPieces(text), whole, 'the first text again, after the others');
  });
});
