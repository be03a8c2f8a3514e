#!/usr/bin/env node
// Runs every *.test.ts under test/ with Node's own test runner (TypeScript through tsx), one Node
// process per file, so each file's wall time is known and the runner decides what runs side by side.
//
// Two groups, pure first:
// - pure: plain Node against lib/, sim/, scripts/; TEST_CONCURRENCY files at a time (default 2).
// - k6: files that run bundles on real k6 (they import test/scenarios/harness.ts). A file with the
//   line `// test-runner: alone (why)` runs with nothing else beside it: its bounds are latencies
//   or lags that CPU contention moves. Other k6 files run K6_CONCURRENCY at a time
//   (default 2): their subject is logic, and the simulators they start mostly wait.
//
// Every skip whose reason starts with "needs k6" is counted; with REQUIRE_K6=1 such a skip fails
// the run. The last line is "N passed, N failed, N skipped".
//
// --long runs the files that have long cases (they read TEST_LONG) with TEST_LONG=1: the checks too
// slow for CI's budget (docs/development.md), run by `npm run test:long` and a scheduled workflow.
//
// Usage: node test/run.mjs [--pure | --k6] [--long] [--times] [substring filter ...]
//        node test/run.mjs --times-of FILE     the table of a times file (below), slowest first
// --times prints every file's wall time, slowest first. TEST_TIMES_FILE=path appends one JSON line
// per file (file, group, phase, seconds, counts); TEST_PHASE names the phase (.ci/run sets it).
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const NEEDS_K6 = 'needs k6';
// A file that hangs must not hold CI to its limit: past this its process group is killed.
const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_S ?? 1500) * 1000;

if (args[0] === '--times-of') {
  const rows = readFileSync(args[1], 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  printTimes(rows);
  printFailures(rows.filter((r) => r.exit !== 0));
  const phases = [...new Set(rows.map((r) => r.phase))];
  for (const ph of phases) console.log(`${ph}: ${counts(rows.filter((r) => r.phase === ph))}`);
  console.log(counts(rows));
  process.exit(0);
}

const only = args.includes('--pure') ? 'pure' : args.includes('--k6') ? 'k6' : null;
const showTimes = args.includes('--times');
const long = args.includes('--long');
if (long) process.env.TEST_LONG = '1';
const filters = args.filter((a) => !a.startsWith('--'));
const phase = process.env.TEST_PHASE ?? 'local';

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
  .filter((f) => !long || /process\.env\.TEST_LONG\b/.test(readFileSync(join(root, f), 'utf8')))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ') || '*.test.ts'}`);
  process.exit(1);
}
const source = (f) => readFileSync(join(root, f), 'utf8');
const usesK6 = (f) => /from '(\.\/|\.\.\/scenarios\/)harness'/.test(source(f));
const alone = (f) => /^\/\/ test-runner: alone\b/m.test(source(f));
const groups = [
  { name: 'pure', files: files.filter((f) => !usesK6(f)), concurrency: Number(process.env.TEST_CONCURRENCY ?? 2) },
  { name: 'k6', files: files.filter(usesK6), concurrency: Number(process.env.K6_CONCURRENCY ?? 2) },
].filter((g) => g.files.length > 0 && (only === null || g.name === only));

const reporter = process.env.TEST_REPORTER ?? 'spec';
const work = mkdtempSync(join(tmpdir(), 'llm-bench-tests-'));
const rows = [];
let status = 0;

function runFile(group, file, index) {
  const recordFile = join(work, `${index}.jsonl`);
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        `--test-reporter=${reporter}`,
        '--test-reporter-destination=stdout',
        `--test-reporter=${join(root, 'test', 'record-reporter.mjs')}`,
        `--test-reporter-destination=${recordFile}`,
        file,
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    const chunks = [];
    child.stdout.on('data', (d) => chunks.push(d));
    child.stderr.on('data', (d) => chunks.push(d));
    const timer = setTimeout(() => {
      chunks.push(Buffer.from(`\ntest/run.mjs: ${file} ran past ${FILE_TIMEOUT_MS / 1000} s; killed\n`));
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, FILE_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const seconds = (Date.now() - t0) / 1000;
      let records = [];
      try {
        records = readFileSync(recordFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l));
      } catch {
        // No record: the process died before reporting; its exit status says so.
      }
      const count = (k) => records.filter((r) => r.kind === k).length;
      const row = {
        file,
        group: group.name,
        phase,
        seconds: Math.round(seconds * 10) / 10,
        passed: count('pass'),
        failed: count('fail'),
        skipped: count('skip'),
        exit: code ?? signal,
      };
      const failed = code !== 0;
      if (failed) {
        status = status || (typeof code === 'number' && code !== 0 ? code : 1);
        if (row.failed === 0) row.failed = 1; // died without a failing test: still a failure
      }
      process.stdout.write(`\n## ${file} (${group.name}, ${row.seconds} s, exit ${row.exit})\n${Buffer.concat(chunks).toString()}`);
      rows.push({ ...row, skips: records.filter((r) => r.kind === 'skip'), fails: records.filter((r) => r.kind === 'fail') });
      resolve();
    });
  });
}

// A pool of `concurrency` workers; a file marked alone waits for the pool to drain and holds it.
async function runGroup(g) {
  const t0 = Date.now();
  const queue = g.files.map((f, i) => ({ f, i, alone: g.name === 'k6' && alone(f) }));
  const solo = queue.filter((q) => q.alone).length;
  console.log(`\n# ${g.name} tests: ${g.files.length} files, ${g.concurrency} at a time${solo ? ` (${solo} alone)` : ''}`);
  // Alone files first, then the others side by side: the pool never has to drain mid-way.
  for (const q of queue.filter((x) => x.alone)) await runFile(g, q.f, `${g.name}-${q.i}`);
  const rest = queue.filter((q) => !q.alone);
  const worker = async () => {
    for (let q = rest.shift(); q; q = rest.shift()) await runFile(g, q.f, `${g.name}-${q.i}`);
  };
  await Promise.all(Array.from({ length: Math.max(1, g.concurrency) }, worker));
  console.log(`# ${g.name} tests: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

for (const g of groups) await runGroup(g);
rmSync(work, { recursive: true, force: true });

if (process.env.TEST_TIMES_FILE) {
  for (const { skips: _s, ...r } of rows) appendFileSync(process.env.TEST_TIMES_FILE, `${JSON.stringify(r)}\n`);
}
if (showTimes) printTimes(rows);

const failedFiles = rows.filter((r) => r.exit !== 0);
printFailures(failedFiles);

const skipped = rows.flatMap((r) => r.skips.map((x) => ({ ...x, file: r.file })));
const otherSkips = skipped.filter((s) => !s.reason.startsWith(NEEDS_K6));
if (otherSkips.length > 0) {
  console.log('\nSkipped, with the reason:');
  for (const s of otherSkips) console.log(`  ${s.file}: ${s.name}: ${s.reason || '(no reason given)'}`);
}
const wantK6 = skipped.filter((s) => s.reason.startsWith(NEEDS_K6));
if (wantK6.length > 0) {
  const inFiles = new Set(wantK6.map((s) => s.file)).size;
  const reasons = [...new Set(wantK6.map((s) => s.reason))];
  console.log(`\n${wantK6.length} tests or groups of tests in ${inFiles} files did not run (${reasons.join('; ')}).`);
  console.log('Get k6 (tested: v1.3 and v2.2; with the xk6-sse extension for the sse tests): see docs/development.md, then set K6_BIN=/path/to/k6.');
  if (process.env.REQUIRE_K6 === '1') {
    console.log('REQUIRE_K6=1: tests that need k6 must run here.');
    status = status || 1;
  }
}
console.log(`\n${counts(rows)}`);
process.exit(status);

function counts(list) {
  const sum = (k) => list.reduce((a, r) => a + r[k], 0);
  return `${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`;
}

/** Each failing file and test with its message: printed last, so a CI log's tail says what failed and why. */
function printFailures(failed) {
  if (failed.length === 0) return;
  console.log(`\nFailed: ${failed.map((r) => `${r.file} (${r.phase}, exit ${r.exit})`).join(', ')}`);
  for (const f of failed.flatMap((r) => (r.fails ?? []).map((x) => ({ ...x, file: r.file })))) {
    console.log(`  ✖ ${f.file}: ${f.name}\n    ${(f.error || '(no message)').replace(/\n/g, '\n    ')}`);
  }
}

function printTimes(list) {
  const sorted = [...list].sort((a, b) => b.seconds - a.seconds);
  const total = list.reduce((a, r) => a + r.seconds, 0);
  console.log(`\nWall time per test file, slowest first (${list.length} files, ${total.toFixed(0)} s summed; side by side files overlap):`);
  console.log(`${'seconds'.padStart(8)}  ${'phase'.padEnd(14)} ${'group'.padEnd(5)} file`);
  for (const r of sorted) console.log(`${r.seconds.toFixed(1).padStart(8)}  ${String(r.phase).padEnd(14)} ${r.group.padEnd(5)} ${r.file}`);
}
