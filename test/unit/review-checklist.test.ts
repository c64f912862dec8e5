// The checklist beside a summary under review (src/extension/model/reviewChecklist.ts): its counts, the facts it misses,
// and the line that adds a missing fact, which must make the summary keep it.
import { strict as assert } from 'node:assert';
import { spanFacts, factKept, type Fact } from '../../src/core/compact/fidelity';
import {
  checklistTitle,
  factInsertion,
  factLine,
  missingFacts,
  reviewChecklist,
} from '../../src/extension/model/reviewChecklist';
import type { JsonObject } from '../../src/core/json';
import { claudeRecords } from '../support/records';

const CWD = '/home/me/proj';
const user = (content: unknown): JsonObject => ({ type: 'user', cwd: CWD, message: { role: 'user', content } });
const assistant = (...content: JsonObject[]): JsonObject => ({
  type: 'assistant',
  cwd: CWD,
  message: { role: 'assistant', content },
});
let ids = 0;
function call(name: string, input: JsonObject, result: string, isError = false): JsonObject[] {
  const id = `toolu_${++ids}`;
  return [
    assistant({ type: 'tool_use', id, name, input }),
    user([{ type: 'tool_result', tool_use_id: id, content: result, ...(isError ? { is_error: true } : {}) }]),
  ];
}
const insert = (summary: string, fact: Fact) => {
  const at = factInsertion(summary, fact);
  return summary.slice(0, at.offset) + at.text + summary.slice(at.offset);
};

// An error whose key line is longer than its label shows: its first words are common in the span (the request's), its
// rarest come after the cut, so its label alone does not keep it.
const LONG_ERROR =
  'Error: refactor pagination helper cursor tokens survive reloads, pagination helper cursor tokens survive reloads refactor ' +
  'quarantined zeppelin marmalade xylophone juxtaposition flummoxed comparator wobbling quixotic';
const span = [
  user('Refactor the pagination helper so cursor tokens survive reloads'),
  ...call('Edit', { file_path: `${CWD}/src/pagination.ts`, old_string: 'a', new_string: 'b' }, 'ok'),
  ...call('Bash', { command: 'npx mocha test/pagination.test.ts' }, LONG_ERROR, true),
];
const facts = spanFacts(claudeRecords(span));

describe('review checklist: what the summary under review keeps, as it is edited', () => {
  it('counts per category with short names, and lists the facts missed', () => {
    const summary =
      'The user asked to refactor the pagination helper so cursor tokens survive reloads; pagination.ts was edited.';
    const { report, missing } = reviewChecklist(facts, summary);
    const title = checklistTitle(report);
    assert.match(
      title,
      /^Keeps 1\/1 requests · 1\/1 files edited · \d\/\d files worked on last · 0\/1 errors · 0\/1 failed commands/,
    );
    assert.deepEqual(
      missing.map((f) => f.category),
      report.missing.map((m) => m.category),
    );
    assert.ok(missing.some((f) => f.category === 'errors'));
    assert.equal(checklistTitle(reviewChecklist([], summary).report), 'No facts to keep in the summarized part');
  });

  it('the line added for a missing fact makes the summary keep it, even when its label is cut short', () => {
    const error = facts.find((f) => f.category === 'errors')!;
    assert.ok(!factKept(error, error.label), 'the label alone (cut at 90 characters) does not keep this error');
    assert.ok(factKept(error, factLine(error)));
    const before = 'Refactoring pagination.';
    const after = insert(before, error);
    assert.equal(after, `Refactoring pagination.\n\nAlso:\n- ${factLine(error)}`);
    assert.ok(!missingFacts(facts, after).includes(error));
    assert.equal(reviewChecklist(facts, after).report.categories.errors.kept, 1);
  });

  it('a second added fact goes to the end of the same "Also:" section; an "Also:" in the middle is not reused', () => {
    const [first, second] = missingFacts(facts, 'Nothing yet.');
    const twice = insert(insert('Nothing yet.\n', first), second);
    assert.equal(
      twice,
      `Nothing yet.\n\nAlso:\n- ${factLine(first)}\n- ${factLine(second)}\n`,
      'added before the trailing newline',
    );
    const middle = 'Start.\nAlso:\n- one\nThen prose.';
    assert.equal(insert(middle, first), `${middle}\n\nAlso:\n- ${factLine(first)}`);
    assert.equal(insert('', first), `Also:\n- ${factLine(first)}`);
  });
});
