// Small hand-made sessions shared by test files (a test file imported by another would register its tests twice).
import { strict as assert } from 'node:assert';

/** A small session with one wire message holding several tool results of known sizes. */
export function sessionWithResults(sizes: number[], ids?: string[]): string {
  const lines: string[] = [];
  const base = {
    isSidechain: false,
    sessionId: '11111111-2222-4333-8444-555555555555',
    cwd: '/tmp/p',
    version: '2.1.0',
    userType: 'external',
  };
  lines.push(
    JSON.stringify({
      ...base,
      type: 'user',
      uuid: 'u0',
      parentUuid: null,
      message: { role: 'user', content: 'please read the files' },
    }),
  );
  let parent = 'u0';
  const toolIds = ids ?? sizes.map((_, i) => `toolu_${i}`);
  toolIds.forEach((id, i) => {
    const u = `a${i}`;
    lines.push(
      JSON.stringify({
        ...base,
        type: 'assistant',
        uuid: u,
        parentUuid: parent,
        requestId: 'req_1',
        message: {
          id: 'msg_1',
          role: 'assistant',
          model: 'claude-test',
          content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: `/f${i}` } }],
          stop_reason: 'tool_use',
          usage: { input_tokens: 1000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 10 },
        },
      }),
    );
    parent = u;
  });
  toolIds.forEach((id, i) => {
    const text = Array.from(
      { length: Math.ceil(sizes[i] / 16) + 1 },
      (_, k) => `line ${String(k).padStart(6, '0')} xxxx`,
    )
      .join('\n')
      .slice(0, sizes[i]);
    assert.equal(text.length, sizes[i]);
    const u = `r${i}`;
    lines.push(
      JSON.stringify({
        ...base,
        type: 'user',
        uuid: u,
        parentUuid: parent,
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] },
      }),
    );
    parent = u;
  });
  lines.push(
    JSON.stringify({
      ...base,
      type: 'assistant',
      uuid: 'z',
      parentUuid: parent,
      requestId: 'req_2',
      message: {
        id: 'msg_2',
        role: 'assistant',
        model: 'claude-test',
        content: [{ type: 'text', text: 'done' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 9000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 3 },
      },
    }),
  );
  return lines.join('\n') + '\n';
}
