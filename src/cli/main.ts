#!/usr/bin/env node
// agent-compactor: command-line twin of the extension. One file per verb.
import { runInspect } from './inspect';
import { verbs } from './verbs';
import { UsageError, EXIT_USAGE } from './args';
import { NotATranscriptError } from '../core/transcript';

const HELP = `agent-compactor: inspect and compact coding-agent session transcripts (Claude Code JSONL)

Usage:
  agent-compactor inspect <file> [--json]
  agent-compactor plan <file> [--target-tokens N] [--keep-recent-tokens N] [--json]
  agent-compactor compact <file> [--target-tokens N] [--summarizer extractive|anthropic]
                          [--model M] [--base-url URL] [--out FILE | --in-place] [--json]

Exit codes: 0 success, 1 failure, 2 unusable input or arguments.
The Anthropic summarizer reads its key from ANTHROPIC_API_KEY.`;

type Verb = (argv: string[]) => Promise<number>;

function loadVerb(name: string): Verb | undefined {
  switch (name) {
    case 'inspect':
      return runInspect;
    default:
      return Object.prototype.hasOwnProperty.call(verbs, name) ? verbs[name] : undefined;
  }
}

export async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb || verb === '--help' || verb === '-h' || verb === 'help') {
    process.stdout.write(HELP + '\n');
    return verb ? 0 : EXIT_USAGE;
  }
  if (verb === '--version') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const run = loadVerb(verb);
  if (!run) {
    process.stderr.write(`agent-compactor: unknown command '${verb}' (try --help)\n`);
    return EXIT_USAGE;
  }
  try {
    return await run(rest);
  } catch (err) {
    if (err instanceof UsageError || err instanceof NotATranscriptError) {
      process.stderr.write(`agent-compactor: ${err.message}\n`);
      return EXIT_USAGE;
    }
    const e = err as NodeJS.ErrnoException;
    if (e && (e.code === 'ENOENT' || e.code === 'EISDIR' || e.code === 'EACCES')) {
      process.stderr.write(`agent-compactor: ${e.message}\n`);
      return EXIT_USAGE;
    }
    process.stderr.write(`agent-compactor: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

declare const VERSION: string;

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`agent-compactor: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
