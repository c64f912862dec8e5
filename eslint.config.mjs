// Lint: typescript-eslint's type-checked recommended rules over src, test, bench and scripts.
// `npm run lint` (and the lint step of scripts/test.sh) fails on any warning.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

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
    // The CLI writes to the terminal only through src/cli/format.ts, which makes transcript text terminal-safe.
    files: ['src/cli/**/*.ts'],
    ignores: ['src/cli/format.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.property.name='write'][callee.object.object.name='process'][callee.object.property.name=/^(stdout|stderr)$/]",
          message:
            'Write through printOut / printErr / printJson (src/cli/format.ts): they keep escape sequences from transcripts off the terminal.',
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
