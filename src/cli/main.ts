#!/usr/bin/env node
// agent-compactor: command-line twin of the extension. One file per verb; each verb's option
// table (src/cli/options.ts) makes both its parser and its help.
import { describeFsError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from './args';
import { renderExitCodes, renderVerbSection, parseVerbArgs, bool, type VerbSpec } from './options';
import { findVerb, VERBS } from './verbs';
import { NotATranscriptError } from '../core/transcript';
import { AGENTS } from '../core/formats/registry';
import { CompactError } from '../core/compact/types';
import { printErr, printOut, sanitizeForTerminal } from './format';

const TOP_OPTIONS: readonly [string, string][] = [
  ['-h, --help', 'this help; `agent-compactor help <command>` or `agent-compactor <command> --help` for one command'],
  ['--version', 'print the version'],
];

/** The agents read, and which of them are written back, from the registry: "Claude Code, Codex CLI (compacted); …". */
function agentList(): string {
  const compacted = AGENTS.filter((a) => a.capabilities('jsonl').compact).map((a) => a.name);
  const read = AGENTS.filter((a) => !a.capabilities('jsonl').compact).map((a) => a.name);
  return `${compacted.join(', ')}: inspected and compacted; ${read.join(', ')}: inspected`;
}

export function renderHelp(): string {
  return (
    [
      `agent-compactor: inspect and compact coding-agent session transcripts (${agentList()})`,
      '',
      ...TOP_OPTIONS.map(([f, h]) => `  ${f.padEnd(12)} ${h}`),
      '',
      ...VERBS.flatMap((v) => [renderVerbSection(v), '']),
      renderExitCodes(),
    ].join('\n') + '\n'
  );
}

export function renderVerbHelp(spec: VerbSpec): string {
  return `${renderVerbSection(spec)}\n\n${renderExitCodes()}\n`;
}

function unknownCommand(name: string): number {
  printErr(
    `agent-compactor: unknown command '${sanitizeForTerminal(name)}' (commands: ${VERBS.map((v) => v.name).join(', ')}; try --help)\n`,
  );
  return EXIT_USAGE;
}

export async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb) {
    printErr(renderHelp());
    return EXIT_USAGE;
  }
  if (verb === '--help' || verb === '-h') {
    printOut(renderHelp());
    return EXIT_OK;
  }
  if (verb === 'help') {
    if (rest.length === 0) {
      printOut(renderHelp());
      return EXIT_OK;
    }
    const spec = findVerb(rest[0]);
    if (!spec || rest.length > 1) return unknownCommand(rest.join(' '));
    printOut(renderVerbHelp(spec));
    return EXIT_OK;
  }
  if (verb === '--version') {
    printOut(`${VERSION}\n`);
    return EXIT_OK;
  }
  const spec = findVerb(verb);
  if (!spec) return unknownCommand(verb);
  try {
    const { values, positionals } = parseVerbArgs(spec, rest);
    if (bool(values, 'help')) {
      printOut(renderVerbHelp(spec));
      return EXIT_OK;
    }
    return await spec.run(values, positionals);
  } catch (err) {
    // An unsafe path beside the transcript (a planted link, FIFO, device) is bad input, like an unreadable transcript.
    if (
      err instanceof UsageError ||
      err instanceof NotATranscriptError ||
      (err instanceof CompactError && err.code === 'unsafe-path')
    ) {
      printErr(`agent-compactor: ${sanitizeForTerminal(err.message)}\n`);
      return EXIT_USAGE;
    }
    const fs = describeFsError(err);
    if (fs) {
      printErr(`agent-compactor: ${fs}\n`);
      return EXIT_USAGE;
    }
    printErr(`agent-compactor: ${sanitizeForTerminal(err instanceof Error ? err.message : String(err))}\n`);
    return EXIT_FAILURE;
  }
}

declare const VERSION: string;

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      printErr(`agent-compactor: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exitCode = EXIT_FAILURE;
    },
  );
}
