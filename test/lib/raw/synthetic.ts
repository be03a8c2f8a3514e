// Raw records made up line by line, as k6 writes them: for the tests of lib/raw and npm run report.
import { BENCHMARKS } from '../../../lib/benchmarks';
import { loadConfig } from '../../../lib/config/load';
import { planOf, type Plan } from '../../../lib/plan/matrix';
import { RawRecord, RUN_RECORD_FORMAT, RUN_RECORD_KEY, RUN_RECORD_METRIC } from '../../../lib/raw/record';

export const T0 = Date.parse('2026-12-01T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '123Z'); // nanoseconds, as k6 writes them

export function metricLine(name: string, type: string, subs: Array<Record<string, string>> = [], contains = 'default'): string {
  const submetrics = subs.length
    ? subs.map((tags) => ({
        name: `${name}{${Object.entries(tags)
          .map(([k, v]) => `${k}:${v}`)
          .join(',')}}`,
        suffix: '',
        tags,
      }))
    : null;
  return JSON.stringify({ type: 'Metric', data: { name, type, contains, thresholds: [], submetrics }, metric: name });
}

export function point(name: string, atMs: number, value: number, tags: Record<string, string>, metadata?: Record<string, string>): string {
  return JSON.stringify({ metric: name, type: 'Point', data: { time: iso(atMs), value, tags: { testid: 'r1', ...tags }, ...(metadata ? { metadata } : {}) } });
}

export function rampPlan(env: Record<string, string> = {}) {
  const spec = BENCHMARKS['concurrency-ramp'];
  const cfg = loadConfig(
    spec,
    { TARGET_URL: 'http://127.0.0.1:9', CONCURRENCY: '1,2,3,4,5', DURATION: '4s', SLICES: '4', GRACEFUL_STOP: '1s', RUN_ID: 'r1', ...env },
    new Date(T0),
  );
  return { spec, cfg, plan: planOf(spec.load, cfg) };
}

/** A record of the plan's runs up to `stopMs` after the runs' start: per run, requests every 100 ms of its load. */
export function recordUpTo(plan: Plan, stopMs: number, meta = false): RawRecord {
  const rec = new RawRecord();
  for (const line of linesUpTo(plan, stopMs, meta)) rec.add(line);
  return rec;
}

/** The lines of such a record. */
export function linesUpTo(plan: Plan, stopMs: number, meta = false): string[] {
  const rec = { add: (l: string) => out.push(l) };
  const out: string[] = [];
  rec.add(metricLine('llm_run_vus', 'counter'));
  rec.add(metricLine('llm_e2e', 'trend', [], 'time'));
  rec.add(metricLine('llm_success', 'rate'));
  rec.add(metricLine('llm_output_tokens', 'counter'));
  rec.add(metricLine('llm_window_output_tokens', 'counter'));
  rec.add(metricLine('llm_window_requests', 'counter'));
  rec.add(metricLine('llm_window_e2e', 'counter'));
  if (meta)
    rec.add(
      point(
        RUN_RECORD_METRIC,
        T0,
        0,
        {},
        { [RUN_RECORD_KEY]: JSON.stringify({ format: RUN_RECORD_FORMAT, benchmark: 'concurrency-ramp', variables: {}, setup: null }) },
      ),
    );
  for (const run of plan.runs) {
    const start = T0 + run.startMs;
    if (run.startMs > stopMs) break;
    const tags = { scenario: run.scenario, variant: run.variant, dialect: 'sglang' };
    rec.add(point('llm_run_vus', start + 2, 1, tags));
    for (let t = 100; t <= run.durationMs && run.startMs + t <= stopMs; t += 100) {
      const slice = String(Math.min(plan.slices - 1, Math.floor((t - 50) / plan.sliceMs)));
      rec.add(point('llm_e2e', start + t, 50, tags));
      rec.add(point('llm_success', start + t, 1, tags));
      rec.add(point('llm_output_tokens', start + t, 32, tags));
      rec.add(point('llm_window_output_tokens', start + t, 32, { ...tags, slice }));
      rec.add(point('llm_window_requests', start + t, 1, { ...tags, slice }));
      rec.add(point('llm_window_e2e', start + t, 50, { ...tags, slice }));
    }
  }
  return out;
}
