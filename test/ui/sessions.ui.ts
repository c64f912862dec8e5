/**
 * A user who lost part of a session on resume, in the real workbench (code-server + headless Chromium), driven only
 * through the UI: the **Sessions** view lists the sessions of a fake Claude Code config folder (CLAUDE_CONFIG_DIR,
 * a few projects copied from the shared fixtures), the user filters it to a project, opens the broken session (a copy
 * with two assistant lines removed from the middle of its main chain), reads its **Resume Health** line in the Rounds
 * tree, clicks it to see the problem in the Problems panel, runs **Repair Session** from the line's inline action,
 * confirms the fork in the modal, and is offered **Resume in Claude Code**; the fork shows as healthy and appears
 * in the Sessions view.
 *
 * Screenshots (test-results/screenshots/): sessions-health.png, repair-confirm.png, sessions-repaired.png.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inspectFile } from '../../src/core/inspect';
import { Workbench, screenshotOnFailure } from '../support/workbench';
import { fixturesDir } from '../support/workspace';

const VIEWPORT = { width: 1400, height: 900 };
const BROKEN_ID = '5d7c1e2a-9b3f-4c8d-a1e6-0f2b4c6d8e10';
/** The broken session's project (its lines' `cwd`) and the others'. */
const BROKEN_CWD = '/home/me/code/checkout-service';
const OTHERS: { cwd: string; id: string; source: string }[] = [
  { cwd: '/home/me/code/web-app', id: '0a000000-0000-4000-8000-000000000001', source: 'example.jsonl' },
  { cwd: '/home/me/code/web-app', id: '0a000000-0000-4000-8000-000000000002', source: 'thinking.jsonl' },
  { cwd: '/home/me/code/infra', id: '0a000000-0000-4000-8000-000000000003', source: 'v1.0.98-small.jsonl' },
  { cwd: '/home/me/notes', id: '0a000000-0000-4000-8000-000000000004', source: 'with-compactions.jsonl' },
];

/** Claude Code's folder name for a project path. */
const folderOf = (cwd: string) => cwd.replace(/[^a-zA-Z0-9]/g, '-');

/**
 * A fixture's lines with their `cwd` set to `cwd` and their `sessionId` to `id`, as if the session had run there under
 * that id (lines under another id would be a fork's copies, which cost the fork nothing).
 */
function relocated(source: string, cwd: string, id: string): string {
  return fs
    .readFileSync(path.join(fixturesDir, 'claude-code', source), 'utf8')
    .replace(/"cwd":"[^"]*"/g, `"cwd":${JSON.stringify(cwd)}`)
    .replace(/"sessionId":"[^"]*"/g, `"sessionId":${JSON.stringify(id)}`);
}

function place(projects: string, cwd: string, id: string, text: string, mtime: Date): string {
  const dir = path.join(projects, folderOf(cwd));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${id}.jsonl`);
  fs.writeFileSync(file, text);
  fs.utimesSync(file, mtime, mtime);
  return file;
}

/**
 * The fixture without two assistant lines from the middle of its main chain (the fixture itself is untouched). The
 * place is one Claude Code's loader cannot bridge (resume loads only what follows it) and whose calls had no results
 * left to orphan, so a repair brings everything back: many other places in this file are bridged by the loader.
 */
async function brokenText(): Promise<{ text: string; removedUuids: string[] }> {
  const source = 'v2.1.97-live-after.jsonl';
  const a = await inspectFile(path.join(fixturesDir, 'claude-code', source), { subagents: false });
  const assistants = a.chain.main.map((i) => a.index.entries[i]).filter((e) => e.kind === 'assistant');
  const at = Math.round(assistants.length * 0.62);
  const removed = [assistants[at].line, assistants[at + 1].line];
  const lines = relocated(source, BROKEN_CWD, BROKEN_ID).split('\n');
  const removedUuids = removed.map((n) => (JSON.parse(lines[n - 1]) as { uuid: string }).uuid);
  return { text: lines.filter((_, k) => !removed.includes(k + 1)).join('\n'), removedUuids };
}

describe('UI: find a broken session, see its health, repair it', function () {
  this.timeout(120_000);
  let wb: Workbench;
  let configDir: string;
  let projects: string;
  let brokenFile: string;
  let brokenLines: string[] = [];
  let removedUuids: string[] = [];

  before(async function () {
    this.timeout(180_000);
    configDir = Workbench.claudeConfigDir();
    projects = path.join(configDir, 'projects');
    const t0 = Date.now() - 3 * 86_400_000;
    OTHERS.forEach((o, k) =>
      place(projects, o.cwd, o.id, relocated(o.source, o.cwd, o.id), new Date(t0 + k * 3_600_000)),
    );
    const broken = await brokenText();
    removedUuids = broken.removedUuids;
    brokenLines = broken.text.split('\n');
    brokenFile = place(projects, BROKEN_CWD, BROKEN_ID, broken.text, new Date(Date.now() - 2 * 3_600_000));
    wb = await Workbench.open({
      viewport: VIEWPORT,
      workspaceFiles: { 'README.md': '# a project\n' },
    });
  });

  afterEach(screenshotOnFailure(() => wb));

  after(async function () {
    this.timeout(60_000);
    await wb?.stop();
  });

  const sidebar = () => wb.page.locator('.part.sidebar');
  /** A view of the side bar by its title ("Sessions", "Rounds"). */
  const pane = (title: string) =>
    sidebar().locator('.pane', {
      has: wb.page.locator('.pane-header h3.title', { hasText: new RegExp(`^${title}$`, 'i') }),
    });
  const rows = (title: string) => pane(title).locator('.monaco-list-row');

  /** A row's label without the fill and cost a session row starts with. */
  const titleOf = (label: string) => label.replace(/^(\d+% · )?(≈?\$[\d.,]+ · )?/, '');

  async function rowTexts(title: string): Promise<{ label: string; description: string }[]> {
    return rows(title).evaluateAll((els) =>
      els.map((el) => ({
        label: (el.querySelector('.label-name')?.textContent ?? '').trim(),
        description: (el.querySelector('.label-description')?.textContent ?? '').trim(),
      })),
    );
  }

  it('the Sessions view lists the projects of the config folder by their real paths', async () => {
    // The container is opened from the activity bar, as a user would.
    await wb.page.locator('.activitybar .action-item .action-label[aria-label^="Agent Compactor"]').click();
    await rows('Sessions').first().waitFor({ state: 'visible', timeout: 60_000 });
    // At the side bar's default width the end of a row is cut: the session's fill and cost, once read in the
    // background (its project, the newest, is expanded), start the row, where the cut does not reach.
    const session = rows('Sessions')
      .filter({ has: wb.page.locator('.label-name', { hasText: /^\d+% · \$/ }) })
      .first();
    await session.waitFor({ state: 'visible', timeout: 60_000 });
    const cut = await session.evaluate((el) => {
      const box = el.querySelector('.monaco-icon-label-container')!.getBoundingClientRect();
      const desc = el.querySelector('.label-name')!;
      const text = document.createTreeWalker(desc, NodeFilter.SHOW_TEXT).nextNode()!;
      const figures = /^\d+% · \$[\d.]+/.exec(desc.textContent ?? '')![0];
      const range = document.createRange();
      range.setStart(text, 0);
      range.setEnd(text, figures.length);
      return {
        figures,
        right: range.getBoundingClientRect().right,
        visibleTo: box.right,
        width: document.querySelector('.part.sidebar')!.getBoundingClientRect().width,
      };
    });
    assert.ok(
      cut.right <= cut.visibleTo,
      `"${cut.figures}" is shown whole at the default width (${cut.width} px side bar): ends at ${cut.right}, the row is cut at ${cut.visibleTo}`,
    );
    await wb.screenshot('sessions-default-width');
    await wb.resizeSidebar(640);
    const projectRow = (name: string) =>
      rows('Sessions').filter({ has: wb.page.locator('.label-name', { hasText: new RegExp(`^${name}$`) }) });
    await projectRow('checkout-service').waitFor({ state: 'visible', timeout: 30_000 });
    const shown = await rowTexts('Sessions');
    for (const [name, cwd, n] of [
      ['checkout-service', BROKEN_CWD, 1],
      ['web-app', '/home/me/code/web-app', 2],
      ['infra', '/home/me/code/infra', 1],
      ['notes', '/home/me/notes', 1],
    ] as const) {
      const row = shown.find((r) => r.label === name);
      assert.ok(row, `project ${name} is listed: ${JSON.stringify(shown)}`);
      assert.equal(row.description, `${cwd} · ${n} session${n === 1 ? '' : 's'}`);
    }
    // The newest session's project comes first and is expanded: the broken session is the newest.
    assert.equal(shown[0].label, 'checkout-service');
    // Fill and cost first, then the title (its first prompt); idle time, size and rounds after (read in the
    // background: the project is expanded). Its prompt cache expired: 2 hours idle, 85k tokens.
    assert.match(shown[1].label, /^\d+% · \$[\d.]+ · --history$/, 'its session is titled by its first prompt');
    assert.match(shown[1].description, /^2 hours ago · [\d.]+ (KiB|MiB) · \d+ rounds? · cache expired$/);
  });

  it('filters to a project and opens the broken session: Resume Health in the Rounds tree, the problem in the Problems panel', async () => {
    await wb.openCommandPalette('Agent Compactor: Filter Sessions…');
    await wb.page
      .locator('.quick-input-widget .quick-input-list .monaco-list-row')
      .filter({ has: wb.page.locator('.label-name', { hasText: /^Agent Compactor: Filter Sessions…$/ }) })
      .first()
      .click({ timeout: 15_000 });
    await wb.page
      .locator('.quick-input-widget .quick-input-title', { hasText: 'Filter Sessions' })
      .waitFor({ state: 'visible', timeout: 15_000 });
    const box = wb.page.locator('.quick-input-widget input.input');
    await box.waitFor({ state: 'visible', timeout: 15_000 });
    await box.fill('checkout');
    await box.press('Enter');
    await wb.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
    await pane('Sessions')
      .locator('.pane-header', { hasText: 'filter: checkout' })
      .waitFor({ state: 'visible', timeout: 10_000 });
    await wb.page.waitForFunction(() => document.querySelectorAll('.part.sidebar .pane .monaco-list-row').length > 0);
    const filtered = await rowTexts('Sessions');
    assert.deepEqual(
      filtered.map((r) => titleOf(r.label)),
      ['checkout-service', '--history'],
      JSON.stringify(filtered),
    );

    await rows('Sessions').filter({ hasText: '--history' }).first().click();
    const health = rows('Rounds')
      .filter({ hasText: /^Resume Health: / })
      .first();
    await health.waitFor({ state: 'visible', timeout: 60_000 });
    const label = (await health.locator('.label-name').textContent())?.trim() ?? '';
    const m = /^Resume Health: ([\d.]+)% loaded \((\d+)\/(\d+) messages\) · (\d+) problems?( · request invalid)?$/.exec(
      label,
    );
    assert.ok(m, `the health line: ${label}`);
    assert.ok(Number(m[1]) < 100 && Number(m[2]) < Number(m[3]), `resume loads less than the session holds: ${label}`);
    const header = rows('Rounds')
      .filter({ hasText: `${BROKEN_ID}.jsonl` })
      .first();
    await header.waitFor({ state: 'visible', timeout: 10_000 });
    await wb.screenshot('sessions-health');

    // The health line opens the Problems panel, which names the break at its line.
    await health.click();
    const markers = wb.page.locator('.markers-panel .monaco-list-row');
    await markers
      .filter({ hasText: /Resume: / })
      .first()
      .waitFor({ state: 'visible', timeout: 20_000 });
    const problems = await markers.evaluateAll((els) =>
      els.map((el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim()),
    );
    const file = problems.find((p) => p.includes(`${BROKEN_ID}.jsonl`));
    assert.ok(file, `the transcript is listed in the Problems panel: ${JSON.stringify(problems)}`);
    const dangling = problems.find(
      (p) =>
        /Resume: parentUuid .* names no entry in the file; .*walk from the leaf stops here/.test(p) &&
        /\[Ln \d+, Col \d+\]/.test(p),
    );
    assert.ok(dangling, `a broken parent link at its line: ${JSON.stringify(problems)}`);
    const line = Number(/\[Ln (\d+),/.exec(dangling)![1]);
    // The line named is one whose parent is a removed line.
    const parent = (JSON.parse(brokenLines[line - 1]) as { parentUuid?: string }).parentUuid ?? '';
    assert.ok(removedUuids.includes(parent), `line ${line} points to a removed line (${parent})`);
    console.log(`      ${label}; ${dangling}`);
  });

  it('Repair Session from the health line: confirm the fork, offered Resume; the fork is healthy and listed', async () => {
    const health = rows('Rounds')
      .filter({ hasText: /^Resume Health: / })
      .first();
    await health.hover();
    await health.locator('.action-label[aria-label^="Repair Session"]').click({ timeout: 10_000 });
    const dialog = wb.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 30_000 });
    const text = (await dialog.textContent()) ?? '';
    const m = new RegExp(
      `Repair ${BROKEN_ID}\\.jsonl\\? Resume loads (\\d+) of (\\d+) messages now, (\\d+) of (\\d+) after\\.`,
    ).exec(text);
    assert.ok(m, `the confirmation names the figures: ${text}`);
    assert.ok(Number(m[1]) < Number(m[2]), 'fewer now');
    assert.equal(m[3], m[4], 'all after');
    assert.match(text, /(1 line gets|[\d,]+ lines get) a new parentUuid; every other line stays byte-identical/);
    await wb.screenshot('repair-confirm');
    const before = fs.readFileSync(brokenFile);
    await dialog.locator('.dialog-buttons .monaco-button', { hasText: /^Repair as Fork$/ }).click();
    await dialog.waitFor({ state: 'hidden', timeout: 10_000 });

    const done = new RegExp(
      `Repaired ${BROKEN_ID}\\.jsonl: resume now loads (\\d+) of (\\d+) messages \\(100%\\), written to ([0-9a-f-]{36})\\.jsonl\\.`,
    );
    const toast = wb.page.locator('.notification-toast', { hasText: done }).first();
    await toast.waitFor({ state: 'visible', timeout: 60_000 });
    const r = done.exec(((await toast.locator('.notification-list-item-message').textContent()) ?? '').trim());
    assert.ok(r, 'the result names the new session');
    assert.equal(r[1], m[3], 'as many messages as the confirmation promised');
    await toast
      .locator('.monaco-button', { hasText: 'Resume in Claude Code' })
      .waitFor({ state: 'visible', timeout: 5_000 });
    assert.deepEqual(fs.readFileSync(brokenFile), before, 'the broken session is untouched');
    const fork = `${r[3]}.jsonl`;

    // The Rounds tree shows the fork, healthy.
    await rows('Rounds').filter({ hasText: fork }).first().waitFor({ state: 'visible', timeout: 30_000 });
    const healed = rows('Rounds')
      .filter({ hasText: /^Resume Health: 100% loaded \(\d+\/\d+ messages\) · healthy$/ })
      .first();
    await healed.waitFor({ state: 'visible', timeout: 30_000 });
    // The fork is a new session of the same project: the Sessions view picks it up by watching the folder.
    const sessions = rows('Sessions').filter({ hasText: '--history' });
    await wb.page.waitForFunction(
      () =>
        [...document.querySelectorAll('.part.sidebar .pane .monaco-list-row .label-name')].filter((e) =>
          /(^|· )--history$/.test(e.textContent?.trim() ?? ''),
        ).length >= 2,
      undefined,
      { timeout: 30_000 },
    );
    assert.ok((await sessions.count()) >= 2, 'the original and its fork');
    // The fork is this window's own write, not a session an agent is writing now.
    const listed = await rowTexts('Sessions');
    assert.ok(!listed.some((r) => /writing now/.test(r.description)), `no row marked live: ${JSON.stringify(listed)}`);
    const project = (await rowTexts('Sessions')).find((x) => x.label === 'checkout-service');
    assert.equal(project?.description, `${BROKEN_CWD} · 2 sessions`);
    await wb.screenshot('sessions-repaired');
    console.log(`      repaired into ${fork}: ${r[1]} of ${r[2]} messages on resume`);
  });
});
