// ARRIVALS (lib/workload/arrivals.ts): the drawn gaps have the mean 1/RATE and the squared coefficient
// of variation 1/shape of a gamma process, the same seed gives the same schedule, and every bad value
// ends in one message naming the forms. The config turns a drawn schedule into a trace replay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { arrivalGaps, arrivalTrace } from '../../../lib/workload/arrivals';
import { parseArrivals } from '../../../lib/config/trace-config';
import { loadConfig } from '../../../lib/config/load';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { planOf } from '../../../lib/plan/matrix';
import { traceShape } from '../../../lib/workload/trace';
import { loadLabel } from '../../../lib/report/render/report-format';

function moments(xs: number[]): { mean: number; cv2: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1);
  return { mean, cv2: variance / (mean * mean) };
}

for (const shape of [0.25, 0.5, 1, 4]) {
  test(`gamma:${shape} gaps at 4/s: mean 250 ms, CV² ${1 / shape} (seed 42, 40,000 gaps)`, () => {
    const { mean, cv2 } = moments(arrivalGaps(shape, 4, 40_000, 42));
    assert.ok(Math.abs(mean / 250 - 1) < 0.03, `mean ${mean}`);
    assert.ok(Math.abs(cv2 * shape - 1) < 0.06, `CV² ${cv2}, expected ${1 / shape}`);
  });
}

test('the same seed, the same schedule; another seed, another', () => {
  const a = { process: { kind: 'gamma' as const, shape: 0.5, name: 'gamma:0.5' }, rate: 2, durationMs: 30_000, input: 64, output: 8 };
  const x = arrivalTrace(a, 7).entries.map((e) => e.atMs);
  assert.deepEqual(
    arrivalTrace(a, 7).entries.map((e) => e.atMs),
    x,
  );
  assert.notDeepEqual(
    arrivalTrace(a, 8).entries.map((e) => e.atMs),
    x,
  );
  assert.equal(x[0], 0);
  assert.ok(x[x.length - 1] < 30_000 && x.length > 30 && x.length < 120, `${x.length} requests over 30 s at 2/s`);
  for (let i = 1; i < x.length; i++) assert.ok(x[i] >= x[i - 1]);
});

test('parseArrivals: the forms, and one message for every bad value', () => {
  assert.deepEqual(parseArrivals('constant'), { kind: 'constant' });
  assert.deepEqual(parseArrivals('poisson'), { kind: 'gamma', shape: 1, name: 'poisson' });
  assert.deepEqual(parseArrivals('gamma:0.5'), { kind: 'gamma', shape: 0.5, name: 'gamma:0.5' });
  for (const bad of ['gamma:0', 'gamma:-1', 'gamma:x', 'gamma:', 'foo', 'gamma']) {
    assert.throws(
      () => parseArrivals(bad),
      (e: Error) => e.message.startsWith(`ARRIVALS=${bad}: expected constant, poisson or gamma:<shape>`),
      bad,
    );
  }
});

const spec = BENCHMARKS['arrival-rate'];
const now = new Date('2026-12-07T00:00:00Z');
const base = { TARGET_URL: 'http://a:1', ISL: '64', OSL: '8', RATE: '2', DURATION: '10s' };

test('the config: a drawn schedule is a trace replay of one cell, labelled by its process', () => {
  const cfg = loadConfig(spec, { ...base, ARRIVALS: 'gamma:0.5', MAX_VUS: '16' }, now);
  assert.ok(cfg.trace?.arrivals);
  assert.equal(cfg.trace.vus, 16);
  assert.equal(cfg.trace.maxLagMs, 50);
  const trace = arrivalTrace(cfg.trace.arrivals, cfg.seed);
  const plan = planOf('rate', cfg, traceShape(trace));
  assert.equal(plan.runs.length, 1);
  assert.equal(loadLabel(plan.runs[0].cell.load), 'gamma:0.5 2/s');
  assert.equal(loadConfig(spec, { ...base, ARRIVALS: 'constant' }, now).trace, null);
  assert.equal(loadConfig(spec, { ...base, ARRIVALS: 'poisson', TRACE_MAX_LAG: '20ms' }, now).trace?.maxLagMs, 20);
});

test('the config: what a drawn schedule cannot go with ends in one message', () => {
  assert.throws(() => loadConfig(spec, { ...base, ARRIVALS: 'gamma:x' }, now), /ARRIVALS=gamma:x: expected constant/);
  assert.throws(() => loadConfig(spec, { ...base, RATE: '1,2', ARRIVALS: 'poisson' }, now), /ARRIVALS=poisson replays one drawn schedule: give one RATE/);
  assert.throws(() => loadConfig(spec, { ...base, ARRIVALS: 'poisson', REQUESTS: '5' }, now), /REQUESTS does not apply to ARRIVALS=poisson/);
  assert.throws(() => loadConfig(spec, { ...base, ARRIVALS: 'poisson', TRACE: '/x.jsonl' }, now), /ARRIVALS=poisson and TRACE together/);
});
