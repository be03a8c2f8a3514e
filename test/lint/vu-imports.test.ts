// What a VU that sends requests evaluates: k6 evaluates a script's modules in every VU, and each
// module's objects stay in that VU's heap (docs/fidelity.md, "What a VU holds"). The modules that
// only VU 0 or a probe needs are reached through require() on first use; this checks that no
// static import brings one of them back into every VU (as an outcome list imported from a module
// that also loads the engine profiles once did).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const imports = require('../../scripts/lint/import-graph.cjs') as { graph(o?: { values?: boolean }): Map<string, string[]> };
const values = imports.graph({ values: true });

/** The files a module evaluates with it: its value imports, followed; `import type` and require() are not. */
function evaluated(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const d of values.get(file) ?? []) visit(d);
  };
  visit(join(root, entry));
  return new Set([...seen].map((f) => relative(root, f)));
}

/** Evaluated in VU 0, the probe and reset scenarios, or runs with DATASET or TRACE: never in every VU. */
const NOT_IN_EVERY_VU = [
  /^lib\/k6\/(lifecycle\/vu0-(?:config|functions)|setup|shared-dataset|shared-trace|run-cache-reset)\.ts$/,
  /^lib\/config\/load\.ts$/,
  /^lib\/metrics\/catalog\.ts$/,
  /^lib\/engines\//,
  /^lib\/report\//,
  /^lib\/preflight\/run\.ts$/,
  /^lib\/server-metrics\/(probe|gpu|cache-reset)\.ts$/,
  /^lib\/plan\/(k6-options|summary-keys)\.ts$/,
];

test('a VU that sends requests evaluates none of what only VU 0, a probe or a reset runs', () => {
  const vu = evaluated('lib/k6/lifecycle/bundle-init.ts');
  assert.ok(vu.has('lib/k6/transport.ts') && vu.has('lib/reading/chunk-template.ts'), `the walk reaches the sender and the reader: ${[...vu].join(', ')}`);
  const bad = [...vu].filter((f) => NOT_IN_EVERY_VU.some((r) => r.test(f)));
  assert.deepEqual(bad, [], 'imported statically from lib/k6/lifecycle/bundle-init.ts: reach them through require() where they run');
});

test('the walk follows imports: VU 0 configuration module brings the catalog and the engines', () => {
  const vu0 = evaluated('lib/k6/lifecycle/vu0-config.ts');
  assert.ok(vu0.has('lib/metrics/catalog.ts'), 'catalog');
  assert.ok(
    [...vu0].some((f) => f.startsWith('lib/engines/')),
    'engine profiles',
  );
});
