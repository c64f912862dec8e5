// The format layer on every real fixture of every agent: detection by content (not by name), version, rounds with
// calls and outputs together, usage truth counted once, earlier compactions as boundaries, malformed lines kept
// and located, incremental reads equal to full ones, and clear refusals of what no reader knows.
import { strict as assert } from 'node:assert';
import { appendFileSync, copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectFile, reinspect } from '../../src/core/inspect';
import { NotATranscriptError } from '../../src/core/transcript';
import { capabilitiesOf, unsupported } from '../../src/core/formats/registry';
import { messageElements } from '../../src/core/formats/documents';
import { agentFixtures, claudeFixtureDir, sharedFixtures } from '../support/fixtures';
import { tempDir } from '../support/temp';

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

function unanswered(report: Awaited<ReturnType<typeof inspectFile>>['report']): string[] {
  const answered = new Set(report.rounds.flatMap((r) => r.toolResults.map((t) => t.id)));
  return report.rounds.flatMap((r) => r.toolUses.map((t) => t.id)).filter((id) => !answered.has(id));
}

describe('format layer: Codex CLI rollouts', () => {
  let dir: string;
  before(() => (dir = tempDir('ac-formats-')));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const file of agentFixtures('codex')) {
    const name = file.split('/').pop()!;
    it(`${name}: read as Codex with its version, calls paired in rounds, usage counted once`, async () => {
      const records = lines(file);
      const { report, rounds, index } = await inspectFile(file);
      assert.equal(report.format.id, 'codex');
      assert.equal(report.format.version, records.filter((r) => r.type === 'session_meta').pop()!.payload.cli_version);
      assert.deepEqual(report.malformed, []);
      // Every run of model items (reasoning, messages, calls) between inputs is in one round, never split.
      const roundOfLine = new Map<number, number>();
      for (const r of rounds) for (const e of r.entries) roundOfLine.set(index.entries[e].line, r.index);
      let run: number | null = null;
      records.forEach((r, k) => {
        const t = r.type === 'response_item' ? r.payload.type : null;
        const model =
          t !== null &&
          (['reasoning', 'function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call'].includes(t) ||
            (t === 'message' && r.payload.role === 'assistant'));
        if (model) {
          const at = roundOfLine.get(k + 1);
          if (run !== null) assert.equal(at, run, `line ${k + 1} split from its response`);
          run = at ?? null;
        } else if (t !== null) run = null;
      });
      // Every call is answered in the round that made it, except calls the rollout itself never answered.
      const outputs = new Set(
        records
          .filter((r) => r.type === 'response_item' && /_output$/.test(r.payload.type))
          .map((r) => r.payload.call_id),
      );
      const neverAnswered = records
        .filter(
          (r) =>
            r.type === 'response_item' &&
            /call$/.test(r.payload.type) &&
            r.payload.call_id &&
            !outputs.has(r.payload.call_id),
        )
        .map((r) => r.payload.call_id);
      assert.deepEqual(unanswered(report).sort(), neverAnswered.sort());
      for (const r of report.rounds)
        for (const t of r.toolResults)
          assert.ok(
            r.toolUses.some((u) => u.id === t.id) ||
              !report.rounds.some((o) => o.index !== r.index && o.toolUses.some((u) => u.id === t.id)),
            `output ${t.id} separated from its call`,
          );
      // Usage: the newest token count's last_token_usage is the context; output tokens are summed once per request.
      const counts = records.filter(
        (r) => r.type === 'event_msg' && r.payload.type === 'token_count' && r.payload.info?.last_token_usage,
      );
      const distinct = counts.filter(
        (r, k) =>
          k === 0 ||
          r.payload.info.total_token_usage.total_tokens !== counts[k - 1].payload.info.total_token_usage.total_tokens,
      );
      // (a count before the first response belongs to no request of the conversation)
      const lastCount = counts[counts.length - 1].payload.info.last_token_usage;
      if (report.totals.contextTokens !== null) assert.equal(report.totals.contextTokens, lastCount.input_tokens);
      assert.equal(
        report.totals.outputTokens,
        distinct.reduce((s, r) => s + r.payload.info.last_token_usage.output_tokens, 0),
      );
      // Earlier compactions are boundaries; the active context starts at the newest.
      const compactedLines = records.map((r, k) => (r.type === 'compacted' ? k + 1 : 0)).filter(Boolean);
      assert.deepEqual(
        report.compactBoundaries.map((b) => b.line),
        compactedLines,
      );
      if (compactedLines.length)
        assert.ok(
          rounds.filter((r) => r.inContext).every((r) => r.firstLine >= compactedLines[compactedLines.length - 1]),
        );
      assert.equal(index.format.container, 'jsonl');
      const can = capabilitiesOf(report.format);
      assert.deepEqual([can.inspect, can.plan, can.compact, can.resume], [true, true, true, true]);
      // What a Codex session cannot have, each with its reason: previews and a fresh file, resume health and repair.
      for (const what of ['previews', 'fresh', 'doctor', 'repair'] as const) {
        assert.equal(can[what], false, what);
        assert.match(unsupported(report.format, what) ?? '', /Codex/);
      }
    });
  }

  it('detects Codex by content under any name, keeps a malformed line located, and reads appends incrementally', async () => {
    const src = agentFixtures('codex').find((f) => f.includes('0.140'))!;
    const text = readFileSync(src, 'utf8').split('\n');
    const file = join(dir, 'events.json');
    writeFileSync(file, [...text.slice(0, 100), '{not json', ...text.slice(100, 200)].join('\n') + '\n');
    const first = await inspectFile(file);
    assert.equal(first.report.format.id, 'codex');
    assert.deepEqual(
      first.report.malformed.map((m) => m.line),
      [101],
    );
    appendFileSync(file, text.slice(200).join('\n'));
    const next = await reinspect(first);
    const full = await inspectFile(file);
    assert.deepEqual(JSON.parse(JSON.stringify(next.report)), JSON.parse(JSON.stringify(full.report)));
    assert.equal(full.report.rounds.length, (await inspectFile(src)).report.rounds.length);
  });

  it('re-reads a half-written last record once it is complete, with the same rounds as a full read', async () => {
    const src = agentFixtures('codex').find((f) => f.includes('0.142.jsonl'))!;
    const bytes = readFileSync(src);
    const cut = bytes.indexOf(10, Math.floor(bytes.length / 2)) + 40;
    const file = join(dir, 'live.jsonl');
    writeFileSync(file, bytes.subarray(0, cut));
    const first = await inspectFile(file);
    assert.deepEqual(
      first.report.malformed.map((m) => m.line),
      [first.index.lineCount],
    );
    appendFileSync(file, bytes.subarray(cut));
    const next = await reinspect(first);
    assert.deepEqual(
      JSON.parse(JSON.stringify(next.report.rounds)),
      JSON.parse(JSON.stringify((await inspectFile(src)).report.rounds)),
    );
  });
});

describe('format layer: Copilot CLI, Gemini CLI, Cline, Claude Code as a JSON array', () => {
  for (const file of agentFixtures('copilot-cli')) {
    it(`${file.split('/').pop()}: Copilot CLI events, one round per assistant message, calls answered`, async () => {
      const events = lines(file);
      const { report } = await inspectFile(file);
      assert.equal(report.format.id, 'copilot-cli');
      assert.equal(report.format.version, events[0].data.copilotVersion);
      assert.equal(
        report.rounds.filter((r) => r.messageId !== null).length,
        new Set(events.filter((e) => e.type === 'assistant.message').map((e) => e.data.messageId)).size,
      );
      assert.equal(
        report.totals.toolUses,
        events
          .filter((e) => e.type === 'assistant.message')
          .reduce((s, e) => s + (e.data.toolRequests?.length ?? 0), 0),
      );
      const completed = new Set(
        events.filter((e) => e.type === 'tool.execution_complete').map((e) => e.data.toolCallId),
      );
      assert.deepEqual(
        unanswered(report),
        report.rounds.flatMap((r) => r.toolUses.map((t) => t.id)).filter((id) => !completed.has(id)),
      );
      assert.equal(capabilitiesOf(report.format).compact, false);
      assert.ok(unsupported(report.format));
    });
  }

  for (const file of agentFixtures('gemini-cli', /\.json$/)) {
    it(`${file.split('/').pop()}: a Gemini CLI chat document, its token figures as usage`, async () => {
      const doc = JSON.parse(readFileSync(file, 'utf8'));
      const { report, index } = await inspectFile(file);
      assert.equal(report.format.id, 'gemini-cli');
      assert.equal(report.format.container, 'json');
      const replies = (doc.messages as any[]).filter((m) => m.type === 'gemini');
      assert.equal(report.rounds.filter((r) => r.messageId !== null).length, replies.length);
      assert.equal(
        report.totals.toolUses,
        replies.reduce((s, m) => s + (m.toolCalls?.length ?? 0), 0),
      );
      assert.deepEqual(unanswered(report), []);
      assert.equal(report.totals.contextTokens, replies[replies.length - 1].tokens.input);
      // Every message's entries point at its own bytes in the document.
      const bytes = readFileSync(file);
      for (const e of index.entries) {
        const v = JSON.parse(bytes.subarray(e.start, e.end).toString('utf8'));
        assert.ok(e.uuid === undefined || e.uuid === v.id || e.uuid === `${v.id}:results`);
      }
    });
  }

  it('a Cline task: rounds from the message array, usage from ui_messages.json beside it, results paired with calls', async () => {
    const file = join(sharedFixtures, 'cline', 'task-opus', 'api_conversation_history.json');
    const history = JSON.parse(readFileSync(file, 'utf8')) as any[];
    const ui = JSON.parse(
      readFileSync(join(sharedFixtures, 'cline', 'task-opus', 'ui_messages.json'), 'utf8'),
    ) as any[];
    const { report } = await inspectFile(file);
    assert.equal(report.format.id, 'cline');
    assert.equal(
      report.rounds.filter((r) => r.messageId !== null).length,
      history.filter((m) => m.role === 'assistant').length,
    );
    const requests = ui.filter((m) => m.say === 'api_req_started').map((m) => JSON.parse(m.text));
    const last = requests[requests.length - 1];
    assert.equal(report.totals.contextTokens, last.tokensIn + last.cacheWrites + last.cacheReads);
    assert.ok(
      unanswered(report).length < report.totals.toolUses / 4,
      `${unanswered(report).length} of ${report.totals.toolUses} calls unanswered`,
    );
  });

  it('a Claude Code transcript stored as one JSON array reads as the same rounds as its JSONL', async () => {
    const dir = tempDir('ac-array-');
    try {
      const jsonl = join(claudeFixtureDir, 'example.jsonl');
      const file = join(dir, 'transcript.json');
      writeFileSync(file, JSON.stringify(lines(jsonl), null, 2));
      const a = (await inspectFile(file)).report;
      const b = (await inspectFile(jsonl)).report;
      assert.equal(a.format.id, 'claude-code');
      assert.equal(a.format.container, 'json');
      assert.deepEqual(
        a.rounds.map((r) => [r.label, r.tokens.added, r.toolUses.length]),
        b.rounds.map((r) => [r.label, r.tokens.added, r.toolUses.length]),
      );
      const can = capabilitiesOf(a.format);
      assert.deepEqual([can.inspect, can.plan, can.compact, can.doctor], [true, false, false, false]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses what no reader knows, naming what it recognised', async () => {
    const dir = tempDir('ac-unknown-');
    try {
      const jsonl = join(dir, 'x.jsonl');
      writeFileSync(jsonl, '{"foo":1}\n{"bar":2}\n');
      await assert.rejects(
        inspectFile(jsonl),
        (e: Error) => e instanceof NotATranscriptError && /recognised: 2 JSON objects/.test(e.message),
      );
      const doc = join(dir, 'x.json');
      writeFileSync(doc, '[1, 2, 3]\n');
      await assert.rejects(
        inspectFile(doc),
        (e: Error) => e instanceof NotATranscriptError && /one JSON document/.test(e.message),
      );
      const codexNoItems = join(dir, 'rollout.jsonl');
      copyFileSync(agentFixtures('codex')[0], codexNoItems);
      writeFileSync(codexNoItems, readFileSync(codexNoItems, 'utf8').split('\n')[0] + '\n');
      assert.equal((await inspectFile(codexNoItems)).report.rounds.length, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds the message elements of a document with exact byte ranges, multi-byte text included', () => {
    const text = JSON.stringify(
      {
        sessionId: 's',
        messages: [
          { id: 'a', text: 'héllo 😀 "q" \\ }' },
          { id: 'b', nested: { messages: [1] } },
        ],
      },
      null,
      1,
    );
    const bytes = Buffer.from(text);
    const els = messageElements(text, 0);
    assert.equal(els.length, 2);
    assert.deepEqual(
      els.map((e) => JSON.parse(bytes.subarray(e.start, e.end).toString('utf8')).id),
      ['a', 'b'],
    );
  });
});
