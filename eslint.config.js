// Lint: typescript-eslint's recommended rules, plus two architectural rules: nothing in lib/ outside
// lib/k6/ may import k6 modules (pure logic stays testable in Node), and production code (lib/, scenarios/,
// scripts/, sim/) imports no test code.
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const globals = require('globals');

module.exports = tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'results/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Before the lib/ block, whose no-restricted-imports replaces this one there (and repeats the rule).
    files: ['scenarios/**/*.ts', 'scripts/**/*.ts', 'sim/**/*.ts', 'lib/k6/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/test/*', '**/test/**'], message: 'Production code imports no test code.' }] }],
    },
  },
  {
    files: ['lib/**/*.ts'],
    ignores: ['lib/k6/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['k6', 'k6/*'], message: 'Pure modules must not import k6: put k6 calls in lib/k6/.' },
            { group: ['**/test/*', '**/test/**'], message: 'Production code imports no test code.' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // k6 scripts used as test fixtures: k6's globals, not Node's.
    files: ['test/**/fixtures/**/*.js'],
    languageOptions: { globals: { __ENV: 'readonly', __VU: 'readonly', __ITER: 'readonly', open: 'readonly', console: 'readonly' } },
  },
);
