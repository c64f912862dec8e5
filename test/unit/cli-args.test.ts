// The command line's arguments, as `main(args)` of src/cli/main.ts takes them (in this process, runCliInProcess): help
// and parser made from one table per verb (and the README agreeing), steering by hand, and one-line reasons with exit
// 2 for unusable input or options that conflict. The built bundle's wiring, exit codes from a real process, an
// unreadable file or folder as an unprivileged user, consent before anything is sent and SIGINT:
// test/integration/cli.test.ts.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SETTINGS } from '../../src/core/compactSettings';
import { groupDigits, parseVerbArgs, SIZE_NOTE, type VerbSpec } from '../../src/cli/options';
import { MAX_TRANSCRIPT_LINES, MAX_TRANSCRIPT_RECORDS } from '../../src/core/transcript';
import { VERBS } from '../../src/cli/verbs';
import { oneLineError } from '../support/cli';
import { runCliInProcess } from '../support/cliInProcess';
import { repoRoot } from '../support/fixtures';
import { buildTranscript } from '../support/reliability';
import { tempDir } from '../support/temp';

const SMALL = ['--target-tokens', '6000', '--keep-recent-tokens', '2000', '--max-result-chars', '1000'];

/** `main(args)` in this process, without any Anthropic variable. */
const run = (args: string[]) => runCliInProcess(args);

const flagsIn = (text: string) => new Set([...text.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1]));
const tableFlags = (v: VerbSpec) => new Set(v.options.map((o) => o.flag));
const sorted = (s: Set<string>) => [...s].sort();

describe('CLI arguments (main in process)', function () {
  let dir: string;
  let transcript: string;

  beforeEach(() => {
    dir = tempDir('ac-cli-args-');
    transcript = join(dir, 's.jsonl');
    writeFileSync(
      transcript,
      buildTranscript({ rounds: 16, textChars: 1_500, resultChars: (r) => (r % 4 === 0 ? 3_000 : 300) }).join('\n') +
        '\n',
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  describe('help and parser come from one table', () => {
    for (const verb of VERBS) {
      it(`${verb.name}: --help, help ${verb.name} and the global help list exactly the options the parser accepts`, async () => {
        const own = await run([verb.name, '--help']);
        assert.equal(own.status, 0, own.stderr);
        const viaHelp = await run(['help', verb.name]);
        assert.equal(viaHelp.status, 0);
        assert.equal(viaHelp.stdout, own.stdout);
        assert.deepEqual(
          sorted(flagsIn(own.stdout)),
          sorted(tableFlags(verb)),
          'every --flag the help mentions is in the table, and every table flag is in the help',
        );
        const global = await run(['--help']);
        assert.equal(global.status, 0);
        assert.ok(
          global.stdout.includes(own.stdout.split('\n\nExit codes:')[0]),
          'the global help holds the same section',
        );
        for (const o of verb.options) {
          // Accepted by the parser, with a one-line meaning and (but for --help) a default.
          const argv = o.type === 'string' ? [`--${o.flag}`, '1'] : [`--${o.flag}`];
          assert.doesNotThrow(() => parseVerbArgs(verb, [...argv, 'f.jsonl']), `--${o.flag}`);
          const line = own.stdout.split('\n').find((l) => new RegExp(`^\\s+(-\\w, )?--${o.flag}\\b`).test(l));
          assert.ok(line, `an option line for --${o.flag}`);
          assert.ok(line.length > `--${o.flag}`.length + 10, `--${o.flag} has a meaning`);
          if (o.flag !== 'help') assert.match(line, /\(.*default: .+\)$/, `--${o.flag} has a default`);
        }
        assert.throws(() => parseVerbArgs(verb, ['--no-such-flag', 'f.jsonl']), /unknown option '--no-such-flag'/);
        assert.match(own.stdout, /^\s+130\s+cancelled/m);
        for (const code of ['0', '1', '2']) assert.match(own.stdout, new RegExp(`^\\s+${code}\\s+\\w`, 'm'));
      });
    }

    it('lists the flags the issue found missing, and --force, for compact', async () => {
      const help = (await run(['compact', '--help'])).stdout;
      for (const f of [
        'keep-recent-tokens',
        'instructions',
        'fresh',
        'max-message-chars',
        'max-result-chars',
        'summary-tokens',
        'exempt-tool',
        'force',
        'summarizer',
        'out',
        'in-place',
      ]) {
        assert.match(help, new RegExp(`^\\s+--${f}\\b`, 'm'), f);
      }
      assert.match(help, new RegExp(`--target-tokens N .*default: ${DEFAULT_SETTINGS.targetTokens}\\)`));
      assert.match(help, new RegExp(`--keep-recent-tokens N .*default: ${DEFAULT_SETTINGS.keepRecentTokens}\\)`));
      assert.match(help, /--summarizer .*default: extractive\)/);
    });

    it("README's Command line section names every flag, and only flags that exist, with the numeric defaults", () => {
      const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
      const start = readme.indexOf('## Command line');
      assert.ok(start >= 0);
      const end = readme.indexOf('\n## ', start + 3);
      const section = readme.slice(start, end < 0 ? undefined : end).replace(/claude --resume/g, 'claude resume');
      const all = new Set(['version', ...VERBS.flatMap((v) => [...tableFlags(v)])]);
      assert.deepEqual(sorted(flagsIn(section)), sorted(all));
      for (const v of VERBS) {
        for (const o of v.options) {
          if (o.default && /^\d+$/.test(o.default)) {
            const row = section.split('\n').find((l) => l.startsWith(`| \`--${o.flag}`));
            assert.ok(row, `a README row for --${o.flag}`);
            assert.ok(row.includes(`| ${o.default} |`), `README default of --${o.flag} is ${o.default}: ${row}`);
          }
        }
      }
      assert.match(section, /\*\*130\*\*/);
    });
  });

  describe('steering by hand', () => {
    it("plan --json marks each action by the user or the plan with its reason; the text marks the user's", async () => {
      const r = await run(['plan', transcript, ...SMALL, '--keep', '2', '--drop', '4-5', '--json']);
      assert.equal(r.status, 0, r.stderr);
      const plan = JSON.parse(r.stdout) as { rounds: { index: number; action: string; by: string; reason: string }[] };
      assert.deepEqual([plan.rounds[2].action, plan.rounds[2].by], ['keep', 'user']);
      for (const i of [4, 5])
        assert.deepEqual(
          [plan.rounds[i].action, plan.rounds[i].by, plan.rounds[i].reason],
          ['drop', 'user', 'you dropped it'],
        );
      assert.ok(plan.rounds.filter((x) => x.by === 'plan').every((x) => x.reason.length > 0));
      const text = await run(['plan', transcript, ...SMALL, '--keep', '2', '--drop', '4-5']);
      assert.match(text.stdout, /◆ keep \(you\)/);
      assert.match(text.stdout, /1 kept by you, 2 dropped by you, 0 summarized by you/);
    });

    it('conflicting or unknown choices exit 2 with the reason', async () => {
      oneLineError(
        await run(['plan', transcript, '--keep', '3', '--drop', '2-4']),
        /round 3 is given to both --keep and --drop; choose one/,
      );
      oneLineError(
        await run(['compact', transcript, '--summarize', '7', '--keep', '7']),
        /round 7 is given to both --keep and --summarize/,
      );
      oneLineError(await run(['plan', transcript, '--keep', '3,x']), /--keep: 'x' is not a round index or range/);
      oneLineError(
        await run(['plan', transcript, '--keep', '500']),
        /there is no round 500 \(this session has rounds 0-32\)/,
      );
      oneLineError(
        await run(['plan', transcript, '--keep-result', 'toolu_0001', '--preview-result', 'toolu_0001']),
        /toolu_0001 is given to both --keep-result and --preview-result/,
      );
      oneLineError(
        await run(['plan', transcript, '--preview-result', 'toolu_nope']),
        /--preview-result: no tool result with id toolu_nope/,
      );
      oneLineError(
        await run(['compact', transcript, '--summary-file', join(dir, 'missing.md')]),
        /--summary-file .*missing\.md: no such file/,
      );
      assert.deepEqual(readdirSync(dir), ['s.jsonl'], 'nothing was written');
    });

    it('plan --summary prints what compact writes, writing nothing; compact --summary-file writes it verbatim', async () => {
      const shown = await run(['plan', transcript, ...SMALL, '--drop', '3', '--summary']);
      assert.equal(shown.status, 0, shown.stderr);
      assert.match(shown.stdout, /extractive summary made offline/);
      assert.deepEqual(readdirSync(dir), ['s.jsonl']);
      const summaryFile = join(dir, 'mine.md');
      writeFileSync(summaryFile, 'Mine, exactly:\n  indented, ünïcödé.\n');
      const printed = await run(['plan', transcript, ...SMALL, '--summary', '--summary-file', summaryFile]);
      assert.equal(printed.stdout, 'Mine, exactly:\n  indented, ünïcödé.\n');
      const c = await run(['compact', transcript, ...SMALL, '--drop', '3', '--summary-file', summaryFile, '--json']);
      assert.equal(c.status, 0, c.stderr);
      const result = JSON.parse(c.stdout) as { output: string; summarizer: string };
      assert.equal(result.summarizer, 'given');
      const line = readFileSync(result.output, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { isCompactSummary?: boolean; message?: { content: string } })
        .find((o) => o.isCompactSummary);
      assert.ok(line?.message?.content.endsWith('\n\nMine, exactly:\n  indented, ünïcödé.\n'));
    });
  });

  describe('unusable input: exit 2, one line, no raw system error', () => {
    for (const verb of ['inspect', 'plan', 'compact']) {
      it(`${verb}: a folder, a missing file, a path through a file`, async () => {
        oneLineError(
          await run([verb, dir]),
          new RegExp(`${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is a folder, not a transcript`),
        );
        oneLineError(await run([verb, join(dir, 'missing.jsonl')]), /no such file: .*missing\.jsonl$/m);
        oneLineError(await run([verb, join(transcript, 'x.jsonl')]), /no such file: /);
      });
    }

    it('bad numbers, and --keep-recent-tokens 0 (the core refuses 0; so does the CLI, before reading)', async () => {
      oneLineError(
        await run(['plan', transcript, '--keep-recent-tokens', '0']),
        /--keep-recent-tokens must be a whole number of at least 1/,
      );
      oneLineError(
        await run(['compact', join(dir, 'missing.jsonl'), '--keep-recent-tokens', '0']),
        /--keep-recent-tokens must be/,
      );
      oneLineError(await run(['plan', transcript, '--target-tokens', 'lots']), /--target-tokens must be/);
      oneLineError(await run(['plan', transcript, '--summary-tokens=-5']), /--summary-tokens must be/);
      oneLineError(
        await run(['plan', transcript, '--summary-tokens', '-5']),
        /option '--summary-tokens' argument is ambiguous \(see/,
      );
      const ok = await run(['plan', transcript, '--keep-recent-tokens', '2k', '--target-tokens', '6_000', '--json']);
      assert.equal(ok.status, 0, ok.stderr);
      const plan = JSON.parse(ok.stdout);
      assert.equal(plan.settings.keepRecentTokens, 2000);
      assert.equal(plan.settings.targetTokens, 6000);
    });

    it('conflicting or pointless compact options', async () => {
      oneLineError(
        await run(['compact', transcript, '--out', join(dir, 'o.jsonl'), '--in-place']),
        /exclude each other/,
      );
      oneLineError(await run(['compact', transcript, '--force']), /--force only applies with --out/);
      oneLineError(
        await run(['compact', transcript, '--summarizer', 'gpt']),
        /--summarizer must be extractive, anthropic, claude-cli, codex-cli; got 'gpt'/,
      );
      for (const f of ['--model', '--base-url', '--instructions'])
        oneLineError(
          await run(['compact', transcript, f, 'x']),
          new RegExp(`${f} only applies with --summarizer anthropic`),
        );
      oneLineError(
        await run(['compact', transcript, '--claude-path', 'x']),
        /--claude-path only applies with --summarizer claude-cli/,
      );
      oneLineError(
        await run(['compact', transcript, '--summarizer', 'claude-cli', '--codex-path', 'x']),
        /--codex-path only applies with --summarizer codex-cli/,
      );
      oneLineError(
        await run(['compact', transcript, '--summarizer', 'claude-cli', '--model', 'x']),
        /--model only applies with --summarizer anthropic$/m,
      );
      oneLineError(await run(['compact', transcript, '--out', dir]), /is a folder; give a file path/);
      oneLineError(await run(['compact', transcript, '--out', join(dir, 'nope', 'o.jsonl')]), /no such folder/);
      oneLineError(await run(['compact', transcript, '--bogus']), /unknown option '--bogus'/);
    });
  });

  describe('what failed: read, write or refuse, each with its documented exit code', () => {
    it('--out naming the original is refused: exit 2 as --help documents, one line, the original unchanged', async () => {
      const before = readFileSync(transcript);
      for (const out of [transcript, join(dir, '.', 's.jsonl')]) {
        const r = await run(['compact', transcript, ...SMALL, '--out', out]);
        assert.equal(r.status, 2, r.stderr);
        assert.match(r.stderr.trim().split('\n').pop()!, /^agent-compactor: The output would overwrite the original/);
      }
      assert.ok(readFileSync(transcript).equals(before));
      assert.match(
        (await run(['compact', '--help'])).stdout,
        /\n {2}2 {4}unusable input or arguments \(.*the original named as the output\)/,
      );
      assert.match((await run(['compact', '--help'])).stdout, /\n {2}1 {4}failure \(.*a file could not be written\)/);
    });
  });

  describe('the help notes, made at every start without ICU', () => {
    it('groupDigits writes a whole number as toLocaleString("en-US") does, and the size note names the caps so', () => {
      const values = [
        0,
        7,
        42,
        999,
        1_000,
        9_999,
        10_000,
        123_456,
        1_000_000,
        4_000_000,
        2 ** 31,
        Number.MAX_SAFE_INTEGER,
      ];
      for (let n = 1; n < 1e15; n = n * 7 + 3) values.push(n);
      for (const n of values) assert.equal(groupDigits(n), n.toLocaleString('en-US'), String(n));
      assert.ok(SIZE_NOTE.includes(`over ${MAX_TRANSCRIPT_LINES.toLocaleString('en-US')} lines`), SIZE_NOTE);
      assert.ok(SIZE_NOTE.includes(`over ${MAX_TRANSCRIPT_RECORDS.toLocaleString('en-US')} records`), SIZE_NOTE);
    });
  });
});
