import { test } from 'node:test';
import assert from 'node:assert/strict';
import { measure, p99Interval, shareInterval, type RunSample } from '../../../lib/capacity/observe';
import { quantileSorted } from '../../../lib/stats/bootstrap';
import { mulberry32 } from '../../../lib/stats/rng';
import { k6Trend } from './fixtures';

const rnd = mulberry32(11);
const lognormal = (mu: number, sigma: number) => Math.exp(mu + sigma * Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd()));

test('the p99 interval covers the true p99 in about 95 % of repeated samples', () => {
  // The true p99 of lognormal(5, 0.5): e^(5 + 0.5·2.3263).
  const truth = Math.exp(5 + 0.5 * 2.3263);
  let covered = 0;
  const trials = 300;
  for (let t = 0; t < trials; t++) {
    const q = p99Interval([k6Trend(Array.from({ length: 800 }, () => lognormal(5, 0.5)))]);
    assert.ok(q && !q.upperOpen && q.lo <= q.value && q.value <= q.hi);
    if (q.lo <= truth && truth <= q.hi) covered++;
  }
  assert.ok(covered / trials >= 0.9 && covered / trials <= 0.995, `coverage ${covered}/${trials}`);
});

test('pooling runs at one load: the interval narrows and the value stays the pooled p99', () => {
  const a = Array.from({ length: 600 }, () => lognormal(5, 0.5));
  const b = Array.from({ length: 600 }, () => lognormal(5, 0.5));
  const one = p99Interval([k6Trend(a)])!;
  const both = p99Interval([k6Trend(a), k6Trend(b)])!;
  assert.equal(both.n, 1200);
  assert.ok(both.hi - both.lo < one.hi - one.lo, `${both.hi - both.lo} vs ${one.hi - one.lo}`);
  const exact = quantileSorted(
    [...a, ...b].sort((x, y) => x - y),
    0.99,
  );
  assert.ok(Math.abs(both.value / exact - 1) < 0.03, `${both.value} vs ${exact}`);
});

test('too few samples for an upper bound: the largest sample stands in, flagged open', () => {
  const q = p99Interval([k6Trend(Array.from({ length: 100 }, (_, i) => i + 1))])!;
  assert.equal(q.upperOpen, true);
  assert.equal(q.hi, 100);
  assert.equal(p99Interval([]), null);
});

test('a measure is clear when its interval lies on one side of the limit', () => {
  const run = (xs: number[]): RunSample => ({ ttft: null, itl: null, e2e: k6Trend(xs), ok: xs.length, failed: 0, judged: xs.length, good: 0 });
  const xs = Array.from({ length: 2000 }, () => lognormal(5, 0.3));
  const p99 = p99Interval([k6Trend(xs)])!;
  const far = measure({ key: 'e2e', variable: 'SLO_E2E_P99', limit: p99.value * 2 }, [run(xs)])!;
  assert.ok(far.pass && far.clear);
  const over = measure({ key: 'e2e', variable: 'SLO_E2E_P99', limit: p99.value / 2 }, [run(xs)])!;
  assert.ok(!over.pass && over.clear);
  const near = measure({ key: 'e2e', variable: 'SLO_E2E_P99', limit: p99.value * 1.001 }, [run(xs)])!;
  assert.ok(near.pass && !near.clear);
});

test('attainment: the share of judged requests that missed, with a Wilson interval', () => {
  const r: RunSample = { ttft: null, itl: null, e2e: null, ok: 120, failed: 0, judged: 100, good: 85 };
  const m = measure({ key: 'attainment', variable: 'SLO_ATTAINMENT', limit: 0.9 }, [r])!;
  assert.equal(m.n, 100);
  assert.ok(Math.abs(m.value - 0.15) < 1e-12);
  assert.ok(Math.abs(m.limit - 0.1) < 1e-12);
  assert.equal(m.pass, false);
  const w = shareInterval(0, 10);
  assert.ok(w.lo === 0 && Math.abs(w.hi - 0.2775) < 0.001, JSON.stringify(w));
});
