import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bootstrapMean, bootstrapRatio, mean, quantileSorted } from '../../../lib/stats/bootstrap';

test('quantiles interpolate linearly', () => {
  assert.equal(quantileSorted([1, 2, 3, 4], 0.5), 2.5);
  assert.equal(quantileSorted([1, 2, 3, 4], 1), 4);
});

test('a clear 2× difference gives an interval around 2 that excludes 1', () => {
  const a = [200, 210, 190, 205, 195, 200];
  const b = [100, 104, 96, 101, 99, 100];
  const ci = bootstrapRatio(a, b, mean);
  assert.ok(ci !== null);
  assert.ok(ci.lo > 1.9 && ci.lo < 2 && ci.hi > 2 && ci.hi < 2.1, JSON.stringify(ci));
});

test('overlapping noisy samples give an interval containing 1', () => {
  const ci = bootstrapRatio([90, 110, 95, 105, 100], [105, 95, 100, 110, 90], mean);
  assert.ok(ci !== null && ci.lo < 1 && ci.hi > 1, JSON.stringify(ci));
});

test('deterministic for the same data and seed; null below two points', () => {
  assert.deepEqual(bootstrapMean([1, 2, 3, 4]), bootstrapMean([1, 2, 3, 4]));
  assert.equal(bootstrapMean([1]), null);
  assert.equal(bootstrapRatio([1], [1, 2], mean), null);
});
