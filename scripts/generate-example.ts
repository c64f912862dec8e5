// Deterministic generator of realistic Claude Code (2.1.x) session transcripts.
//
// Everything here is made up: the project ("shelfmark", a small TypeScript bookmarks API), its files,
// the conversation and the ids. The line layout follows what recent Claude Code versions write
// (one content block per assistant line, usage repeated on every line of a response, tool results as
// user lines with toolUseResult and sourceToolAssistantUUID, metadata lines, a compact boundary,
// subagents in <session>/subagents/agent-<id>.jsonl). Same options => byte-identical output:
// no clock, no Math.random, only a seeded PRNG.
//
// This file plans the episodes and assembles the session. The made-up project and story are data in
// scripts/example-data/ (project files, entity templates, episodes); the machinery that turns them into
// transcript lines (PRNG, diff, virtual project, command outputs, session writer) is in scripts/example-generator/.
//
// CLI: node --import tsx scripts/generate-example.ts [--seed N] [--rounds N] [--out FILE] [--no-subagents]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compactSummary } from './example-data/compact-summary';
import { MAIN_EPISODES, WEBHOOK_PROMPT } from './example-data/episodes/main-episodes';
import { questionEpisode } from './example-data/episodes/questions';
import type { Episode } from './example-data/episodes/story';
import type { GenerateOptions, GeneratedSession } from './example-generator/types';
import { Gen, SESSION_HOOK } from './example-generator/session-writer';

export type { GenerateOptions, GeneratedSession, GeneratedSubagent } from './example-generator/types';

export const DEFAULT_OPTIONS: Readonly<GenerateOptions> = Object.freeze({
  seed: 20260512,
  rounds: 78,
  subagentFiles: true,
});

// Main episodes take between their min and max rounds; small questions take the rest, so any round count works.
function planEpisodes(g: Gen): { ep: Episode; n: number }[] {
  const N = g.totalRounds;
  const reserve = N >= 40 ? 2 : 0;
  const chosen: Episode[] = [];
  let mins = 0;
  for (const ep of MAIN_EPISODES) {
    if (mins + ep.min > N - reserve) break;
    chosen.push(ep);
    mins += ep.min;
  }
  const ns = chosen.map((e) => e.min);
  let slack = N - reserve - mins;
  for (;;) {
    const open = ns.map((_, i) => i).filter((i) => ns[i] < chosen[i].max);
    if (slack <= 0 || !open.length) break;
    ns[g.rng.pick(open)]++;
    slack--;
  }
  slack += reserve;
  const plan = chosen.map((ep, i) => ({ ep, n: ns[i] }));
  let q = 0;
  while (slack > 0) {
    const n = Math.min(slack, g.rng.int(1, 3));
    plan.push({ ep: questionEpisode(q++), n });
    slack -= n;
  }
  return plan;
}

function runEpisode(g: Gen, ep: Episode, n: number, first: boolean): void {
  ep.before?.(g);
  g.userPrompt(ep.prompt(g));
  g.currentFiles = new Set();
  if (first) {
    g.attachment({
      type: 'skill_listing',
      content: [
        '- code-review: Review the working tree diff for bugs, missing tests and risky SQL before a commit',
        '- db-migrations: Conventions for writing, naming and testing SQL migrations in src/db/migrations',
        '- openapi-sync: Regenerate src/types/api.generated.ts after changing openapi.yaml and check the diff',
        '- release-notes: Draft release notes from the commits since the last tag',
      ].join('\n'),
      skillCount: 4,
      isInitial: true,
    });
  }
  for (const att of ep.attachments?.(g) ?? []) g.attachment(att);
  for (const f of ep.steps(g, n)) {
    if (g.compactAt !== null && g.compaction === null && g.round === g.compactAt) g.compact(compactSummary(g, ep));
    g.runRound(g.main, f(g));
  }
  g.endTurn();
  g.notes.push(ep.done);
}

export function generateSessionFiles(options: GenerateOptions): GeneratedSession {
  const g = new Gen(options);
  const base = g.main.base;
  const preRounds = g.compactAt ?? g.totalRounds;
  g.peak = options.peakTokens ?? Math.min(g.rng.int(158_000, 166_000), base + preRounds * 5_500);
  const postRounds = g.totalRounds - (g.compactAt ?? 0);
  g.final = options.finalTokens ?? Math.min(g.rng.int(166_000, 182_000), base + 4_000 + postRounds * 5_500);

  g.permissionModeLine('default');
  g.tick(300, 900);
  g.main.leaf = g.hookProgress(g.main, null, 'SessionStart', 'SessionStart:startup', SESSION_HOOK, g.ids.uuid());

  const plan = planEpisodes(g);
  let roundsSoFar = 0;
  let longBreakDone = false;
  plan.forEach(({ ep, n }, i) => {
    if (!longBreakDone && i > 0 && roundsSoFar >= g.totalRounds * 0.6) {
      g.now += g.rng.int(3_900_000, 4_600_000); // lunch: the 1h prompt cache expires
      longBreakDone = true;
    }
    const next = plan[i + 1];
    g.queued = ep.key === 'fullrun' && next?.ep.key === 'webhook' ? WEBHOOK_PROMPT : null;
    runEpisode(g, ep, n, i === 0);
    if (g.queued) {
      g.queueOperation('remove');
      g.queuedPrompt = g.queued;
      g.queued = null;
    } else g.queuedPrompt = null;
    roundsSoFar += n;
  });
  if (g.round !== g.totalRounds) throw new Error(`generator: planned ${g.totalRounds} rounds, wrote ${g.round}`);

  g.push(g.main, { type: 'last-prompt', lastPrompt: g.lastPrompt, leafUuid: g.main.leaf, sessionId: g.sessionId });
  const text = g.main.lines.join('\n') + '\n';
  return {
    sessionId: g.sessionId,
    text,
    subagents: options.subagentFiles === false ? [] : g.subagents,
    stats: {
      rounds: g.round,
      lines: g.main.lines.length,
      bytes: Buffer.byteLength(text),
      finalContextTokens: g.contexts[g.contexts.length - 1] ?? 0,
      compaction: g.compaction,
    },
  };
}

/** The main session transcript (JSONL text) for these options. */
export function generateSession(options: GenerateOptions): string {
  return generateSessionFiles(options).text;
}

// ---------------------------------------------------------------------------------------------
// CLI

export const DEFAULT_OUT = path.join(__dirname, '..', 'examples', 'demo-session.jsonl');

function parseArgs(argv: string[]): { options: GenerateOptions; out: string } {
  const options: GenerateOptions = { ...DEFAULT_OPTIONS };
  let out = DEFAULT_OUT;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    const int = () => {
      const v = value();
      if (!/^\d+$/.test(v)) throw new Error(`${a} needs a non-negative integer, got ${v}`);
      return Number(v);
    };
    if (a === '--seed') options.seed = int();
    else if (a === '--rounds') options.rounds = int();
    else if (a === '--out') out = path.resolve(value());
    else if (a === '--session-id') options.sessionId = value();
    else if (a === '--no-subagents') options.subagentFiles = false;
    else if (a === '--no-compaction') options.compactAtRound = null;
    else if (a === '--help' || a === '-h') {
      process.stdout.write(
        'Usage: node --import tsx scripts/generate-example.ts [--seed N] [--rounds N] [--out FILE] [--session-id UUID] [--no-subagents] [--no-compaction]\n',
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  if (options.rounds < 1) throw new Error('--rounds must be at least 1');
  return { options, out };
}

if (require.main === module) {
  try {
    const { options, out } = parseArgs(process.argv.slice(2));
    const s = generateSessionFiles(options);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, s.text);
    for (const sub of s.subagents) {
      const p = path.join(path.dirname(out), sub.relativePath);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, sub.text);
    }
    const c = s.stats.compaction;
    process.stdout.write(
      `${out}: session ${s.sessionId}, ${s.stats.rounds} rounds, ${s.stats.lines} lines, ${(s.stats.bytes / 1e6).toFixed(2)} MB, ` +
        `final context ${s.stats.finalContextTokens} tokens` +
        (c ? `, compaction before round ${c.atRound + 1} (${c.preTokens} -> ${c.postTokens} tokens)` : '') +
        (s.subagents.length ? `, ${s.subagents.length} subagent file(s)` : '') +
        '\n',
    );
  } catch (err) {
    process.stderr.write(`generate-example: ${(err as Error).message}\n`);
    process.exit(2);
  }
}
