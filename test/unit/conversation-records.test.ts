// The engine's model of a session's messages (src/core/conversation.ts): each agent's module maps its records to it,
// and what reads a session after its reader (the round panel, the readable round, the summarizers) reads only that.
// On every shared fixture of an agent whose records are read as messages.
import { strict as assert } from 'node:assert';
import { basename } from 'node:path';
import { contentBlocks } from '../../src/core/conversation';
import { AGENT_IDS, agentModule } from '../../src/core/formats/registry';
import { inspectFile } from '../../src/core/inspect';
import { loadEntryObjects } from '../../src/core/lines';
import { readRoundItems } from '../../src/core/roundDetail';
import { readableRound } from '../../src/core/compact/readable';
import { agentFixtures, claudeFixtures } from '../support/fixtures';

const fixturesOf = (agent: string) => (agent === 'claude-code' ? claudeFixtures() : agentFixtures(agent, /\.jsonl$/));

describe("conversation records: each agent's records read as the engine's messages", () => {
  it('every agent that compacts reads its records as messages (the summarizers read nothing else)', () => {
    for (const id of AGENT_IDS) {
      const m = agentModule(id);
      if (m.capabilities('jsonl').compact)
        assert.equal(typeof m.records?.message, 'function', `${m.name} compacts but maps no record to a message`);
    }
  });

  for (const id of AGENT_IDS.filter((a) => agentModule(a).records?.message)) {
    it(`${agentModule(id).name}: every user and assistant message of every fixture is read on its side`, async function () {
      this.timeout(120_000);
      const message = agentModule(id).records!.message!;
      let checked = 0;
      for (const file of fixturesOf(id)) {
        const analysis = await inspectFile(file);
        if (analysis.index.format.id !== id) continue;
        const entries = analysis.index.entries;
        const wanted = entries.flatMap((e, i) => (e.kind === 'user' || e.kind === 'assistant' ? [i] : []));
        const objects = await loadEntryObjects(file, entries, wanted);
        for (const i of wanted) {
          // An entry that only carries the agent's usage (Codex's token_count) holds no message.
          const r = message(objects.get(i)!, entries[i]);
          if (!r) continue;
          const where = `${basename(file)} line ${entries[i].line}`;
          assert.equal(r.kind, 'message', where);
          if (r.kind === 'message') assert.equal(r.role, entries[i].kind, where);
          checked++;
        }
      }
      assert.ok(checked > 100, `only ${checked} messages read`);
    });
  }

  it("Codex rounds read in the map's round panel and as a readable round: the messages, not the record kinds", async function () {
    this.timeout(120_000);
    for (const file of agentFixtures('codex', /\.jsonl$/)) {
      const analysis = await inspectFile(file);
      let rounds = 0;
      for (const round of analysis.rounds) {
        const conversational = round.entries.filter((e) =>
          ['user', 'assistant'].includes(analysis.index.entries[e].kind),
        );
        if (!conversational.length) continue;
        const objects = await loadEntryObjects(file, analysis.index.entries, conversational);
        const messages = conversational.filter((e) =>
          agentModule('codex').records!.message!(objects.get(e)!, analysis.index.entries[e]),
        );
        if (!messages.length) continue;
        const items = await readRoundItems(analysis, round.index);
        assert.ok(items.length > 0, `${basename(file)} round ${round.index}: no items in the round panel`);
        const text = await readableRound(analysis, round.index);
        // A compacted record holds several messages on one line: each is read under its own heading.
        const byLine = new Map<number, number>();
        for (const e of messages) {
          const line = analysis.index.entries[e].line;
          byLine.set(line, (byLine.get(line) ?? 0) + 1);
        }
        for (const [line, count] of byLine) {
          const read = text.match(new RegExp(`── line ${line} · (User|Assistant) `, 'g'))?.length ?? 0;
          assert.ok(
            read >= count,
            `${basename(file)} round ${round.index}: line ${line} holds ${count} message(s), ${read} read as one`,
          );
        }
        rounds++;
      }
      assert.ok(rounds > 0, `${basename(file)}: no conversational round`);
    }
  });

  it('a Codex tool call reads as the arguments it holds: a JSON object as JSON, a patch as its text, never escaped', async function () {
    this.timeout(120_000);
    let objects = 0;
    let texts = 0;
    for (const file of agentFixtures('codex', /\.jsonl$/)) {
      const analysis = await inspectFile(file);
      for (const round of analysis.rounds) {
        const records = await loadEntryObjects(file, analysis.index.entries, round.entries);
        const calls = round.entries.flatMap((e) => {
          const r = agentModule('codex').records!.message!(records.get(e)!, analysis.index.entries[e]);
          return contentBlocks(r ?? undefined).filter((b) => b.type === 'tool_use' && typeof b.input === 'string');
        });
        if (!calls.length) continue;
        const text = await readableRound(analysis, round.index);
        for (const call of calls) {
          const input = call.input as string;
          const where = `${basename(file)} round ${round.index} call ${String(call.id)}`;
          let parsed: unknown;
          try {
            parsed = JSON.parse(input);
          } catch {
            parsed = undefined;
          }
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && Object.keys(parsed).length) {
            const key = Object.keys(parsed)[0];
            assert.ok(text.includes(`    {\n     ${JSON.stringify(key)}: `), `${where}: ${key} not shown as JSON`);
            objects++;
          } else if (input.trim() && parsed === undefined) {
            const first = input.replace(/\r\n?/g, '\n').split('\n')[0];
            assert.ok(text.includes(`\n    ${first}`), `${where}: its text not shown as it is: ${first}`);
            texts++;
          }
          // What follows the call's heading is the arguments; a JSON-encoded string would open with a quote.
          const heading = `[${String(call.id)}]\n`;
          const shown = text.slice(text.indexOf(heading) + heading.length).split('\n')[0];
          assert.ok(text.includes(heading), `${where}: no heading`);
          assert.ok(!shown.startsWith('    "'), `${where}: shown as an escaped string: ${shown}`);
        }
      }
    }
    assert.ok(objects > 0, 'no Codex tool call with JSON arguments among the fixtures');
    console.log(`      ${objects} calls with JSON arguments, ${texts} with text`);
  });
});
