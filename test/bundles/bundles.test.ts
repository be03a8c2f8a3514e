// Static checks of every dist/*.js: each must load on every k6 from v0.49 to v2.x, in both the
// default and --compatibility-mode=base: an ES2020 CommonJS script that requires only k6 modules
// and touches no global k6 lacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as acorn from 'acorn';

const root = join(__dirname, '..', '..');
const dist = join(root, 'dist');
const scenarios = readdirSync(join(root, 'scenarios'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3));

/** Globals a browser or Node has and k6 (v0.49 at least) does not. */
const MISSING_IN_K6 = ['process', 'Buffer', 'TextEncoder', 'TextDecoder', 'structuredClone', 'fetch', 'setTimeout', 'setInterval', 'performance', 'Intl', 'window', 'document', 'navigator', 'globalThis', 'queueMicrotask', 'URL', 'AbortController'];

type Node = acorn.Node & Record<string, unknown>;

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

for (const name of scenarios) {
  test(`dist/${name}.js loads on every supported k6`, () => {
    const file = join(dist, `${name}.js`);
    assert.ok(existsSync(file), `dist/${name}.js is missing: run npm run build`);
    const src = readFileSync(file, 'utf8');
    // ES2020 as a script: no import/export statements, no syntax newer than k6's parser knows.
    const ast = acorn.parse(src, { ecmaVersion: 2020, sourceType: 'script' });

    const required: string[] = [];
    let dynamic = 0;
    const declared = declaredNames(ast);
    const freeGlobals = new Set<string>();
    walk(ast, (n, parent) => {
      if (n.type === 'CallExpression' && (n.callee as Node).type === 'Identifier' && (n.callee as Node).name === 'require') {
        const arg = (n.arguments as Node[])[0];
        if (arg?.type === 'Literal') required.push(String(arg.value));
        else dynamic++;
      }
      if (n.type === 'Identifier' && MISSING_IN_K6.includes(n.name as string) && !declared.has(n.name as string)) {
        const isProperty = parent && ((parent.type === 'MemberExpression' && parent.property === n && !parent.computed) || (parent.type === 'Property' && parent.key === n));
        if (!isProperty) freeGlobals.add(n.name as string);
      }
    });
    assert.deepEqual([...freeGlobals], [], `uses globals k6 does not have: ${[...freeGlobals].join(', ')}`);
    assert.ok(required.length > 0);
    for (const r of required) assert.match(r, /^k6(\/.*)?$/, `requires ${r}, which k6 cannot load`);
    assert.ok(required.includes('k6/http') && required.includes('k6/metrics'));
    // One computed require: the sse extension, loaded only for TRANSPORT=sse.
    assert.equal(dynamic, 1, 'only the sse extension may be required by a computed name');
    // k6 v1.x scans scripts for extension names and tries to download a build for any it finds.
    assert.doesNotMatch(src, /k6\/x\//, 'the bundle names a k6/x/ extension literally');

    // The k6 entry points, as CommonJS exports.
    for (const exp of ['options', 'default', 'setup', 'measure', 'probe', 'handleSummary']) {
      assert.match(src, new RegExp(`(?:"${exp}"|\\b${exp}): \\(\\) => \\(`), `export ${exp} missing`);
    }
    assert.match(src, /__webpack_export_target__ = exports/, 'not a CommonJS bundle');
    assert.doesNotMatch(src, /\/\/# sourceMappingURL=data:/, 'inline source maps bloat the bundle');
  });
}

test('the sse extension is required only inside loadSse, by a name built at run time', () => {
  const src = readFileSync(join(dist, 'dflash-vs-mtp.js'), 'utf8');
  assert.match(src, /\['k6', 'x', 'sse'\]\.join\('\/'\)/);
  assert.match(src, /function loadSse\(\) \{[^]*?require\(name\)/);
});
