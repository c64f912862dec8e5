// The fidelity measure (src/core/compact/fidelity.ts) on small hand-built spans, one category at a time, and the offline
// summary against Claude Code's own summary on every compaction Claude Code made in the shared fixtures.
import { strict as assert } from 'node:assert';
import { basename } from 'node:path';
import { FACT_CATEGORIES, measureFidelity, spanFacts, type FactCategory } from '../../src/core/compact/fidelity';
import { agentCompactions, offlineAgainstAgent } from '../../src/core/compact/agentSummaries';
import { agentFixtures, claudeFixtures } from '../support/fixtures';
import { LABELLED_FACTS, labelledKept } from '../../bench/fidelity-labels';
import { parsedLines } from '../../bench/fidelity';
import { extractiveSummary } from '../../src/core/compact/summarize/extractive';
import type { JsonObject } from '../../src/core/json';
import { claudeRecords } from '../support/records';

const CWD = '/home/me/proj';
const user = (content: unknown, extra: JsonObject = {}): JsonObject => ({
  type: 'user',
  cwd: CWD,
  message: { role: 'user', content },
  ...extra,
});
const assistant = (...content: JsonObject[]): JsonObject => ({
  type: 'assistant',
  cwd: CWD,
  message: { role: 'assistant', content },
});
const text = (t: string): JsonObject => ({ type: 'text', text: t });
let ids = 0;
/** An assistant tool call and the user line with its result. */
function call(name: string, input: JsonObject, result: string, isError = false): JsonObject[] {
  const id = `toolu_${++ids}`;
  return [
    assistant({ type: 'tool_use', id, name, input }),
    user([{ type: 'tool_result', tool_use_id: id, content: result, ...(isError ? { is_error: true } : {}) }]),
  ];
}
/** Lines that only pad a span (so that what came before them is not its last part). */
const filler = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    i % 2 ? user([{ type: 'tool_result', tool_use_id: `pad${i}`, content: 'ok' }]) : assistant(text('ok')),
  );

function only(category: FactCategory, span: JsonObject[], summary: string) {
  const facts = spanFacts(claudeRecords(span)).filter((f) => f.category === category);
  const report = measureFidelity(facts, summary);
  return { facts, report, counts: report.categories[category], missing: report.missing.map((m) => m.label) };
}

describe('fidelity: the facts of a span and which a summary keeps', () => {
  it('requests: kept when half their distinctive words are in the summary; slash-command arguments and refusals count, meta lines and "yes" do not', () => {
    const span = [
      user('Please refactor the pagination helper so cursor tokens survive reloads'),
      user('Invoke the skill and follow it exactly', { isMeta: true }),
      user('yes'),
      user(
        '<command-name>/review</command-name>\n<command-message>review</command-message>\n<command-args>check websocket reconnection backoff</command-args>',
      ),
      ...call(
        'Edit',
        { file_path: `${CWD}/a.ts`, old_string: 'x', new_string: 'y' },
        "The user doesn't want to proceed with this tool use. The tool use was rejected. To tell you how to proceed, the user said:\nkeep the legacy adapter untouched",
        true,
      ),
    ];
    const facts = spanFacts(claudeRecords(span)).filter((f) => f.category === 'requests');
    assert.deepEqual(
      facts.map((f) => f.label),
      [
        'the request "Please refactor the pagination helper so cursor tokens survive reloads"',
        'the request "/review check websocket reconnection backoff"',
        'the request "keep the legacy adapter untouched"',
      ],
    );
    const kept = only(
      'requests',
      span,
      'User asked to refactor pagination so cursor tokens survive. Ran /review on websocket reconnection backoff. Keep the legacy adapter untouched.',
    );
    assert.deepEqual(kept.counts, { kept: 3, total: 3 });
    const vague = only('requests', span, 'The user asked for a refactor and a review; the adapter was discussed.');
    assert.deepEqual(vague.counts, { kept: 0, total: 3 });
    assert.deepEqual(
      vague.missing,
      facts.map((f) => f.label),
    );
  });

  it('files: an edited or created file is kept by its path, its path in the project or its base name, not inside a longer name', () => {
    const span = [
      ...call('Edit', { file_path: `${CWD}/src/api/pagination.ts`, old_string: 'a', new_string: 'b' }, 'ok'),
      ...call('Write', { file_path: `${CWD}/src/api/cursor.ts`, content: 'x' }, 'ok'),
      ...call('Read', { file_path: `${CWD}/README.md` }, 'text'),
    ];
    assert.deepEqual(
      spanFacts(claudeRecords(span))
        .filter((f) => f.category === 'files')
        .map((f) => f.label),
      ['edited `src/api/pagination.ts`', 'created or rewritten `src/api/cursor.ts`'],
    );
    assert.deepEqual(only('files', span, 'Changed src/api/pagination.ts and cursor.ts.').counts, { kept: 2, total: 2 });
    const longer = only('files', span, 'Changed old-pagination.ts and cursor.tsx.');
    assert.deepEqual(longer.counts, { kept: 0, total: 2 });
  });

  it('working set: only files used in the last part of the span', () => {
    const span = [
      ...call('Read', { file_path: `${CWD}/early.ts` }, 'x'),
      ...filler(60),
      ...call('Read', { file_path: `${CWD}/late.ts` }, 'y'),
      ...call('Edit', { file_path: `${CWD}/later.ts`, old_string: 'a', new_string: 'b' }, 'ok'),
    ];
    const r = only('workingSet', span, 'We were in late.ts.');
    assert.deepEqual(
      r.facts.map((f) => f.label),
      ['`late.ts` (worked on last)', '`later.ts` (worked on last)'],
    );
    assert.deepEqual(r.counts, { kept: 1, total: 2 });
    assert.deepEqual(r.missing, ['`later.ts` (worked on last)']);
  });

  it('errors and failed commands: an error by the words of its key line (not its tool name), a refusal is no error, a failed command by its words', () => {
    const span = [
      ...call(
        'Bash',
        { command: 'npx vitest run pagination.test.ts' },
        'Exit code 1\n RUN v1\n FAIL pagination.test.ts > cursor\nTypeError: cursorState is undefined\n at next (pagination.ts:12)',
        true,
      ),
      ...call(
        'Edit',
        { file_path: `${CWD}/a.ts`, old_string: 'x', new_string: 'y' },
        "The user doesn't want to proceed with this tool use. The tool use was rejected.",
        true,
      ),
    ];
    const errors = only('errors', span, 'Bash failed.');
    assert.deepEqual(errors.missing, [
      'the error in Bash `npx vitest run pagination.test.ts`: FAIL pagination.test.ts > cursor',
    ]);
    assert.deepEqual(only('errors', span, 'vitest: FAIL in pagination.test.ts (cursor).').counts, {
      kept: 1,
      total: 1,
    });
    const commands = only('failedCommands', span, 'The tests failed.');
    assert.deepEqual(commands.missing, ['the failed command `npx vitest run pagination.test.ts`']);
    assert.deepEqual(only('failedCommands', span, 'ran npx vitest run pagination.test.ts').counts, {
      kept: 1,
      total: 1,
    });
  });

  it('latest: the last three assistant texts, by their distinctive words', () => {
    const span = [
      assistant(text('Looking at the repository layout first.')),
      assistant(text('Decided: keep cursors opaque, encode them with base64url.')),
      assistant(text('ok')),
      assistant(text('The migration script compiles now.')),
      assistant(text('Next I will wire the cursor decoder into listOrders and rerun integration tests.')),
    ];
    const r = only('latest', span, 'Cursors stay opaque (base64url encoded); migration script compiles.');
    assert.equal(r.facts.length, 3);
    assert.deepEqual(r.counts, { kept: 2, total: 3 });
    assert.deepEqual(r.missing, [
      'the assistant\'s "Next I will wire the cursor decoder into listOrders and rerun integration tests."',
    ]);
  });

  it('identifiers: the code names used most in the last part, kept only exactly', () => {
    const span = [
      ...filler(40),
      assistant(text('Now `markSessionEnded` calls `loadSessionState` and sets ended_at.')),
      ...call(
        'Edit',
        {
          file_path: `${CWD}/s.go`,
          old_string: 'func markSessionEnded()',
          new_string: 'func markSessionEnded(sessionID string) { loadSessionState(sessionID) }',
        },
        'ok',
      ),
    ];
    const r = only(
      'identifiers',
      span,
      'Added marksessionended; it calls loadSessionState and sets ended_at; sessionIDs are strings.',
    );
    assert.deepEqual(
      r.facts.map((f) => f.label),
      ['`markSessionEnded`', '`loadSessionState`', '`sessionID`', '`ended_at`'],
    );
    assert.deepEqual(r.counts, { kept: 2, total: 4 });
    assert.deepEqual(r.missing, ['`markSessionEnded`', '`sessionID`']);
  });

  it('todos: the open items of the latest TodoWrite list only', () => {
    const todos = (items: [string, string][]) =>
      call('TodoWrite', { todos: items.map(([content, status]) => ({ content, status, activeForm: content })) }, 'ok');
    const span = [
      ...todos([['Draft the release announcement email', 'pending']]),
      ...todos([
        ['Add retry budget to webhook dispatcher', 'completed'],
        ['Write regression test for duplicate webhook deliveries', 'in_progress'],
        ['Update operator runbook with dispatcher metrics', 'pending'],
      ]),
    ];
    const r = only('todos', span, 'Open: regression test for duplicate webhook deliveries.');
    assert.deepEqual(
      r.facts.map((f) => f.label),
      [
        'the open TODO "Write regression test for duplicate webhook deliveries (in progress)"',
        'the open TODO "Update operator runbook with dispatcher metrics"',
      ],
    );
    assert.deepEqual(r.counts, { kept: 1, total: 2 });
  });

  it('the report counts every category, kept and total', () => {
    const report = measureFidelity(
      spanFacts(claudeRecords([user('Please refactor the pagination helper')])),
      'refactor pagination helper',
    );
    assert.deepEqual(Object.keys(report.categories), [...FACT_CATEGORIES]);
    assert.deepEqual([report.kept, report.total, report.missing], [1, 1, []]);
  });
});

describe('the offline summary keeps where the work stood, within its size', () => {
  it('a long session under a small budget: the last error, the open TODOs, the last edit and the latest messages are kept; the summary fits', () => {
    const requests = Array.from({ length: 40 }, (_, i) =>
      user(`Request ${i}: ${'please adjust the dashboard widgets and their spacing '.repeat(8)}`),
    );
    const span = [
      ...requests,
      ...call(
        'TodoWrite',
        {
          todos: [
            { content: 'Migrate invoice exporter to streaming writes', status: 'in_progress', activeForm: 'x' },
            { content: 'Benchmark exporter memory ceiling', status: 'pending', activeForm: 'y' },
          ],
        },
        'ok',
      ),
      ...call(
        'Edit',
        {
          file_path: `${CWD}/src/export/invoiceExporter.ts`,
          old_string: 'writeAll(rows)',
          new_string: 'for await (const row of rows) streamWriter.write(row)',
        },
        'ok',
      ),
      ...call(
        'Bash',
        { command: 'npm test -- invoiceExporter' },
        'Exit code 1\nFAIL src/export/invoiceExporter.test.ts\nTypeError: streamWriter.write is not a function',
        true,
      ),
      assistant(
        text(
          'The exporter test fails because streamWriter is created after the first row; next I will construct streamWriter before iterating rows.',
        ),
      ),
    ];
    const summary = extractiveSummary({ records: claudeRecords(span), maxChars: 4_000 });
    assert.ok(summary.length <= 4_000, `${summary.length}`);
    const report = measureFidelity(spanFacts(claudeRecords(span)), summary);
    for (const c of ['errors', 'failedCommands', 'todos', 'latest', 'files', 'workingSet'] as const) {
      assert.deepEqual(
        report.categories[c].kept,
        report.categories[c].total,
        `${c}: ${report.missing.map((m) => m.label).join('; ')}`,
      );
      assert.ok(report.categories[c].total > 0, c);
    }
    assert.match(summary, /TypeError: streamWriter\.write is not a function/);
    assert.match(summary, /Request 0:/, 'the first request stays');
    assert.match(summary, /Request 39:/, 'the latest request stays');
  });
});

describe("fidelity: the offline summary against the agent's own, on every compaction an agent made in the shared fixtures", () => {
  const compactions = [...claudeFixtures(), ...agentFixtures('codex')].flatMap((file) =>
    agentCompactions(parsedLines(file)).map((c) => ({
      name: `${basename(file)} (${c.agent === 'codex' ? 'compacted record' : 'boundary'} at line ${c.boundaryLine})`,
      c,
    })),
  );

  it("the fixtures hold compactions to compare: Claude Code's and Codex's", () => {
    assert.deepEqual(
      compactions.map(({ c }) => `${c.agent}:${c.boundaryLine}:${c.summaryKind}:${c.size.basis}`),
      ['claude-code:576:text:readable', 'codex:776:encrypted:next-request', 'codex:1318:not-recorded:next-request'],
    );
  });

  for (const { name, c } of compactions) {
    it(`${name}: no longer than the agent's, keeps ≥ 90% of the facts and at least as many as the agent's`, () => {
      const r = offlineAgainstAgent(c);
      assert.ok(r.ours.total >= 20, `a span with facts to keep (${r.ours.total})`);
      assert.ok(r.oursChars <= c.size.chars, `${r.oursChars} > ${c.size.chars}`);
      assert.ok(c.size.chars >= r.agentChars, 'its size is never below what can be read of it');
      assert.ok(
        r.ours.kept >= 0.9 * r.ours.total,
        `kept ${r.ours.kept} of ${r.ours.total}; missing: ${r.ours.missing.map((m) => m.label).join('; ')}`,
      );
      assert.ok(r.ours.kept >= r.agent.kept, `ours ${r.ours.kept} < the agent's ${r.agent.kept}`);
    });
  }

  it('a Codex span has the facts of its own tools: apply_patch files, failed commands and their errors, update_plan items', () => {
    const codex = compactions.filter(({ c }) => c.agent === 'codex').map(({ c }) => spanFacts(c.span));
    for (const facts of codex) {
      const count = (cat: FactCategory) => facts.filter((f) => f.category === cat).length;
      assert.ok(count('files') >= 8, `files ${count('files')}`);
      assert.ok(count('failedCommands') >= 4, `failed commands ${count('failedCommands')}`);
      assert.ok(count('errors') >= 3, `errors ${count('errors')}`);
      assert.ok(count('latest') === 3);
      // A Codex argument string's keys (`yield_time_ms`, `max_output_tokens`) and a plan's states are no names of the work.
      const names = facts.filter((f) => f.category === 'identifiers').map((f) => f.label);
      for (const noise of ['`yield_time_ms`', '`max_output_tokens`', '`in_progress`', '`session_id`'])
        assert.ok(!names.includes(noise), `${noise} among ${names.join(', ')}`);
    }
    // 0.142-alpha's last update_plan list leaves three steps open.
    assert.equal(codex[1].filter((f) => f.category === 'todos').length, 3);
  });
});

describe('fidelity, checked against facts a person labelled in the same spans (bench/fidelity-labels.ts)', () => {
  const compactions = [...claudeFixtures(), ...agentFixtures('codex')].flatMap((file) =>
    agentCompactions(parsedLines(file)).map((c) => ({ key: `${basename(file)}:${c.boundaryLine}`, c })),
  );

  it('every compaction an agent made in the shared fixtures has labelled facts', () => {
    assert.deepEqual(
      compactions.map(({ key }) => key).filter((key) => !LABELLED_FACTS[key]),
      [],
    );
  });

  for (const { key, c } of compactions) {
    it(`${key}: the offline summary at the agent's size keeps at least 80% of the labelled facts`, () => {
      const facts = LABELLED_FACTS[key] ?? [];
      assert.ok(facts.length >= 10, `${facts.length} labelled facts`);
      const ours = labelledKept(facts, offlineAgainstAgent(c).oursText);
      assert.ok(
        ours.kept >= 0.8 * ours.total,
        `kept ${ours.kept} of ${ours.total}; missing: ${ours.missing.join('; ')}`,
      );
    });
  }

  it('the labels are not kept by any text: a summary of another span keeps few of them', () => {
    // Each span's facts against the other spans' summaries: the labels name what is particular to their span.
    assert.ok(compactions.length >= 2);
    for (const { key } of compactions)
      for (const other of compactions.filter((o) => o.key !== key)) {
        const k = labelledKept(LABELLED_FACTS[key] ?? [], offlineAgainstAgent(other.c).oursText);
        assert.ok(k.kept <= 0.25 * k.total, `${key}'s facts in ${other.key}'s summary: ${k.kept} of ${k.total}`);
      }
  });
});
