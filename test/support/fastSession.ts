// A Claude Code session answered in fast mode, derived from a shared fixture whose every response records
// `"speed":"standard"` (v2.1.97-live-before.jsonl): its responses' model and speed replaced, nothing else.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { fixture } from './fixtures';

export function atSpeed(model: string, speed: 'standard' | 'fast'): string {
  const text = readFileSync(fixture('v2.1.97-live-before.jsonl'), 'utf8');
  assert.ok(text.includes('"speed":"standard"'), 'the fixture records its speed');
  return text
    .replaceAll('"speed":"standard"', `"speed":"${speed}"`)
    .replaceAll(/"model":"claude-[^"]+"/g, `"model":"${model}"`);
}
