// Episode 9: lint (four parallel edits).
import { type Episode, fit, passing } from './story';
import { Gen, type StepF } from '../../example-generator/session-writer';

function lintOutput(g: Gen, clean: boolean): string {
  const head = "\n> shelfmark@0.9.0 lint\n> eslint 'src/**/*.ts' 'test/**/*.ts'\n";
  if (clean) return head;
  const out = [head];
  let n = 0;
  for (const rel of g.project.unusedImports) {
    const lines = g.project.read(rel).split('\n');
    const at = lines.findIndex(
      (l) => l.startsWith('import { logger }') || l.startsWith("import { NotFoundError } from '../lib/errors';"),
    );
    if (at < 0) continue;
    const name = lines[at].includes('logger') ? 'logger' : 'NotFoundError';
    out.push(
      g.project.abs(rel),
      `  ${at + 1}:10  error  '${name}' is defined but never used  @typescript-eslint/no-unused-vars`,
      '',
    );
    n++;
  }
  out.push(`✖ ${n} problems (${n} errors, 0 warnings)`, '');
  return out.join('\n');
}

export const lintEpisode: Episode = {
  key: 'lint',
  min: 5,
  max: 7,
  title: 'clean up eslint errors (unused imports)',
  done: 'Lint: removed the unused imports reported by eslint in four files (generated route/service modules); npm run lint and tsc --noEmit are clean.',
  prompt: () => 'npm run lint is complaining, can you clean it up?',
  steps: (_g, n) => {
    const core: StepF[] = [
      (g) => ({
        thinking: 'See what eslint reports.',
        tools: [
          g.bash('npm run lint', 'Run eslint', () => ({
            out: lintOutput(g, false),
            code: 1,
            ms: g.rng.int(4_000, 9_000),
          })),
        ],
      }),
      (g) => ({
        thinking:
          'All four are unused imports left behind when the error handling moved into errorHandler and logging into the request logger. Remove each import line; the files are independent so the edits can go in parallel.',
        text: 'Four unused imports; removing them:',
        tools: g.project.unusedImports.map((rel) => {
          const line =
            g.project
              .read(rel)
              .split('\n')
              .find(
                (l) =>
                  l.startsWith('import { logger }') || l.startsWith("import { NotFoundError } from '../lib/errors';"),
              ) ?? '';
          return g.edit(rel, line + '\n', '');
        }),
      }),
      (g) => ({
        thinking: 'The edits touched four modules; run the whole suite to be safe before re-linting.',
        tools: [
          g.bash(
            'npm test 2>&1',
            'Run the full test suite',
            () => passing(g, undefined, { header: 'test vitest run', noise: g.budgetChars(2_000, 110_000) }),
            { timeout: 300000 },
          ),
        ],
      }),
      (g) => ({
        thinking: 'Lint and typecheck again.',
        tools: [
          g.bash(
            'npm run lint && npx tsc --noEmit && echo "lint and typecheck clean"',
            'Run eslint and the typecheck',
            () => ({ out: lintOutput(g, true) + '\nlint and typecheck clean', ms: g.rng.int(9_000, 16_000) }),
          ),
        ],
      }),
    ];
    const extras: StepF[] = [
      (g) => ({
        thinking:
          'Let me double-check one of the files to be sure the import is really unused and not used in a type position.',
        tools: [g.read(g.project.unusedImports[0])],
      }),
    ];
    const final: StepF = (g) => ({
      thinking: 'Short summary.',
      text: `Lint is clean. The four errors were unused imports (\`no-unused-vars\`):\n\n${g.project.unusedImports.map((p) => `- \`${p}\``).join('\n')}\n\nRemoved them; \`npm run lint\` and \`tsc --noEmit\` both pass. No behaviour change.`,
      tools: [],
    });
    return fit(core, extras, final, n);
  },
};
