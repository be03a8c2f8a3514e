// The pooling section (lib/report/sections/pooling-section.ts) from samples recordPooling produces, summed as
// k6's end-of-test summary keeps them (counters' sums, rates' passes and fails, trends' statistics,
// per run and slice): items per second over the steady slices, tokens per second only when every
// reply carried usage, the dimension, and a verdict over items per second against the baseline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../../lib/config/load';
import { benchmarkEnv } from '../../../lib/config/environment';
import { BENCHMARKS } from '../../../lib/benchmarks';
import { planOf, type Plan } from '../../../lib/plan/matrix';
import { subKey } from '../../../lib/plan/summary-keys';
import { METRICS, type MetricKey } from '../../../lib/metrics/catalog';
import { recordPooling } from '../../../lib/metrics/pooling-samples';
import { runFigures, type SummaryMetrics } from '../../../lib/report/figures/run-figures';
import { pooling } from '../../../lib/report/sections/pooling-section';
import type { BenchConfig } from '../../../lib/config/config-types';

const NOW = new Date('2026-12-07T17:00:00Z');
const env = { VARIANTS: 'a,b', A_URL: 'http://127.0.0.1:1', B_URL: 'http://127.0.0.1:2', ISL: '64', BATCH: '4', CONCURRENCY: '1', DURATION: '6s', SLICES: '6' };
const cfg = loadConfig(
  BENCHMARKS.embeddings,
  benchmarkEnv(env, () => '', BENCHMARKS.embeddings.defaults, null),
  NOW,
);
const plan = planOf('vus', cfg);
const slo = { ttftP99Ms: null, ttftOf: 'first' as const, itlP99Ms: null, e2eP99Ms: null };

/** Sums samples as k6's summary keeps the run's sub-metrics. */
function summarise(m: SummaryMetrics, scenario: string) {
  const trends = new Map<string, number[]>();
  return (metric: MetricKey, v: number, tags?: Record<string, string>) => {
    const key = subKey(metric, scenario, tags);
    const type = METRICS[metric].type;
    const vals = (m[key] ??= { type, values: {} }).values;
    if (type === 'counter') vals.count = (vals.count ?? 0) + v;
    else if (type === 'rate') vals[v ? 'passes' : 'fails'] = (vals[v ? 'passes' : 'fails'] ?? 0) + 1;
    else {
      const all = [...(trends.get(key) ?? []), v].sort((x, y) => x - y);
      trends.set(key, all);
      const q = (p: number) => all[Math.min(all.length - 1, Math.floor(p * all.length))];
      Object.assign(vals, {
        count: all.length,
        min: all[0],
        max: all[all.length - 1],
        avg: all.reduce((s, x) => s + x, 0) / all.length,
        med: q(0.5),
        'p(90)': q(0.9),
        'p(99)': q(0.99),
      });
    }
  };
}

/** One run's requests, each `ms` long back to back over the 6 s, `items` items of 64 tokens each. */
function runOf(m: SummaryMetrics, p: Plan, variant: string, ms: number, usage: (i: number) => boolean): void {
  const run = p.runs.find((r) => r.variant === variant);
  assert.ok(run);
  const add = summarise(m, run.scenario);
  const w = { cellStartMs: 0, sliceMs: p.sliceMs, slices: p.slices, trackLastEnd: false, latencyFromMs: -Infinity };
  for (let t = 0, i = 0; t + ms <= 6000; t += ms, i++)
    recordPooling({ ok: true, status: 200, items: 4, dimension: 384, promptTokens: usage(i) ? 256 : null, error: null }, t, t + ms, { window: w, slo, add });
}

function build(m: SummaryMetrics, c: BenchConfig = cfg) {
  const runs = plan.runs.map((r) => runFigures(m, plan, r, false));
  return pooling.build({ kind: 'pooling', cfg: c, plan, data: { metrics: m } as never, runs, complete: { runs, cells: plan.cells }, where: () => '' });
}

test('items/s and tokens/s over the steady slices, the dimension, and the faster deployment named', () => {
  const m: SummaryMetrics = {};
  runOf(m, plan, 'a', 100, () => true); // 10 requests a second: 40 items/s
  runOf(m, plan, 'b', 200, () => true); // 20 items/s
  const v = build(m);
  assert.ok(v);
  const [a, b] = ['a', 'b'].map((x) => v.rows.find((r) => r.variant === x));
  assert.ok(a && b);
  assert.ok(Math.abs((a.itemsPerSec ?? 0) - 40) < 1e-9, String(a.itemsPerSec));
  assert.ok(Math.abs((b.itemsPerSec ?? 0) - 20) < 1e-9, String(b.itemsPerSec));
  assert.ok(Math.abs((a.tokensPerSec ?? 0) - 40 * 64) < 1e-9);
  assert.equal(a.dimension, 384);
  assert.equal(a.items, 4 * 60);
  assert.equal(v.verdicts.length, 1);
  assert.match(v.verdicts[0].verdict, /^a faster by 2\.00×/);
});

test('a reply without usage: tokens per second not measured, saying how many; items still counted', () => {
  const m: SummaryMetrics = {};
  runOf(m, plan, 'a', 100, (i) => i !== 7);
  runOf(m, plan, 'b', 100, () => true);
  const a = build(m)?.rows.find((r) => r.variant === 'a');
  assert.ok(a);
  assert.equal(a.tokensPerSec, null);
  assert.equal(a.usageComplete, false);
  assert.match(a.tokensWhy ?? '', /^1 of 60 replies carried no usage\.prompt_tokens$/);
  assert.ok((a.itemsPerSec ?? 0) > 0);
  const v = build(m);
  assert.ok(v);
  assert.match(JSON.stringify(pooling.json(v, {} as never)), /"input_tokens":null/);
});
