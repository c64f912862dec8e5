/**
 * The Anthropic summarizer in a real extension host, against the local fake
 * Messages API (test/support/fake-anthropic.ts, started inside the host): the
 * key is set through the Set API Key command and kept in SecretStorage; it
 * reaches the API and nowhere else (settings, settings.json, the log file of
 * the output channel); a prompt-too-long answer makes the extension retry with
 * the oldest rounds cut.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { checkResumable } from '../../src/core/compact/validate';
import type { CompactResult } from '../../src/core/compact/types';
import type { AgentCompactorApi } from '../../src/extension/api';
import { estimateRequestSize, startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic';
import { extensionLogFiles, getApi, showTranscript, userDataDir, waitFor, withTimeout, workspaceDir } from './helpers';

const KEY = `sk-ant-api03-hosttest-${Math.random().toString(36).slice(2)}-${Date.now()}`;
const TARGET = 20_000;

/** A pass-through proxy in front of the fake that records the credentials it forwards (the fake redacts them). */
async function startKeyRecorder(target: string): Promise<{ url: string; keys: string[]; close(): Promise<void> }> {
  const keys: string[] = [];
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const k = req.headers['x-api-key'];
    if (typeof k === 'string') keys.push(k);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    if (bearer) keys.push(bearer[1]);
    const fwd = http.request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    fwd.on('error', () => res.destroy());
    req.pipe(fwd);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    keys,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('host: Anthropic summarizer against the fake Messages API; API key in SecretStorage only', function () {
  this.timeout(180_000);
  let api: AgentCompactorApi;
  let fake: FakeAnthropic;
  let proxy: Awaited<ReturnType<typeof startKeyRecorder>>;
  let file: string;
  const cfg = () => vscode.workspace.getConfiguration('agentCompactor');

  before(async () => {
    api = await getApi();
    file = path.join(workspaceDir(), 'with-compactions.jsonl');
    await showTranscript(api, file);
    fake = await startFakeAnthropic();
    proxy = await startKeyRecorder(fake.url);
  });

  after(async () => {
    await cfg().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await cfg().update('summarizer', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('agentCompactor.clearApiKey', {}).then(undefined, () => undefined);
    await proxy?.close();
    await fake?.close();
  });

  it('Set API Key stores the key (SecretStorage), nothing secret in settings', async () => {
    assert.equal(
      process.env.ANTHROPIC_API_KEY,
      undefined,
      'the extension host has no ANTHROPIC_API_KEY (the key can only come from SecretStorage)',
    );
    const ok = await withTimeout(
      vscode.commands.executeCommand<boolean>('agentCompactor.setApiKey', { apiKey: KEY }),
      30_000,
      'setApiKey',
    );
    assert.equal(ok, true);
    await cfg().update('baseUrl', proxy.url, vscode.ConfigurationTarget.Global);
    await cfg().update('summarizer', 'anthropic', vscode.ConfigurationTarget.Global);
    await waitFor(
      () => cfg().get('baseUrl') === proxy.url && cfg().get('summarizer') === 'anthropic',
      10_000,
      'settings to apply',
    );

    // Nowhere in the configuration (every section) ...
    const all = JSON.stringify(vscode.workspace.getConfiguration());
    assert.ok(all.length > 1000, 'the configuration dump is not empty');
    assert.ok(!all.includes(KEY), 'the key is not in any setting');
    assert.ok(!JSON.stringify(cfg()).includes('sk-ant'), 'no key-like value in agentCompactor.*');
    // ... nor in the settings files on disk.
    const ud = userDataDir();
    const settingsFiles = [
      ud && path.join(ud, 'User', 'settings.json'),
      path.join(workspaceDir(), '.vscode', 'settings.json'),
    ].filter((f): f is string => !!f && fs.existsSync(f));
    assert.ok(ud ? settingsFiles.length >= 1 : true, 'the user settings.json is reachable');
    for (const f of settingsFiles) {
      const text = fs.readFileSync(f, 'utf8');
      assert.ok(!text.includes(KEY), `${f} does not hold the key`);
      if (f.includes('User'))
        assert.ok(text.includes(proxy.url), `${f} is the settings file VS Code writes (it has the base URL)`);
    }
    console.log(`      checked ${settingsFiles.length} settings file(s) and the configuration (${all.length} chars)`);
  });

  it('compacts with the Anthropic summary; the stored key is what the API receives', async () => {
    fake.clearRequests();
    const res = await withTimeout(
      vscode.commands.executeCommand<CompactResult>('agentCompactor.compact', {
        file,
        confirm: false,
        targetTokens: TARGET,
        out: path.join(workspaceDir(), 'anthropic.compacted.jsonl'),
        open: false,
      }),
      120_000,
      'compact (anthropic)',
    );
    console.log(`      attempts: ${res.attempts.map((a) => `${a.strategy}:${a.outcome}`).join(', ')}`);
    assert.equal(res.attempts.length, 1);
    assert.equal(res.attempts[0].strategy, 'anthropic');
    assert.equal(res.attempts[0].outcome, 'ok');
    const reqs = fake.messageRequests();
    assert.ok(reqs.length >= 1, 'the fake Messages API was called');
    // The SDK sends the key as `x-api-key` or `Authorization: Bearer` depending on its version.
    assert.ok(
      reqs[0].headers['x-api-key'] === true || reqs[0].headers.authorization === true,
      'with a credential header',
    );
    assert.ok(
      proxy.keys.length >= 1 && proxy.keys.every((k) => k === KEY),
      'the key sent is exactly the one set through the command',
    );
    assert.ok(
      fs.readFileSync(res.output, 'utf8').includes('FAKE-SUMMARY-MARKER'),
      "the API's summary is in the result",
    );
    assert.equal((await checkResumable(res.output, { expectSummaryFirst: true })).ok, true);
  });

  it('prompt too long: retries with the oldest rounds cut, then succeeds', async () => {
    fake.clearRequests();
    let limit: number | undefined;
    fake.setScenario((req) => {
      // The first request is ~30% over the limit; the truncated retry fits.
      limit ??= Math.floor(estimateRequestSize(req.body).estimatedTokens * 0.7);
      return { kind: 'ptlUntilUnder', maxEstimatedTokens: limit };
    });
    try {
      const res = await withTimeout(
        vscode.commands.executeCommand<CompactResult>('agentCompactor.compact', {
          file,
          confirm: false,
          targetTokens: TARGET,
          out: path.join(workspaceDir(), 'anthropic-ptl.compacted.jsonl'),
          open: false,
        }),
        120_000,
        'compact (anthropic, prompt too long)',
      );
      console.log(
        `      attempts: ${res.attempts.map((a) => `${a.strategy}:${a.outcome}${a.droppedRounds ? ` (-${a.droppedRounds} rounds)` : ''}`).join(', ')}`,
      );
      const reqs = fake.messageRequests();
      assert.ok(reqs.length >= 2, `at least one retry (${reqs.length} requests)`);
      assert.equal(reqs[0].response?.status, 400, 'the first request got prompt-too-long');
      assert.equal(reqs[reqs.length - 1].response?.status, 200, 'the last one succeeded');
      assert.ok(reqs[reqs.length - 1].bodyBytes < reqs[0].bodyBytes, 'the retry sent less');
      assert.equal(res.attempts[0].outcome, 'prompt-too-long');
      const last = res.attempts[res.attempts.length - 1];
      assert.equal(last.strategy, 'anthropic-truncated');
      assert.equal(last.outcome, 'ok');
      assert.ok(res.plan.droppedRounds > 0, 'rounds cut from the summary request are dropped');
      assert.ok(fs.readFileSync(res.output, 'utf8').includes('FAKE-SUMMARY-MARKER'));
      assert.equal((await checkResumable(res.output, { expectSummaryFirst: true })).ok, true);
    } finally {
      fake.setScenario({ kind: 'text' });
    }
  });

  it('an API error quoting the key: the error is thrown; the key is not in the log file of the output channel', async () => {
    fake.setScenario({ kind: 'authentication', message: `the key ${KEY} was rejected` });
    try {
      await assert.rejects(
        withTimeout(
          vscode.commands.executeCommand('agentCompactor.compact', {
            file,
            confirm: false,
            targetTokens: TARGET,
            out: path.join(workspaceDir(), 'auth.compacted.jsonl'),
            open: false,
          }),
          120_000,
          'compact (auth error)',
        ),
        (e: { code?: string }) => e.code === 'auth',
      );
    } finally {
      fake.setScenario({ kind: 'text' });
    }
    assert.ok(!fs.existsSync(path.join(workspaceDir(), 'auth.compacted.jsonl')), 'nothing written on failure');
    // The channel's file: VS Code writes LogOutputChannels to <context.logUri>/<name>.log (buffered: poll).
    const logText = await waitFor(
      () => {
        const files = extensionLogFiles();
        const text = files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
        return /Anthropic API key stored in secret storage/.test(text) && /Compaction failed/.test(text) ? text : '';
      },
      30_000,
      'the output channel log file to hold the key-stored and failure lines',
    );
    assert.ok(logText.includes('[auth]'), 'the auth failure is logged');
    assert.match(
      logText,
      /the key (sk-ant-)?\[redacted\] was rejected/,
      "the API's message is logged with the key scrubbed",
    );
    assert.ok(!logText.includes(KEY), 'the key never reaches the log');
    assert.ok(!/sk-ant-api03-hosttest/.test(logText), 'not even a prefix of it');
    console.log(
      `      log file(s): ${extensionLogFiles()
        .map((f) => path.relative(userDataDir() ?? '/', f))
        .join(', ')} (${logText.length} chars, key absent)`,
    );
  });

  it('Clear API Key removes it: the Anthropic path then falls back to the offline summary', async () => {
    assert.equal(await vscode.commands.executeCommand('agentCompactor.clearApiKey', {}), true);
    assert.equal(
      await vscode.commands.executeCommand('agentCompactor.clearApiKey', {}),
      false,
      'nothing left to clear',
    );
    fake.clearRequests();
    const res = await withTimeout(
      vscode.commands.executeCommand<CompactResult>('agentCompactor.compact', {
        file,
        confirm: false,
        targetTokens: TARGET,
        out: path.join(workspaceDir(), 'nokey.compacted.jsonl'),
        open: false,
      }),
      120_000,
      'compact without key',
    );
    assert.equal(fake.messageRequests().length, 0, 'no API call without a key');
    assert.equal(res.attempts[res.attempts.length - 1].strategy, 'extractive');
    assert.match(res.attempts[res.attempts.length - 1].detail, /no Anthropic API key/);
  });
});
