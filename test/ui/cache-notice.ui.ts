/**
 * The optional cache-expiry notice (`agentCompactor.cacheExpiryNotice`) in the real workbench (code-server + headless
 * Chromium): a Claude Code session of the workspace's project is being written now, and its own records say its
 * prompt cache (written for 1 hour, last used 56 minutes ago) expires in about 4 minutes while its context is 60k
 * tokens. No clock is injected and the product has no test hook: the session's timestamps alone put the cache there.
 * The notice comes (it is due 5 minutes before a 1-hour cache expires) and says when the cache expires and what a
 * prompt sent after that re-writes and costs.
 *
 * Screenshot (test-results/screenshots/): cache-notice.png.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Workbench, screenshotOnFailure } from '../support/workbench';

const VIEWPORT = { width: 1400, height: 900 };
const ID = '7c0ffee0-0000-4000-8000-000000000056';
const CONTEXT = 60_000;
const TITLE = 'Refactor the billing module';

/** One turn whose reply wrote `CONTEXT` tokens to the 1-hour cache at `at`, in `cwd`. */
function session(cwd: string, at: number): string {
  const base = { isSidechain: false, sessionId: ID, cwd, version: '2.1.330', userType: 'external' };
  const iso = (ms: number) => new Date(ms).toISOString();
  return (
    [
      JSON.stringify({
        ...base,
        parentUuid: null,
        type: 'user',
        uuid: '00000000-0000-4000-8000-0000000000a1',
        timestamp: iso(at - 2000),
        message: { role: 'user', content: TITLE },
      }),
      JSON.stringify({
        ...base,
        parentUuid: '00000000-0000-4000-8000-0000000000a1',
        type: 'assistant',
        uuid: '00000000-0000-4000-8000-0000000000a2',
        timestamp: iso(at),
        requestId: 'req_notice_1',
        message: {
          id: 'msg_notice_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-6',
          content: [{ type: 'text', text: 'Done with the first part.' }],
          stop_reason: 'end_turn',
          usage: {
            input_tokens: 0,
            cache_creation_input_tokens: CONTEXT,
            cache_read_input_tokens: 0,
            output_tokens: 50,
            cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: CONTEXT },
          },
        },
      }),
    ].join('\n') + '\n'
  );
}

describe('UI: the notice before a large session’s prompt cache expires (by its own timestamps)', function () {
  this.timeout(180_000);
  let wb: Workbench;
  let configDir: string;

  before(async function () {
    configDir = Workbench.claudeConfigDir();
    wb = await Workbench.open({
      viewport: VIEWPORT,
      settings: { 'agentCompactor.cacheExpiryNotice': true },
      workspaceFiles: { 'README.md': '# billing\n' },
    });
  });

  afterEach(screenshotOnFailure(() => wb));

  after(async function () {
    this.timeout(60_000);
    await wb?.stop();
  });

  it('a session being written in the workspace project, its 1-hour cache 4 minutes from expiring: the notice says when and what it costs after', async () => {
    // Claude Code's folder for the workspace's project; the file appears now, as a session being written.
    const project = path.join(configDir, 'projects', wb.workspace.dir.replace(/[^a-zA-Z0-9]/g, '-'));
    fs.mkdirSync(project, { recursive: true });
    const lastReply = Date.now() - 56 * 60_000;
    const file = path.join(project, `${ID}.jsonl`);
    fs.writeFileSync(file, session(wb.workspace.dir, lastReply));
    // Its last line was appended 6 s ago: still live (modified within a minute), and already settled, so its cache is
    // read as soon as it is found (how long a file just written waits is test/unit/live-settled.test.ts).
    const appended = new Date(Date.now() - 6_000);
    fs.utimesSync(file, appended, appended);
    // A workspace holding no transcript does not wake the extension by itself: the user opens its view.
    await wb.runCommand('Agent Compactor: Refresh Sessions');
    const until = new Date(lastReply + 60 * 60_000).toISOString().slice(11, 16);
    const notice = await wb.waitForNotification(`${TITLE}: the prompt cache expires at ${until} UTC`, 90_000);
    assert.match(
      notice.message,
      new RegExp(
        `^${TITLE}: the prompt cache expires at ${until} UTC\\. A prompt sent after that re-writes 60k tokens, ≈ \\$[\\d.]+; one sent before reads them from the cache\\.`,
      ),
    );
    await wb.screenshot('cache-notice');
  });
});
