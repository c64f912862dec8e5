// The validator kit's options objects (src/webview/validate.ts `options`), as the extension's commands declare theirs:
// every field may be left out, a key not declared is refused, and `problemOf` says where a value does not fit and
// what was expected there (a command's refusal quotes it).
import { strict as assert } from 'node:assert';
import { array, bool, int, object, oneOf, options, problemOf, str } from '../../src/webview/validate';

const schema = options({
  file: str(10, { min: 1 }),
  confirm: bool,
  mode: oneOf(['fork', 'inPlace']),
  rounds: array(int(), 3),
  settings: options({ target: int({ min: 1_000, max: 10_000 }) }),
});

describe('validate: options objects and located problems', () => {
  it('accepts any subset of the fields, undefined ones too', () => {
    for (const v of [{}, { file: 'a' }, { confirm: false, rounds: [1, 2] }, { settings: {} }, { file: undefined }])
      assert.equal(schema(v), true, JSON.stringify(v));
    assert.equal(problemOf(schema, { file: 'a', settings: { target: 5_000 } }), null);
  });

  it('refuses what is not an options object, a key it does not declare, and a field of the wrong kind', () => {
    for (const v of [null, 'a', [], 3]) assert.equal(schema(v), false, JSON.stringify(v));
    assert.equal(problemOf(schema, 'a'), 'expected an options object, got "a"');
    assert.equal(problemOf(schema, { fil: 'a' }), 'unknown field "fil" (known: file, confirm, mode, rounds, settings)');
    assert.equal(problemOf(schema, { file: '' }), 'field "file": expected a string of 1 to 10 characters, got ""');
    assert.equal(problemOf(schema, { confirm: 'no' }), 'field "confirm": expected true or false, got "no"');
    assert.equal(problemOf(schema, { mode: 'x' }), 'field "mode": expected one of "fork", "inPlace", got "x"');
    assert.equal(
      problemOf(schema, { rounds: [1, -1] }),
      'field "rounds": expected an array of at most 3 items, each a whole number of at least 0, got an array of 2',
    );
  });

  it('locates a problem inside a nested object', () => {
    assert.equal(
      problemOf(schema, { settings: { target: 5 } }),
      'field "settings.target": expected a whole number from 1000 to 10000, got 5',
    );
    assert.equal(problemOf(schema, { settings: { tgt: 5 } }), 'unknown field "settings.tgt" (known: target)');
    assert.equal(problemOf(schema, { settings: 5 }), 'field "settings": expected an options object, got 5');
  });

  it('an exact object names a missing field', () => {
    const exact = object({ a: int(), b: str(5) });
    assert.equal(problemOf(exact, { a: 1 }), 'field "b": missing (expected a string of at most 5 characters)');
    assert.equal(problemOf(exact, { a: 1, b: 'x' }), null);
  });
});
