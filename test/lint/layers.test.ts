// The layers of lib/ as the lint enforces them (scripts/lint/layers.cjs): the tree as it stands
// imports only downwards, and an upward or sideways import is reported, by the rule and by ESLint
// itself on a file written for the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const layers = require('../../scripts/lint/layers.cjs') as {
  RANKS: Record<string, number>;
  unitOf(f: string): string | null;
  violation(a: string, b: string): string | null;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const graph = require('../../scripts/lint/import-graph.cjs') as { graph(): Map<string, string[]> };
const lib = (p: string) => join(root, 'lib', p);

test('every import in lib/ goes down the layers, and every file of lib/ has a rank', () => {
  const bad: string[] = [];
  let n = 0;
  for (const [from, deps] of graph.graph()) {
    if (layers.unitOf(from) === null) bad.push(`${relative(root, from)}: no rank`);
    for (const to of deps) {
      n++;
      const why = layers.violation(from, to);
      if (why) bad.push(why);
    }
  }
  assert.ok(n > 200, `${n} imports read`);
  assert.deepEqual(bad, []);
});

test('up, sideways and down, as the rule judges them; a leaf file ranks apart from its folder', () => {
  assert.match(layers.violation(lib('dialects/openai.ts'), lib('plan/matrix.ts')) ?? '', /lib\/dialects\/ \(rank \d+\) imports lib\/plan\/ \(rank \d+\)/);
  assert.ok(layers.violation(lib('capacity/search.ts'), lib('compare/compare-summaries.ts')), 'siblings of one rank do not import each other');
  assert.equal(layers.violation(lib('k6/measure.ts'), lib('plan/matrix.ts')), null);
  assert.equal(layers.violation(lib('report/figures/run-figures.ts'), lib('report/figures/dist.ts')), null, 'within a folder');
  assert.equal(layers.unitOf(lib('plan/plan-types.ts')), 'plan/plan-types.ts');
  assert.equal(layers.violation(lib('server-metrics/saturation.ts'), lib('plan/plan-types.ts')), null);
  assert.ok(layers.violation(lib('server-metrics/saturation.ts'), lib('plan/matrix.ts')));
});

test('ESLint reports an upward import in lib/', () => {
  const dir = mkdtempSync(join(root, 'lib', 'dialects', '.lint-'));
  const file = join(dir, 'up.ts');
  try {
    writeFileSync(file, "import type { Plan } from '../../plan/matrix';\nexport type P = Plan;\n");
    let out = '';
    try {
      execFileSync(process.execPath, [join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--no-ignore', file], { cwd: root, encoding: 'utf8' });
    } catch (e) {
      out = String((e as { stdout?: string }).stdout);
    }
    assert.match(out, /imports lib\/plan\/ \(rank \d+\): an import may only go down the layers \(scripts\/lint\/layers\.cjs\)\s+layers\/import-down/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
