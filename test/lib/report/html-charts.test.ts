import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Comparison } from '../../../lib/report/figures/ab-comparison';
import { intervalChart } from '../../../lib/report/render/svg/interval';
import { lineChart, plottable, type Series } from '../../../lib/report/render/svg/line';
import { verdictClass } from '../../../lib/report/render/svg/report-charts';
import { linearTicks, makeScale, niceStep, round125, tickLabel } from '../../../lib/report/render/svg/scale';

test('niceStep and linearTicks give 1-2-5 steps covering the range', () => {
  assert.equal(niceStep(1730, 5), 500);
  assert.equal(niceStep(0.93, 6), 0.2);
  assert.equal(niceStep(10, 5), 2);
  assert.deepEqual(linearTicks(0, 1800, 6), [0, 500, 1000, 1500]);
  assert.deepEqual(linearTicks(0.72, 1.65, 7), [0.8, 1, 1.2, 1.4, 1.6]);
  assert.deepEqual(linearTicks(5, 5), [5]);
});

test('makeScale: linear y axes start at zero and end on a tick; degenerate ranges do not divide by zero', () => {
  const s = makeScale([76, 1800], [300, 0], { kind: 'linear', zero: true, niceDomain: true });
  assert.deepEqual(s.domain, [0, 2000]);
  assert.equal(s.map(0), 300);
  assert.equal(s.map(2000), 0);
  const flat = makeScale([42, 42], [0, 100], { kind: 'linear', zero: true, niceDomain: true });
  assert.ok(Number.isFinite(flat.map(42)) && flat.map(42) > 0 && flat.map(42) < 100);
  const none = makeScale([], [0, 100], { kind: 'linear' });
  assert.ok(none.ticks.every(Number.isFinite));
});

test('makeScale: log axes use powers of two for powers-of-two data, 1-2-5 otherwise, and enclose the data', () => {
  const c = makeScale([1, 2, 4, 8, 16, 32, 64], [0, 500], { kind: 'log', maxTicks: 9 });
  assert.equal(c.tickStyle, 'pow2');
  assert.deepEqual(c.ticks, [1, 2, 4, 8, 16, 32, 64]);
  const lat = makeScale([0.024, 4.74], [300, 0], { kind: 'log', niceDomain: true, maxTicks: 9 });
  assert.equal(lat.tickStyle, '125');
  assert.ok(lat.domain[0] < 0.024 && lat.domain[1] >= 4.74);
  assert.deepEqual(lat.ticks, [0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5]);
  assert.equal(round125(0.024, -1), 0.02);
  assert.equal(round125(4.74, 1), 5);
  assert.equal(round125(130, 1), 200);
});

test('tickLabel abbreviates only without loss', () => {
  assert.equal(tickLabel(16384), '16384');
  assert.equal(tickLabel(25000), '25k');
  assert.equal(tickLabel(1500), '1500');
  assert.equal(tickLabel(0.1 + 0.2), '0.3');
  assert.equal(tickLabel(2000000), '2M');
});

const series = (pts: Array<[number, number | null]>, name = 'a'): Series => ({ name, color: '#0072B2', points: pts.map(([x, y]) => ({ x, y })) });

test('lineChart: a missing value breaks the line instead of dropping to zero', () => {
  const svg = lineChart(
    [
      series([
        [1, 10],
        [2, 20],
        [4, null],
        [8, 40],
        [16, NaN],
        [32, 50],
      ]),
    ],
    { title: 't', xLabel: 'x', yLabel: 'y' },
  );
  const d = svg.match(/<path d="([^"]*)" fill="none"/)?.[1] as string;
  // Three pieces: 1–2, 8 alone, 32 alone; never a segment through the gaps.
  assert.equal((d.match(/M/g) ?? []).length, 3, d);
  assert.equal((d.match(/L/g) ?? []).length, 1, d);
  assert.equal((svg.match(/class="pt"/g) ?? []).length, 4);
  assert.doesNotMatch(svg, /NaN/);
});

test('lineChart: nothing to plot gives a labelled empty chart; plottable says so first', () => {
  const s = [
    series([
      [1, null],
      [2, NaN],
    ]),
  ];
  assert.equal(plottable(s), false);
  assert.match(lineChart(s, { title: 't', xLabel: 'x', yLabel: 'y' }), /no data to plot/);
  const one = lineChart([series([[4, 100]])], { title: 't', xLabel: 'x', yLabel: 'y' });
  assert.doesNotMatch(one, /NaN|Infinity/);
  assert.equal((one.match(/class="pt"/g) ?? []).length, 1);
});

test('lineChart: higher values are drawn higher; the legend names every drawn series and escapes it', () => {
  const svg = lineChart(
    [
      series(
        [
          [1, 100],
          [2, 200],
        ],
        '<A>',
      ),
      series([[1, null]], 'empty'),
    ],
    { title: 't', xLabel: 'x', yLabel: 'y' },
  );
  const cy = [...svg.matchAll(/class="pt" data-x="[^"]+" data-y="([^"]+)" cx="[^"]+" cy="([^"]+)"/g)].map((m) => [Number(m[1]), Number(m[2])]);
  assert.equal(cy.length, 2);
  assert.ok(cy.find((p) => p[0] === 200)![1] < cy.find((p) => p[0] === 100)![1]);
  assert.match(svg, /&lt;A&gt;/);
  assert.doesNotMatch(svg, />empty</, 'a series with no data gets no legend entry');
});

test('intervalChart: rows without a value say "not measured"; whiskers span lo…hi', () => {
  const svg = intervalChart(
    [
      { label: 'a', key: 'a', value: 2, lo: 1.5, hi: 2.5, color: '#000', note: '2×' },
      { label: 'b', key: 'b', value: null, lo: null, hi: null, color: '#000', note: '–' },
    ],
    { title: 't', xLabel: 'ratio' },
  );
  assert.match(svg, /not measured/);
  assert.equal((svg.match(/class="pt"/g) ?? []).length, 1);
  const w = svg.match(/class="whisker" d="M([\d.]+) [\d.]+H([\d.]+)/) as RegExpMatchArray;
  const cx = Number(svg.match(/class="pt"[^>]*cx="([\d.]+)"/)![1]);
  assert.ok(Number(w[1]) < cx && cx < Number(w[2]));
});

test('verdictClass: A when the interval is above 1, B when below, otherwise no difference', () => {
  const c = (value: number, ci: [number, number] | null): Comparison => ({
    cellId: 'x',
    a: 'a',
    b: 'b',
    throughput: { value, ci: ci && { lo: ci[0], hi: ci[1] } },
    latency: null,
    verdict: '',
  });
  assert.equal(verdictClass(c(1.5, [1.4, 1.6])), 'a');
  assert.equal(verdictClass(c(0.8, [0.74, 0.86])), 'b');
  assert.equal(verdictClass(c(1.3, [0.99, 1.6])), 'same');
  assert.equal(verdictClass(c(1.9, null)), 'no-interval');
  assert.equal(verdictClass({ ...c(1, null), throughput: null }), 'not-measured');
});
