// REPEATS: intervals across repeated runs (lib/stats/across-runs.ts) and the verdicts drawn from
// them (lib/report/figures/repeats.ts): t over the repeats' log ratios with R − 1 degrees of freedom, a
// verdict only where that interval excludes 1, whatever each repeat's within-run interval said.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pairedRatio, spreadOf, unpairedRatio } from '../../../lib/stats/across-runs';
import { ratioOfMeans, tQuantile } from '../../../lib/stats/t-interval';
import { acrossRepeats, pairsOf, repeatsOf, versusAcrossRepeats, type RepeatPair } from '../../../lib/report/figures/repeats';
import { compare } from '../../../lib/report/figures/ab-comparison';
import { buildCells, buildPlan } from '../../../lib/plan/matrix';
import { resetDue } from '../../../lib/plan/cache-reset-plan';
import { loadConfig } from '../../../lib/config/load';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { readCapacitySettings } from '../../../lib/capacity/settings';
import type { RunFigures } from '../../../lib/report/figures/run-figures';

const SLICE_MS = 2000;

/** A run of 8 steady slices alternating ±0.5 % around `tps`: a narrow within-run interval. */
function run(variant: string, repeat: number, tps: number, cellId = 'i128_o64_c1'): RunFigures {
  const slices: Array<[number, number, number]> = Array.from({ length: 8 }, (_, i) => [tps * (i % 2 === 0 ? 1.005 : 0.995), 10 * 500, 10]);
  return {
    scenario: `${variant}_${cellId}_r${repeat}`,
    variant,
    repeat,
    cellId,
    isl: 128,
    osl: 64,
    load: { kind: 'vus', vus: 1 },
    slices,
    throughput: tps,
    requests: { total: 80, ok: 80, failed: 0, unreachable: 0, errors: {} },
    variantDown: 0,
    e2e: { avg: 500, p50: 500, p90: 500, p99: 500, max: 500, count: 80 },
  } as unknown as RunFigures;
}

/** Repeats of a and b whose ratios a÷b are `ratios`, b at 100 tokens/s. */
function pairs(ratios: number[]): RepeatPair[] {
  return ratios.map((r, i) => ({ repeat: i + 1, variant: run('a', i + 1, 100 * r), baseline: run('b', i + 1, 100) }));
}

test('pairedRatio: t over the log ratios with R − 1 degrees of freedom, about its geometric mean', () => {
  const ratios = [1.1, 1.2, 1.15];
  const logs = ratios.map(Math.log);
  const m = logs.reduce((s, x) => s + x, 0) / 3;
  const sd = Math.sqrt(logs.reduce((s, x) => s + (x - m) ** 2, 0) / 2);
  const h = tQuantile(0.975, 2) * (sd / Math.sqrt(3));
  const r = pairedRatio(ratios, 0.95);
  assert.ok(r !== null);
  assert.equal(r.df, 2);
  assert.equal(r.repeats, 3);
  assert.ok(Math.abs(r.value - Math.exp(m)) < 1e-12);
  assert.ok(Math.abs(r.ci.lo - Math.exp(m - h)) < 1e-9 && Math.abs(r.ci.hi - Math.exp(m + h)) < 1e-9, JSON.stringify(r));
  assert.ok(r.ci.lo > 1, 'three clearly faster repeats: the interval excludes 1');
  // A Bonferroni-adjusted level widens it.
  const adj = pairedRatio(ratios, 1 - 0.05 / 3) as NonNullable<typeof r>;
  assert.ok(adj.ci.lo < r.ci.lo && adj.ci.hi > r.ci.hi);
});

test('pairedRatio: two repeats have 1 degree of freedom (t = 12.7), so a wide interval; fewer than 2, or a ratio ≤ 0, none', () => {
  const two = pairedRatio([1.1, 1.2], 0.95);
  assert.ok(two !== null);
  assert.equal(two.df, 1);
  assert.ok(Math.abs(tQuantile(0.975, 1) - 12.706) < 1e-3);
  assert.ok(two.ci.lo < 1 && two.ci.hi > 1.4, `1 df: ${JSON.stringify(two.ci)}`);
  assert.equal(pairedRatio([1.1], 0.95), null);
  assert.equal(pairedRatio([1.1, 0], 0.95), null);
  assert.equal(pairedRatio([1.1, NaN], 0.95), null);
});

test("unpairedRatio: Welch on the log ratio of two tests' repeat means, as ratioOfMeans", () => {
  const base = [100, 102, 98];
  const next = [90, 91, 89];
  const r = unpairedRatio(next, base, 0.95);
  const w = ratioOfMeans(next, base, 0.95);
  assert.ok(r !== null && w !== null);
  assert.deepEqual(r.ci, w.ci);
  assert.ok(r.df > 2 && r.df < 4, `Welch–Satterthwaite between 2 and 4: ${r.df}`);
  assert.ok(r.ci.hi < 1);
  assert.equal(unpairedRatio([100], base, 0.95), null);
});

test('spreadOf: the range and the sd of the logs', () => {
  const s = spreadOf([1.0, 1.1, 1.05]);
  assert.ok(s !== null);
  assert.equal(s.min, 1.0);
  assert.equal(s.max, 1.1);
  assert.ok(s.sdLog !== null && s.sdLog > 0.04 && s.sdLog < 0.06);
  assert.equal(spreadOf([1.2])?.sdLog, null);
  assert.equal(spreadOf([]), null);
});

test('every repeat faster within its run, yet the repeats disagree by 20 %: no verdict across runs', () => {
  // Each repeat's within-run interval (±0.5 % slices) excludes 1; the across-run one does not. A
  // rule that judged by the within-run intervals would call this faster.
  const e = acrossRepeats(pairs([1.02, 1.2, 1.01]), SLICE_MS, 0.95);
  assert.deepEqual(
    e.repeats.within.map((w) => w.standing),
    ['faster', 'faster', 'faster'],
  );
  for (const w of e.repeats.within) assert.ok(w.ci !== null && w.ci.lo > 1, 'within-run interval excludes 1');
  assert.equal(e.standing, 'same');
  assert.ok(e.throughput?.ci && e.throughput.ci.lo < 1 && e.throughput.ci.hi > 1);
  assert.equal(e.repeats.agreement, 'not reproducible: faster in 3 of 3 repeats');
  assert.equal(e.repeats.across?.df, 2);
  const ab = compare(run('a', 1, 102), run('b', 1, 100), 'at c=1', SLICE_MS, pairs([1.02, 1.2, 1.01]));
  assert.match(ab.verdict, /^no significant difference at c=1 .*across 3 repeats .*not reproducible: faster in 3 of 3 repeats/);
});

test('repeats that agree: a verdict across runs, and one repeat that did not see it is named', () => {
  const e = acrossRepeats(pairs([1.1, 1.11, 1.09]), SLICE_MS, 0.95);
  assert.equal(e.standing, 'faster');
  assert.equal(e.repeats.agreement, 'faster in 3 of 3 repeats');
  const f = acrossRepeats(pairs([1.1, 1.112, 1.002]), SLICE_MS, 0.95);
  assert.equal(f.repeats.within[2].standing, 'same');
  assert.equal(f.standing, 'same', 'a 10 % spread over three repeats');
  assert.match(f.repeats.agreement, /^not reproducible: faster in 2 of 3 repeats, no significant difference in 1$/);
  const ab = compare(run('a', 1, 110), run('b', 1, 100), 'at c=1', SLICE_MS, pairs([1.1, 1.11, 1.09]));
  assert.match(
    ab.verdict,
    /^a faster by 1\.10× \[1\.0\d, 1\.1\d\] at c=1, across 3 repeats \(within-run r1 ▲ 1\.10× .*\(t, 2 df\): faster in 3 of 3 repeats\)$/,
  );
  assert.equal(ab.repeats?.within.length, 3);
});

test('a repeat not measured leaves no interval across runs, and says which', () => {
  const ps = pairs([1.1, 1.1, 1.1]);
  (ps[1].variant as { throughput: number | null }).throughput = null;
  const e = acrossRepeats(ps, SLICE_MS, 0.95);
  assert.equal(e.standing, 'too_few_samples');
  assert.match(e.why ?? '', /repeat\(s\) 2/);
});

test('versusAcrossRepeats: N-way entries, rankings and crossovers from the across-run intervals, Bonferroni-adjusted', () => {
  const runs = [1, 2, 3].flatMap((k) => [run('none', k, 100), run('fast', k, 100 * [1.02, 1.08, 1.01][k - 1]), run('sure', k, 150 + k)]);
  assert.deepEqual(repeatsOf(runs), [1, 2, 3]);
  assert.equal(pairsOf(runs, 'i128_o64_c1', 'fast', 'none').length, 3);
  const v = versusAcrossRepeats(runs, [{ id: 'i128_o64_c1' }], ['none', 'fast', 'sure'], 'none', SLICE_MS);
  assert.ok(Math.abs(v.intervalLevel - (1 - 0.05 / 2)) < 1e-12);
  const by = (name: string) => v.entries.find((e) => e.variant === name);
  assert.equal(by('fast')?.standing, 'same');
  assert.equal(by('sure')?.standing, 'faster');
  assert.deepEqual(v.rankings[0].tiers, [['sure'], ['fast', 'none']]);
  assert.match(v.method, /3 repeats; the verdict rests on the interval across runs/);
  assert.equal(repeatsOf([run('a', 1, 1)].map(({ repeat: _r, ...x }) => x as RunFigures)).length, 0, 'no repeat tag: no repeats');
});

test('plan: REPEATS chains the comparison R times, rotating the order, naming and tagging each repeat; 1 leaves it as it was', () => {
  const cells = buildCells(
    [128],
    [64],
    [
      { kind: 'vus', vus: 1 },
      { kind: 'vus', vus: 2 },
    ],
  );
  const cfg = { durationMs: 10_000, gracefulStopMs: 5000, slices: 5, requests: null, maxVus: 16 };
  const once = buildPlan(cfg, cells, ['a', 'b']);
  assert.deepEqual(buildPlan({ ...cfg, repeats: 1 }, cells, ['a', 'b']), once);
  assert.equal('repeats' in once, false);
  const p = buildPlan({ ...cfg, repeats: 3 }, cells, ['a', 'b']);
  assert.equal(p.repeats, 3);
  assert.deepEqual(
    p.runs.map((r) => r.scenario),
    [
      ...['a_i128_o64_c1_r1', 'b_i128_o64_c1_r1', 'b_i128_o64_c2_r1', 'a_i128_o64_c2_r1'],
      ...['b_i128_o64_c1_r2', 'a_i128_o64_c1_r2', 'a_i128_o64_c2_r2', 'b_i128_o64_c2_r2'],
      ...['a_i128_o64_c1_r3', 'b_i128_o64_c1_r3', 'b_i128_o64_c2_r3', 'a_i128_o64_c2_r3'],
    ],
  );
  assert.deepEqual(
    p.runs.map((r) => r.repeat),
    [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3],
  );
  assert.equal(p.totalMs, 3 * once.totalMs);
  // CACHE_RESET=variant: each variant's first run of every repeat.
  assert.deepEqual(
    resetDue(p, 'variant').map((r) => r.scenario),
    ['a_i128_o64_c1_r1', 'b_i128_o64_c1_r1', 'b_i128_o64_c1_r2', 'a_i128_o64_c1_r2', 'a_i128_o64_c1_r3', 'b_i128_o64_c1_r3'],
  );
});

test('REPEATS: a whole number from 1 to 20, anything else one clear message', () => {
  const env = { DFLASH_URL: 'http://a:1', MTP_URL: 'http://b:2' };
  const now = new Date('2026-12-07T00:00:00Z');
  assert.equal(loadConfig(BENCHMARKS['dflash-vs-mtp'], env, now).repeats, 1);
  assert.equal(loadConfig(BENCHMARKS['dflash-vs-mtp'], { ...env, REPEATS: '3' }, now).repeats, 3);
  for (const bad of ['0', '-1', 'x', '1.5', '21'])
    assert.throws(
      () => loadConfig(BENCHMARKS['dflash-vs-mtp'], { ...env, REPEATS: bad }, now),
      (e: Error) => e.message === `REPEATS='${bad}' is not valid: expected a whole number from 1 to 20.`,
      `REPEATS=${bad}`,
    );
});

test('the capacity search refuses REPEATS above 1 in one line (it confirms a level by its own reruns)', async () => {
  const slo = { SLO_E2E_P99: '4s' };
  assert.throws(
    () => readCapacitySettings({ ...slo, REPEATS: '3' }),
    /^ConfigError: REPEATS=3 applies to a benchmark's run \(k6 run, npm start\), not to the capacity search: unset it\.$/,
  );
  assert.doesNotThrow(() => readCapacitySettings({ ...slo, REPEATS: '1' }));
});
