import * as fs from 'node:fs';
import { resumeWithClaude, checkRequestInvariants, chainTailTexts, requestText, mainChain, parseJsonl } from './claude-code';
import { startFakeAnthropic } from './fake-anthropic';
(async () => {
  const fake = await startFakeAnthropic({ scenario: { kind: 'text', text: 'FAKE-OK' } });
  const dir = '/work/shared/fixtures/claude-code/';
  for (const f of fs.readdirSync(dir).filter(f => f.endsWith('.jsonl'))) {
    const prompt = `Compat check ${f}`;
    const r = await resumeWithClaude({ sessionFile: dir + f, prompt, fake, timeoutMs: 60000 });
    const body = r.mainRequest?.body;
    const text = requestText(body);
    const tails = chainTailTexts(r.originalText);
    const missing = tails.filter(t => !text.includes(t));
    const chain = mainChain(r.originalText);
    const leaf = chain[chain.length - 1]?.uuid;
    const firstAppended = r.appendedLines.find(l => typeof l.uuid === 'string');
    const roles = (body?.messages ?? []).map((m: any) => m.role[0]).join('');
    console.log(f, 'exit', r.exitCode, r.durationMs + 'ms', 'reqs', r.requests.length, 'all', r.allRequests.map(x => x.path).join(','), 'msgs', body?.messages?.length,
      '\n   problems', JSON.stringify(checkRequestInvariants(body)).slice(0, 400),
      '\n   tails', JSON.stringify(tails.map(t => t.slice(0, 40))), 'missing', missing.length,
      '\n   leaf', leaf, 'firstAppendedParent', firstAppended?.parentUuid, firstAppended?.type, 'match', leaf === firstAppended?.parentUuid,
      '\n   roles', roles.slice(0, 60), '...', roles.slice(-10), 'stdout', JSON.stringify(r.stdout.slice(0, 60)), 'stderr', r.stderr.slice(0, 300));
    r.cleanup();
  }
  await fake.close();
})();
