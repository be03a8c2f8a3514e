// One benchmark over N k6 instances (k6 --execution-segment, the k6-operator's parallelism): each
// instance writes a partial result (PARTIAL=true), and merging the partials gives back the k6
// summary data of the whole run, which the one report pipeline turns into summary.json,
// report.md and report.html like any single run. Counters and rates add exactly; latency trends
// merge through their quantile grid (lib/stats/quantile-merge.ts); thresholds are evaluated again
// on the merged figures. Partials of different plans, or whose segments overlap or leave gaps,
// are refused with one line naming the difference.
import type { SetupData } from '../variants';
import { mergeTrends } from '../stats/quantile-merge';
import { alignInstances } from './align-instances';
import type { SummaryMetric, SummaryMetrics } from './figures/run-figures';
import type { SummaryDataLike } from './build-report';

// The id on disk stays what PARTIAL=true has always written, so instance results of earlier runs still merge.
export const INSTANCE_RESULT_FORMAT = 'k6-llm-bench-partial/1';

/** Variables that may differ between the instances of one test. */
const PER_INSTANCE = new Set(['RUN_ID', 'RESULTS_DIR', 'PARTIAL', 'CONFIG', 'INSTANCE_NAME']);

export interface InstanceResult {
  format: typeof INSTANCE_RESULT_FORMAT;
  benchmark: string;
  runId: string;
  /** k6's --execution-segment of this instance, e.g. "1/2:1"; null for a whole test. */
  segment: string | null;
  sequence: string | null;
  /** The settings the test used (secrets left out): instances of one test agree on all but PER_INSTANCE. */
  variables: Record<string, string>;
  setup: Partial<SetupData> | null;
  metrics: SummaryMetrics;
  testRunDurationMs: number | null;
}

export class MergeError extends Error {}

/** The metrics a report reads: the suite's own and k6's dropped iterations. */
export function reportMetrics(all: SummaryMetrics): SummaryMetrics {
  const out: SummaryMetrics = {};
  for (const [k, v] of Object.entries(all)) if (k.startsWith('llm_') || k.startsWith('dropped_iterations')) out[k] = v;
  return out;
}

// ---- segments ------------------------------------------------------------------------------

type Frac = [number, number];

function gcd(a: number, b: number): number {
  return b === 0 ? Math.abs(a) : gcd(b, a % b);
}

/** k6 writes segment ends as fractions (1/2), decimals (0.5) or percentages (50%). */
export function parseFraction(s: string): Frac {
  const t = s.trim();
  let f: Frac;
  if (/^\d+\/\d+$/.test(t)) f = t.split('/').map(Number) as Frac;
  else if (/^\d+(\.\d+)?%$/.test(t)) f = decimal(t.slice(0, -1), 100);
  else if (/^\d+(\.\d+)?$/.test(t)) f = decimal(t, 1);
  else throw new MergeError(`'${s}' is not an execution-segment bound (expected 1/2, 0.5 or 50%)`);
  if (f[1] === 0 || f[0] > f[1]) throw new MergeError(`'${s}' is not between 0 and 1`);
  const g = gcd(f[0], f[1]) || 1;
  return [f[0] / g, f[1] / g];
}

function decimal(t: string, scale: number): Frac {
  const [whole, frac = ''] = t.split('.');
  const den = 10 ** frac.length * scale;
  return [Number(whole) * 10 ** frac.length + Number(frac || 0), den];
}

const cmp = (a: Frac, b: Frac) => a[0] * b[1] - b[0] * a[1];
const show = (f: Frac) => (f[0] === 0 ? '0' : f[0] === f[1] ? '1' : `${f[0]}/${f[1]}`);

export function parseSegment(seg: string | null): [Frac, Frac] {
  if (seg === null || seg.trim() === '')
    return [
      [0, 1],
      [1, 1],
    ];
  const parts = seg.split(':');
  if (parts.length !== 2) throw new MergeError(`'${seg}' is not an execution segment (expected from:to, e.g. 1/2:1)`);
  const [a, b] = parts.map(parseFraction);
  if (cmp(a, b) >= 0) throw new MergeError(`execution segment '${seg}' is empty`);
  return [a, b];
}

/** Checks that the instances' segments tile [0, 1] exactly; says which overlap or what is missing. */
export function checkSegments(parts: Array<{ name: string; segment: string | null }>): void {
  const segs = parts.map((p) => ({ name: p.name, range: parseSegment(p.segment) })).sort((x, y) => cmp(x.range[0], y.range[0]));
  let at: Frac = [0, 1];
  let prev = '';
  for (const s of segs) {
    const d = cmp(s.range[0], at);
    if (d < 0)
      throw new MergeError(
        `${prev} and ${s.name} overlap (segments ending at ${show(at)} and starting at ${show(s.range[0])}): each instance must run its own segment`,
      );
    if (d > 0) throw new MergeError(`no partial covers ${show(at)}:${show(s.range[0])}: an instance is missing`);
    at = s.range[1];
    prev = s.name;
  }
  if (cmp(at, [1, 1]) !== 0) throw new MergeError(`no partial covers ${show(at)}:1: an instance is missing`);
}

/** A segment as part of a file name: 1/2:1 → 1_2-1. */
export function segmentFileName(segment: string): string {
  return segment
    .replace(/\//g, '_')
    .replace(/:/g, '-')
    .replace(/[^0-9A-Za-z_.%-]/g, '');
}

// ---- metrics -------------------------------------------------------------------------------

const THRESHOLD_RE = /^\s*([a-z]+(?:\(\d+(?:\.\d+)?\))?)\s*(<=|>=|==|!=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/;

/** Evaluates a k6 threshold expression on merged values; null when it cannot be read. */
export function evalThreshold(expr: string, values: Record<string, number>): boolean | null {
  const m = THRESHOLD_RE.exec(expr);
  if (!m) return null;
  const v = values[m[1]];
  if (v === undefined) return null;
  const n = Number(m[3]);
  switch (m[2]) {
    case '<=':
      return v <= n;
    case '>=':
      return v >= n;
    case '<':
      return v < n;
    case '>':
      return v > n;
    case '==':
      return v === n;
    default:
      return v !== n;
  }
}

function mergeMetric(name: string, ms: SummaryMetric[], seconds: number): SummaryMetric {
  const first = ms[0];
  let values: Record<string, number>;
  if (first.type === 'counter') {
    const count = ms.reduce((a, m) => a + (m.values.count ?? 0), 0);
    values = { count, rate: seconds > 0 ? count / seconds : 0 };
  } else if (first.type === 'rate') {
    const passes = ms.reduce((a, m) => a + (m.values.passes ?? 0), 0);
    const fails = ms.reduce((a, m) => a + (m.values.fails ?? 0), 0);
    values = { passes, fails, rate: passes + fails > 0 ? passes / (passes + fails) : 0 };
  } else if (first.type === 'trend') {
    values = mergeTrends(
      ms.map((m) => m.values),
      Object.keys(first.values),
    );
  } else {
    values = { ...first.values, value: Math.max(...ms.map((m) => m.values.value ?? 0)) };
  }
  const out: SummaryMetric = { type: first.type, contains: first.contains, values };
  if (first.thresholds) {
    out.thresholds = {};
    for (const expr of Object.keys(first.thresholds)) {
      const ok = evalThreshold(expr, values);
      if (ok === null) throw new MergeError(`threshold '${expr}' on ${name} cannot be evaluated on merged figures`);
      out.thresholds[expr] = { ok };
    }
  }
  return out;
}

// ---- partials ------------------------------------------------------------------------------

export interface Merged {
  benchmark: string;
  variables: Record<string, string>;
  runId: string;
  instances: number;
  data: SummaryDataLike;
}

/** Reads one partial's JSON text; says what is wrong with it in one line. */
export function readInstanceResult(name: string, text: string): InstanceResult {
  let p: unknown;
  try {
    p = JSON.parse(text);
  } catch (e) {
    throw new MergeError(`${name}: not JSON (${(e as Error).message})`);
  }
  const o = p as Partial<InstanceResult>;
  if (!o || typeof o !== 'object' || o.format !== INSTANCE_RESULT_FORMAT)
    throw new MergeError(
      `${name}: not a k6-llm-bench partial result (format '${String(o?.format)}'; expected ${INSTANCE_RESULT_FORMAT}, written by a test with PARTIAL=true)`,
    );
  return o as InstanceResult;
}

/** Merges the partials of one test, or says in one line why they are not one test. */
export function mergeInstanceResults(parts: Array<{ name: string; partial: InstanceResult }>): Merged {
  if (parts.length === 0) throw new MergeError('no partial results given');
  const [a] = parts;
  for (const b of parts.slice(1)) {
    if (b.partial.benchmark !== a.partial.benchmark)
      throw new MergeError(`${a.name} is ${a.partial.benchmark} but ${b.name} is ${b.partial.benchmark}: not one test`);
    const keys = new Set([...Object.keys(a.partial.variables), ...Object.keys(b.partial.variables)]);
    for (const k of [...keys].sort()) {
      if (PER_INSTANCE.has(k)) continue;
      const x = a.partial.variables[k] ?? '(unset)';
      const y = b.partial.variables[k] ?? '(unset)';
      if (x !== y) throw new MergeError(`${a.name} and ${b.name} differ in ${k} ('${x}' vs '${y}'): runs of different plans or settings cannot be merged`);
    }
    // The plan declares its sub-metrics (present with or without samples); a whole metric shows
    // only where it got samples (a once-per-run figure is written by one instance alone).
    const declared = (m: Record<string, unknown>) =>
      Object.keys(m)
        .filter((k) => k.includes('{'))
        .sort()
        .join(',');
    if (declared(a.partial.metrics) !== declared(b.partial.metrics))
      throw new MergeError(`${a.name} and ${b.name} declare different metrics: not the same plan`);
  }
  checkSegments(parts.map((p) => ({ name: p.name, segment: p.partial.segment })));
  const durations = parts.map((p) => p.partial.testRunDurationMs ?? 0);
  const seconds = Math.max(...durations) / 1000;
  const leadAt = Math.max(
    0,
    parts.findIndex((p) => cmp(parseSegment(p.partial.segment)[0], [0, 1]) === 0),
  );
  // Each instance's slices on the lead instance's, by the instances' starts on the server's clock.
  const aligned = alignInstances(
    parts.map((p) => ({
      segment: p.partial.segment,
      instance: p.partial.setup?.instance ?? null,
      runsStartMs: p.partial.setup?.runsStartMs ?? null,
      metrics: p.partial.metrics,
    })),
    leadAt,
  );
  const metrics: SummaryMetrics = {};
  for (const key of new Set(aligned.metrics.flatMap((m) => Object.keys(m)))) {
    metrics[key] = mergeMetric(
      key,
      aligned.metrics.map((m) => m[key]).filter((m) => m !== undefined),
      seconds,
    );
  }
  // Setup data: the instance holding the first segment speaks for the variants (it also took the
  // server-metrics window); failures and warnings of every instance are kept.
  const setups = parts.map((p) => p.partial.setup).filter((s): s is Partial<SetupData> => s !== null);
  const lead = parts[leadAt].partial.setup ?? setups[0] ?? null;
  const setup: Partial<SetupData> | null = lead
    ? {
        ...lead,
        // The merged run is the whole run again.
        segment: null,
        sequence: null,
        warnings: [...new Set([...setups.flatMap((s) => s.warnings ?? []), ...aligned.warnings])],
        instance: undefined,
        instances: aligned.rows,
        failures: setups.flatMap((s) => s.failures ?? []).filter((f, i, all) => all.findIndex((g) => g.variant === f.variant && g.reason === f.reason) === i),
      }
    : null;
  const runId = commonRunId(parts.map((p) => p.partial.runId));
  return {
    benchmark: a.partial.benchmark,
    variables: a.partial.variables,
    runId,
    instances: parts.length,
    data: { metrics, setup_data: setup ? { ...setup, runId } : null, state: { testRunDurationMs: Math.max(...durations) } },
  };
}

/** The instances' run ids without their per-instance suffix (run-a-1, run-a-2 → run-a). */
function commonRunId(ids: string[]): string {
  let p = ids[0];
  for (const id of ids) while (!id.startsWith(p)) p = p.slice(0, -1);
  p = p.replace(/[-_.]+$/, '');
  return p || ids[0];
}
