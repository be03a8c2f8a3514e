// Lint: typescript-eslint's recommended rules, plus the one architectural rule that keeps pure
// logic testable in Node: nothing outside lib/k6/ and scenarios/ may import k6 modules.
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
    files: ['test/**/fixtures/**/*.js'],
    languageOptions: { globals: { __ENV: 'readonly', __VU: 'readonly', __ITER: 'readonly', open: 'readonly', console: 'readonly' } },
  },
);
