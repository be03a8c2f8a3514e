import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../../lib/config/load';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { buildCells, buildPlan, type Plan } from '../../../lib/plan/matrix';
import { subKey } from '../../../lib/plan/summary-keys';
import type { SummaryMetrics } from '../../../lib/report/figures/run-figures';
import { buildReport } from '../../../lib/report/build-report';
import { renderText } from '../../../lib/report/render/text-report';
import { summaryJson } from '../../../lib/report/render/summary-json';
import { renderMarkdown } from '../../../lib/report/render/markdown-report';
import { verdict } from '../../../lib/report/figures/ab-comparison';

const NOW = new Date('2026-11-29T20:15:00Z');

const counter = (count: number) => ({ type: 'counter', contains: 'default', values: { count, rate: 0 } });
const trend = (vals: number[]) => {
  const s = [...vals].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))];
  return {
    type: 'trend',
    contains: 'time',
    values: vals.length
      ? {
          avg: s.reduce((a, b) => a + b, 0) / s.length,
          min: s[0],
          med: q(0.5),
          max: s[s.length - 1],
          'p(90)': q(0.9),
          'p(95)': q(0.95),
          'p(99)': q(0.99),
          count: s.length,
        }
      : { avg: 0, min: 0, med: 0, max: 0, 'p(90)': 0, 'p(95)': 0, 'p(99)': 0, count: 0 },
  };
};

/** Fills a plan's sub-metrics as k6 would after a run where each variant has a steady token rate. */
function fakeRun(plan: Plan, rate: Record<string, number>, e2eMs: Record<string, number>): SummaryMetrics {
  const m: SummaryMetrics = {};
  const sliceSec = plan.sliceMs / 1000;
  for (const run of plan.runs) {
    const r = rate[run.variant];
    let reqs = 0;
    let tokens = 0;
    for (let s = 0; s < plan.slices; s++) {
      // ±3% wobble per slice, the first slice ramping up
      const tps = (s === 0 ? 0.5 : 1 + 0.03 * Math.sin(s * 7)) * r;
      const n = Math.round(tps * sliceSec);
      const q = Math.max(1, Math.round(n / 100));
      m[subKey('windowTokens', run.scenario, { slice: String(s) })] = counter(n);
      m[subKey('windowRequests', run.scenario, { slice: String(s) })] = counter(q);
      m[subKey('windowE2e', run.scenario, { slice: String(s) })] = counter(q * e2eMs[run.variant]);
      tokens += n;
      reqs += q;
    }
    m[subKey('outputTokens', run.scenario)] = counter(tokens);
    m[subKey('success', run.scenario)] = { type: 'rate', values: { rate: 1, passes: reqs, fails: 0 } };
    m[subKey('e2e', run.scenario)] = trend(new Array(reqs).fill(e2eMs[run.variant]));
    m[subKey('ttft', run.scenario)] = trend([]);
  }
  m.llm_success = { type: 'rate', values: { rate: 1, passes: 1, fails: 0 }, thresholds: { 'rate>=0.95': { ok: true } } };
  m['llm_errors{error_class:timeout}'] = counter(2);
  return m;
}

function abPlan(env: Record<string, string> = {}) {
  const cfg = loadConfig(
    BENCHMARKS['dflash-vs-mtp'],
    { DFLASH_URL: 'http://a:1', MTP_URL: 'http://b:2', ISL: '128', OSL: '64', CONCURRENCY: '1,8', DURATION: '60s', SLICES: '6', ...env },
    NOW,
  );
  const plan = buildPlan(
    cfg,
    buildCells(
      cfg.isl,
      cfg.osl,
      cfg.concurrency.map((vus) => ({ kind: 'vus' as const, vus })),
    ),
    ['dflash', 'mtp'],
  );
  return { cfg, plan };
}

test('throughput is the steady-slice mean, the ramp-up slice left out, with an interval', () => {
  const { cfg, plan } = abPlan();
  const r = buildReport(
    BENCHMARKS['dflash-vs-mtp'],
    cfg,
    plan,
    { metrics: fakeRun(plan, { dflash: 400, mtp: 200 }, { dflash: 1000, mtp: 2000 }) },
    { now: NOW },
  );
  const run = r.runs.find((x) => x.scenario === 'dflash_i128_o64_c1');
  assert.ok(run && run.throughput !== null && run.throughputCi !== null);
  assert.ok(Math.abs(run.throughput - 400) < 400 * 0.03, `throughput ${run.throughput}`);
  assert.ok(run.throughputCi.lo < run.throughput && run.throughput < run.throughputCi.hi);
  assert.equal(run.slices.length, 5);
  assert.equal(run.ttft, null, 'an empty trend is not measured, not zero');
});

test('A/B: speedup ratio with interval and a verdict naming the faster one', () => {
  const { cfg, plan } = abPlan();
  const r = buildReport(
    BENCHMARKS['dflash-vs-mtp'],
    cfg,
    plan,
    { metrics: fakeRun(plan, { dflash: 400, mtp: 200 }, { dflash: 1000, mtp: 2000 }) },
    { now: NOW },
  );
  assert.equal(r.comparisons.length, 2);
  const c = r.comparisons[0];
  assert.ok(c.throughput && Math.abs(c.throughput.value - 2) < 0.05);
  assert.ok(c.throughput.ci && c.throughput.ci.lo > 1.8 && c.throughput.ci.hi < 2.2);
  assert.ok(c.latency && Math.abs(c.latency.value - 2) < 1e-9);
  assert.match(c.verdict, /^DFlash faster by 2\.\d\d× \[\d\.\d\d, \d\.\d\d\] at ISL 128, OSL 64, c=1$/);
});

test('verdict wording', () => {
  assert.match(verdict('dflash', 'mtp', { value: 0.5, ci: { lo: 0.45, hi: 0.55 } }, 'at c=1'), /^MTP faster by 2\.00× \[1\.82, 2\.22\] at c=1$/);
  assert.match(
    verdict('dflash', 'mtp', { value: 1.02, ci: { lo: 0.95, hi: 1.09 } }, 'at c=64'),
    /^no significant difference at c=64 \(1\.02× \[0\.95, 1\.09\]\)$/,
  );
});

test('http transport: the report says TTFT is not measured and shows no TTFT column', () => {
  const { cfg, plan } = abPlan();
  const r = buildReport(
    BENCHMARKS['dflash-vs-mtp'],
    cfg,
    plan,
    { metrics: fakeRun(plan, { dflash: 400, mtp: 200 }, { dflash: 1000, mtp: 2000 }) },
    { now: NOW },
  );
  assert.match(r.notMeasured.join(' '), /TTFT, ITL and TPOT/);
  const text = renderText(r, ['results/x.report.html']);
  assert.doesNotMatch(text, /TTFT p50/);
  assert.match(text, /not measured: TTFT/);
  assert.match(text, /Errors: timeout 2/);
  assert.match(text, /✓ llm_success rate>=0.95/);
  assert.match(renderMarkdown(r), /\| dflash \|/);
});

test('summary.json: one record per cell and variant, unit-named fields, nulls for unmeasured', () => {
  const { cfg, plan } = abPlan();
  const j = JSON.parse(
    summaryJson(
      buildReport(BENCHMARKS['dflash-vs-mtp'], cfg, plan, { metrics: fakeRun(plan, { dflash: 400, mtp: 200 }, { dflash: 1000, mtp: 2000 }) }, { now: NOW }),
    ),
  );
  assert.equal(j.records.length, 4);
  const rec = j.records[0];
  assert.equal(rec.isl_tokens, 128);
  assert.equal(rec.concurrency_vus, 1);
  assert.equal(rec.ttft_ms, null);
  assert.equal(typeof rec.output_throughput_tokens_per_s, 'number');
  assert.equal(rec.output_throughput_ci95_tokens_per_s.length, 2);
  assert.equal(j.comparisons[0].throughput_ratio_a_over_b > 1.9, true);
  // One name per interval, as versus names it; the old name one release more, said in renamed_keys.
  const [lo, hi] = j.comparisons[0].throughput_ratio_ci;
  assert.ok(lo <= j.comparisons[0].throughput_ratio_a_over_b && j.comparisons[0].throughput_ratio_a_over_b <= hi);
  assert.deepEqual(j.comparisons[0].throughput_ratio_ci95, j.comparisons[0].throughput_ratio_ci);
  assert.deepEqual(j.comparisons[0].e2e_speedup_ci95, j.comparisons[0].e2e_speedup_ci);
  assert.equal(j.comparisons[0].ci_level, 0.95);
  assert.match(
    j.renamed_keys['comparisons[].throughput_ratio_ci95'],
    /^renamed comparisons\[\]\.throughput_ratio_ci; the old key is written until the next release$/,
  );
  assert.match(j.renamed_keys['dataset.comparisons[].domains[].e2e_speedup_ci95'], /e2e_speedup_ci;/);
  // `variants` was `targets`, its `engineLabel` was `engine`: the old array is written beside it one release more.
  assert.equal(typeof j.variants[0].engineLabel, 'string');
  assert.deepEqual(
    j.targets,
    j.variants.map(({ engineLabel, ...t }: { engineLabel: string }) => ({ ...t, engine: engineLabel })),
  );
  assert.match(j.renamed_keys.targets, /^renamed variants;/);
  assert.match(j.renamed_keys['targets[].engine'], /^renamed variants\[\]\.engineLabel;/);
});

test('setup failed: the report exists, with nothing measured and no invented numbers', () => {
  const { cfg, plan } = abPlan();
  const r = buildReport(BENCHMARKS['dflash-vs-mtp'], cfg, plan, { metrics: {}, setup_data: undefined }, { now: NOW });
  assert.ok(r.runs.every((x) => x.throughput === null && x.e2e === null && x.requests.total === 0));
  assert.match(r.notMeasured.join(' '), /setup did not complete/);
  assert.match(r.comparisons[0].verdict, /not measured/);
});

test('REQUESTS mode: window until the last request, no interval', () => {
  const { cfg, plan } = abPlan({ REQUESTS: '10', CONCURRENCY: '1' });
  const m: SummaryMetrics = {};
  const s = plan.runs[0].scenario;
  m[subKey('outputTokens', s)] = counter(640);
  m[subKey('success', s)] = { type: 'rate', values: { rate: 1, passes: 10, fails: 0 } };
  m[subKey('windowLastEnd', s)] = trend([1000, 4000, 8000]);
  const r = buildReport(BENCHMARKS['dflash-vs-mtp'], cfg, plan, { metrics: m }, { now: NOW });
  assert.equal(r.runs[0].throughput, 80);
  assert.equal(r.runs[0].throughputCi, null);
  assert.equal(r.runs[0].requestRate, 1.25);
});
