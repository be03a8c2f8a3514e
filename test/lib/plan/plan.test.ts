import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCells, buildPlan, startOffsetMs, steadyWindow, RUN_GAP_MS } from '../../../lib/plan/matrix';
import { arrivalRate, k6Options } from '../../../lib/plan/k6-options';
import { loadConfig } from '../../../lib/config/load';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { subKey } from '../../../lib/plan/summary-keys';

const NOW = new Date('2026-11-29T20:15:00Z');

test('cells are ISL × OSL × load', () => {
  const cells = buildCells(
    [128, 1024],
    [64],
    [
      { kind: 'vus', vus: 1 },
      { kind: 'vus', vus: 8 },
    ],
  );
  assert.deepEqual(
    cells.map((c) => c.id),
    ['i128_o64_c1', 'i128_o64_c8', 'i1024_o64_c1', 'i1024_o64_c8'],
  );
  assert.equal(buildCells([1], [1], [{ kind: 'rate', rate: 2.5 }])[0].id, 'i1_o1_r2p5');
});

test('runs are chained by startTime and alternate the variant order per cell', () => {
  const cells = buildCells(
    [128],
    [64],
    [
      { kind: 'vus', vus: 1 },
      { kind: 'vus', vus: 2 },
      { kind: 'vus', vus: 4 },
    ],
  );
  const plan = buildPlan({ durationMs: 10_000, gracefulStopMs: 5000, slices: 5, requests: null, maxVus: 256 }, cells, ['dflash', 'mtp']);
  assert.deepEqual(
    plan.runs.map((r) => r.scenario),
    ['dflash_i128_o64_c1', 'mtp_i128_o64_c1', 'mtp_i128_o64_c2', 'dflash_i128_o64_c2', 'dflash_i128_o64_c4', 'mtp_i128_o64_c4'],
  );
  const step = 10_000 + 5000 + RUN_GAP_MS;
  assert.deepEqual(
    plan.runs.map((r) => r.startMs),
    [0, 1, 2, 3, 4, 5].map((i) => i * step),
  );
  assert.equal(plan.totalMs, 6 * step);
  assert.deepEqual(steadyWindow(plan), { fromMs: 2000, toMs: 10_000 });
});

test('k6 options: one scenario per run with its tags, probes in the steady window, declared sub-metrics and SLOs', () => {
  const cfg = loadConfig(
    BENCHMARKS['dflash-vs-mtp'],
    { DFLASH_URL: 'http://a:1', MTP_URL: 'http://b:2', ISL: '128', OSL: '64', CONCURRENCY: '2', DURATION: '12s', SLICES: '4', SLO_E2E_P99: '20s' },
    NOW,
  );
  const plan = buildPlan(cfg, buildCells(cfg.isl, cfg.osl, [{ kind: 'vus', vus: 2 }]), ['dflash', 'mtp']);
  const o = k6Options(plan, cfg) as { scenarios: Record<string, Record<string, unknown>>; thresholds: Record<string, string[]>; tags: Record<string, string> };
  const s = o.scenarios.dflash_i128_o64_c2;
  assert.equal(s.executor, 'constant-vus');
  assert.equal(s.vus, 2);
  assert.equal(s.duration, '12000ms');
  assert.equal(s.gracefulStop, '30000ms');
  assert.equal(s.exec, 'measure');
  assert.deepEqual(s.tags, { variant: 'dflash', cell: 'i128_o64_c2', isl: '128', osl: '64', concurrency: '2' });
  const p = o.scenarios.probe_mtp_i128_o64_c2;
  assert.equal(p.exec, 'probe');
  assert.equal(p.startTime, `${plan.runs[1].startMs + 3000}ms`, 'probe starts after the ramp-up slice');
  assert.deepEqual(o.thresholds[subKey('e2e', 'mtp_i128_o64_c2')], ['min>=0']);
  assert.deepEqual(o.thresholds[subKey('windowTokens', 'dflash_i128_o64_c2', { slice: '3' })], ['count>=0']);
  assert.deepEqual(o.thresholds.llm_success, ['rate>=0.95']);
  assert.deepEqual(o.thresholds.llm_e2e, ['p(99)<=20000']);
  assert.equal(o.tags.testid, cfg.runId);
});

test('REQUESTS mode uses shared-iterations bounded by DURATION and no probes', () => {
  const cfg = loadConfig(BENCHMARKS['smoke'], { TARGET_URL: 'http://a:1', REQUESTS: '5', CONCURRENCY: '2' }, NOW);
  const plan = buildPlan(cfg, buildCells(cfg.isl, cfg.osl, [{ kind: 'vus', vus: 2 }]), ['target']);
  const o = k6Options(plan, cfg) as { scenarios: Record<string, Record<string, unknown>> };
  assert.deepEqual(Object.keys(o.scenarios), ['target_i1024_o256_c2']);
  assert.equal(o.scenarios.target_i1024_o256_c2.executor, 'shared-iterations');
  assert.equal(o.scenarios.target_i1024_o256_c2.iterations, 5);
});

test('fractional arrival rates become integer rates per time unit', () => {
  assert.deepEqual(arrivalRate(2), { rate: 2, timeUnit: '1s' });
  assert.deepEqual(arrivalRate(2.5), { rate: 25, timeUnit: '10s' });
  assert.deepEqual(arrivalRate(0.25), { rate: 25, timeUnit: '100s' });
});

test('START_SPREAD: a closed loop spreads its VUs first requests over the span; open loops and replays keep their schedules', () => {
  const load = (env: Record<string, string>) => loadConfig(BENCHMARKS['concurrency-ramp'], { TARGET_URL: 'http://h:1', ...env }, NOW);
  // auto: a quarter of a slice, at most 1 s, when the first slice is left out; else at once.
  assert.equal(load({ DURATION: '60s', SLICES: '6' }).startSpreadMs, 1000);
  assert.equal(load({ DURATION: '4s', SLICES: '2' }).startSpreadMs, 500);
  assert.equal(load({ DURATION: '60s', SLICES: '1' }).startSpreadMs, 0);
  assert.equal(load({ DURATION: '60s', SLICES: '6', REQUESTS: '100' }).startSpreadMs, 0);
  assert.equal(load({ DURATION: '60s', SLICES: '6', START_SPREAD: '0' }).startSpreadMs, 0);
  assert.equal(load({ DURATION: '60s', SLICES: '6', START_SPREAD: '3s' }).startSpreadMs, 3000);
  assert.throws(
    () => load({ DURATION: '60s', SLICES: '6', START_SPREAD: '10s' }),
    /START_SPREAD=10s is not shorter than a slice \(DURATION ÷ SLICES = 10000 ms\)/,
  );
  assert.throws(() => load({ DURATION: '60s', SLICES: '6', START_SPREAD: 'soon' }), /START_SPREAD='soon' is not valid: expected a duration/);
  assert.throws(() => load({ SLICES: '6', REQUESTS: '100', START_SPREAD: '1s' }), /START_SPREAD=1s with REQUESTS/);
  const cells = buildCells(
    [128],
    [64],
    [
      { kind: 'vus', vus: 4 },
      { kind: 'rate', rate: 5 },
    ],
  );
  const plan = buildPlan({ durationMs: 10_000, gracefulStopMs: 5000, slices: 5, requests: null, maxVus: 16 }, cells, ['target']);
  const [closed, open] = plan.runs;
  assert.deepEqual(
    [0, 1, 2, 3].map((slot) => startOffsetMs(closed, 1000, slot)),
    [0, 250, 500, 750],
  );
  assert.equal(startOffsetMs(open, 1000, 3), 0);
});
