// The object handleSummary(data) receives in k6 v1.x (internal/js/summary.go,
// summarizeMetricsToObject), and a short default text summary for runs without handleSummary.

import type { MetricEntry } from './engine';
import type { GroupSummary } from './groups';

export const DEFAULT_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'];

export interface SummaryMetric {
  type: string;
  contains: string;
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}

export interface SummaryData {
  root_group: GroupSummary;
  options: { summaryTrendStats: string[]; summaryTimeUnit: string; noColor: boolean };
  state: { isStdOutTTY: boolean; isStdErrTTY: boolean; testRunDurationMs: number };
  metrics: Record<string, SummaryMetric>;
  /** Absent when setup() returned undefined or was not exported (k6 sets it to undefined). */
  setup_data?: unknown;
}

/** k6's GetResolversForTrendColumns validation; throws k6's message for a bad stat. */
export function validateTrendStats(stats: string[]): void {
  for (const stat of stats) trendResolver(stat);
}

function trendResolver(stat: string): (e: MetricEntry & { sink: { type: 'trend' } }) => number {
  switch (stat) {
    case 'avg':
      return (e) => e.sink.avg();
    case 'min':
      return (e) => e.sink.min;
    case 'med':
      return (e) => e.sink.p(0.5);
    case 'max':
      return (e) => e.sink.max;
    case 'count':
      return (e) => e.sink.count;
  }
  if (!stat.startsWith('p(') || !stat.endsWith(')')) throw new Error(`invalid trend stat '${stat}', unknown format`);
  const inner = stat.slice(2, -1);
  const pct = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(inner) ? Number(inner) : NaN;
  if (!(pct >= 0 && pct <= 100)) {
    throw new Error(`invalid percentile trend stat value '${stat}', provide a number between 0 and 100`);
  }
  return (e) => e.sink.p(pct / 100);
}

function metricValues(entry: MetricEntry, trendStats: string[], durationMs: number): Record<string, number> {
  const sink = entry.sink;
  switch (sink.type) {
    case 'counter':
      return { count: sink.value, rate: sink.rate(durationMs) };
    case 'gauge':
      return { value: sink.value, min: sink.min, max: sink.max };
    case 'rate':
      return { rate: sink.rate(), passes: sink.trues, fails: sink.total - sink.trues };
    case 'trend': {
      const values: Record<string, number> = {};
      for (const stat of trendStats) values[stat] = trendResolver(stat)(entry as MetricEntry & { sink: typeof sink });
      return values;
    }
  }
}

export function buildSummaryData(args: {
  metrics: MetricEntry[];
  rootGroup: GroupSummary;
  trendStats: string[];
  timeUnit: string;
  durationMs: number;
  setupJSON: string | null;
}): SummaryData {
  const metrics: Record<string, SummaryMetric> = {};
  for (const entry of args.metrics) {
    const m: SummaryMetric = {
      type: entry.def.type,
      contains: entry.def.contains,
      values: metricValues(entry, args.trendStats, args.durationMs),
    };
    if (entry.thresholds.length > 0) {
      m.thresholds = Object.fromEntries(entry.thresholds.map((t) => [t.source, { ok: !t.lastFailed }]));
    }
    metrics[entry.name] = m;
  }
  const data: SummaryData = {
    root_group: args.rootGroup,
    options: { summaryTrendStats: args.trendStats, summaryTimeUnit: args.timeUnit, noColor: false },
    state: { isStdOutTTY: false, isStdErrTTY: false, testRunDurationMs: args.durationMs },
    metrics,
  };
  if (args.setupJSON !== null) data.setup_data = JSON.parse(args.setupJSON);
  return data;
}

/**
 * The text printed when the script has no handleSummary: one line per metric, checks and
 * thresholds marked ✓/✗. Same information as k6's end-of-test summary, not its exact layout.
 */
export function textSummary(data: SummaryData): string {
  const lines: string[] = [];
  const checks = collectChecks(data.root_group);
  for (const c of checks) lines.push(`     ${c.fails === 0 ? '✓' : '✗'} ${c.name}${c.fails ? ` (${c.passes}/${c.passes + c.fails})` : ''}`);
  if (checks.length > 0) lines.push('');
  const names = Object.keys(data.metrics).sort();
  const width = Math.max(0, ...names.map((n) => n.length)) + 3;
  for (const name of names) {
    const m = data.metrics[name]!;
    const mark = m.thresholds ? (Object.values(m.thresholds).every((t) => t.ok) ? '✓' : '✗') : ' ';
    lines.push(`   ${mark} ${(name + ' ').padEnd(width, '.')}: ${formatValues(m)}`);
  }
  return lines.join('\n');
}

function collectChecks(group: GroupSummary): GroupSummary['checks'] {
  return [...group.checks, ...group.groups.flatMap(collectChecks)];
}

function formatValues(m: SummaryMetric): string {
  const v = m.values;
  const num = (x: number) => (m.contains === 'time' ? formatMs(x) : m.contains === 'data' ? `${x} B` : String(round(x)));
  switch (m.type) {
    case 'counter':
      return `${num(v.count!)} ${round(v.rate!)}/s`;
    case 'gauge':
      return `${num(v.value!)} min=${num(v.min!)} max=${num(v.max!)}`;
    case 'rate':
      return `${round(v.rate! * 100)}% ${v.passes} out of ${v.passes! + v.fails!}`;
    default:
      return Object.entries(v)
        .map(([k, x]) => `${k}=${num(x)}`)
        .join(' ');
  }
}

function formatMs(ms: number): string {
  if (ms >= 1000) return `${round(ms / 1000)}s`;
  if (ms >= 1) return `${round(ms)}ms`;
  return `${round(ms * 1000)}µs`;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
