import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKOFF, Reachability } from '../../../lib/vu/reachability';

test('back-off doubles from 50 ms to a 1 s cap while nothing listens, and resets on any reply', () => {
  const r = new Reachability({ ...BACKOFF, downAfterMs: 60_000 });
  const waits = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => r.after(true, i * 10).waitMs);
  assert.deepEqual(waits, [50, 100, 200, 400, 800, 1000, 1000, 1000]);
  assert.equal(r.after(false, 100).waitMs, 0);
  assert.equal(r.after(true, 110).waitMs, 50, 'a new series starts again at the first back-off');
});

test('declared down once, after VARIANT_DOWN_AFTER of unbroken failures; a reply in between restarts the clock', () => {
  const r = new Reachability({ ...BACKOFF, downAfterMs: 5000 });
  assert.equal(r.after(true, 0).declaredDown, false);
  assert.equal(r.after(true, 4000).declaredDown, false);
  r.after(false, 4500);
  assert.equal(r.after(true, 6000).declaredDown, false, 'the reply at 4.5 s broke the series');
  assert.equal(r.downAtMs, null);
  const at = r.after(true, 11_000);
  assert.deepEqual(at, { waitMs: 0, declaredDown: true });
  assert.equal(r.downAtMs, 11_000);
  assert.equal(r.downSinceMs, 6000);
  assert.equal(r.after(true, 12_000).declaredDown, false, 'declared only once');
});
