// A Codex fork renames the thread id in its session_meta records: values only, never a key that spells the id.
import { strict as assert } from 'node:assert';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { compactFile } from '../../src/core/compact/compact';
import { forkedMetaLine, idRenameProblem, replaceIdValues } from '../../src/core/formats/codex/threadId';
import { CompactError } from '../../src/core/compact/types';
import { agentFixtures } from '../support/fixtures';
import { tempDir } from '../support/temp';

/** Thread ids that are also keys of a session_meta record (or of the record around it). */
const KEY_IDS = ['id', 'cwd', 'type', 'payload', 'timestamp'];
const NEW_ID = '019aaaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee';

describe('Codex fork: the thread id is renamed in values only', () => {
  for (const id of KEY_IDS) {
    it(`thread id ${JSON.stringify(id)}: every key stays, only the id's values change`, () => {
      const line = JSON.stringify({
        timestamp: '2026-01-01T00:00:00Z',
        type: 'session_meta',
        payload: { id, cwd: '/w', originator: 'codex', source: { subagent: id }, note: `${id} in text` },
      });
      const renamed = replaceIdValues(line, id, NEW_ID);
      const o = JSON.parse(renamed) as { type: string; timestamp: string; payload: Record<string, unknown> };
      assert.deepEqual(Object.keys(o), ['timestamp', 'type', 'payload']);
      assert.deepEqual(Object.keys(o.payload), ['id', 'cwd', 'originator', 'source', 'note']);
      assert.equal(o.payload.id, NEW_ID);
      assert.deepEqual(o.payload.source, { subagent: NEW_ID });
      assert.equal(o.payload.note, `${id} in text`, 'a longer string holding the id is not the id');
      assert.equal(idRenameProblem(JSON.parse(line), o, id, NEW_ID), null);
      assert.equal(forkedMetaLine(line, id, NEW_ID, 'test'), renamed);
      // Bytes other than the id's values are unchanged.
      assert.equal(renamed.split(JSON.stringify(NEW_ID)).join(JSON.stringify(id)), line);
    });
  }

  it('matches an escaped spelling of the id and keeps spacing and other bytes', () => {
    const line = '{ "type" : "session_meta", "payload" : { "id" : "c\\u0077d", "cwd":"/w" } }';
    assert.equal(
      replaceIdValues(line, 'cwd', 'NEW'),
      '{ "type" : "session_meta", "payload" : { "id" : "NEW", "cwd":"/w" } }',
    );
    assert.equal(replaceIdValues('{"a":"x\\"y","b":"x\\"y"}', 'x"y', 'z'), '{"a":"z","b":"z"}');
  });

  it('the check refuses a renamed line whose keys changed, as the old split-and-join produced', () => {
    const line = JSON.stringify({ type: 'session_meta', payload: { id: 'cwd', cwd: '/w' } });
    const oldWay = line.split(JSON.stringify('cwd')).join(JSON.stringify(NEW_ID));
    assert.match(
      idRenameProblem(JSON.parse(line), JSON.parse(oldWay), 'cwd', NEW_ID) ?? '',
      /\$\.payload has the keys id, 019aaaaa.* instead of id, cwd/,
    );
    assert.match(
      idRenameProblem({ a: 'cwd', b: 1 }, { a: NEW_ID, b: 2 }, 'cwd', NEW_ID) ?? '',
      /\$\.b changed from 1 to 2/,
    );
    assert.match(
      idRenameProblem({ a: 'cwd' }, { a: 'cwd' }, 'cwd', NEW_ID) ?? '',
      /\$\.a changed/,
      'an id left unrenamed is caught',
    );
    assert.throws(
      () => forkedMetaLine('{"payload":{"id":"cwd"', 'cwd', NEW_ID, 'r.jsonl at byte 0'),
      (err: unknown) =>
        err instanceof CompactError && err.code === 'invalid-output' && /r\.jsonl at byte 0/.test(err.message),
    );
  });

  describe('a real fork of a rollout whose thread id is a session_meta key', function () {
    this.timeout(300_000);
    let dir: string;
    before(() => (dir = tempDir('ac-codex-id-')));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const source =
      agentFixtures('codex').find((f) => basename(f) === 'rollout-0.142.jsonl') ?? agentFixtures('codex')[0];

    for (const id of ['id', 'cwd', 'type', 'payload']) {
      it(`thread id ${JSON.stringify(id)}`, async () => {
        const file = join(dir, `${id}-${basename(source)}`);
        copyFileSync(source, file);
        const lines = readFileSync(file, 'utf8').split('\n');
        const meta = JSON.parse(lines[0]) as { payload: Record<string, unknown> };
        const realId = meta.payload.id as string;
        // The same rollout, its thread id (wherever a session_meta value names it) now `id`.
        const renamedLines = lines.map((l) => (l.includes('"session_meta"') ? replaceIdValues(l, realId, id) : l));
        writeFileSync(file, renamedLines.join('\n'));
        const before = JSON.parse(renamedLines[0]) as { payload: Record<string, unknown> };
        assert.equal(before.payload.id, id);
        const fork = await compactFile(file, { summarizer: 'extractive', settings: { targetTokens: 30_000 } });
        assert.notEqual(fork.sessionId, id);
        const first = JSON.parse(readFileSync(fork.output, 'utf8').split('\n', 1)[0]) as {
          payload: Record<string, unknown>;
        };
        assert.deepEqual(Object.keys(first.payload), Object.keys(before.payload), 'session_meta keeps every key');
        assert.equal(first.payload.id, fork.sessionId);
        assert.equal(first.payload.cwd, before.payload.cwd);
        assert.equal(fork.cwd, before.payload.cwd);
      });
    }

    it('bytes of the session_meta record that are not UTF-8 are kept as they were, only the id renamed', async () => {
      const file = join(dir, `bytes-${basename(source)}`);
      const original = readFileSync(source);
      const firstEnd = original.indexOf(10);
      const realId = (JSON.parse(original.subarray(0, firstEnd).toString('utf8')) as { payload: { id: string } })
        .payload.id;
      // A flipped byte inside the record's base instructions (a string value): the line still parses, kept verbatim.
      const at = original.indexOf('You are Codex');
      assert.ok(at > 0 && at < firstEnd, 'the first record holds the base instructions');
      const damaged = Buffer.concat([original.subarray(0, at), Buffer.from([0xff, 0xc3]), original.subarray(at)]);
      writeFileSync(file, damaged);
      const fork = await compactFile(file, { summarizer: 'extractive', settings: { targetTokens: 30_000 } });
      const out = readFileSync(fork.output);
      const restored = Buffer.from(out.toString('latin1').split(fork.sessionId!).join(realId), 'latin1');
      assert.ok(
        restored.subarray(0, damaged.length).equals(damaged),
        'the fork is the input byte for byte, the thread id renamed (the stray bytes were written as U+FFFD)',
      );
      assert.ok(out.subarray(0, out.indexOf(10)).includes(Buffer.from([0xff, 0xc3])));
    });
  });
});
