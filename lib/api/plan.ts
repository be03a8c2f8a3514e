// How the library's figures line up with a user's own k6 scenarios. Pure, so it is tested in Node.
//
// A user script has no matrix: its "runs" are its k6 scenarios. Each request is recorded against
// the scenario it ran in (its k6 `scenario` tag), in a window that starts when the scenario
// started. When every scenario is constant-vus or constant-arrival-rate of one duration, that
// duration is cut into slices as in the benchmarks (throughput with an interval, the first slice
// left out as ramp-up); otherwise each run's throughput is over the time from its scenario's start
// to its last request's end ("until-last-request").
import { duration } from '../config/parse';
import { METRICS } from '../metrics/catalog';
import type { Window } from '../metrics/samples';
import { loadId, type Cell, type Load, type Plan, type Run } from '../plan/matrix';
import { KEEP, subKey, summaryThresholds } from '../plan/summary-keys';

/** Time slices per scenario when the scenarios allow them (the benchmarks' SLICES default). */
export const DEFAULT_SLICES = 6;

/** A k6 scenario as a script declares it, or as k6 consolidates it (`exec.test.options.scenarios`). */
export interface ScenarioOptions {
  executor?: string;
  vus?: number | null;
  duration?: string | number | null;
  rate?: number | null;
  timeUnit?: string | number | null;
  startRate?: number | null;
  stages?: Array<{ duration?: string | number; target?: number }> | null;
  startVUs?: number | null;
  preAllocatedVUs?: number | null;
  maxVUs?: number | null;
  iterations?: number | null;
  startTime?: string | number | null;
  gracefulStop?: string | number | null;
  exec?: string | null;
  tags?: Record<string, string> | null;
}

/** The parts of a script's `options` the library reads. */
export interface OptionsLike {
  scenarios?: Record<string, ScenarioOptions>;
  vus?: number;
  duration?: string;
  iterations?: number;
  stages?: Array<{ duration?: string | number; target?: number }>;
  thresholds?: Record<string, unknown>;
  [key: string]: unknown;
}

/** A duration in k6's option forms (a string such as 1m30s, or a number of ms); null when absent or unreadable. */
export function durationMs(v: string | number | null | undefined): number | null {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  try {
    // k6 writes whole seconds as "30s"; a bare number is seconds here, as in the benchmarks' variables.
    return duration('duration', v);
  } catch {
    return null;
  }
}

/** The scenarios a script runs: its own, or the `default` scenario k6 makes of vus/duration/iterations/stages. */
export function scenariosOf(options: OptionsLike): Record<string, ScenarioOptions> {
  if (options.scenarios && Object.keys(options.scenarios).length > 0) return options.scenarios;
  if (options.stages && options.stages.length > 0) return { default: { executor: 'ramping-vus', startVUs: options.vus ?? 1, stages: options.stages } };
  if (options.iterations) return { default: { executor: 'shared-iterations', vus: options.vus ?? 1, iterations: options.iterations } };
  if (options.duration) return { default: { executor: 'constant-vus', vus: options.vus ?? 1, duration: options.duration } };
  return { default: { executor: 'per-vu-iterations', vus: options.vus ?? 1, iterations: 1 } };
}

export type WindowMode = { kind: 'slices'; durationMs: number; slices: number; sliceMs: number } | { kind: 'until-last-request' };

const FIXED_DURATION = ['constant-vus', 'constant-arrival-rate'];

/** Slices when every scenario is constant-vus or constant-arrival-rate of one duration (and slices > 1 is asked), else until-last-request. */
export function windowMode(scenarios: Record<string, ScenarioOptions>, slices: number): WindowMode {
  const list = Object.values(scenarios);
  const lengths = list.map((s) => (FIXED_DURATION.includes(s.executor ?? '') ? durationMs(s.duration) : null));
  const first = lengths[0];
  if (slices < 1 || list.length === 0 || first === null || first === undefined || first <= 0 || lengths.some((d) => d !== first))
    return { kind: 'until-last-request' };
  return { kind: 'slices', durationMs: first, slices, sliceMs: first / slices };
}

/** The window a request of a scenario that started at `startMs` is recorded in. */
export function scenarioWindow(mode: WindowMode, startMs: number): Window {
  if (mode.kind === 'slices') return { cellStartMs: startMs, sliceMs: mode.sliceMs, slices: mode.slices, trackLastEnd: false, latencyFromMs: -Infinity };
  // No slices: no llm_window_* samples but the last end, which bounds the run's window.
  return { cellStartMs: startMs, sliceMs: 1, slices: 0, trackLastEnd: true, latencyFromMs: -Infinity };
}

/** Outside any scenario (setup, teardown): the request counts in the whole-test metrics only. */
export const NO_WINDOW: Window = { cellStartMs: 0, sliceMs: 1, slices: 0, trackLastEnd: false, latencyFromMs: -Infinity };

/** k6 rates are per timeUnit (default 1s). */
function perSecond(rate: number, timeUnit: string | number | null | undefined): number {
  const unit = durationMs(timeUnit ?? '1s') ?? 1000;
  return (rate * 1000) / unit;
}

/** A scenario's load as the report shows it: its VUs (the most a ramp reaches) or its arrival rate. */
export function loadOf(s: ScenarioOptions): Load {
  const ex = s.executor ?? '';
  if (ex === 'constant-arrival-rate') return { kind: 'rate', rate: round3(perSecond(s.rate ?? 0, s.timeUnit)) };
  if (ex === 'ramping-arrival-rate') {
    const top = Math.max(s.startRate ?? 0, ...(s.stages ?? []).map((x) => x.target ?? 0));
    return { kind: 'rate', rate: round3(perSecond(top, s.timeUnit)) };
  }
  if (ex === 'ramping-vus') return { kind: 'vus', vus: Math.max(s.startVUs ?? 1, ...(s.stages ?? []).map((x) => x.target ?? 0)) };
  return { kind: 'vus', vus: s.vus ?? 1 };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** k6 keeps a sub-metric in the summary only when a threshold names it; these are always true. */
export function keepThresholds(scenarios: Record<string, ScenarioOptions>, variants: readonly string[], mode: WindowMode): Record<string, string[]> {
  const names = Object.keys(scenarios);
  const vs = variants.length > 0 ? variants : ['target'];
  const runs: Run[] = names.flatMap((scenario) =>
    vs.map(
      (variant) =>
        ({
          scenario,
          variant,
          vus: 1,
          cell: { id: scenario, isl: 0, osl: 0, load: { kind: 'vus', vus: 1 } },
          startMs: 0,
          durationMs: 0,
          gracefulStopMs: 0,
        }) as Run,
    ),
  );
  const plan: Plan = {
    cells: [],
    runs,
    slices: mode.kind === 'slices' ? mode.slices : 0,
    sliceMs: mode.kind === 'slices' ? mode.sliceMs : 1,
    totalMs: 0,
    requests: mode.kind === 'slices' ? null : 1,
  };
  const all = summaryThresholds(
    plan,
    {
      slo: { ttftP99Ms: null, ttftOf: 'first', itlP99Ms: null, e2eP99Ms: null, errorRate: 1 },
      serverMetrics: 'off',
      saturationStop: false,
      itlSamples: 'every',
    },
    false,
  );
  // Only the declarations: the benchmarks' SLO thresholds (success rate, no variant down) are not the user's.
  const keep = new Set<string>(Object.values(KEEP));
  const success = METRICS.success.name;
  const out: Record<string, string[]> = {};
  for (const [key, exprs] of Object.entries(all)) {
    if (key === success || key.startsWith(`${success}{variant:`)) continue;
    if (exprs.every((e) => keep.has(e))) out[key] = exprs;
  }
  // Which client ran in which scenario: the report's variant of each run.
  for (const scenario of names) for (const variant of vs) out[variantKey(scenario, variant)] = [KEEP.rate];
  return out;
}

/** The sub-metric that says whether client `variant` sent requests in `scenario`. */
export function variantKey(scenario: string, variant: string): string {
  return subKey('success', scenario, { variant });
}

/** The user's thresholds with the declarations added (the user's own expressions first). */
export function mergeThresholds(user: Record<string, unknown> | undefined, keep: Record<string, string[]>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(user ?? {}) };
  for (const [key, exprs] of Object.entries(keep)) {
    const mine = out[key];
    if (mine === undefined) out[key] = exprs;
    else if (Array.isArray(mine)) out[key] = [...mine, ...exprs.filter((e) => !mine.includes(e))];
    // An object form ({threshold, abortOnFail}) is the user's: left as it is.
  }
  return out;
}

export interface SummaryMetricLike {
  values: Record<string, number>;
}

/** Each scenario and the clients (variants) that sent requests in it, from the summary's declared sub-metrics. */
export function variantsByScenario(
  metrics: Record<string, SummaryMetricLike>,
  scenarios: readonly string[],
  variants: readonly string[],
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of scenarios) {
    const seen = variants.filter((v) => {
      const x = metrics[variantKey(s, v)]?.values;
      return x !== undefined && (x.passes ?? 0) + (x.fails ?? 0) > 0;
    });
    if (seen.length === 0) {
      // Requests in the scenario, but by a client the declarations did not name.
      const any = metrics[subKey('success', s)]?.values;
      if (any && (any.passes ?? 0) + (any.fails ?? 0) > 0) seen.push(variants.length === 1 ? variants[0] : 'unknown client');
    }
    if (seen.length > 0) out.set(s, seen);
  }
  return out;
}

/** The mean of a counter per successful request of a scenario (tokens per request), or 0 when not reported. */
function perRequest(metrics: Record<string, SummaryMetricLike>, scenario: string, counter: 'inputTokens' | 'outputTokens'): number {
  const ok = metrics[subKey('success', scenario)]?.values.passes ?? 0;
  const n = metrics[subKey(counter, scenario)]?.values.count ?? 0;
  return ok > 0 ? Math.round(n / ok) : 0;
}

/**
 * The report's plan for a user script: one run per scenario that sent LLM requests. Its cell is its
 * load (VUs or rate), so two clients run side by side at the same load share a cell and are
 * compared; the cell's ISL and OSL are the measured mean prompt and output tokens per successful
 * request (the server's counts), not configured lengths.
 */
export function reportPlan(
  scenarios: Record<string, ScenarioOptions>,
  mode: WindowMode,
  metrics: Record<string, SummaryMetricLike>,
  byScenario: Map<string, string[]>,
): Plan {
  const cells = new Map<string, Cell>();
  const runs: Run[] = [];
  for (const [name, s] of Object.entries(scenarios)) {
    const variants = byScenario.get(name);
    if (!variants) continue;
    const load = loadOf(s);
    const id = loadId(load);
    const cell: Cell = { id, isl: perRequest(metrics, name, 'inputTokens'), osl: perRequest(metrics, name, 'outputTokens'), load };
    if (!cells.has(id)) cells.set(id, cell);
    runs.push({
      scenario: name,
      variant: variants.join('+'),
      vus: load.kind === 'vus' ? load.vus : (s.preAllocatedVUs ?? 1),
      cell,
      startMs: durationMs(s.startTime) ?? 0,
      durationMs: mode.kind === 'slices' ? mode.durationMs : 0,
      gracefulStopMs: durationMs(s.gracefulStop) ?? 30_000,
    });
  }
  const requests = runs.reduce((n, r) => {
    const v = metrics[subKey('success', r.scenario)]?.values;
    return n + (v?.passes ?? 0) + (v?.fails ?? 0);
  }, 0);
  return {
    cells: [...cells.values()],
    runs,
    slices: mode.kind === 'slices' ? mode.slices : 1,
    sliceMs: mode.kind === 'slices' ? mode.sliceMs : 1,
    totalMs: 0,
    requests: mode.kind === 'slices' ? null : requests,
  };
}

/** The metric names the library records, for the docs and the tests. */
export const RECORDED = [
  'e2e',
  'ttft',
  'itl',
  'itlPerChunk',
  'itlRule',
  'tpot',
  'outputTokens',
  'inputTokens',
  'cachedTokens',
  'cacheQueriedTokens',
  'requestTps',
  'success',
  'errors',
  'acceptance',
  'specVerifySteps',
  'specTokens',
  'draftTokens',
  'draftAccepted',
  'windowTokens',
  'windowRequests',
  'windowE2e',
  'windowTtft',
  'windowTtftRequests',
  'windowLastEnd',
  'runVus',
  'preflightFailed',
] as const satisfies ReadonlyArray<keyof typeof METRICS>;
