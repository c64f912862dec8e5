/**
 * First UI scenario, as a person would use the extension: open a Claude Code
 * transcript from the Explorer, then look for the extension's commands in
 * the command palette. Screenshots: test-results/screenshots/smoke-*.png.
 */
import * as assert from 'node:assert/strict';
import { Workbench, screenshotOnFailure } from '../support/workbench';

describe('UI smoke: Agent Compactor in the code-server workbench', function () {
  let wb: Workbench | undefined;

  before(async function () {
    this.timeout(180_000);
    wb = await Workbench.open();
  });

  afterEach(screenshotOnFailure(() => wb));

  after(async function () {
    this.timeout(60_000);
    await wb?.stop();
  });

  it('opens a transcript from the explorer', async function () {
    await wb!.openFileFromExplorer('example.jsonl');
    const tab = wb!.page.locator('.tabs-container .tab.active');
    assert.equal(await tab.getAttribute('data-resource-name'), 'example.jsonl');
    await wb!.screenshot('smoke-01-transcript-open');
  });

  it('lists Agent Compactor commands in the command palette', async function () {
    await wb!.openCommandPalette('Agent Compactor');
    const items = await wb!.quickPickItems();
    assert.ok(
      items.some((i) => i.startsWith('Agent Compactor')),
      `the palette shows an "Agent Compactor: ..." command; it shows: ${JSON.stringify(items)}`,
    );
    await wb!.screenshot('smoke-02-command-palette');
    await wb!.closeQuickInput();
  });
});
