// The pure arithmetic of the cost and frontier sections: dollars per million tokens and its
// interval, the Pareto frontier (max both), and which variant leads at which interactivity.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hourly, perMillion } from '../../../lib/report/figures/token-price';
import { dominance, dominanceSentence, paretoFront, reachAt } from '../../../lib/report/figures/pareto';

test('dollars per million tokens: GPU_HOUR_COST × GPUS / (tokens/s × 3600) × 1e6, the interval swapped', () => {
  assert.equal(hourly(2.5, null), 2.5, 'GPUS unset counts 1');
  assert.equal(hourly(2.5, 8), 20);
  const p = perMillion(20, 1000, { lo: 800, hi: 1250 });
  assert.ok(p !== null);
  assert.ok(Math.abs(p.value - 20 / 3.6) < 1e-9);
  assert.ok(p.ci && Math.abs(p.ci.lo - 20 / 4.5) < 1e-9 && Math.abs(p.ci.hi - 20 / 2.88) < 1e-9, JSON.stringify(p.ci));
  assert.equal(perMillion(20, 1000, { lo: 0, hi: 2000 })?.ci, null, 'an interval reaching 0 tokens/s bounds no cost');
  assert.equal(perMillion(20, null), null, 'throughput not measured: no cost, not 0');
  assert.equal(perMillion(20, 0), null);
});

test('Pareto frontier: the points no other beats on both, by interactivity', () => {
  const pts = [
    { x: 10, y: 100, id: 'a' },
    { x: 20, y: 80, id: 'b' },
    { x: 15, y: 70, id: 'c' }, // beaten by b on both
    { x: 20, y: 60, id: 'd' }, // same x as b, less y
    { x: 40, y: 30, id: 'e' },
    { x: Number.NaN, y: 500, id: 'nan' },
  ];
  assert.deepEqual(
    paretoFront(pts).map((p) => p.id),
    ['a', 'b', 'e'],
  );
  assert.deepEqual(paretoFront([]), []);
  assert.equal(reachAt(paretoFront(pts), 15), 80);
  assert.equal(reachAt(paretoFront(pts), 41), null);
});

test('dominance: who gives the most throughput at each interactivity, merged, ties and lone variants said', () => {
  const a = {
    variant: 'dflash',
    frontier: [
      { x: 40, y: 200 },
      { x: 100, y: 50 },
    ],
  };
  const b = {
    variant: 'mtp',
    frontier: [
      { x: 25, y: 600 },
      { x: 30, y: 500 },
      { x: 50, y: 150 },
    ],
  };
  const segs = dominance([a, b]);
  assert.deepEqual(segs, [
    { upTo: 30, leaders: ['mtp'], reaching: 2 },
    { upTo: 40, leaders: ['dflash'], reaching: 2 },
    { upTo: 50, leaders: ['mtp'], reaching: 2 },
    { upTo: 100, leaders: ['dflash'], reaching: 1 },
  ]);
  assert.equal(
    dominanceSentence(segs, 'tok/s per user', String),
    'up to 30 tok/s per user, mtp leads; above 30 and up to 40 tok/s per user, dflash leads; above 40 and ' +
      'up to 50 tok/s per user, mtp leads; above 50 and up to 100 tok/s per user, only dflash reaches it.',
  );
  assert.deepEqual(dominance([a, { variant: 'x', frontier: a.frontier }])[0].leaders, ['dflash', 'x']);
});
