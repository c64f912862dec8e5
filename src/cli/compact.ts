// `agent-compactor compact <file>`: summarize-or-truncate and write the result.
import { compactFile } from '../core/compact/compact';
import { CompactError } from '../core/compact/types';
import { parse, onePositional, UsageError } from './args';
import { formatTokens } from './format';
import { SETTING_FLAGS, settingsFrom } from './settings';

const USAGE =
  'agent-compactor compact <file> [--target-tokens N] [--keep-recent-tokens N] [--summarizer extractive|anthropic] [--model M] [--base-url URL] [--instructions TEXT] [--out FILE | --in-place] [--fresh] [--json]';

export async function runCompact(argv: string[]): Promise<number> {
  const { values, positionals } = parse(
    argv,
    {
      ...SETTING_FLAGS,
      summarizer: { type: 'string' },
      model: { type: 'string' },
      'base-url': { type: 'string' },
      instructions: { type: 'string' },
      out: { type: 'string' },
      'in-place': { type: 'boolean' },
      fresh: { type: 'boolean' },
    },
    USAGE,
  );
  const file = onePositional(positionals, USAGE);
  // Transcript content leaves the machine only when asked: a key in the environment alone is not consent.
  const summarizer = values.summarizer ?? 'extractive';
  if (summarizer !== 'extractive' && summarizer !== 'anthropic') throw new UsageError(`--summarizer must be extractive or anthropic\nusage: ${USAGE}`);
  if (values.out && values['in-place']) throw new UsageError(`--out and --in-place exclude each other\nusage: ${USAGE}`);
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  const quiet = values.json === true;
  try {
    const result = await compactFile(file, {
      settings: settingsFrom(values),
      summarizer,
      anthropic: { apiKey: summarizer === 'anthropic' ? process.env.ANTHROPIC_API_KEY : undefined, model: values.model, baseURL: values['base-url'] },
      out: values.out,
      inPlace: values['in-place'],
      fresh: values.fresh,
      instructions: values.instructions,
      signal: controller.signal,
      onProgress: quiet ? undefined : (m) => process.stderr.write(`${m}\n`),
    });
    if (values.json) {
      process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    } else {
      const p = result.plan;
      process.stdout.write(
        [
          `wrote ${result.output}`,
          result.backup ? `backup ${result.backup}` : null,
          `${formatTokens(result.preTokens)} → ${formatTokens(result.postTokens)} tokens of transcript (estimated; about ${formatTokens(p.overheadTokens)} of system prompt and tools come on top); ` +
            `${p.rounds.filter((r) => r.inContext && r.action === 'keep').length} rounds kept verbatim, ${p.summarizedRounds} summarized, ${p.droppedRounds} dropped; ` +
            `${p.toolResults.filter((t) => t.preview).length} tool results replaced by previews`,
          result.toolResultsDir ? `full tool results in ${result.toolResultsDir}` : null,
          ...result.attempts.map((a) => `attempt ${a.attempt}: ${a.strategy} → ${a.outcome} (${a.detail})`),
          ...p.notes.map((n) => `note: ${n}`),
        ]
          .filter(Boolean)
          .join('\n') + '\n',
      );
    }
    return 0;
  } catch (err) {
    if (err instanceof CompactError) {
      if (err.code === 'nothing-to-compact') {
        process.stdout.write(values.json ? JSON.stringify({ output: null, nothingToDo: true, message: err.message }) + '\n' : `${err.message}\n`);
        return 0;
      }
      process.stderr.write(`agent-compactor: ${err.message}\n`);
      return err.code === 'cancelled' ? 130 : 1;
    }
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
  }
}
