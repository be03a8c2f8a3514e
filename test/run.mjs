#!/usr/bin/env node
// Runs every *.test.ts under test/ with Node's own test runner, TypeScript loaded through tsx.
// Pure tests (plain Node against lib/, sim/, scripts/) run two files at a time; tests that run bundles
// on k6 (those importing test/scenarios/harness.ts) run one file at a time, since their timing bounds
// assume the machine's cores are theirs. Every skip whose reason starts with "needs k6" is counted and
// reported as the last lines; with REQUIRE_K6=1 such a skip fails the run.
// Usage: node test/run.mjs [--pure | --k6] [substring filter ...]
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const only = args.includes('--pure') ? 'pure' : args.includes('--k6') ? 'k6' : null;
const filters = args.filter((a) => a !== '--pure' && a !== '--k6');
const NEEDS_K6 = 'needs k6';

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

const files = find(join(root, 'test'))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ') || '*.test.ts'}`);
  process.exit(1);
}
const usesK6 = (f) => /from '(\.\/|\.\.\/scenarios\/)harness'/.test(readFileSync(join(root, f), 'utf8'));
const groups = [
  { name: 'pure', files: files.filter((f) => !usesK6(f)), concurrency: Number(process.env.TEST_CONCURRENCY ?? 2) },
  { name: 'k6', files: files.filter(usesK6), concurrency: 1 },
].filter((g) => g.files.length > 0 && (only === null || g.name === only));

const reporter = process.env.TEST_REPORTER ?? 'spec';
const work = mkdtempSync(join(tmpdir(), 'llm-bench-tests-'));
let status = 0;
const skips = [];
for (const g of groups) {
  const skipFile = join(work, `${g.name}.skips.jsonl`);
  const t0 = Date.now();
  console.log(`\n# ${g.name} tests: ${g.files.length} files, ${g.concurrency} at a time`);
  const r = spawnSync(
    process.execPath,
    [
      '--import', 'tsx', '--test',
      `--test-reporter=${reporter}`, '--test-reporter-destination=stdout',
      `--test-reporter=${join(root, 'test', 'skip-reporter.mjs')}`, `--test-reporter-destination=${skipFile}`,
      `--test-concurrency=${g.concurrency}`,
      ...g.files,
    ],
    { cwd: root, stdio: 'inherit' },
  );
  console.log(`# ${g.name} tests: exit ${r.status ?? r.signal}, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  if (r.status !== 0) status = r.status ?? 1;
  try {
    skips.push(...readFileSync(skipFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)));
  } catch {
    // No skip file: the runner died before reporting; its exit status says so.
  }
}
rmSync(work, { recursive: true, force: true });

const wantK6 = skips.filter((s) => s.reason.startsWith(NEEDS_K6));
if (wantK6.length > 0) {
  const inFiles = new Set(wantK6.map((s) => s.file)).size;
  const reasons = [...new Set(wantK6.map((s) => s.reason))];
  console.log(`\n${wantK6.length} tests or groups of tests in ${inFiles} files did not run (${reasons.join("; ")}).`);
  console.log('Get k6 (tested: v1.3 and v2.2; with the xk6-sse extension for the sse tests): see docs/development.md, then set K6_BIN=/path/to/k6.');
  if (process.env.REQUIRE_K6 === '1') {
    console.log('REQUIRE_K6=1: tests that need k6 must run here.');
    status = status || 1;
  }
}
process.exit(status);
