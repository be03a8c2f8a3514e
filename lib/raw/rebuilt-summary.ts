// The k6 end-of-test summary rebuilt from a raw record: for every metric the record holds and
// every key a threshold names (the sub-metrics the report reads, lib/plan/summary-keys.ts), the
// values k6's sinks give (metrics/sink.go: counter count and rate, rate passes/fails, gauge
// value/min/max, trend stats by k6's own percentile rule over every value), and each threshold
// evaluated on them as k6 does at the end of a test (empty sinks included).
import { METRICS } from '../metrics/catalog';
import { evalThreshold } from '../report/merge-instances';
import type { SummaryMetric, SummaryMetrics } from '../report/figures/run-figures';
import { matches, type MetricType, type RawRecord, type RecordMetric, type TagGroup } from './record';

/** k6's percentile: linear between the two values around pct·(n−1) of the sorted values. */
export function k6Percentile(sorted: Float64Array, pct: number): number {
  const n = sorted.length;
  if (n === 0) return 0;
  if (n === 1) return sorted[0];
  const i = pct * (n - 1);
  const j = sorted[Math.floor(i)];
  const k = sorted[Math.ceil(i)];
  return j + (k - j) * (i - Math.floor(i));
}

/** One metric under a selector: its tag groups folded as k6's single sink would hold them. */
interface Folded {
  type: MetricType;
  count: number;
  sum: number;
  min: number;
  max: number;
  trues: number;
  last: number;
  values: Float64Array | null;
}

function fold(type: MetricType, groups: TagGroup[]): Folded {
  const f: Folded = { type, count: 0, sum: 0, min: Infinity, max: -Infinity, trues: 0, last: 0, values: null };
  let lastSeq = -1;
  for (const g of groups) {
    f.count += g.count;
    f.sum += g.sum;
    if (g.min < f.min) f.min = g.min;
    if (g.max > f.max) f.max = g.max;
    f.trues += g.trues;
    if (g.lastSeq > lastSeq) {
      lastSeq = g.lastSeq;
      f.last = g.last;
    }
  }
  if (type === 'trend') {
    const all = new Float64Array(f.count);
    let at = 0;
    for (const g of groups) {
      if (g.values === null) continue;
      all.set(g.values.subarray(0, g.count), at);
      at += g.count;
    }
    f.values = all.sort();
  }
  return f;
}

/** The value of one trend stat (avg, min, med, max, count, p(N)) as k6 resolves it. */
function trendStat(f: Folded, stat: string): number | undefined {
  if (f.count === 0) return 0;
  switch (stat) {
    case 'avg':
      return f.sum / f.count;
    case 'min':
      return f.min;
    case 'max':
      return f.max;
    case 'med':
      return k6Percentile(f.values as Float64Array, 0.5);
    case 'count':
      return f.count;
  }
  const m = /^p\((\d+(?:\.\d+)?)\)$/.exec(stat);
  return m ? k6Percentile(f.values as Float64Array, Number(m[1]) / 100) : undefined;
}

function values(f: Folded, trendStats: readonly string[], seconds: number): Record<string, number> {
  switch (f.type) {
    case 'counter':
      return { count: f.sum, rate: seconds > 0 ? f.sum / seconds : 0 };
    case 'rate':
      return { rate: f.count > 0 ? f.trues / f.count : 0, passes: f.trues, fails: f.count - f.trues };
    case 'gauge':
      return f.count === 0 ? { value: 0, min: 0, max: 0 } : { value: f.last, min: f.min, max: f.max };
    default: {
      const out: Record<string, number> = {};
      for (const s of trendStats) {
        const v = trendStat(f, s);
        if (v !== undefined) out[s] = v;
      }
      return out;
    }
  }
}

const CONTAINS: Record<string, string> = {};
const TYPES: Record<string, MetricType> = { dropped_iterations: 'counter', iterations: 'counter', vus: 'gauge', vus_max: 'gauge' };
for (const def of Object.values(METRICS)) {
  TYPES[def.name] = def.type;
  CONTAINS[def.name] = def.time ? 'time' : 'default';
}

/** `name{k:v,k2:v2}` → name and selector (k6's own syntax, without quoting). */
export function parseKey(key: string): { name: string; selector: Record<string, string> | null } {
  const b = key.indexOf('{');
  if (b < 0 || !key.endsWith('}')) return { name: key, selector: null };
  const selector: Record<string, string> = {};
  for (const part of key.slice(b + 1, -1).split(',')) {
    const c = part.indexOf(':');
    if (c < 0) continue;
    selector[part.slice(0, c).trim()] = part
      .slice(c + 1)
      .trim()
      .replace(/^["'](.*)["']$/, '$1');
  }
  return { name: key.slice(0, b), selector };
}

export interface SummaryOptions {
  /** Every threshold the run declared: key (metric or sub-metric) → expressions (k6Options().thresholds). */
  thresholds: Record<string, string[]>;
  /** k6's summaryTrendStats of the test. */
  trendStats: readonly string[];
  /** The test's duration, for counters' rates. */
  testRunDurationMs: number;
}

/**
 * The summary's metrics as k6 would have built them from the same samples: every metric the
 * record has a sample of, and every threshold key (sub-metrics included, with no sample too).
 */
export function summaryMetrics(rec: RawRecord, o: SummaryOptions): SummaryMetrics {
  const seconds = o.testRunDurationMs / 1000;
  const out: SummaryMetrics = {};
  const metricOf = (name: string): RecordMetric =>
    rec.metrics.get(name) ?? { name, type: TYPES[name] ?? 'counter', contains: CONTAINS[name] ?? 'default', submetrics: [], groups: new Map() };
  const build = (key: string, m: RecordMetric, selector: Record<string, string> | null): SummaryMetric => {
    const groups = [...m.groups.values()].filter((g) => selector === null || matches(g.tags, selector));
    const f = fold(m.type, groups);
    const exprs = o.thresholds[key];
    const stats =
      m.type === 'trend' && exprs
        ? [...new Set([...o.trendStats, ...exprs.map((e) => /^\s*([a-z]+(?:\(\d+(?:\.\d+)?\))?)/.exec(e)?.[1] ?? '')])]
        : o.trendStats;
    const all = values(f, stats, seconds);
    const metric: SummaryMetric = { type: m.type, contains: m.contains, values: m.type === 'trend' ? pick(all, o.trendStats) : all };
    if (exprs) {
      metric.thresholds = {};
      for (const e of exprs) metric.thresholds[e] = { ok: evalThreshold(e, all) ?? true };
    }
    return metric;
  };
  for (const m of rec.metrics.values()) if (m.groups.size > 0) out[m.name] = build(m.name, m, null);
  for (const key of Object.keys(o.thresholds)) {
    const { name, selector } = parseKey(key);
    const m = metricOf(name);
    if (!(name in out)) out[name] = build(name, m, null);
    if (selector !== null) out[key] = build(key, m, selector);
    else out[key] = build(key, m, null);
  }
  return out;
}

function pick(v: Record<string, number>, keys: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keys) if (k in v) out[k] = v[k];
  return out;
}
