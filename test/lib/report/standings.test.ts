// N variants against a baseline: intervals about their own estimates, verdicts only on enough
// independent slices, simultaneous intervals, rankings that order only what is separated, crossovers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rank, versus, versusOne, type VersusEntry } from '../../../lib/report/figures/standings';
import { williams } from '../../../lib/plan/matrix';
import { mulberry32 } from '../../../lib/stats/rng';
import type { RunFigures } from '../../../lib/report/figures/run-figures';

const SLICE_MS = 2000;

/** A run whose slices draw throughput around `tps` (±noise) and e2e around `e2eMs`. */
function run(
  variant: string,
  cellId: string,
  vus: number,
  tps: number,
  opts: { slices?: number; noise?: number; e2eMs?: number; seed?: number } = {},
): RunFigures {
  const rng = mulberry32(opts.seed ?? vus * 31 + tps);
  const n = opts.slices ?? 8;
  const e2e = opts.e2eMs ?? 500;
  const slices: Array<[number, number, number]> = Array.from({ length: n }, () => {
    const t = tps * (1 + (opts.noise ?? 0.05) * (rng() * 2 - 1));
    const reqs = 10;
    return [t, reqs * e2e * (tps / t), reqs];
  });
  return {
    variant,
    cellId,
    isl: 128,
    osl: 64,
    load: { kind: 'vus', vus },
    slices,
    throughput: slices.reduce((s, x) => s + x[0], 0) / n,
    e2e: { avg: e2e, p50: e2e, p90: e2e, p99: e2e, max: e2e, count: 10 * n },
  } as unknown as RunFigures;
}

test('williams: every variant in every position and after every other equally often', () => {
  for (let n = 2; n <= 7; n++) {
    const rows = williams(n);
    assert.equal(rows.length, n % 2 === 0 ? n : 2 * n);
    const pos = Array.from({ length: n }, () => new Array(n).fill(0));
    const follows = new Map<string, number>();
    for (const row of rows) {
      assert.deepEqual(
        [...row].sort(),
        Array.from({ length: n }, (_, i) => i),
      );
      row.forEach((v, i) => pos[v][i]++);
      for (let i = 1; i < row.length; i++) follows.set(`${row[i - 1]}>${row[i]}`, (follows.get(`${row[i - 1]}>${row[i]}`) ?? 0) + 1);
    }
    assert.equal(new Set(pos.flat()).size, 1, `n=${n}: positions balanced`);
    assert.equal(follows.size, n * (n - 1), `n=${n}: every ordered pair adjacent`);
    assert.equal(new Set(follows.values()).size, 1, `n=${n}: equally often`);
  }
  assert.deepEqual(
    williams(2),
    [
      [0, 1],
      [1, 0],
    ],
    'two variants: A B, B A as before',
  );
});

test('a variant twice as fast: faster, its interval about its own estimate at the adjusted level', () => {
  const v = versus(
    [run('none', 'c1', 1, 100), run('dflash', 'c1', 1, 200), run('mtp', 'c1', 1, 150), run('ddtree', 'c1', 1, 100, { seed: 99 })],
    [{ id: 'c1' }],
    ['none', 'mtp', 'dflash', 'ddtree'],
    'none',
    SLICE_MS,
  );
  assert.ok(Math.abs(v.intervalLevel - (1 - 0.05 / 3)) < 1e-12);
  const byName = (n: string) => v.entries.find((e) => e.variant === n) as VersusEntry;
  for (const e of v.entries) {
    const t = e.throughput!;
    assert.ok(t.ci && t.ci.lo <= t.value && t.value <= t.ci.hi, `${e.variant}: ${t.value} in [${t.ci?.lo}, ${t.ci?.hi}]`);
  }
  assert.equal(byName('dflash').standing, 'faster');
  assert.ok(Math.abs(byName('dflash').throughput!.value - 2) < 0.1);
  assert.equal(byName('ddtree').standing, 'same');
  assert.deepEqual(v.rankings[0].tiers[0], ['dflash']);
  assert.ok(
    v.rankings[0].tiers.some((t) => t.includes('none') && t.includes('ddtree')),
    JSON.stringify(v.rankings[0].tiers),
  );
});

test('too few samples: fewer than five slices, or slices shorter than a request — no verdict, however large the ratio', () => {
  const few = versusOne(run('a', 'c', 1, 300, { slices: 3 }), run('b', 'c', 1, 100, { slices: 3 }), SLICE_MS, 0.95);
  assert.equal(few.standing, 'too_few_samples');
  assert.match(few.why ?? '', /3 steady slice\(s\) on one side, fewer than 5/);
  const long = versusOne(run('a', 'c', 1, 98, { e2eMs: 5000 }), run('b', 'c', 1, 100, { e2eMs: 5000 }), SLICE_MS, 0.95);
  assert.equal(long.standing, 'too_few_samples');
  assert.match(long.why ?? '', /shorter than a request/);
});

test('crossover: the gain ends, or reverses, between the levels that bracket it; holds when it never ends', () => {
  const cells = [1, 4, 16].map((c) => ({ id: `c${c}` }));
  const ends = versus(
    [1, 4, 16].flatMap((c) => [run('base', `c${c}`, c, 100), run('x', `c${c}`, c, c === 16 ? 100 : 160, { seed: c + 7 })]),
    cells,
    ['base', 'x'],
    'base',
    SLICE_MS,
  );
  assert.deepEqual([ends.crossovers[0].kind, ends.crossovers[0].from, ends.crossovers[0].to], ['ends', 4, 16]);
  assert.match(ends.crossovers[0].text, /crossover between c=4 and c=16/);
  const rev = versus(
    [1, 4, 16].flatMap((c) => [run('base', `c${c}`, c, 100), run('x', `c${c}`, c, c === 1 ? 160 : 70)]),
    cells,
    ['base', 'x'],
    'base',
    SLICE_MS,
  );
  assert.deepEqual([rev.crossovers[0].kind, rev.crossovers[0].from, rev.crossovers[0].to], ['reverses', 1, 4]);
  const holds = versus(
    [1, 4, 16].flatMap((c) => [run('base', `c${c}`, c, 100), run('x', `c${c}`, c, 150)]),
    cells,
    ['base', 'x'],
    'base',
    SLICE_MS,
  );
  assert.equal(holds.crossovers[0].kind, 'holds');
});

test('rank: overlapping intervals share a tier; an entry without an interval separates nothing', () => {
  const e = (variant: string, value: number, lo: number, hi: number, standing: VersusEntry['standing'] = 'faster') =>
    ({ variant, baseline: 'b', throughput: { value, ci: { lo, hi } }, standing }) as VersusEntry;
  assert.deepEqual(rank('b', [e('x', 2, 1.8, 2.2), e('y', 1.9, 1.7, 2.1), e('z', 1.5, 1.4, 1.6)]), [['x', 'y'], ['z'], ['b']]);
  assert.deepEqual(rank('b', [e('x', 3, 2.8, 3.2, 'too_few_samples')]), [['x', 'b']]);
});

test('identical servers are called different about as often as the level says, not more', () => {
  // 600 cells of two identical servers, five to eight slices each with ±5 % noise: at the
  // Bonferroni level of three comparisons (98.3 %), about 1.7 % false verdicts are expected.
  let wrong = 0;
  let cells = 0;
  for (let k = 0; k < 600; k++) {
    const n = 5 + (k % 4);
    const e = versusOne(run('a', 'c', 1, 100, { slices: n, seed: 2 * k + 1 }), run('b', 'c', 1, 100, { slices: n, seed: 2 * k + 2 }), SLICE_MS, 1 - 0.05 / 3);
    cells++;
    if (e.standing === 'faster' || e.standing === 'slower') wrong++;
  }
  const rate = wrong / cells;
  console.log(`# false verdicts: ${wrong} of ${cells} (${(rate * 100).toFixed(1)} %, nominal 1.7 %)`);
  assert.ok(rate < 0.035, `${(rate * 100).toFixed(1)} % false verdicts`);
});
