// What Repair Session and Restore From Backup say: numbers agree with their nouns, an in-place repair names the
// backup it took, and the restore texts do not say a repair's backup was a compaction's.
import * as assert from 'node:assert/strict';
import { BACKUP_ORIGIN, repairConfirmDetail, repairResultText } from '../../src/extension/model/repairText';
import type { RepairResult } from '../../src/core/repair/repair';
import type { DoctorReport } from '../../src/core/repair/doctor';

const change = (line: number) => ({ line, uuid: `u${line}`, from: 'gone', to: 'p', toLine: line - 1, reason: 'r' });
const conversion = (line: number) => ({ line, uuid: `c${line}`, toolIds: ['t'], reason: 'r' });

describe('repair and restore texts', () => {
  it('the confirmation: singular and plural agree, line numbers grouped as a person reads them', () => {
    assert.equal(
      repairConfirmDetail({ changes: [change(969)], converted: [conversion(1204)], skipped: [] }),
      '1 line gets a new parentUuid; 1 tool result whose call is gone becomes a text block saying so (line 1,204); ' +
        'every other line stays byte-identical. A fork is a new session beside the original, which stays untouched; ' +
        'in place keeps a backup.',
    );
    const many = repairConfirmDetail({
      changes: [change(3), change(9)],
      converted: [conversion(4), conversion(12)],
      skipped: [
        { line: 5, reason: 'x' },
        { line: 6, reason: 'y' },
      ],
    });
    assert.match(
      many,
      /^2 lines get a new parentUuid; 2 tool results whose call is gone become text blocks saying so \(lines 4, 12\);/,
    );
    assert.match(many, / 2 lines are left as they are\. /);
    assert.match(
      repairConfirmDetail({ changes: [change(3)], converted: [], skipped: [{ line: 5, reason: 'x' }] }),
      /^1 line gets a new parentUuid; every other line stays byte-identical\. 1 line is left as it is\. /,
    );
  });

  it('the result: a fork names where it was written; in place names the backup of what it replaced', () => {
    const after = { reachableMessages: 336, totalMessages: 336, reachability: 1 } as DoctorReport;
    const base = { after, notes: [], sessionId: 's', backup: null } as unknown as RepairResult;
    assert.equal(
      repairResultText('/p/a.jsonl', { ...base, mode: 'fork', output: '/p/b.jsonl' }),
      'Repaired a.jsonl: resume now loads 336 of 336 messages (100%), written to b.jsonl.',
    );
    assert.equal(
      repairResultText('/p/a.jsonl', {
        ...base,
        mode: 'in-place',
        output: '/p/a.jsonl',
        backup: '/p/a.jsonl.bak-1',
        after: { ...after, reachableMessages: 335, reachability: 335 / 336 },
      }),
      'Repaired a.jsonl: resume now loads 335 of 336 messages (99.7%), repaired in place; the content it replaced ' +
        'is in a.jsonl.bak-1 (Restore From Backup puts it back).',
    );
  });

  it('a backup is said to come from whatever rewrote the transcript, a repair too', () => {
    assert.match(BACKUP_ORIGIN, /repair/);
    assert.match(BACKUP_ORIGIN, /in-place compaction/);
  });
});
