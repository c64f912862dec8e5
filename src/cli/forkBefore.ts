// `agent-compactor fork-before <file> --compaction N`: a new session holding the chain up to just before a compaction
// the agent made by itself (core/repair/forkBefore.ts), to undo an idle or auto compaction that discarded working context.
import { forkBeforeCompaction } from '../core/repair/forkBefore';
import { compactionLine } from '../core/agentCompactions';
import { CompactError } from '../core/compact/types';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, onePositional, readableTranscript, UsageError } from './args';
import { formatTokens, printErr, printJson, printOut, sanitizeForTerminal } from './format';
import { bool, HELP_OPTION, JSON_OPTION, str, type Values, type VerbSpec } from './options';

export const forkBeforeVerb: VerbSpec = {
  name: 'fork-before',
  args: '<file>',
  summary:
    'Writes a new session (a fork beside the original, which stays untouched) holding the conversation as it was just before one of its compactions, to undo a compaction that discarded work.',
  options: [
    {
      flag: 'compaction',
      type: 'string',
      value: 'N',
      help: 'which compaction, numbered as inspect lists them (1 is the first in the file)',
      default: 'required',
    },
    JSON_OPTION,
    HELP_OPTION,
  ],
  notes: [
    'Claude Code sessions only (a Codex rollout is refused with the reason). Exit 0 when the fork is written, 1 when it cannot be (the file changed, the fork would not resume validly), 2 on unusable input or an unknown compaction.',
  ],
  run: runForkBefore,
};

export async function runForkBefore(values: Values, positionals: string[]): Promise<number> {
  const file = await readableTranscript(onePositional(positionals, 'fork-before'));
  const given = str(values, 'compaction');
  if (given === undefined) throw new UsageError('fork-before: --compaction N is required (inspect lists them)');
  if (!/^[1-9]\d{0,5}$/.test(given))
    throw new UsageError(`--compaction must be a compaction's number (1, 2, …); got '${sanitizeForTerminal(given)}'`);
  try {
    const r = await forkBeforeCompaction(file, Number(given));
    if (bool(values, 'json')) printJson(JSON.stringify(r, null, 2) + '\n');
    else
      printOut(
        [
          `forked before compaction ${r.compaction.number}: ${sanitizeForTerminal(compactionLine(r.compaction))}`,
          `wrote ${sanitizeForTerminal(r.output)}: ${r.lines} lines; resuming it sends ${r.messages} messages, about ${formatTokens(r.estimatedTokens)} tokens (the original is untouched)`,
          r.resumeCommand
            ? `resume: ${sanitizeForTerminal(r.resumeCommand)}`
            : `no resume command: ${sanitizeForTerminal(r.resumeProblem ?? '')}`,
        ].join('\n') + '\n',
      );
    return EXIT_OK;
  } catch (err) {
    if (err instanceof CompactError) {
      printErr(`agent-compactor: ${sanitizeForTerminal(err.message)}\n`);
      return err.code === 'unsupported-format' || err.code === 'nothing-to-compact' ? EXIT_USAGE : EXIT_FAILURE;
    }
    throw err;
  }
}
