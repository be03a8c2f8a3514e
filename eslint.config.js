// Lint: typescript-eslint's recommended rules, plus two architectural rules: nothing in lib/ outside
// lib/k6/ may import k6 modules (pure logic stays testable in Node), and the k6 double (k6-double/)
// is used through its entry only.
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
    // The k6 double is a package of its own: the rest of the project uses its entry (k6-double/index.ts)
    // only. Before the lib/ block, whose no-restricted-imports replaces this one there.
    files: ['**/*.ts'],
    ignores: ['k6-double/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/k6-double/*', '!**/k6-double/index'], message: "Import the k6 double through its entry: '…/k6-double'." }] },
      ],
    },
  },
  {
    files: ['lib/**/*.ts'],
    ignores: ['lib/k6/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['k6', 'k6/*'], message: 'Pure modules must not import k6: put k6 calls in lib/k6/.' }] },
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
    files: ['test/**/fixtures/**/*.js', 'k6-double/test/fixtures/**/*.js'],
    languageOptions: { globals: { __ENV: 'readonly', __VU: 'readonly', __ITER: 'readonly', open: 'readonly', console: 'readonly' } },
  },
);
