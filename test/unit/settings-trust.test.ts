// Settings that decide where transcript content and the API key go (or which program runs) belong to the user: a
// workspace's .vscode/settings.json can neither set them (manifest scope) nor have its value read (userScopedValue).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  readSettings,
  userScopedValue,
  USER_ONLY_SETTINGS,
  type InspectedSetting,
} from '../../src/extension/model/settings';
import { priceTableFromSetting } from '../../src/extension/model/mapState';
import { DEFAULT_PRICES } from '../../src/core/cost';

interface SettingSchema {
  scope?: string;
}

const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, SettingSchema> } };
};
const properties = manifest.contributes.configuration.properties;
/** Scopes a workspace or folder settings file cannot set. */
const SAFE_SCOPES = new Set(['application', 'machine']);

describe("settings: where content and keys go is the user's choice", () => {
  it('every setting naming a host, a summarizer, a model or a program path has the application or machine scope', () => {
    // Found by the settings' names, not only by the list in the code: a new one of these kinds must join it.
    const named = Object.keys(properties).filter((key) =>
      /(url|host|endpoint|summarizer|model|path|executable|command)$/i.test(key),
    );
    for (const key of [
      'agentCompactor.baseUrl',
      'agentCompactor.summarizer',
      'agentCompactor.model',
      'agentCompactor.claudePath',
      'agentCompactor.codexPath',
    ]) {
      assert.ok(named.includes(key), `${key} is recognised as a trust setting`);
    }
    for (const key of named) {
      assert.ok(
        USER_ONLY_SETTINGS.includes(key.replace(/^agentCompactor\./, '')),
        `${key} is read through userScopedValue`,
      );
    }
    for (const key of USER_ONLY_SETTINGS) {
      const s = properties[`agentCompactor.${key}`];
      assert.ok(s, `agentCompactor.${key} is in package.json`);
      assert.ok(SAFE_SCOPES.has(s.scope ?? 'window'), `agentCompactor.${key} has scope ${s.scope ?? '(none: window)'}`);
    }
  });

  it('userScopedValue takes the user value, else the default, and ignores workspace and folder values', () => {
    const hostile: InspectedSetting = {
      defaultValue: '',
      globalValue: undefined,
      workspaceValue: 'https://attacker.example',
      workspaceFolderValue: 'https://attacker.example/folder',
    };
    assert.equal(userScopedValue(hostile), '');
    assert.equal(userScopedValue({ ...hostile, globalValue: 'https://proxy.example' }), 'https://proxy.example');
    assert.equal(userScopedValue({ defaultValue: 'claude', workspaceValue: '/tmp/evil' }), 'claude');
    assert.equal(userScopedValue(undefined), undefined);
    // A user who set the value to the empty string keeps it (globalValue '' is a value, not "unset").
    assert.equal(userScopedValue({ defaultValue: 'claude', globalValue: '', workspaceValue: '/tmp/evil' }), '');
  });

  it('settings read through userScopedValue ignore a workspace that picks the summarizer, model, host and program', () => {
    const inspected: Record<string, InspectedSetting> = {
      summarizer: { defaultValue: 'extractive', workspaceValue: 'anthropic' },
      model: { defaultValue: '', workspaceValue: 'claude-expensive' },
      baseUrl: { defaultValue: '', workspaceValue: 'https://attacker.example' },
      claudePath: { defaultValue: 'claude', workspaceFolderValue: '/tmp/evil' },
      codexPath: { defaultValue: 'codex', workspaceValue: '/tmp/evil-codex' },
      targetTokens: { defaultValue: 120_000, workspaceValue: 50_000 },
    };
    // The getter getSettings builds: the user-only keys through userScopedValue, the rest as VS Code merges them.
    const merged = (key: string): unknown =>
      inspected[key]?.workspaceFolderValue ?? inspected[key]?.workspaceValue ?? inspected[key]?.defaultValue;
    const s = readSettings((key) => (USER_ONLY_SETTINGS.includes(key) ? userScopedValue(inspected[key]) : merged(key)));
    assert.equal(s.summarizer, 'extractive');
    assert.equal(s.model, undefined);
    assert.equal(s.baseUrl, undefined);
    assert.equal(s.claudePath, 'claude');
    assert.equal(s.codexPath, 'codex');
    assert.equal(s.compact.targetTokens, 50_000, 'a workspace still sets the compaction figures');
  });

  it('a workspace cannot choose an agent-CLI summarizer either; the user can', () => {
    for (const chosen of ['claude-cli', 'codex-cli']) {
      const inspected: Record<string, InspectedSetting> = {
        summarizer: { defaultValue: 'extractive', workspaceValue: chosen },
      };
      assert.equal(
        readSettings((key) => (USER_ONLY_SETTINGS.includes(key) ? userScopedValue(inspected[key]) : undefined))
          .summarizer,
        'extractive',
      );
      const user: Record<string, InspectedSetting> = {
        summarizer: { defaultValue: 'extractive', globalValue: chosen },
      };
      assert.equal(
        readSettings((key) => (USER_ONLY_SETTINGS.includes(key) ? userScopedValue(user[key]) : undefined)).summarizer,
        chosen,
      );
    }
    // Restricted Mode ignores workspace values of both program paths.
    const restricted = (
      manifest as unknown as { capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } } }
    ).capabilities.untrustedWorkspaces.restrictedConfigurations;
    for (const key of ['agentCompactor.summarizer', 'agentCompactor.claudePath', 'agentCompactor.codexPath'])
      assert.ok(restricted.includes(key), key);
  });

  it('a workspace cannot make compaction write in place, skip the summary review, or change the prices shown; the user can', () => {
    // The manifest: VS Code itself refuses these in a workspace's settings file.
    for (const key of ['writeMode', 'reviewSummary', 'prices']) {
      assert.ok(USER_ONLY_SETTINGS.includes(key), `${key} is read through userScopedValue`);
      assert.ok(SAFE_SCOPES.has(properties[`agentCompactor.${key}`].scope ?? 'window'), `agentCompactor.${key} scope`);
    }
    const read = (inspected: Record<string, InspectedSetting>) =>
      readSettings((key) => (USER_ONLY_SETTINGS.includes(key) ? userScopedValue(inspected[key]) : undefined));
    const workspace = read({
      writeMode: { defaultValue: 'fork', workspaceValue: 'inPlace' },
      reviewSummary: { defaultValue: true, workspaceFolderValue: false },
    });
    assert.equal(workspace.writeMode, 'fork');
    assert.equal(workspace.reviewSummary, true);
    const user = read({
      writeMode: { defaultValue: 'fork', globalValue: 'inPlace', workspaceValue: 'fork' },
      reviewSummary: { defaultValue: true, globalValue: false },
    });
    assert.equal(user.writeMode, 'inPlace');
    assert.equal(user.reviewSummary, false);
    // Prices as getPrices reads them: the user's table, never a workspace's.
    const cheap = { 'claude-opus-4-5': { input: 0, output: 0 } };
    const table = (i: InspectedSetting) => priceTableFromSetting(userScopedValue(i)).table;
    assert.equal(table({ defaultValue: {}, workspaceValue: cheap }), DEFAULT_PRICES);
    assert.notEqual(table({ defaultValue: {}, globalValue: cheap }), DEFAULT_PRICES);
  });
});
