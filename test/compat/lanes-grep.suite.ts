// A suite for lanes.test.ts (not a test file of the tier: its name does not end in .test.ts): three lane jobs that
// each append their name to the file LANES_GREP_RECORD names, so the run that loads it can see which jobs started.
import { appendFileSync } from 'node:fs';
import { Lanes } from './lanes';

const record = process.env.LANES_GREP_RECORD;
if (!record) throw new Error('LANES_GREP_RECORD is not set');

describe('lanes under a selection', function () {
  const lanes = new Lanes<number>();
  before(() => lanes.run([1, 2]));
  for (const name of ['alpha job', 'beta job', 'gamma job'])
    lanes.it(name, async () => {
      appendFileSync(record, `${name}\n`);
      await Promise.resolve();
    });
});
