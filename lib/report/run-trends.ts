// A one-run plan's trend sub-metrics, which it leaves undeclared (runTrendsShared), filled from
// the whole metrics where a summary is made: in handleSummary and when a raw record is rebuilt.
import type { BenchConfig } from '../config/config-types';
import { METRICS } from '../metrics/catalog';
import type { Plan } from '../plan/matrix';
import { perRunTrends, runTrendsShared, subKey, summaryTrendStats, type BucketRule } from '../plan/summary-keys';
import type { SummaryMetric, SummaryMetrics } from './figures/run-figures';

/**
 * The summary's metrics with the run's trend sub-metrics as k6 would have given them declared:
 * the whole metric's values (without its SLO thresholds, which the summary lists once), or every
 * statistic 0 where nothing was added; not those counted in buckets instead (ITL_SAMPLES=histogram).
 * Keys present are left alone, so a summary made with them declared (an older record, the
 * library's) reads the same.
 */
export function withRunTrends(plan: Pick<Plan, 'runs'>, metrics: SummaryMetrics, cfg: BucketRule & Pick<BenchConfig, 'partial'>): SummaryMetrics {
  if (!runTrendsShared(plan)) return metrics;
  const out: SummaryMetrics = { ...metrics };
  const scenario = plan.runs[0].scenario;
  const trendStats = summaryTrendStats(cfg);
  for (const m of perRunTrends(cfg)) {
    const key = subKey(m, scenario);
    if (key in out) continue;
    const whole = metrics[METRICS[m].name];
    const filled: SummaryMetric = whole
      ? { type: whole.type, contains: whole.contains, values: { ...whole.values } }
      : { type: 'trend', contains: METRICS[m].time ? 'time' : 'default', values: Object.fromEntries(trendStats.map((s) => [s, 0])) };
    out[key] = filled;
  }
  return out;
}
