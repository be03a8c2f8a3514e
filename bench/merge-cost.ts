// Prints how long merging partial results takes, and the memory it needs: 16 instances' partials
// of a 20-cell A/B (40 runs), every trend with its quantile grid, as PARTIAL=true writes them.
//   npx tsx bench/merge-cost.ts [--instances 16] [--cells 20]
import { BENCHMARKS } from '../lib/benchmarks';
import { loadConfig } from '../lib/config/load';
import { planOf } from '../lib/plan/matrix';
import { summaryThresholds, TREND_STATS } from '../lib/plan/summary-keys';
import { METRICS } from '../lib/metrics/catalog';
import { GRID_STATS, QUANTILE_GRID } from '../lib/stats/quantile-merge';
import { mergeInstanceResults, INSTANCE_RESULT_FORMAT, type InstanceResult } from '../lib/report/merge-instances';
import { buildReport } from '../lib/report/build-report';
import type { SummaryMetrics } from '../lib/report/figures/run-figures';

const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const N = arg('instances', 16);
const CELLS = arg('cells', 20);
const isl = Array.from({ length: CELLS / 2 }, (_, i) => 128 * (i + 1)).join(',');
const variables = { DFLASH_URL: 'http://a:1', MTP_URL: 'http://b:1', ISL: isl, OSL: '256', CONCURRENCY: '8,64', DURATION: '60s', PARTIAL: 'true' };
const spec = BENCHMARKS['dflash-vs-mtp'];
const cfg = loadConfig(spec, variables, new Date(0));
const plan = planOf(spec.load, cfg);
const keys = Object.keys(summaryThresholds(plan, cfg, true));
const byName = new Map<string, { type: string }>(Object.values(METRICS).map((d) => [d.name as string, d]));

function instance(k: number): InstanceResult {
  const metrics: SummaryMetrics = {};
  for (const key of keys) {
    const name = key.split('{')[0];
    const type = byName.get(name)?.type ?? 'counter';
    if (type === 'trend') {
      const v: Record<string, number> = { count: 100 + k, avg: 500, min: 100, max: 2000, med: 480 };
      QUANTILE_GRID.forEach((r, i) => (v[GRID_STATS[i]] = 100 + 1900 * r * r));
      for (const s of TREND_STATS) v[s] ??= 500;
      metrics[key] = { type, contains: 'time', values: v };
    } else if (type === 'rate') metrics[key] = { type, contains: 'default', values: { rate: 0.99, passes: 99, fails: 1 } };
    else metrics[key] = { type, contains: 'default', values: { count: 1000 + k, rate: 10 } };
  }
  const seg = `${k}/${N}:${k + 1}/${N}`.replace(/^0\/\d+/, '0').replace(/:(\d+)\/\1$/, ':1');
  return {
    format: INSTANCE_RESULT_FORMAT,
    benchmark: spec.name,
    runId: 'bench',
    segment: seg,
    sequence: null,
    variables,
    setup: null,
    metrics,
    testRunDurationMs: 600_000,
  };
}

const parts = Array.from({ length: N }, (_, k) => ({ name: `p${k}`, partial: instance(k) }));
const bytes = parts.reduce((a, p) => a + JSON.stringify(p.partial).length, 0);
global.gc?.();
const heap0 = process.memoryUsage().heapUsed;
const t0 = performance.now();
const merged = mergeInstanceResults(parts);
const report = buildReport(spec, cfg, plan, merged.data, { now: new Date(0) });
const ms = performance.now() - t0;
const heap1 = process.memoryUsage().heapUsed;
console.log(`${N} partials × ${plan.runs.length} runs (${keys.length} summary keys each, ${(bytes / 1e6).toFixed(1)} MB of JSON in all)`);
console.log(
  `merge + report: ${ms.toFixed(0)} ms; heap growth ${((heap1 - heap0) / 1e6).toFixed(1)} MB; ${report.runs.length} ` +
    `runs, ${report.comparisons.length} verdicts`,
);
