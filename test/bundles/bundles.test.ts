// Static checks of every dist/*.js and dist/sse/*.js: each must load on k6 v1.x and v2.x, in both
// the default and --compatibility-mode=base: an ES2020 module that imports (or requires) only k6
// modules and touches no global k6 lacks. And what k6's automatic extension resolution
// (k6 >= 1.0) finds in them: nothing in dist/*.js, exactly xk6-sse in dist/sse/*.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as acorn from 'acorn';

const root = join(__dirname, '..', '..');
const dist = join(root, 'dist');
const scenarios = readdirSync(join(root, 'scenarios'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3));

/** The modules once.js serves (lib/k6/lifecycle/once-table.ts's table, which webpack.config.js reads too). */
const ONCE_KEYS = [...readFileSync(join(root, 'lib', 'k6', 'lifecycle', 'once-table.ts'), 'utf8').matchAll(/^ {2}get (\w+)\(\) \{/gm)].map((m) => m[1]);

/** Globals a browser or Node has and k6 (v0.49 at least) does not. */
const MISSING_IN_K6 = [
  'process',
  'Buffer',
  'TextEncoder',
  'TextDecoder',
  'structuredClone',
  'fetch',
  'setTimeout',
  'setInterval',
  'performance',
  'Intl',
  'window',
  'document',
  'navigator',
  'globalThis',
  'queueMicrotask',
  'URL',
  'AbortController',
];

type Node = acorn.Node & Record<string, unknown>;

/**
 * The extension modules k6's automatic extension resolution finds in a script. k6 v1.3
 * (grafana/k6deps v0.4.0) re-bundles the script with esbuild, which drops its comments and prints
 * strings in double quotes, then matches the regular expressions below (dependencies.go: srcName
 * restricted to k6/x/ names, srcRequire, srcImport) against the result. Here acorn finds the
 * comments; both quote styles count.
 */
function extensionsK6Finds(src: string): string[] {
  const comments: Array<[number, number]> = [];
  acorn.parse(src, {
    ecmaVersion: 'latest',
    sourceType: 'module',
    allowReturnOutsideFunction: true,
    onComment: (_block, _text, start, end) => comments.push([start, end]),
  });
  let code = '';
  let at = 0;
  for (const [start, end] of comments) {
    code += src.slice(at, start);
    at = end;
  }
  code += src.slice(at);
  const name = 'k6/x/[/0-9a-zA-Z_-]+';
  const re = new RegExp(`require\\(\\s*["'](${name})["']\\s*\\)|import (?:.* from )?["'](${name})["'](?:;|$)`, 'gm');
  return [...code.matchAll(re)].map((m) => m[1] ?? m[2] ?? '');
}

function walk(node: unknown, visit: (n: Node, parent: Node | null) => void, parent: Node | null = null): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const c of node) walk(c, visit, parent);
    return;
  }
  const n = node as Node;
  if (typeof n.type !== 'string') return;
  visit(n, parent);
  for (const [k, v] of Object.entries(n)) if (k !== 'type' && k !== 'start' && k !== 'end') walk(v, visit, n);
}

/** Names declared anywhere in the bundle (var/let/const/function/params): not free globals. */
function declaredNames(ast: acorn.Node): Set<string> {
  const names = new Set<string>();
  const addPattern = (p: unknown): void => {
    const n = p as Node | null;
    if (!n) return;
    if (n.type === 'Identifier') names.add(n.name as string);
    else if (n.type === 'ObjectPattern') for (const prop of n.properties as Node[]) addPattern(prop.type === 'RestElement' ? prop.argument : prop.value);
    else if (n.type === 'ArrayPattern') for (const e of n.elements as Node[]) addPattern(e);
    else if (n.type === 'AssignmentPattern') addPattern(n.left);
    else if (n.type === 'RestElement') addPattern(n.argument);
  };
  walk(ast, (n) => {
    if (n.type === 'VariableDeclarator') addPattern(n.id);
    if ((n.type === 'FunctionDeclaration' || n.type === 'FunctionExpression' || n.type === 'ArrowFunctionExpression') && Array.isArray(n.params)) {
      if (n.id) addPattern(n.id);
      for (const p of n.params as Node[]) addPattern(p);
    }
    if (n.type === 'ClassDeclaration' && n.id) addPattern(n.id);
    if (n.type === 'CatchClause' && n.param) addPattern(n.param);
  });
  return names;
}

const BUNDLES = scenarios.flatMap((name) => [
  { file: `${name}.js`, sse: false },
  { file: `sse/${name}.js`, sse: true },
]);

for (const { file: bundle, sse } of BUNDLES) {
  test(`dist/${bundle} loads on every supported k6`, () => {
    const file = join(dist, bundle);
    assert.ok(existsSync(file), `dist/${bundle} is missing: run npm run build`);
    const src = readFileSync(file, 'utf8');
    // An ES2020 module: no syntax newer than k6's parser knows.
    const ast = acorn.parse(src, { ecmaVersion: 2020, sourceType: 'module' });

    const required: string[] = [];
    const exported: string[] = [];
    let dynamic = 0;
    const declared = declaredNames(ast);
    const freeGlobals = new Set<string>();
    walk(ast, (n, parent) => {
      if (n.type === 'CallExpression' && (n.callee as Node).type === 'Identifier' && (n.callee as Node).name === 'require') {
        const arg = (n.arguments as Node[])[0];
        if (arg?.type === 'Literal') required.push(String(arg.value));
        else dynamic++;
      }
      if (n.type === 'ImportDeclaration') required.push(String((n.source as Node).value));
      if (n.type === 'ImportExpression') dynamic++;
      if (n.type === 'ExportNamedDeclaration') for (const sp of n.specifiers as Node[]) exported.push(String((sp.exported as Node).name));
      if (n.type === 'Identifier' && MISSING_IN_K6.includes(n.name as string) && !declared.has(n.name as string)) {
        const isProperty =
          parent && ((parent.type === 'MemberExpression' && parent.property === n && !parent.computed) || (parent.type === 'Property' && parent.key === n));
        if (!isProperty) freeGlobals.add(n.name as string);
      }
    });
    assert.deepEqual([...freeGlobals], [], `uses globals k6 does not have: ${[...freeGlobals].join(', ')}`);
    assert.ok(required.length > 0);
    // k6 modules, and once.js beside the bundle (what not every VU runs: lib/k6/lifecycle/once-table.ts), one
    // require per entry of its table.
    for (const r of required) assert.match(r, /^(k6(\/.*)?|\.\/once\.js)$/, `requires ${r}, which k6 cannot load`);
    assert.equal(required.filter((r) => r === './once.js').length, ONCE_KEYS.length, 'requires once.js once per entry of its table');
    assert.ok(existsSync(join(dist, bundle, '..', 'once.js')), `once.js is missing beside dist/${bundle}`);
    assert.ok(required.includes('k6/http') && required.includes('k6/metrics'));
    if (sse) {
      // The extension by its literal name, once, and nothing computed: k6 >= 1.0 provisions it.
      assert.equal(dynamic, 0, 'no require by a computed name');
      assert.deepEqual(
        required.filter((r) => r.startsWith('k6/x/')),
        ['k6/x/sse'],
      );
      assert.deepEqual(extensionsK6Finds(src), ['k6/x/sse'], 'k6 finds exactly the sse extension');
      assert.equal(src.match(/require\(["']k6\/x\/sse["']\)/g)?.length, 1);
    } else {
      // One computed require: the sse extension, loaded only for TRANSPORT=sse.
      assert.equal(dynamic, 1, 'only the sse extension may be required by a computed name');
      // k6 v1.x scans scripts for extension names and tries to download a build for any it finds.
      assert.deepEqual(extensionsK6Finds(src), [], 'k6 finds an extension to provision');
      assert.doesNotMatch(src, /k6\/x\//, 'the bundle names a k6/x/ extension literally');
    }

    // The k6 entry points, as the module's exports.
    for (const exp of ['options', 'default', 'setup', 'measure', 'probe', 'watch', 'handleSummary'])
      assert.ok(exported.includes(exp), `export ${exp} missing: ${exported.join(', ')}`);
    assert.doesNotMatch(src, /\/\/# sourceMappingURL=data:/, 'inline source maps bloat the bundle');
  });
}

for (const dir of ['', 'sse/']) {
  test(`dist/${dir}once.js, what not every VU runs: ES2020, k6 modules only, setup and the reports in it, and nothing else requires it`, () => {
    const src = readFileSync(join(dist, dir, 'once.js'), 'utf8');
    const ast = acorn.parse(src, { ecmaVersion: 2020, sourceType: 'module' });
    const required: string[] = [];
    const exported: string[] = [];
    walk(ast, (n) => {
      // (A computed name: the sse extension, in the http build's sender.)
      if (
        n.type === 'CallExpression' &&
        (n.callee as Node).type === 'Identifier' &&
        (n.callee as Node).name === 'require' &&
        (n.arguments as Node[])[0]?.type === 'Literal'
      )
        required.push(String((n.arguments as Node[])[0].value));
      if (n.type === 'ImportDeclaration') required.push(String((n.source as Node).value));
      if (n.type === 'ExportNamedDeclaration') for (const sp of n.specifiers as Node[]) exported.push(String((sp.exported as Node).name));
    });
    for (const r of required) assert.match(r, /^k6(\/.*)?$/, `once.js requires ${r}`);
    assert.deepEqual(exported, ['modules'], 'once.js exports its table alone');
    for (const key of ONCE_KEYS) assert.ok(src.includes(`get ${key}() {`), `once.js serves ${key}`);
    // The report code lives here, not in the bundle every VU compiles.
    assert.match(src, /function renderHtml\(/);
    assert.doesNotMatch(readFileSync(join(dist, dir, 'dflash-vs-mtp.js'), 'utf8'), /function renderHtml\(/);
  });
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const importGraph = require('../../scripts/lint/import-graph.cjs') as { graph(o?: { values?: boolean }): Map<string, string[]> };

test('what every VU evaluates is laid out in one scope: webpack wraps in a lazy accessor only the modules the probe, watch and reset require', () => {
  // A module that webpack evaluates lazily (a require() target) makes every module it imports an
  // accessor too, called on each use; once.js keeps those out of the bundle (lib/k6/lifecycle/once-table.ts).
  const values = importGraph.graph({ values: true });
  const every = new Set<string>();
  const visit = (file: string) => {
    if (every.has(file)) return;
    every.add(file);
    for (const d of values.get(file) ?? []) visit(d);
  };
  visit(join(root, 'lib', 'k6', 'lifecycle', 'bundle-init.ts'));
  const everyVu = new Set([...every].map((f) => relative(root, f)));
  for (const file of ['context-matrix.js', 'sse/context-matrix.js']) {
    const src = readFileSync(join(dist, file), 'utf8');
    const wrapped = [...src.matchAll(/^\/\/ MODULE: \.\/(lib\/\S+)$/gm)].map((m) => m[1]);
    const hoisted = [...src.matchAll(/^;\/\/ \.\/(lib\/\S+)$/gm)].map((m) => m[1]);
    assert.ok(wrapped.includes('lib/server-metrics/probe.ts'), `${file}: the probe stays in the bundle, evaluated on first use`);
    assert.ok(
      hoisted.includes('lib/reading/chunk-template.ts') && hoisted.includes('lib/k6/measure.ts'),
      `${file}: the reader and the measuring function in one scope`,
    );
    assert.deepEqual(
      wrapped.filter((f) => everyVu.has(f)),
      [],
      `${file}: modules every VU evaluates behind an accessor: a require() reaches them; serve it from once.js`,
    );
  }
});

test('the http bundles require the sse extension only inside loadSse, by a name built at run time', () => {
  const src = readFileSync(join(dist, 'dflash-vs-mtp.js'), 'utf8');
  assert.match(src, /\['k6', 'x', 'sse'\]\.join\('\/'\)/);
  assert.match(src, /function loadSse\(\) \{[^]*?require\(\['k6', 'x', 'sse'\]\.join\('\/'\)\)/);
});

test('the sse bundles require it literally, also only inside loadSse (init, TRANSPORT=sse)', () => {
  const src = readFileSync(join(dist, 'sse', 'dflash-vs-mtp.js'), 'utf8');
  assert.match(src, /function loadSse\(\) \{[^}]*?require\(["']k6\/x\/sse["']\)/);
  assert.doesNotMatch(src, /\['k6', 'x', 'sse'\]/);
});

test('the k6 scan this file imitates finds what it should', () => {
  assert.deepEqual(extensionsK6Finds('const a = require("k6/x/sse");\nimport b from "k6/x/redis";'), ['k6/x/sse', 'k6/x/redis']);
  assert.deepEqual(extensionsK6Finds("require('k6/x/sse');"), ['k6/x/sse'], 'esbuild prints it with double quotes');
  assert.deepEqual(extensionsK6Finds("require(['k6', 'x', 'sse'].join('/')); // require(\"k6/x/sse\")\n/* require(\"k6/x/a\") */"), []);
  assert.deepEqual(extensionsK6Finds('const a = "/* dist/sse"; require("k6/x/sse"); // */'), ['k6/x/sse'], 'a /* in a string opens no comment');
  assert.deepEqual(extensionsK6Finds('require("k6/http"); const s = "the xk6-sse extension (k6/x/sse)";'), []);
});

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { wrapped } = require('../../scripts/function-scope.js') as { wrapped(code: string, file: string): string };

test('no bundle declares a function at its top level: k6 makes each such function per VU (scripts/function-scope.js)', () => {
  const files = readdirSync(dist)
    .filter((f) => f.endsWith('.js'))
    .concat(
      readdirSync(join(dist, 'sse'))
        .filter((f) => f.endsWith('.js'))
        .map((f) => `sse/${f}`),
    );
  assert.ok(files.length >= 2 * scenarios.length, `bundles found: ${files.length}`);
  for (const file of files) {
    const ast = acorn.parse(readFileSync(join(dist, file), 'utf8'), { ecmaVersion: 2020, sourceType: 'module' }) as unknown as {
      body: Node[];
    };
    const kinds = ast.body.map((n) => n.type);
    assert.deepEqual(
      kinds.filter((k) => k !== 'ImportDeclaration'),
      ['VariableDeclaration', 'ExportNamedDeclaration'],
      `${file}: top level ${kinds.join(', ')}`,
    );
  }
});

test('wrapped() keeps the imports first and the export list last, and refuses a layout it does not know', () => {
  const src =
    'import http from "k6/http";\nimport exec from "k6/execution";\nfunction f() { return http; }\nconst ' +
    'o = { a: 1 };\nexport { f as default, o as options, f };\n';
  const out = wrapped(src, 'x.js');
  assert.equal(
    out,
    'import http from "k6/http";\nimport exec from "k6/execution";\nconst { f, o } = (() => {\nfunction ' +
      'f() { return http; }\nconst o = { a: 1 };\nreturn { f, o };\n})();\nexport { f as default, o as ' +
      'options, f };\n',
  );
  assert.throws(() => wrapped('function f() {}\nexport default f;\n', 'y.js'), /y\.js: no export list at its end/);
});
