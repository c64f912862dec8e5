// Lint: typescript-eslint's type-checked recommended rules over src, test, bench and scripts.
// `npm run lint` (and the lint step of scripts/test.sh) fails on any warning.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/** `process.stdout` or `process.stderr`, however it is then used (written to, passed on, kept in a variable). */
const STD_STREAM = "MemberExpression[object.name='process'][property.name=/^(stdout|stderr)$/]";

export default tseslint.config(
  {
    ignores: [
      'bench/work/**',
      'dist/**',
      'out/**',
      'node_modules/**',
      '.vscode-test/**',
      'test-results/**',
      'examples/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // A promise nobody awaits loses its errors: in an extension that means a silent failure.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async function passed where a void callback is expected (VS Code event handlers).
      '@typescript-eslint/no-misused-promises': 'error',
      // `_`-prefixed names and rest-sibling omissions are deliberate (tsc's noUnused* checks agree).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The CLI writes to the terminal only through src/cli/format.ts, which makes transcript text terminal-safe: no
    // console, and process.stdout / process.stderr only to ask whether they are a terminal.
    files: ['src/cli/**/*.ts'],
    ignores: ['src/cli/format.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: `:not(MemberExpression[property.name=/^(isTTY|columns|rows)$/]) > ${STD_STREAM}`,
          message:
            'Write through printOut / printErr / printJson (src/cli/format.ts): they keep escape sequences from transcripts off the terminal.',
        },
      ],
    },
  },
  {
    // The core is shared by the CLI, the extension and the tests: it returns what it has to say and never writes to
    // a terminal itself (its callers make text terminal-safe, or show it in VS Code).
    files: ['src/core/**/*.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: STD_STREAM,
          message:
            'The core writes to no terminal: return the text (notes, progress callbacks) and let the CLI print it through src/cli/format.ts.',
        },
      ],
    },
  },
  {
    // Tests, and the benchmarks that share their helpers (recorded API requests typed `any`), may poke at loosely
    // typed JSON with `any`. Promises are still checked here as everywhere.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // Plain ES modules (build scripts, this file): not in tsconfig, so no type information.
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
  },
  // Layout is Prettier's (`npm run format`; `prettier --check` in `npm run lint`): no stylistic rule may disagree.
  prettier,
);
