// Refits the estimator's weights on the shared fixtures and prints them (paste into
// src/core/tokens/estimate.ts): stage 1 (TEXT_TOKENS) against o200k_base counts of the
// fixtures' texts, stage 2 (TOKEN_MODEL) against the usage deltas of consecutive rounds.
// Run: npx tsx bench/fit-model.ts
import {
  fitModel,
  fitTextTokens,
  loadSessions,
  modelErrors,
  pct,
  errorStats,
  textProxyErrors,
  textSamples,
  withTextWeights,
} from './accuracy';
import { countTokensExact } from '../src/core/tokens/exact';
import { TOKEN_MODEL } from '../src/core/tokens/estimate';

async function main(): Promise<void> {
  const sessions = await loadSessions();
  const { samples, perRound } = textSamples(sessions, countTokensExact);
  const w = fitTextTokens(samples);
  const p = textProxyErrors(samples, w);
  console.log(`stage 1 on ${samples.length} texts (≥100 tokens: median ${pct(p.median)}, p90 ${pct(p.p90)}):`, w);
  const train = sessions.map((s) => withTextWeights(s, perRound, w));
  const model = fitModel(train);
  // Per-character fallbacks: proxy tokens per character of each kind, times the kind's scale.
  const dens = (kind: 'prose' | 'toolUseInput' | 'toolResult') => {
    let tok = 0;
    let chars = 0;
    for (const s of train)
      for (const r of s.rounds)
        if (r.content.proxy) {
          tok += r.content.proxy[kind];
          chars += r.content.proxy[`${kind}Chars`];
        }
    return tok / chars;
  };
  model.prose = model.proseScale * dens('prose');
  model.toolUseInput = model.toolUseInputScale * dens('toolUseInput');
  model.toolResult = model.toolResultScale * dens('toolResult');
  const s = errorStats(modelErrors(train, model));
  console.log(`stage 2 on the usage deltas (in-sample median ${pct(s.median)}, p90 ${pct(s.p90)}):`, model);
  console.log(
    'current TOKEN_MODEL in-sample:',
    (() => {
      const c = errorStats(modelErrors(sessions, TOKEN_MODEL));
      return `${pct(c.median)} / ${pct(c.p90)}`;
    })(),
  );
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
