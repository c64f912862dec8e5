// The agent registry holds together: one module per agent id, one display name each, one fallback reader for JSON
// lines, and every capability backed by the part that provides it (a writer for compact, a resume program for resume,
// sessions locations for the session lists), so that adding an agent cannot half-register it.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AGENTS, agentModule, agentName, unsupported } from '../../src/core/formats/registry';
import { writerOf } from '../../src/core/formats/writers';

describe('agent modules and the registry', () => {
  it('one module per id and one display name per agent', () => {
    const ids = AGENTS.map((a) => a.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(new Set(AGENTS.map((a) => a.name)).size, ids.length);
    for (const id of ids) {
      assert.equal(agentModule(id).id, id);
      assert.equal(agentName(id), agentModule(id).name);
    }
  });

  it('exactly one agent reads any JSON lines no other agent recognised', () => {
    assert.equal(AGENTS.filter((a) => a.records?.fallback).length, 1);
  });

  it('each capability is backed by its part, and each missing one has a reason', () => {
    for (const a of AGENTS) {
      for (const container of ['jsonl', 'json'] as const) {
        if (container === 'jsonl' ? !a.records : !a.document) continue;
        const can = a.capabilities(container);
        const format = { id: a.id, container };
        assert.equal(can.compact, can.compact && writerOf(a.id) !== null, `${a.id}: compact without a writer`);
        if (can.resume) assert.ok(a.resume, `${a.id}: resume without a resume program`);
        if (can.repair) assert.ok(can.doctor, `${a.id}: repair without doctor`);
        if (can.previews) assert.ok(can.steering.includes('previewResult'), `${a.id}: previews not steerable`);
        for (const what of ['plan', 'compact', 'previews', 'fresh', 'doctor', 'repair', 'undo', 'restore'] as const) {
          const reason = unsupported(format, what);
          if (can[what]) assert.equal(reason, null);
          else assert.ok(reason && reason.length > 20, `${a.id} ${container} ${what}: no reason`);
        }
      }
      if (a.capabilities('jsonl').compact) assert.ok(writerOf(a.id), `${a.id} is compacted but has no writer`);
      else assert.equal(writerOf(a.id), null, `${a.id} has a writer but is not compacted`);
      assert.ok(a.sessions?.locations.length, `${a.id}: the session lists do not know where it keeps its sessions`);
    }
  });

  it('each agent that resumes names its program, the setting and option that configure it, and its own reasons', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
    };
    const settings = pkg.contributes.configuration.properties;
    const resuming = AGENTS.filter((a) => a.resume);
    assert.ok(resuming.length >= 2, 'Claude Code and Codex resume');
    assert.equal(new Set(resuming.map((a) => a.resume!.programOption)).size, resuming.length, 'one program each');
    for (const a of resuming) {
      const spec = a.resume!;
      const setting = settings[`agentCompactor.${spec.programOption}`];
      assert.ok(setting, `${a.id}: agentCompactor.${spec.programOption} is not a setting in package.json`);
      assert.equal(setting.default, spec.program, `${a.id}: the setting's default is the usual program`);
      assert.ok(
        spec.notAnId('s.jsonl').includes('s.jsonl') && spec.notAnId('s.jsonl').startsWith(a.name.split(' ')[0]),
      );
      assert.ok(spec.folderNeeded.length > 20, `${a.id}: why its folder must exist`);
    }
  });
});
