import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bootstrapDraws, bootstrapMean, bootstrapRatio, quantileSorted, type RatioSample } from '../../../lib/stats/bootstrap';

const sample = (xs: number[], seed: number): RatioSample => ({ num: xs, den: null, seed });

test('quantiles interpolate linearly', () => {
  assert.equal(quantileSorted([1, 2, 3, 4], 0.5), 2.5);
  assert.equal(quantileSorted([1, 2, 3, 4], 1), 4);
});

test('a clear 2× difference gives an interval around 2 that excludes 1', () => {
  const a = [200, 210, 190, 205, 195, 200];
  const b = [100, 104, 96, 101, 99, 100];
  const ci = bootstrapRatio(sample(a, 1), sample(b, 2));
  assert.ok(ci !== null);
  assert.ok(ci.lo > 1.9 && ci.lo < 2 && ci.hi > 2 && ci.hi < 2.1, JSON.stringify(ci));
});

test('overlapping noisy samples give an interval containing 1', () => {
  const ci = bootstrapRatio(sample([90, 110, 95, 105, 100], 1), sample([105, 95, 100, 110, 90], 2));
  assert.ok(ci !== null && ci.lo < 1 && ci.hi > 1, JSON.stringify(ci));
});

test('deterministic for the same data and seed; null below two points', () => {
  assert.deepEqual(bootstrapMean([1, 2, 3, 4]), bootstrapMean([1, 2, 3, 4]));
  assert.equal(bootstrapMean([1]), null);
  assert.equal(bootstrapRatio(sample([1], 1), sample([1, 2], 2)), null);
});

test('a side drawn once (bootstrapDraws) gives the interval its sample gives: the one bootstrap, shared', () => {
  const a = { num: [10, 12, 11, 13, 9], den: [2, 2, 3, 2, 1], seed: 7 };
  const b = { num: [20, 22, 25, 19, 21], den: [2, 3, 3, 2, 2], seed: 8 };
  assert.deepEqual(bootstrapRatio(bootstrapDraws(b), a), bootstrapRatio(b, a));
  assert.notDeepEqual(bootstrapRatio(b, a), bootstrapRatio(b, { ...a, seed: 9 }), 'the seed picks the resamples');
});
