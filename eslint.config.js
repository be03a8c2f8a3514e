// Lint: typescript-eslint's recommended rules, plus architectural rules: nothing in lib/ outside
// lib/k6/ may import k6 modules (pure logic stays testable in Node), nothing in lib/ (lib/k6/ included)
// imports a Node module, production code (lib/, scenarios/, scripts/, sim/) imports no test code, and in
// lib/ an import only goes down the layers, without cycles.
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const globals = require('globals');
const path = require('node:path');
const importGraph = require('./scripts/lint/import-graph.cjs');
const layers = require('./scripts/lint/layers.cjs');
const fs = require('node:fs');
// The core rule once more under a name of its own, so that it can warn at one length and fail at another.
const { builtinRules } = require('eslint/use-at-your-own-risk');

/** lib/ has no import cycle: reported on every file of one, with the cycle's files. Built once per lint run. */
let cycleOf = null;
const noImportCycle = {
  meta: { type: 'problem', schema: [], messages: { cycle: 'import cycle in lib/: {{files}}. Move the shared types to a leaf module.' } },
  create(context) {
    if (cycleOf === null) {
      cycleOf = new Map();
      for (const c of importGraph.cycles(importGraph.graph())) for (const f of c) cycleOf.set(f, c);
    }
    const c = cycleOf.get(path.resolve(context.filename));
    return {
      Program(node) {
        if (c) context.report({ node, messageId: 'cycle', data: { files: c.map((f) => path.relative(importGraph.ROOT, f)).join(' → ') } });
      },
    };
  },
};

/** An import in lib/ goes down the layers (scripts/lint/layers.cjs says which way is down). */
const importDown = {
  meta: { type: 'problem', schema: [], messages: { up: '{{why}}' } },
  create(context) {
    const from = path.resolve(context.filename);
    const check = (node) => {
      const spec = node.source && node.source.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const t = path.resolve(path.dirname(from), spec);
      const to = [`${t}.ts`, path.join(t, 'index.ts')].find((c) => fs.existsSync(c));
      const why = to && layers.violation(from, to);
      if (why) context.report({ node, messageId: 'up', data: { why } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

// A regex, not a gitignore-style group: the group 'http' would match k6/http too.
const NO_NODE_MODULES = {
  regex: '^(node:.*|fs|path|os|child_process|http|crypto)(/.*)?$',
  message: 'lib/ runs on k6: no Node modules (put Node code in scripts/ or sim/).',
};
const NO_TEST_CODE = { group: ['**/test/*', '**/test/**'], message: 'Production code imports no test code.' };

module.exports = tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'results/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Past five, a call is read by counting commas: pass a parameter object instead.
      'max-params': ['error', 5],
    },
  },
  {
    // Width 160, as prettier's printWidth (.prettierrc): strings, template literals and comments count too (a long
    // message is written as joined short strings). URLs and regex literals stay whole: a regex cut in pieces needs
    // new RegExp and reads worse. Data files are excluded: lib/dataset/builtin/ holds prompt corpora and fixtures/
    // folders hold recorded replies and reports, both text kept as it was captured (JSON is not linted at all).
    files: ['**/*.ts', '**/*.js', '**/*.mjs', '**/*.cjs'],
    ignores: ['lib/dataset/builtin/**', '**/fixtures/**'],
    rules: { 'max-len': ['error', { code: 160, ignoreUrls: true, ignoreRegExpLiterals: true }] },
  },
  {
    // A function past ~80 lines is worth splitting along its jobs (a warning); past 100, it must be.
    files: ['lib/**/*.ts', 'scripts/**/*.ts', 'sim/**/*.ts'],
    plugins: { size: { rules: { 'function-lines': builtinRules.get('max-lines-per-function') } } },
    rules: {
      'max-lines-per-function': ['warn', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
      'size/function-lines': ['error', { max: 100, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  {
    // Before the lib/ blocks, whose no-restricted-imports replace this one there (and repeat the rule).
    files: ['scenarios/**/*.ts', 'scripts/**/*.ts', 'sim/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_TEST_CODE] }] },
  },
  {
    // The k6 layer may import k6, and like the rest of lib/ no Node module: it runs on k6 too.
    files: ['lib/k6/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_NODE_MODULES, NO_TEST_CODE] }] },
  },
  {
    files: ['lib/**/*.ts'],
    plugins: { layers: { rules: { 'no-import-cycle': noImportCycle, 'import-down': importDown } } },
    rules: { 'layers/no-import-cycle': 'error', 'layers/import-down': 'error' },
  },
  {
    files: ['lib/**/*.ts'],
    ignores: ['lib/k6/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['k6', 'k6/*'], message: 'Pure modules must not import k6: put k6 calls in lib/k6/.' }, NO_NODE_MODULES, NO_TEST_CODE],
        },
      ],
    },
  },
  {
    // The public library (lib/api/) stands on the k6 layer, as scenarios/ do: it imports lib/k6/, never k6 itself.
    files: ['lib/api/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ regex: '^k6(/.*)?$', message: 'lib/api/ reaches k6 through lib/k6/ (lib/k6/library.ts).' }, NO_NODE_MODULES, NO_TEST_CODE],
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
