// Reads a raw record: k6's own JSON output (`k6 run --out json=<run>.raw.json.gz`), one JSON
// object per line, written while the run goes: a "Metric" line the first time a metric gets a
// sample (with the sub-metrics the thresholds declared), then a "Point" line per sample with its
// time, value and tags. This module folds the lines, in the order k6 wrote them, into per-metric
// sinks grouped by tag set, from which the summary k6 would have handed to handleSummary is
// rebuilt (lib/raw/rebuilt-summary.ts): counters and rates exactly, trends from every value kept, with
// k6's own percentile rule. Pure: the caller reads the file (gzip or not) and hands over lines.
import { upgradeSetup, type SetupData } from '../variants';

/** The sample that carries a test's settings and setup data as metadata (lib/k6/run-record.ts). */
export const RUN_RECORD_METRIC = 'llm_run_record';
export const RUN_RECORD_KEY = 'k6_llm_bench_run';
export const RUN_RECORD_FORMAT = 'k6-llm-bench-run/1';

/** What a run says about itself: in the record (setup's sample) or in the sidecar `npm start` writes. */
export interface RunRecordMeta {
  format: typeof RUN_RECORD_FORMAT;
  benchmark: string;
  /** The settings the test used, as recordedVariables() keeps them (no secrets). */
  variables: Record<string, string>;
  /** What setup() returned; null in a sidecar written before the run (npm start). */
  setup: Partial<SetupData> | null;
}

export type MetricType = 'counter' | 'gauge' | 'rate' | 'trend';

/** Values of one metric under one tag set, as k6's sinks keep them. */
export class TagGroup {
  readonly tags: Record<string, string>;
  count = 0;
  sum = 0;
  min = Infinity;
  max = -Infinity;
  /** rate: samples whose value is not 0. */
  trues = 0;
  /** gauge: the last value and when (its line number) it was written. */
  last = 0;
  lastSeq = -1;
  /** trend: every value, in the order written. */
  values: Float64Array | null;

  constructor(tags: Record<string, string>, trend: boolean) {
    this.tags = tags;
    this.values = trend ? new Float64Array(16) : null;
  }

  add(v: number, seq: number): void {
    if (this.values !== null) {
      if (this.count === this.values.length) {
        const grown = new Float64Array(this.values.length * 2);
        grown.set(this.values);
        this.values = grown;
      }
      this.values[this.count] = v;
    }
    this.count++;
    this.sum += v;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
    if (v !== 0) this.trues++;
    this.last = v;
    this.lastSeq = seq;
  }
}

export interface RecordMetric {
  name: string;
  type: MetricType;
  contains: string;
  /** Sub-metrics k6 declared for the thresholds: name as the summary keys it, and its tag selector. */
  submetrics: Array<{ name: string; tags: Record<string, string> }>;
  /** One group per distinct tag set. */
  groups: Map<string, TagGroup>;
}

export interface ScenarioSpan {
  firstMs: number;
  lastMs: number;
  points: number;
}

/** Milliseconds since the epoch of a k6 timestamp (RFC 3339 with up to nanoseconds and a zone). */
export function timeMs(t: string): number {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/.exec(t);
  if (!m) return NaN;
  return Date.parse(m[1] + m[3]) + (m[2] ? Number(`0${m[2]}`) * 1000 : 0);
}

interface MetricLine {
  type: 'Metric';
  metric: string;
  data: { name: string; type: MetricType; contains: string; submetrics: Array<{ name: string; suffix: string; tags: Record<string, string> | null }> | null };
}

interface PointLine {
  type: 'Point';
  metric: string;
  data: { time: string; value: number; tags: Record<string, string> | null; metadata?: Record<string, string> };
}

export class RawRecord {
  readonly metrics = new Map<string, RecordMetric>();
  readonly scenarios = new Map<string, ScenarioSpan>();
  /** The testid tags seen (k6-llm-bench sets the run id as one, on every sample). */
  readonly testids = new Set<string>();
  lines = 0;
  points = 0;
  /** Lines that were not JSON or not a k6 line (the last one of a killed run may be cut). */
  badLines = 0;
  /** The text of the last line that could not be read, for the message. */
  lastBad: string | null = null;
  firstMs = Infinity;
  lastMs = -Infinity;
  /** The run's own record of its settings and setup data, when the bundle wrote one. */
  meta: RunRecordMeta | null = null;
  metaMs: number | null = null;

  /** One line of the file, without its newline. */
  add(line: string): void {
    this.lines++;
    if (line.length === 0) return;
    let o: MetricLine | PointLine;
    try {
      o = JSON.parse(line) as MetricLine | PointLine;
    } catch {
      this.bad(line);
      return;
    }
    if (o === null || typeof o !== 'object') return this.bad(line);
    if (o.type === 'Metric') return this.defineMetric(o);
    if (o.type !== 'Point' || typeof o.data?.value !== 'number') return this.bad(line);
    this.point(o);
  }

  private bad(line: string): void {
    this.badLines++;
    this.lastBad = line.length > 120 ? `${line.slice(0, 120)}…` : line;
  }

  private defineMetric(o: MetricLine): void {
    const d = o.data;
    const known = this.metrics.get(d.name);
    const subs = (d.submetrics ?? []).map((s) => ({ name: s.name, tags: s.tags ?? {} }));
    if (known) {
      // k6 writes a metric's line once; keep any sub-metric a later line adds.
      for (const s of subs) if (!known.submetrics.some((k) => k.name === s.name)) known.submetrics.push(s);
      return;
    }
    this.metrics.set(d.name, { name: d.name, type: d.type, contains: d.contains, submetrics: subs, groups: new Map() });
  }

  private point(o: PointLine): void {
    const t = timeMs(o.data.time);
    const tags = o.data.tags ?? {};
    let m = this.metrics.get(o.metric);
    if (!m) {
      // A point before its metric's line cannot come from k6; counted as a counter would be lossy, so keep it as a trend.
      m = { name: o.metric, type: 'trend', contains: 'default', submetrics: [], groups: new Map() };
      this.metrics.set(o.metric, m);
    }
    const key = JSON.stringify(tags);
    let g = m.groups.get(key);
    if (!g) m.groups.set(key, (g = new TagGroup(tags, m.type === 'trend')));
    g.add(o.data.value, this.lines);
    this.points++;
    if (Number.isFinite(t)) {
      if (t < this.firstMs) this.firstMs = t;
      if (t > this.lastMs) this.lastMs = t;
      const sc = tags.scenario;
      if (sc) {
        const span = this.scenarios.get(sc);
        if (span) {
          if (t < span.firstMs) span.firstMs = t;
          if (t > span.lastMs) span.lastMs = t;
          span.points++;
        } else this.scenarios.set(sc, { firstMs: t, lastMs: t, points: 1 });
      }
    }
    if (tags.testid) this.testids.add(tags.testid);
    if (o.metric === RUN_RECORD_METRIC && o.data.metadata?.[RUN_RECORD_KEY]) {
      try {
        const meta = JSON.parse(o.data.metadata[RUN_RECORD_KEY]) as RunRecordMeta;
        if (meta && meta.format === RUN_RECORD_FORMAT) {
          this.meta = { ...meta, setup: upgradeSetup(meta.setup) };
          this.metaMs = t;
        }
      } catch {
        // Not ours: left alone.
      }
    }
  }
}

/** Whether a sample's tags match a sub-metric's selector (every selector tag equal). */
export function matches(tags: Record<string, string>, selector: Record<string, string>): boolean {
  for (const k in selector) if (tags[k] !== selector[k]) return false;
  return true;
}
