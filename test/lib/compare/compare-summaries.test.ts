// npm run compare on synthetic summaries made as a run makes them (fixtures.ts): verdicts, the
// regression rule, "too few samples", refusals, --force, and one-line errors with exit 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCompare, outputStem, type CompareRun } from '../../../scripts/compare';
import { compareSummaries, EXIT, parseTolerance, type CellComparison, type Comparison } from '../../../lib/compare/compare-summaries';
import { CompareInputError, parseSummary } from '../../../lib/compare/read-summary';
import { engineKind } from '../../../lib/compare/workload-check';
import { renderCompareHtml, renderCompareMarkdown, renderCompareText, verdictLabel } from '../../../lib/compare/render-comparison';
import { baselineOutputs, readBaseline } from '../../../lib/compare/baseline';
import { ConfigError } from '../../../lib/config/parse';
import { fakeSummary, writeFiles } from './fixtures';

const ROOT = join(__dirname, '..', '..', '..');
const NO_ENV = {};

function compared(base: string, next: string, opts: { force?: boolean; tolerance?: number } = {}): Comparison {
  const o = compareSummaries(parseSummary(base, 'base'), parseSummary(next, 'new'), opts);
  assert.equal(o.refused, false, o.refused ? o.line : '');
  return (o as { comparison: Comparison }).comparison;
}

/** Every interval holds its point estimate, and ratios are new ÷ baseline of the shown figures. */
function checkIntervals(c: Comparison): void {
  for (const x of c.cells) {
    for (const r of [x.throughput, x.latency]) {
      if (r?.ci) assert.ok(r.ci.lo <= r.value && r.value <= r.ci.hi, `${x.cell} ${x.variant}: ${r.value} outside [${r.ci.lo}, ${r.ci.hi}]`);
    }
    if (x.throughput && x.baseline.throughput && x.next.throughput) assert.ok(Math.abs(x.throughput.value - x.next.throughput / x.baseline.throughput) < 1e-9);
  }
}

const oneLine = (r: CompareRun) => {
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^npm run compare: [^\n]+\n$/, `one line on stderr: ${JSON.stringify(r.stderr)}`);
};

const base = fakeSummary({ noise: 1, runId: 'base' });

test('the same run twice: no difference in any cell, exit 0', () => {
  const c = compared(base, base);
  assert.equal(c.cells.length, 4);
  for (const x of c.cells) {
    assert.equal(x.verdict, 'same', `${x.cell} ${x.variant}: ${x.notes.join('; ')}`);
    assert.equal(x.regression, false);
    assert.equal(x.throughput?.value, 1);
    assert.ok(x.throughput?.ci && x.latency?.ci, 'intervals');
  }
  assert.equal(c.exitCode, EXIT.ok);
  checkIntervals(c);
});

test('a repeat of the same workload (other noise): no regression in any cell', () => {
  for (const noise of [2, 3, 4, 5, 6]) {
    const c = compared(base, fakeSummary({ noise, runId: `repeat${noise}` }));
    assert.equal(c.regressions, 0, `noise ${noise}: ${c.cells.filter((x) => x.regression).map((x) => x.cell + ' ' + x.variant)}`);
    assert.equal(c.exitCode, EXIT.ok);
    for (const x of c.cells) assert.ok(Math.abs(x.throughput!.value - 1) < 0.03, `${x.throughput!.value}`);
    checkIntervals(c);
  }
});

test('a run 10% slower with enough slices: a regression in every cell, exit 3, in all three outputs', () => {
  const { dir, path } = writeFiles({ 'base.summary.json': base, 'slow.summary.json': fakeSummary({ noise: 7, slow: 1.1, runId: 'slow' }) });
  const r = runCompare([path('base.summary.json'), path('slow.summary.json')], NO_ENV);
  assert.equal(r.code, EXIT.regression, r.stderr);
  assert.equal(r.code, 3);
  assert.deepEqual(r.files, [join(dir, 'slow.compare.md'), join(dir, 'slow.compare.html')]);
  const c = compared(base, readFileSync(path('slow.summary.json'), 'utf8'));
  assert.equal(c.cells.length, 4);
  for (const x of c.cells) {
    assert.equal(x.verdict, 'slower', `${x.cell} ${x.variant}`);
    assert.equal(x.regression, true, `${x.cell} ${x.variant}`);
    assert.ok(Math.abs(x.throughput!.value - 1 / 1.1) < 0.02, `throughput ratio ${x.throughput!.value}`);
    assert.ok(Math.abs(x.latency!.value - 1.1) < 0.02, `e2e ratio ${x.latency!.value}`);
    assert.ok(x.throughput!.ci!.hi < 1 / 1.05 && x.latency!.ci!.lo > 1.05);
  }
  checkIntervals(c);
  assert.equal((r.stdout.match(/REGRESSION: slower beyond 5%/g) ?? []).length, 4, r.stdout);
  assert.match(r.stdout, /4 cell\(s\) compared: 4 slower; 4 regression\(s\) beyond 5% → exit 3/);
  const md = readFileSync(r.files[0], 'utf8');
  assert.match(md, /^\| cell \| variant \| baseline out tok\/s \| new out tok\/s \| ratio \[95% CI\] \|/m);
  assert.equal((md.match(/^\| i128_o64_c\d+ \| (dflash|mtp) \|.*\*\*regression\*\*/gm) ?? []).length, 4, md);
  const html = readFileSync(r.files[1], 'utf8');
  assert.equal((html.match(/data-regression="true"/g) ?? []).length, 4);
  assert.ok(!/<script|src=|href=/i.test(html), 'self-contained');
});

test('a tolerance above the slowdown: slower, but no regression (flag and environment)', () => {
  const slow = fakeSummary({ noise: 7, slow: 1.1 });
  assert.equal(compared(base, slow, { tolerance: 0.15 }).regressions, 0);
  assert.ok(compared(base, slow, { tolerance: 0.15 }).cells.every((x) => x.verdict === 'slower'));
  const { path } = writeFiles({ 'a.json': base, 'b.json': slow });
  assert.equal(runCompare([path('a.json'), path('b.json')], { REGRESSION_TOLERANCE: '15%' }).code, EXIT.ok);
  assert.equal(
    runCompare([path('a.json'), path('b.json'), '--tolerance', '15'], { REGRESSION_TOLERANCE: '1%' }).code,
    EXIT.ok,
    'the flag wins over the environment',
  );
  assert.equal(runCompare([path('a.json'), path('b.json'), '--tolerance=8%'], NO_ENV).code, EXIT.regression);
  assert.equal(parseTolerance('5', 'T'), 0.05);
  assert.equal(parseTolerance('2.5%', 'T'), 0.025);
  assert.throws(() => parseTolerance('0.05', 'T'), /ambiguous.*write 5% for 5 percent/);
  assert.throws(() => parseTolerance('-3', 'T'), CompareInputError);
});

test('a run 10% slower with too few slices: "too few samples" in every cell, no verdict, exit 0', () => {
  // SLICES=4: three steady slices per run.
  const c = compared(fakeSummary({ slices: 4 }), fakeSummary({ slices: 4, noise: 7, slow: 1.1 }));
  for (const x of c.cells) {
    assert.equal(x.verdict, 'too-few-samples', `${x.cell} ${x.variant}`);
    assert.equal(x.regression, false);
    assert.equal(x.throughput!.ci, null);
    assert.match(x.notes[0], /^too few samples: the baseline has 3 steady slice\(s\), fewer than 5/);
  }
  assert.equal(c.exitCode, EXIT.ok);
});

test('slices shorter than the requests: "too few samples" for the cells whose requests outlast a slice', () => {
  // 1 s slices: mtp's requests take 1.1–1.65 s, dflash's at c=1 0.55 s.
  const c = compared(fakeSummary({ slices: 60 }), fakeSummary({ slices: 60, noise: 7, slow: 1.1 }));
  const get = (cell: string, v: string) => c.cells.find((x) => x.cell === cell && x.variant === v) as CellComparison;
  for (const cell of ['i128_o64_c1', 'i128_o64_c8']) {
    assert.equal(get(cell, 'mtp').verdict, 'too-few-samples');
    assert.match(get(cell, 'mtp').notes[0], /slices \(1\.00 s\) are shorter than its requests/);
  }
  assert.equal(get('i128_o64_c1', 'dflash').verdict, 'slower');
  assert.equal(get('i128_o64_c1', 'dflash').regression, true);
  assert.match(get('i128_o64_c1', 'dflash').notes.join(' '), /shorter than 2× its mean e2e/);
});

test('a summary without per-slice figures: "not enough data for an interval", never an interval', () => {
  const old = JSON.parse(fakeSummary({ noise: 7, slow: 1.3 }));
  for (const r of old.records) delete r.steady_slices;
  const c = compared(base, JSON.stringify(old));
  for (const x of c.cells) {
    assert.equal(x.verdict, 'no-interval');
    assert.equal(x.regression, false);
    assert.equal(x.throughput!.ci, null);
    assert.equal(x.latency!.ci, null);
    assert.ok(x.throughput!.value < 0.8, 'the point ratio is still shown');
    assert.match(x.notes[0], /not enough data for an interval: the new run's summary has no per-slice figures \(written before/);
  }
  assert.equal(c.exitCode, EXIT.ok);
});

test('workloads that differ are refused with one line naming the difference, exit 4', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ ISL: '256' }, /differ in ISL \('128' vs '256'\) \(baseline vs new\); pass --force/],
    [{ SEED: '2' }, /differ in SEED \(1 vs 2\)/],
    [{ TRANSPORT: 'sse' }, /differ in TRANSPORT \('http' vs 'sse'\)/],
    [{ OSL: '32', TEMPERATURE: '0.7' }, /differ in OSL \('64' vs '32'\), TEMPERATURE \(0 vs 0\.7\)/],
  ];
  for (const [env, line] of cases) {
    const { path } = writeFiles({ 'a.json': base, 'b.json': fakeSummary({ env }) });
    const r = runCompare([path('a.json'), path('b.json')], NO_ENV);
    assert.equal(r.code, EXIT.refused, JSON.stringify(env));
    oneLine(r);
    assert.match(r.stderr, /^npm run compare: refused: the runs' workloads differ in /);
    assert.match(r.stderr, line);
  }
  const engine = compareSummaries(parseSummary(base, 'a'), parseSummary(fakeSummary({ engine: 'vLLM 0.20.1' }), 'b'));
  assert.ok(engine.refused && /variant dflash engine \('SGLang' vs 'vLLM'\)/.test(engine.line), engine.refused ? engine.line : '');
  // A new version of the same server is the point of a baseline: compared, and noted.
  const version = compared(fakeSummary({ engine: 'SGLang 0.5.1' }), fakeSummary({ engine: 'SGLang 0.5.2' }));
  assert.match(version.notes.join(' '), /variant dflash: 'SGLang 0\.5\.1' in the baseline, 'SGLang 0\.5\.2' in the new run/);
  assert.equal(engineKind('llama.cpp b4567'), 'llama.cpp');
  // The load levels may differ: the cells both have are compared.
  const levels = compared(base, fakeSummary({ env: { CONCURRENCY: '8,16' } }));
  assert.deepEqual(
    levels.cells.map((x) => x.cell),
    ['i128_o64_c8', 'i128_o64_c8'],
  );
  assert.deepEqual(levels.onlyBaseline, ['i128_o64_c1 dflash', 'i128_o64_c1 mtp']);
  assert.match(levels.notes.join(' '), /CONCURRENCY differs \('1,8' in the baseline, '8,16' in the new run\)/);
});

test('--force compares differing workloads and lists the differences at the top', () => {
  const { dir, path } = writeFiles({ 'a.summary.json': base, 'b.summary.json': fakeSummary({ env: { SEED: '9', TEMPERATURE: '0.5' }, noise: 3 }) });
  const r = runCompare(['--force', path('a.summary.json'), path('b.summary.json'), '--out', dir], NO_ENV);
  assert.equal(r.code, EXIT.ok, r.stderr);
  const lines = r.stdout.split('\n');
  const forced = lines.findIndex((l) => l.includes('FORCED: the workloads differ in SEED (1 vs 9), TEMPERATURE (0 vs 0.5)'));
  const tableHead = lines.findIndex((l) => /^cell\s+variant\s+verdict/.test(l));
  assert.ok(forced > 0 && forced < tableHead, r.stdout);
  assert.match(readFileSync(join(dir, 'b.compare.md'), 'utf8'), /> \*\*Forced:\*\* the workloads differ in SEED \(1 vs 9\)/);
  assert.match(readFileSync(join(dir, 'b.compare.html'), 'utf8'), /Forced: the workloads differ/);
});

test('bad usage and bad files: exit 2 with one line', () => {
  const partial = JSON.stringify({ format: 'k6-llm-bench-partial/1', metrics: {} });
  const { path, dir } = writeFiles({
    'ok.json': base,
    'text.json': 'hello',
    'array.json': '[1,2]',
    'other.json': '{"name":"x","records":[]}',
    'partial.json': partial,
    'slices.json': base.replace('"slice_ms"', '"slice_len"'),
  });
  const cases: Array<[string[], RegExp]> = [
    [[path('ok.json'), join(dir, 'missing.json')], /missing\.json: cannot read \(no such file\)$/m],
    [[path('ok.json'), dir], /: cannot read \(a folder, not a file\)$/m],
    [[path('text.json'), path('ok.json')], /text\.json: not JSON \(/],
    [[path('ok.json'), path('array.json')], /array\.json: not a k6-llm-bench summary\.json \(the file holds no JSON object\)/],
    [[path('ok.json'), path('other.json')], /other\.json: not a k6-llm-bench summary\.json \(no 'benchmark', 'run_id', 'settings', 'variants'\)/],
    [[path('partial.json'), path('ok.json')], /partial\.json: a partial result of one instance, not a summary: merge the instances first/],
    [[path('ok.json'), path('slices.json')], /records\[0\]\.steady_slices is malformed/],
    [[path('ok.json')], /one summary given, two needed\. usage: npm run compare --/],
    [[], /no summaries given/],
    [[path('ok.json'), path('ok.json'), '--frobnicate'], /unknown option --frobnicate/],
    [[path('ok.json'), path('ok.json'), '--tolerance', 'lots'], /--tolerance=lots: not a percentage below 100/],
    [[path('ok.json'), path('ok.json'), '--out', join(dir, 'nowhere')], /cannot write .*ENOENT \(does --out name an existing folder\?\)/],
  ];
  for (const [args, line] of cases) {
    const r = runCompare(args, NO_ENV);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    oneLine(r);
    assert.match(r.stderr, line);
  }
  const env = runCompare([path('ok.json'), path('ok.json')], { REGRESSION_TOLERANCE: 'x' });
  assert.equal(env.code, 2);
  assert.match(env.stderr, /REGRESSION_TOLERANCE=x: not a percentage/);
});

test('the command as a process: exit codes 3, 4 and 2 reach the shell', () => {
  const { path } = writeFiles({
    'a.summary.json': base,
    'b.summary.json': fakeSummary({ noise: 2, slow: 1.1 }),
    'c.summary.json': fakeSummary({ env: { ISL: '64' } }),
  });
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'compare.ts'), ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, REGRESSION_TOLERANCE: '' },
    });
  const slow = run(path('a.summary.json'), path('b.summary.json'));
  assert.equal(slow.status, 3, slow.stderr);
  assert.match(slow.stdout, /4 regression\(s\) beyond 5% → exit 3/);
  assert.ok(existsSync(path('b.compare.md')) && existsSync(path('b.compare.html')));
  const refused = run(path('a.summary.json'), path('c.summary.json'));
  assert.equal(refused.status, 4);
  assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
  const bad = run(path('a.summary.json'), path('nope.json'));
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr, `npm run compare: ${path('nope.json')}: cannot read (no such file)\n`);
});

test('output files are named after the new summary', () => {
  assert.equal(outputStem('/r/run-1.summary.json'), 'run-1.compare');
  assert.equal(outputStem('summary.json'), 'compare');
  assert.equal(outputStem('x/new.json'), 'new.compare');
});

test('BASELINE on a k6 run: read and checked at init, compared in handleSummary (pure parts)', () => {
  const read = (files: Record<string, string>) => (p: string) => {
    if (!(p in files)) throw new Error(`open ${p}: no such file or directory`);
    return files[p];
  };
  assert.equal(readBaseline({}, read({})), null);
  assert.throws(
    () => readBaseline({ BASELINE: '/r/x.json' }, read({})),
    (e: Error) => e instanceof ConfigError && /^BASELINE='\/r\/x\.json': cannot read the file: k6 reads it relative to the bundle/.test(e.message),
  );
  assert.throws(
    () => readBaseline({ BASELINE: 'b.json' }, read({ 'b.json': '{' })),
    (e: Error) => e instanceof ConfigError && /^BASELINE='b\.json': not JSON/.test(e.message),
  );
  assert.throws(() => readBaseline({ BASELINE: 'b.json', REGRESSION_TOLERANCE: '0.1' }, read({ 'b.json': base })), /REGRESSION_TOLERANCE=0\.1: ambiguous/);
  const b = readBaseline({ BASELINE: 'b.json', REGRESSION_TOLERANCE: '8%' }, read({ 'b.json': base }))!;
  assert.equal(b.tolerance, 0.08);
  const slow = baselineOutputs(b, fakeSummary({ noise: 4, slow: 1.1 }), 'results/run');
  assert.deepEqual(Object.keys(slow.files), ['results/run.compare.md', 'results/run.compare.html']);
  assert.match(slow.text, /4 regression\(s\) beyond 8% → exit 3/);
  const refused = baselineOutputs(b, fakeSummary({ env: { OSL: '128' } }), 'results/run');
  assert.deepEqual(refused.files, {});
  assert.match(
    refused.text,
    /^\nBASELINE=b\.json: refused: the runs' workloads differ in OSL \('64' vs '128'\) .*`npm run compare -- --force b\.json results\/run\.summary\.json` compares them anyway\n$/,
  );
});

// Cost per token (GPU_HOUR_COST × GPUS): carried per cell, and a rise beyond the tolerance with the whole interval is a regression.
const priced = (o: { noise: number; slow?: number; env?: Record<string, string> }) =>
  fakeSummary({ noise: o.noise, slow: o.slow, runId: `p${o.noise}`, env: { GPU_HOUR_COST: '2', GPUS: '2', ...o.env } });

test('cost: the same price on a repeat is no regression; each side shows its own $/Mtok, the ratio follows the throughput', () => {
  const b = priced({ noise: 1 });
  const c = compared(b, priced({ noise: 2 }));
  assert.equal(c.exitCode, EXIT.ok);
  const sides = JSON.parse(b).cost.runs;
  for (const x of c.cells) {
    assert.equal(x.cost.regression, false);
    assert.equal(x.cost.notCompared, null);
    assert.equal(
      x.cost.baseline?.output,
      sides.find((r: { cell: string; variant: string }) => r.cell === x.cell && r.variant === x.variant).output_usd_per_million_tokens,
    );
    // Same price: cost ratio = 1 ÷ throughput ratio, the interval's ends swapped.
    assert.ok(Math.abs(x.cost.ratio!.value * x.throughput!.value - 1) < 1e-9);
    assert.ok(Math.abs(x.cost.ratio!.ci!.lo * x.throughput!.ci!.hi - 1) < 1e-9);
  }
  const text = renderCompareText(c);
  assert.match(text, /\$\/Mtok out base → new/);
  assert.match(renderCompareMarkdown(c), /cost ratio \[95% CI\]/);
  assert.match(renderCompareHtml(c), /data-cost-regression="false"/);
});

test('cost: a dearer GPU beyond the tolerance is a regression of that variant alone (exit 3); within it, none', () => {
  const dearer = compared(priced({ noise: 1 }), priced({ noise: 2, env: { DFLASH_GPU_HOUR_COST: '2.4' } }));
  assert.equal(dearer.exitCode, EXIT.regression);
  assert.deepEqual(
    dearer.cells.filter((x) => x.cost.regression).map((x) => x.variant),
    ['dflash', 'dflash'],
  );
  for (const x of dearer.cells) {
    assert.equal(x.regression, false, 'throughput and latency did not regress');
    if (x.variant === 'dflash') assert.match(verdictLabel(x, dearer.tolerance), /^REGRESSION: costlier per token beyond 5%/);
  }
  assert.equal(dearer.regressions, 2);
  assert.match(renderCompareMarkdown(dearer), /regression\*\*: costlier per token/);
  const slight = compared(priced({ noise: 1 }), priced({ noise: 2, env: { DFLASH_GPU_HOUR_COST: '2.02' } }));
  assert.equal(slight.exitCode, EXIT.ok, 'a 1% dearer GPU is within 5%');
  // Slower at the same price: costlier too, the same cells.
  const slower = compared(priced({ noise: 1 }), priced({ noise: 2, slow: 1.1 }));
  for (const x of slower.cells) assert.equal(x.cost.regression, x.regression, `${x.cell} ${x.variant}`);
  assert.ok(slower.cells.every((x) => x.cost.regression));
  // Cheaper per GPU-hour and as fast: cheaper per token, never a regression.
  assert.equal(compared(priced({ noise: 1 }), priced({ noise: 2, env: { GPU_HOUR_COST: '1' } })).exitCode, EXIT.ok);
});

test('cost: a side without a price is "not compared (reason)", never a regression or 0', () => {
  const unpriced = compared(fakeSummary({ noise: 1, runId: 'u' }), priced({ noise: 2, slow: 1.0 }));
  for (const x of unpriced.cells) {
    assert.equal(x.cost.ratio, null);
    assert.equal(x.cost.baseline, null);
    assert.equal(x.cost.notCompared, `GPU_HOUR_COST not set for ${x.variant} in the baseline`);
  }
  assert.match(renderCompareText(unpriced), /not compared \(GPU_HOUR_COST not set for dflash in the baseline\)/);
  // A summary from before costs were recorded: said so.
  const old = JSON.parse(priced({ noise: 1 }));
  delete old.cost;
  const c = compared(JSON.stringify(old), priced({ noise: 2, env: { GPU_HOUR_COST: '20' } }));
  assert.equal(c.exitCode, EXIT.ok);
  assert.match(c.cells[0].cost.notCompared!, /baseline's summary was written before costs were recorded/);
  // Neither side priced: one line says why, no cost columns.
  const none = compared(base, base);
  assert.ok(!renderCompareText(none).includes('$/Mtok'));
  assert.match(
    renderCompareText(none),
    /cost per token: not compared \(GPU_HOUR_COST not set for dflash in either run; GPU_HOUR_COST not set for mtp in either run\)/,
  );
  assert.throws(() => parseSummary(JSON.stringify({ ...old, cost: { runs: 3 } }), 'x.json'), /x.json: cost is malformed/);
});

// Energy per output token (GPU_METRICS_URL): per cell from each summary's energy section; a rise
// beyond the tolerance with the whole interval is a regression, by the rule cost has.
const powered = (noise: number, energy: Record<string, number>, slow?: number) => fakeSummary({ noise, slow, runId: `e${noise}`, energy });

test('energy: the same J/token on a repeat is no regression; a rise beyond the tolerance is (exit 3), of that variant alone', () => {
  const b = powered(1, { dflash: 2, mtp: 3 });
  const same = compared(b, powered(2, { dflash: 2, mtp: 3 }));
  assert.equal(same.exitCode, EXIT.ok);
  const rows = JSON.parse(b).energy.runs;
  for (const x of same.cells) {
    assert.equal(x.energy.regression, false);
    assert.equal(x.energy.notCompared, null);
    const row = rows.find((r: { cell: string; variant: string }) => r.cell === x.cell && r.variant === x.variant);
    assert.equal(x.energy.baseline?.jPerToken, row.j_per_output_token);
    assert.ok(Math.abs(row.j_per_output_token - (x.variant === 'dflash' ? 2 : 3)) < 0.1, String(row.j_per_output_token));
    assert.ok(x.energy.ratio!.ci!.lo > 0.95 && x.energy.ratio!.ci!.hi < 1.05, 'a repeat is near 1');
  }
  assert.match(renderCompareText(same), /J\/token base → new .*energy ratio \[95% CI\]/);
  assert.match(renderCompareHtml(same), /data-energy-regression="false"/);

  const hungrier = compared(b, powered(2, { dflash: 2.4, mtp: 3 }));
  assert.equal(hungrier.exitCode, EXIT.regression);
  assert.deepEqual(
    hungrier.cells.filter((x) => x.energy.regression).map((x) => x.variant),
    ['dflash', 'dflash'],
  );
  for (const x of hungrier.cells) {
    assert.equal(x.regression || x.cost.regression, false, 'only the energy rose');
    if (x.variant === 'dflash') {
      assert.ok(Math.abs(x.energy.ratio!.value - 1.2) < 0.03, String(x.energy.ratio!.value));
      assert.match(verdictLabel(x, hungrier.tolerance), /^REGRESSION: more energy per token beyond 5%/);
    }
  }
  assert.equal(hungrier.regressions, 2);
  assert.match(renderCompareMarkdown(hungrier), /regression\*\*: more energy per token/);
  // 1% more: within 5%, no regression; less energy: never one.
  assert.equal(compared(b, powered(2, { dflash: 2.02, mtp: 3 })).exitCode, EXIT.ok);
  assert.equal(compared(b, powered(2, { dflash: 1, mtp: 1 })).exitCode, EXIT.ok);
  // 10% more but noisy slices: the interval reaches below 1.05, so no regression (the whole interval must be past it).
  const noisy = compared(fakeSummary({ noise: 1, wobble: 0.25, energy: { dflash: 2 } }), fakeSummary({ noise: 2, wobble: 0.25, energy: { dflash: 2.2 } }));
  const d = noisy.cells.filter((x) => x.variant === 'dflash');
  assert.ok(
    d.every((x) => x.energy.ratio!.value > 1.05 && x.energy.ratio!.ci!.lo < 1.05 && !x.energy.regression),
    JSON.stringify(d.map((x) => x.energy.ratio)),
  );
});

test('energy: a side without telemetry is "not compared (reason)", never a regression or 0; a summary without slices has no interval', () => {
  const half = compared(powered(1, { dflash: 2 }), powered(2, { dflash: 2, mtp: 9 }));
  assert.equal(half.exitCode, EXIT.ok);
  for (const x of half.cells.filter((c) => c.variant === 'mtp')) {
    assert.equal(x.energy.ratio, null);
    assert.equal(x.energy.baseline, null);
    assert.equal(x.energy.notCompared, 'GPU_METRICS_URL not set for mtp in the baseline');
  }
  assert.match(renderCompareText(half), /not compared \(GPU_METRICS_URL not set for mtp in the baseline\)/);
  // Neither side has telemetry: one line, no energy columns.
  const none = compared(fakeSummary({ noise: 1 }), fakeSummary({ noise: 2 }));
  assert.ok(!renderCompareText(none).includes('J/token base'));
  assert.match(
    renderCompareText(none),
    /energy per token: not compared \(GPU_METRICS_URL not set for dflash in either run; GPU_METRICS_URL not set for mtp in either run\)/,
  );
  // Older summaries: without the energy section, said so; without its slices, a ratio but no interval, so no verdict.
  const old = JSON.parse(powered(1, { dflash: 2, mtp: 3 }));
  for (const r of old.energy.runs) delete r.j_per_output_token_slices;
  const sliceless = compared(JSON.stringify(old), powered(2, { dflash: 3, mtp: 3 }));
  assert.equal(sliceless.exitCode, EXIT.ok);
  assert.ok(sliceless.cells.every((x) => x.energy.ratio !== null && x.energy.ratio.ci === null && !x.energy.regression));
  delete old.energy;
  assert.match(
    compared(JSON.stringify(old), powered(2, { dflash: 2 })).cells[0].energy.notCompared!,
    /baseline's summary was written before energy was recorded/,
  );
  assert.throws(() => parseSummary(JSON.stringify({ ...old, energy: { runs: 3 } }), 'x.json'), /x.json: energy is malformed/);
});
