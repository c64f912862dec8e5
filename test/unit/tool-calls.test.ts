// What a tool call did, for every agent (src/core/compact/summarize/toolCalls.ts), and what the fidelity measure and the
// offline summary make of it: Codex items go through the reader's own conversion (codexItemRecord), as a compaction
// of a Codex rollout loads them.
import { strict as assert } from 'node:assert';
import { codexItemRecord } from '../../src/core/formats/codex/message';
import type { ConversationRecord } from '../../src/core/conversation';
import { claudeRecords } from '../support/records';
import { spanFacts, measureFidelity } from '../../src/core/compact/fidelity';
import { extractiveSummary, openTodos, shapeForExtractive } from '../../src/core/compact/summarize/extractive';
import { patchChanges, toolCallFacts, toolCallsIn } from '../../src/core/compact/summarize/toolCalls';
import { codexOutputFailed } from '../../src/core/formats/codex/reader';
import type { JsonObject } from '../../src/core/json';

const CWD = '/home/me/proj';
/** Codex response items as the summarizers read them, with the session's cwd. */
const codex = (...items: JsonObject[]): ConversationRecord[] =>
  items.map((item) => ({ ...codexItemRecord(item)!, cwd: CWD }));
let n = 0;
function exec(cmd: string, output: string, name = 'exec_command'): JsonObject[] {
  const call_id = `call_${++n}`;
  const args =
    name === 'shell_command'
      ? { command: cmd, workdir: CWD }
      : { cmd, workdir: CWD, yield_time_ms: 10000, max_output_tokens: 20000 };
  return [
    { type: 'function_call', name, call_id, arguments: JSON.stringify(args) },
    { type: 'function_call_output', call_id, output },
  ];
}
function patch(text: string, output = 'Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.'): JsonObject[] {
  const call_id = `call_${++n}`;
  return [
    { type: 'custom_tool_call', name: 'apply_patch', call_id, input: text },
    { type: 'custom_tool_call_output', call_id, output },
  ];
}
function plan(steps: [string, string][]): JsonObject[] {
  const call_id = `call_${++n}`;
  return [
    {
      type: 'function_call',
      name: 'update_plan',
      call_id,
      arguments: JSON.stringify({ plan: steps.map(([step, status]) => ({ step, status })) }),
    },
    { type: 'function_call_output', call_id, output: 'Plan updated' },
  ];
}
const say = (text: string): JsonObject => ({
  type: 'message',
  role: 'assistant',
  content: [{ type: 'output_text', text }],
});
const ask = (text: string): JsonObject => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const unifiedExec = (code: number, body: string) =>
  `Chunk ID: ab12cd\nWall time: 0.0000 seconds\nProcess exited with code ${code}\nOriginal token count: 9\nOutput:\n${body}`;

describe('tool calls of every agent: what they did (toolCalls.ts)', () => {
  it('a Codex patch: added, updated, moved and deleted files, each with its added lines', () => {
    const changes = patchChanges(
      [
        '*** Begin Patch',
        '*** Add File: src/new.ts',
        '+export const created = 1;',
        '*** Update File: src/old.ts',
        '*** Move to: src/renamed.ts',
        '@@',
        '-const a = 1;',
        '+const a = 2;',
        '*** Delete File: src/gone.ts',
        '*** End Patch',
      ].join('\n'),
    );
    assert.deepEqual(changes, [
      { path: 'src/new.ts', how: 'created', text: 'export const created = 1;' },
      { path: 'src/renamed.ts', how: 'edited', text: 'const a = 2;' },
      { path: 'src/gone.ts', how: 'deleted', text: '' },
    ]);
  });

  it('commands of every shell tool: Bash, exec_command, shell_command, shell and local_shell argv', () => {
    assert.equal(toolCallFacts('Bash', { command: 'npm test' }).command, 'npm test');
    assert.equal(toolCallFacts('exec_command', '{"cmd":"go test ./...","workdir":"/w"}').command, 'go test ./...');
    assert.equal(toolCallFacts('shell_command', '{"command":"pnpm -s check-types"}').command, 'pnpm -s check-types');
    assert.equal(toolCallFacts('shell', '{"command":["bash","-lc","pytest -q"]}').command, 'pytest -q');
    assert.equal(toolCallFacts('local_shell', { command: ['ls', '-la'] }).command, 'ls -la');
    assert.equal(toolCallFacts('Read', { file_path: '/a.ts' }).command, undefined);
  });

  it('a Codex output fails by its exit code, its JSON metadata or a patch that did not apply; exit 0 and plain text do not', () => {
    assert.equal(codexOutputFailed(unifiedExec(1, 'boom')), true);
    assert.equal(codexOutputFailed(unifiedExec(0, 'exit code: 1 printed by the program')), false);
    assert.equal(codexOutputFailed('Exit code: 2\nWall time: 0.8 seconds\nOutput:\nerror TS2305'), true);
    assert.equal(codexOutputFailed('Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.'), false);
    assert.equal(codexOutputFailed('{"output":"FAILED","metadata":{"exit_code":1,"duration_seconds":0.5}}'), true);
    assert.equal(codexOutputFailed('{"output":"Success.","metadata":{"exit_code":0}}'), false);
    assert.equal(
      codexOutputFailed(
        'failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 1, stdout: ',
      ),
      true,
    );
    assert.equal(codexOutputFailed('apply_patch verification failed: Failed to find expected lines in a.ts'), true);
    assert.equal(codexOutputFailed('Plan updated'), false);
  });

  it('a failure reported by a write_stdin poll belongs to the command it polled', () => {
    const span = codex(
      ...exec(
        'entire search "level 2"',
        unifiedExec(0, '').replace('Process exited with code 0', 'Process running with session ID 60701'),
      ),
      { type: 'function_call', name: 'write_stdin', call_id: 'poll', arguments: '{"session_id":60701,"chars":""}' },
      {
        type: 'function_call_output',
        call_id: 'poll',
        output: unifiedExec(1, 'search failed: context deadline exceeded'),
      },
    );
    const calls = toolCallsIn(span);
    assert.deepEqual(
      calls.map((c) => [c.facts.name, c.failed, c.failedCommand]),
      [
        ['exec_command', false, undefined],
        ['write_stdin', true, 'entire search "level 2"'],
      ],
    );
    const facts = spanFacts(span);
    assert.deepEqual(
      facts.filter((f) => f.category === 'failedCommands' || f.category === 'errors').map((f) => f.label),
      [
        'the error in write_stdin `entire search "level 2"`: search failed: context deadline exceeded',
        'the failed command `entire search "level 2"`',
      ],
    );
    assert.match(
      extractiveSummary({ records: span, maxChars: 4_000 }),
      /## Commands that failed\n- entire search "level 2"/,
    );
  });

  it('open items: the latest update_plan list; Claude Code tasks made since, by their id, less the completed ones', () => {
    const codexSpan = codex(
      ...plan([
        ['Draft the loop', 'completed'],
        ['Wire the reviewer', 'pending'],
      ]),
      ...plan([
        ['Design benchmark manifest', 'completed'],
        ['Add runner script', 'in_progress'],
        ['Publish results repo', 'pending'],
      ]),
    );
    assert.deepEqual(openTodos(codexSpan), ['Add runner script (in progress)', 'Publish results repo']);

    const task = (name: string, input: JsonObject, result: string): JsonObject[] => {
      const id = `toolu_${++n}`;
      return [
        { type: 'assistant', message: { content: [{ type: 'tool_use', id, name, input }] } },
        { type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: id, content: result }] } },
      ];
    };
    const claudeSpan = claudeRecords([
      ...task(
        'TaskCreate',
        { subject: 'Add EndedAt field to State', description: 'x' },
        'Task #7 created successfully: Add EndedAt field to State',
      ),
      ...task(
        'TaskCreate',
        { subject: 'Install the session-end hook', description: 'y' },
        'Task #8 created successfully: Install the session-end hook',
      ),
      ...task(
        'TaskCreate',
        { subject: 'Run mise lint and tests', description: 'z' },
        'Task #9 created successfully: Run mise lint and tests',
      ),
      ...task('TaskUpdate', { taskId: '7', status: 'completed' }, 'Updated task #7 status'),
      ...task('TaskUpdate', { taskId: '8', status: 'in_progress' }, 'Updated task #8 status'),
      ...task('TaskUpdate', { taskId: '9', status: 'deleted' }, 'Updated task #9 status'),
    ]);
    assert.deepEqual(openTodos(claudeSpan), ['Install the session-end hook (in progress)']);
    // The shaped lines the offline summary reads keep what it takes (a task's id is in its result's head).
    assert.deepEqual(openTodos(claudeSpan.map((o) => shapeForExtractive(o))), openTodos(claudeSpan));
    const facts = spanFacts(claudeSpan).filter((f) => f.category === 'todos');
    assert.deepEqual(
      facts.map((f) => f.label),
      ['the open TODO "Install the session-end hook (in progress)"'],
    );
    assert.match(
      extractiveSummary({ records: claudeSpan, maxChars: 4_000 }),
      /Open TODO items:\n {2}- Install the session-end hook \(in progress\)/,
    );
  });

  it("a Codex prompt with an image: the request is the user's words, not the image's markers", () => {
    const span = codex({
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'Use the attached screenshot to redesign the session details panel' },
        { type: 'input_text', text: '<image name=[Image #1]>' },
        { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
        { type: 'input_text', text: '</image>' },
      ],
    });
    assert.deepEqual(
      spanFacts(span)
        .filter((f) => f.category === 'requests')
        .map((f) => f.label),
      ['the request "Use the attached screenshot to redesign the session details panel"'],
    );
  });

  it('a Codex span: files from patches, errors from failed commands (not the exit line), the working set; the offline summary keeps them', () => {
    const late = Array.from({ length: 30 }, (_, i) => `+line ${i} ${'x'.repeat(60)}`).join('\n');
    const span = codex(
      ask('Make the session details panel load when a session is selected'),
      ...patch(
        `*** Begin Patch\n*** Update File: ${CWD}/src/extension.ts\n@@\n-old\n+const tree = createTreeView();\n*** End Patch`,
      ),
      ...exec(
        'pnpm -s check-types',
        "Exit code: 2\nWall time: 0.8 seconds\nOutput:\nsrc/panel.ts(2,15): error TS2305: Module '../checkpoints' has no exported member 'SessionDetailModel'.",
        'shell_command',
      ),
      ...exec(
        'rg -n "SessionDetailTarget|transcriptAvailable" src/checkpoints',
        'Exit code: 1\nWall time: 0.1 seconds\nOutput:\n',
        'shell_command',
      ),
      // A long patch: the file named after its first 1,000 characters is still seen in the shaped lines.
      ...patch(
        `*** Begin Patch\n*** Add File: ${CWD}/src/first.ts\n${late}\n*** Add File: ${CWD}/src/second.ts\n+export const second = true;\n*** End Patch`,
      ),
      say('The panel now loads on selection; next I will export SessionDetailModel from the checkpoints index.'),
    );
    const facts = spanFacts(span);
    const labels = (cat: string) => facts.filter((f) => f.category === cat).map((f) => f.label);
    assert.deepEqual(labels('files'), [
      'edited `src/extension.ts`',
      'created `src/first.ts`',
      'created `src/second.ts`',
    ]);
    assert.deepEqual(labels('errors'), [
      "the error in shell_command `pnpm -s check-types`: src/panel.ts(2,15): error TS2305: Module '../checkpoints' has no exported member 'Session…",
    ]);
    assert.deepEqual(labels('failedCommands'), [
      'the failed command `pnpm -s check-types`',
      'the failed command `rg -n "SessionDetailTarget|transcriptAvailable" src/checkpoints`',
    ]);
    assert.deepEqual(labels('workingSet'), [
      '`src/extension.ts` (worked on last)',
      '`src/first.ts` (worked on last)',
      '`src/second.ts` (worked on last)',
    ]);
    const shaped = span.map((o) => shapeForExtractive(o));
    assert.deepEqual(
      spanFacts(shaped)
        .filter((f) => f.category === 'files')
        .map((f) => f.label),
      labels('files'),
    );
    const summary = extractiveSummary({ records: shaped, maxChars: 6_000 });
    const report = measureFidelity(facts, summary);
    assert.equal(report.kept, report.total, report.missing.map((m) => m.label).join('; '));
    assert.match(
      summary,
      /The last error \(shell_command `pnpm -s check-types`\): src\/panel\.ts\(2,15\): error TS2305/,
    );
  });
});
