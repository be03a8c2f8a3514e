import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GRID_STATS, QUANTILE_GRID, mergeTrends, mergedQuantile, rankError, statName, type TrendValues } from '../../../lib/stats/quantile-merge';
import { quantileSorted } from '../../../lib/stats/bootstrap';
import { mulberry32 } from '../../../lib/stats/rng';

/** What k6 reports for a trend of these samples with the grid in summaryTrendStats. */
function k6Trend(xs: number[]): TrendValues {
  const s = [...xs].sort((a, b) => a - b);
  const v: TrendValues = { count: s.length, min: s[0], max: s[s.length - 1], avg: s.reduce((a, b) => a + b, 0) / s.length, med: quantileSorted(s, 0.5) };
  QUANTILE_GRID.forEach((r, k) => (v[GRID_STATS[k]] = quantileSorted(s, r)));
  for (const p of [0.9, 0.95, 0.99]) v[statName(p)] = quantileSorted(s, p);
  return v;
}

const rnd = mulberry32(7);
const lognormal = (mu: number, sigma: number) => Math.exp(mu + sigma * Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd()));

test('the grid: ranks ascending in (0, 1), stat names as k6 spells them', () => {
  for (let i = 1; i < QUANTILE_GRID.length; i++) assert.ok(QUANTILE_GRID[i] > QUANTILE_GRID[i - 1]);
  assert.equal(statName(0.005), 'p(0.5)');
  assert.equal(statName(0.9995), 'p(99.95)');
  assert.equal(statName(0.5), 'p(50)');
});

test('merged quantiles of unequal, differently shaped instances stay within the stated rank error of the exact pooled ones', () => {
  const cases = [
    [Array.from({ length: 900 }, () => lognormal(6, 0.3)), Array.from({ length: 300 }, () => lognormal(6.5, 0.8))],
    [Array.from({ length: 50 }, () => 100 + rnd() * 10), Array.from({ length: 5000 }, () => 500 + rnd() * 1000), Array.from({ length: 7 }, () => 5)],
    [Array.from({ length: 2000 }, () => Math.round(rnd() * 3)), Array.from({ length: 2000 }, () => Math.round(rnd() * 3))], // ties, ms-quantised
  ];
  for (const parts of cases) {
    const pooled = parts.flat().sort((a, b) => a - b);
    const trends = parts.map(k6Trend);
    for (const q of [0.01, 0.1, 0.5, 0.9, 0.95, 0.99, 0.995]) {
      const got = mergedQuantile(trends, q);
      const e = rankError(q);
      const lo = quantileSorted(pooled, Math.max(0, q - e));
      const hi = quantileSorted(pooled, Math.min(1, q + e));
      assert.ok(got >= lo - 1e-9 && got <= hi + 1e-9, `q=${q}: merged ${got} outside [${lo}, ${hi}] (exact ${quantileSorted(pooled, q)})`);
    }
  }
});

test('count, avg, min and max merge exactly; one instance merges to itself', () => {
  const a = Array.from({ length: 400 }, () => lognormal(5, 0.5));
  const b = Array.from({ length: 100 }, () => lognormal(5.2, 0.5));
  const m = mergeTrends([k6Trend(a), k6Trend(b)], ['count', 'avg', 'min', 'max', 'med', 'p(99)']);
  const all = [...a, ...b];
  assert.equal(m.count, 500);
  assert.ok(Math.abs(m.avg - all.reduce((x, y) => x + y, 0) / 500) < 1e-9);
  assert.equal(m.min, Math.min(...all));
  assert.equal(m.max, Math.max(...all));
  const solo = mergeTrends([k6Trend(a)], ['med', 'p(99)']);
  assert.ok(
    Math.abs(
      solo.med -
        quantileSorted(
          [...a].sort((x, y) => x - y),
          0.5,
        ),
    ) < 1e-9,
  );
  const empty = mergeTrends([{ count: 0 } as TrendValues, k6Trend(b)], ['count', 'avg']);
  assert.equal(empty.count, 100, 'an instance without samples adds nothing');
});

test('a trend without the grid cannot be merged: it says which setting was missing', () => {
  assert.throws(
    () =>
      mergedQuantile(
        [
          { count: 3, min: 1, max: 2, avg: 1.5 },
          { count: 3, min: 1, max: 2, avg: 1.5 },
        ],
        0.5,
      ),
    /PARTIAL=true/,
  );
});
