#!/usr/bin/env node
// Runs every *.test.ts under test/ and k6-double/test/ with Node's own test runner, TypeScript loaded through tsx.
// Node 20's --test does not expand globs itself, hence this small finder.
// Usage: node test/run.mjs [substring filter ...]
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);

function find(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'fixtures') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...find(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const files = ['test', join('k6-double', 'test')]
  .flatMap((dir) => find(join(root, dir)))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ') || '*.test.ts'}`);
  process.exit(1);
}
const reporter = process.env.TEST_REPORTER ?? 'spec';
const r = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-reporter=${reporter}`, '--test-concurrency=1', ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(r.status ?? 1);
