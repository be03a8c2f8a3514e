// Reading k6's end-of-test summary data: a metric's values by its summary key, as a count, a
// distribution (from its trend or from its log-bucket counts) or a mean.
import { bucketKey } from '../../plan/summary-keys';
import type { BucketCounter } from '../../metrics/samples';
import { BUCKETS, figuresOf } from '../../stats/log-buckets';
import type { Dist } from './dist';

export interface SummaryMetric {
  type: string;
  contains?: string;
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}
export type SummaryMetrics = Record<string, SummaryMetric>;

export function metric(m: SummaryMetrics, key: string): SummaryMetric | undefined {
  return m[key];
}

export function count(m: SummaryMetrics, key: string): number {
  return metric(m, key)?.values.count ?? 0;
}

export function dist(m: SummaryMetrics, key: string): Dist | null {
  const v = metric(m, key)?.values;
  if (!v || !v.count) return null;
  return { avg: v.avg, p50: v.med, p90: v['p(90)'], p99: v['p(99)'], max: v.max, count: v.count };
}

/** A run's distribution from its log-bucket counts (ITL_SAMPLES=histogram, BUCKETS_OF); null when none were counted. */
export function bucketDist(m: SummaryMetrics, key: BucketCounter, s: string): Dist | null {
  if (metric(m, bucketKey(key, s, 0)) === undefined) return null;
  const counts = Array.from({ length: BUCKETS }, (_, i) => count(m, bucketKey(key, s, i)));
  const f = figuresOf(counts);
  return f && { avg: f.avg, p50: f.p50, p90: f.p90, p99: f.p99, max: f.max, count: f.count, bucketed: true };
}

export function single(m: SummaryMetrics, key: string): number | null {
  const v = metric(m, key)?.values;
  return v && v.count ? v.avg : null;
}
