// Prompt-too-long detection, gap parsing and head truncation.
import { strict as assert } from 'node:assert';
import {
  isPromptTooLong,
  parseTokenGap,
  truncateHead,
  TRUNCATION_MARKER,
  type Group,
} from '../../src/core/compact/ptl';

const group = (tokens: number, firstRole: 'user' | 'assistant' = 'assistant', id = tokens): Group<number> => ({
  tokens,
  firstRole,
  payload: id,
});
const marker = (): Group<number> => ({ tokens: 10, marker: true, firstRole: 'user', payload: -1 });

describe('prompt-too-long detection', () => {
  it('recognises every wording and shape', () => {
    const shapes: unknown[] = [
      {
        status: 400,
        error: {
          type: 'error',
          error: { type: 'invalid_request_error', message: 'prompt is too long: 213462 tokens > 200000 maximum' },
        },
      },
      new Error(
        '400 {"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 196348 + 21333 > 200000"}}',
      ),
      new Error('input length and max_tokens exceed context limit: 196348 + 21333 > 200000'),
      { code: 'context_length_exceeded', message: 'context_length_exceeded' },
      { status: 413, message: 'Request Entity Too Large' },
      new Error('request too large'),
      new Error('wrapper', {
        cause: new Error('outer', { cause: { message: 'prompt is too long: 5 tokens > 4 maximum' } }),
      }),
    ];
    for (const s of shapes) assert.equal(isPromptTooLong(s), true, JSON.stringify(s));
    for (const s of [new Error('overloaded'), { status: 401, message: 'invalid x-api-key' }, null, 'rate limited'])
      assert.equal(isPromptTooLong(s), false);
  });

  it('parses the token gap from both wordings and from causes', () => {
    assert.equal(parseTokenGap(new Error('prompt is too long: 213462 tokens > 200000 maximum')), 13462);
    assert.equal(
      parseTokenGap(new Error('input length and `max_tokens` exceed context limit: 196348 + 21333 > 200000')),
      17681,
    );
    assert.equal(
      parseTokenGap(
        new Error('x', {
          cause: { error: { error: { message: 'prompt is too long: 210118 tokens > 200000 maximum' } } },
        }),
      ),
      10118,
    );
    assert.equal(parseTokenGap(new Error('request too large')), null);
  });
});

describe('head truncation', () => {
  it('drops oldest groups until the gap is covered', () => {
    const groups = [
      group(100, 'user', 1),
      group(200, 'assistant', 2),
      group(300, 'assistant', 3),
      group(400, 'assistant', 4),
    ];
    const r = truncateHead(groups, 250, marker)!;
    assert.equal(r.dropped, 2);
    assert.equal(r.droppedTokens, 300);
    assert.deepEqual(
      r.groups.filter((g) => !g.marker).map((g) => g.payload),
      [3, 4],
    );
  });

  it('drops 20% (at least one) without a parsed gap', () => {
    const ten = Array.from({ length: 10 }, (_, i) => group(10, 'user', i));
    assert.equal(truncateHead(ten, null, marker)!.dropped, 2);
    const three = Array.from({ length: 3 }, (_, i) => group(10, 'user', i));
    assert.equal(truncateHead(three, null, marker)!.dropped, 1);
  });

  it('always keeps one group and reports when nothing safe remains', () => {
    const r = truncateHead([group(10, 'user'), group(20, 'user')], 1_000_000, marker)!;
    assert.equal(r.groups.filter((g) => !g.marker).length, 1);
    assert.equal(truncateHead([group(10, 'user')], 5, marker), null);
    assert.equal(truncateHead([marker(), group(10, 'user')], 5, marker), null);
  });

  it('prepends a user marker when the rest would start with an assistant turn', () => {
    const r = truncateHead([group(10, 'user', 1), group(10, 'assistant', 2)], 5, marker)!;
    assert.equal(r.markerAdded, true);
    assert.equal(r.groups[0].marker, true);
    assert.equal(r.groups[0].firstRole, 'user');
    assert.equal(TRUNCATION_MARKER, '[earlier conversation truncated for compaction retry]');
  });

  it('strips an earlier marker so repeated retries make real progress', () => {
    let groups: Group<number>[] = Array.from({ length: 6 }, (_, i) => group(100, 'assistant', i));
    const seen: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const r = truncateHead(groups, 50, marker)!;
      assert.equal(r.dropped, 1);
      assert.equal(r.groups.filter((g) => g.marker).length, 1, 'exactly one marker');
      seen.push(r.groups.filter((g) => !g.marker).length);
      groups = r.groups;
    }
    assert.deepEqual(seen, [5, 4, 3]);
  });
});
