// The search loop on a fake server whose p99 is a known function of load: it must bracket,
// refine, bound and confirm, land on the crossing, and end with the reason when the variant
// fails, drifts or the time runs out, keeping what it measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSearch, type RunnerPorts, type StepOutcome, type StepRequest } from '../../../lib/capacity/runner';
import { nextLoad, bracket } from '../../../lib/capacity/search';
import { capacityOf, capacityRatio } from '../../../lib/capacity/estimate';
import type { StepRun } from '../../../lib/capacity/step-run';
import { mulberry32 } from '../../../lib/stats/rng';
import { k6Trend, settings } from './fixtures';

/** A server whose e2e samples have p99 ≈ curve(load), n per second of load. */
function fakeServer(curve: (load: number) => number, perSec: (load: number) => number, opts: { failAtRun?: number; slowAtRun?: number } = {}) {
  const rnd = mulberry32(3);
  const calls: StepRequest[] = [];
  let clock = 0;
  const runStep = async (req: StepRequest): Promise<StepOutcome> => {
    calls.push(req);
    clock += req.durationMs + 2000;
    const n = Math.max(5, Math.round((perSec(req.load) * req.durationMs) / 1000));
    const slow = opts.slowAtRun !== undefined && calls.length >= opts.slowAtRun ? 3 : 1;
    // Samples spread ±10 % around a median placed so their p99 is near curve(load).
    const xs = Array.from({ length: n }, () => (curve(req.load) * slow * (0.9 + 0.2 * rnd())) / 1.1);
    const failed = opts.failAtRun !== undefined && calls.length >= opts.failAtRun ? n : 0;
    const run: StepRun = {
      ttft: null,
      itl: null,
      e2e: k6Trend(xs),
      ok: n,
      failed,
      judged: n,
      good: n,
      loadMs: req.durationMs,
      goodput: n / (req.durationMs / 1000),
      throughput: null,
      requestRate: null,
      dropped: 0,
      variantDown: false,
      errors: failed ? { server_error: failed } : {},
      clientLimited: [],
      preflight: null,
    };
    return { run };
  };
  const ports: RunnerPorts = { runStep, elapsedMs: () => clock, log: () => undefined, overheadMs: 2000 };
  return { ports, calls };
}

const linear = (load: number) => 100 + 20 * load; // crosses 500 ms at 20 streams

test('closed loop: bracket by doubling, refine, bound, confirm; the capacity lands on the crossing', async () => {
  const s = settings({ SLO_E2E_P99: '500ms', CAPACITY_STEP: '10s', CAPACITY_MIN_SAMPLES: '400' });
  const { ports, calls } = fakeServer(linear, () => 100);
  const [t] = await runSearch(s, ['target'], ports);
  assert.equal(t.stop?.kind, 'converged', JSON.stringify(t.stop));
  const loads = t.points.map((p) => p.load);
  assert.deepEqual(loads.slice(0, 6), [1, 2, 4, 8, 16, 32]);
  const c = capacityOf(s, t.points);
  assert.ok(c.crossing !== null && Math.abs(c.crossing - 20) <= 1, `crossing ${c.crossing} of ${loads}`);
  assert.ok(c.lo !== null && c.hi !== null && c.lo <= c.crossing && c.crossing <= c.hi, JSON.stringify(c));
  // The answer's load was measured twice (confirmed), and the bracket ends are one stream apart.
  const { pass, fail } = bracket(t.points);
  assert.ok(pass && fail && fail.load - pass.load === 1);
  assert.equal(t.points.filter((p) => p.load === pass.load).length, 2);
  assert.ok(calls.every((r) => r.durationMs >= 10_000));
  assert.equal(calls[0].first, true);
  assert.ok(calls.slice(1).every((r) => !r.first));
});

test('every SLO met up to the maximum: capacity at least that; broken at the lowest load: below it', async () => {
  const s = settings({ SLO_E2E_P99: '500ms', CAPACITY_MAX_LOAD: '16', CAPACITY_STEP: '10s' });
  const easy = fakeServer(
    () => 100,
    () => 100,
  );
  const [t] = await runSearch(s, ['target'], easy.ports);
  assert.equal(t.stop?.kind, 'max-load');
  assert.equal(capacityOf(s, t.points).atLeast, 16);
  const hard = fakeServer(
    () => 900,
    () => 100,
  );
  const [u] = await runSearch(s, ['target'], hard.ports);
  assert.equal(u.stop?.kind, 'floor');
  assert.equal(capacityOf(s, u.points).below, 1);
});

test('a variant that starts failing ends its search with the classes; the loads measured before are kept', async () => {
  const s = settings({ SLO_E2E_P99: '500ms', CAPACITY_STEP: '10s' });
  const { ports } = fakeServer(linear, () => 100, { failAtRun: 4 });
  const [t] = await runSearch(s, ['target'], ports);
  assert.equal(t.stop?.kind, 'error');
  assert.match(t.stop!.reason, /requests failed at 8 .*server_error .*above SLO_ERROR_RATE=0.05/);
  assert.deepEqual(
    t.points.map((p) => p.load),
    [1, 2, 4],
  );
});

test('a variant that slows down during the search is named degraded, not given a lower capacity', async () => {
  const s = settings({ SLO_E2E_P99: '500ms', CAPACITY_STEP: '10s' });
  const { ports } = fakeServer(linear, () => 100, { slowAtRun: 7 });
  const [t] = await runSearch(s, ['target'], ports);
  assert.equal(t.stop?.kind, 'degraded', JSON.stringify(t.stop));
  assert.match(t.stop!.reason, /degraded during the search/);
});

test('CAPACITY_MAX_TIME bounds the whole search', async () => {
  const s = settings({ SLO_E2E_P99: '500ms', CAPACITY_STEP: '10s', CAPACITY_MAX_TIME: '50s' });
  const { ports, calls } = fakeServer(linear, () => 100);
  const [t] = await runSearch(s, ['target'], ports);
  assert.equal(t.stop?.kind, 'time');
  assert.ok(calls.length <= 4, `${calls.length} runs`);
  assert.ok(t.points.length >= 1);
});

test('two variants alternate load by load (A B, B A …) and each gets its own answer; the ratio interval holds the true ratio', async () => {
  const s = settings({ SLO_E2E_P99: '500ms', CAPACITY_STEP: '10s' });
  const a = fakeServer(linear, () => 200);
  const b = fakeServer(
    (x) => 100 + 40 * x,
    () => 200,
  ); // crosses at 10
  const order: string[] = [];
  const ports: RunnerPorts = {
    runStep: (req) => {
      order.push(req.variant);
      return (req.variant === 'a' ? a : b).ports.runStep(req);
    },
    elapsedMs: () => 0,
    log: () => undefined,
    overheadMs: 0,
  };
  const [ta, tb] = await runSearch(s, ['a', 'b'], ports);
  assert.deepEqual(order.slice(0, 4), ['a', 'b', 'b', 'a']);
  const [ca, cb] = [capacityOf(s, ta.points), capacityOf(s, tb.points)];
  assert.ok(Math.abs((ca.crossing as number) - 20) <= 1 && Math.abs((cb.crossing as number) - 10) <= 1, `${ca.crossing} ${cb.crossing}`);
  const r = capacityRatio(ca, cb)!;
  assert.ok(r.hi !== null && r.lo <= 2 && 2 <= r.hi, JSON.stringify(r));
});

test('next load: the first step is CAPACITY_START; an open loop doubles rates and refines between them', () => {
  const s = settings({ SLO_E2E_P99: '500ms', CAPACITY_LOOP: 'open', CAPACITY_START: '0.5' });
  assert.deepEqual(nextLoad(s, []), { load: 0.5, phase: 'bracket' });
});

test('a load measured twice is judged by its latest measurement, as the search judges it', () => {
  const s = settings({ SLO_E2E_P99: '250ms' });
  const point = (step: number, load: number, p99: number): Parameters<typeof capacityOf>[1][number] => {
    const pass = p99 <= 250;
    return {
      step,
      load,
      measures: [{ key: 'e2e', limit: 250, n: 900, value: p99, lo: p99 - 5, hi: p99 + 5, upperOpen: false, clear: Math.abs(p99 - 250) > 5, pass }],
      pass,
      runs: 2,
      loadMs: 15_000,
      requests: { ok: 900, failed: 0 },
      undecided: false,
    };
  };
  // 17 passed at step 3 and failed when confirmed at step 5 (as in a CI run of the A/B test): the
  // capacity is 16, where the last measurement of 17 says the SLO broke.
  const points = [point(1, 8, 170), point(2, 16, 238), point(3, 17, 247), point(4, 18, 256), point(5, 17, 251), point(6, 16, 240)];
  const c = capacityOf(s, points);
  assert.equal(c.value, 16, JSON.stringify(c));
  assert.ok(c.crossing !== null && c.crossing >= 16 && c.crossing < 17, `crossing ${c.crossing}`);
  assert.equal(c.bestPassing, 16);
  assert.equal(c.criteria[0].brokeAt, 17);
  assert.ok((c.criteria[0].brokeAt as number) > (c.value as number));
  // In the other order (failed first, passed when confirmed) 17 counts as met.
  const again = capacityOf(s, [point(1, 8, 170), point(2, 16, 238), point(3, 17, 251), point(4, 18, 256), point(5, 17, 247)]);
  assert.equal(again.value, 17, JSON.stringify(again));
  assert.equal(again.criteria[0].brokeAt, 18);
});
