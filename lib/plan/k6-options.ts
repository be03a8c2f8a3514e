// The k6 `options` for a plan: one scenario per run (plus a server-metrics probe per run), the
// sub-metric declarations the report reads, and the SLO thresholds. Pure data, no k6 import.
import type { BenchConfig } from '../config/config-types';
import { summaryThresholds, summaryTrendStats } from './summary-keys';
import { probeScenario, steadyWindow, watchScenario, type Plan, type Run } from './matrix';
import { resetDue, resetInSetup, resetScenario, resetSlot } from './cache-reset-plan';

const PROBE_SLACK_MS = 20_000;

const ms = (n: number) => `${Math.round(n)}ms`;

function runTags(run: Run): Record<string, string> {
  const tags: Record<string, string> = { variant: run.variant, cell: run.cell.id, isl: String(run.cell.isl), osl: String(run.cell.osl) };
  if (run.cell.batch !== undefined) tags.batch = String(run.cell.batch);
  const load = run.cell.load;
  if (load.kind === 'vus') tags.concurrency = String(load.vus);
  else if (load.kind === 'rate') tags.rate = String(load.rate);
  else tags.trace_speed = String(load.speed);
  if (run.repeat !== undefined) tags.repeat = String(run.repeat);
  // IMAGES: the cell's images, so the series of cells with and without them can be told apart.
  const img = run.cell.images;
  if (img !== undefined) tags.images = `${img.count}x${img.width}x${img.height}`;
  return tags;
}

/** k6 rates are integers per timeUnit: 2.5/s becomes 25 per 10s. */
export function arrivalRate(rate: number): { rate: number; timeUnit: string } {
  for (const k of [1, 10, 100, 1000]) {
    const n = rate * k;
    if (Math.abs(n - Math.round(n)) < 1e-9) return { rate: Math.round(n), timeUnit: `${k}s` };
  }
  return { rate: Math.round(rate * 1000), timeUnit: '1000s' };
}

function loadScenario(run: Run, plan: Plan, cfg: BenchConfig): Record<string, unknown> {
  const common = { startTime: ms(run.startMs), gracefulStop: ms(run.gracefulStopMs), exec: 'measure', tags: runTags(run) };
  const load = run.cell.load;
  if (load.kind === 'trace') {
    // Iteration i is request i of the trace: a free VU takes it and sleeps until it is due (lib/k6/shared-trace.ts).
    return { executor: 'shared-iterations', vus: run.vus, iterations: load.requests, maxDuration: ms(run.durationMs), ...common };
  }
  if (load.kind === 'rate') {
    return {
      executor: 'constant-arrival-rate',
      ...arrivalRate(load.rate),
      duration: ms(run.durationMs),
      preAllocatedVUs: run.vus,
      maxVUs: cfg.maxVus,
      ...common,
    };
  }
  if (plan.requests !== null) {
    return { executor: 'shared-iterations', vus: load.vus, iterations: Math.max(plan.requests, load.vus), maxDuration: ms(run.durationMs), ...common };
  }
  return { executor: 'constant-vus', vus: load.vus, duration: ms(run.durationMs), ...common };
}

export function probesEnabled(plan: Plan, cfg: BenchConfig): boolean {
  // GPU telemetry rides on the probe too, whatever SERVER_METRICS says.
  return (cfg.serverMetrics !== 'off' || cfg.variants.some((v) => (v.gpuMetricsUrl ?? null) !== null)) && plan.requests === null;
}

/**
 * Preflight's worst case: health wait, the one-token check (the other layers probed beside it), its retries
 * after a transient failure (a PREFLIGHT_TIMEOUT each), then the warm-ups with their retries.
 */
export function setupTimeoutMs(cfg: Pick<BenchConfig, 'preflightTimeoutMs' | 'warmupRequests' | 'requestTimeoutMs' | 'variants'>): number {
  const perVariant = cfg.preflightTimeoutMs * 3 + 30_000 + cfg.warmupRequests * (4 * cfg.requestTimeoutMs + 3_500);
  return perVariant * cfg.variants.length + 30_000;
}

export function k6Options(plan: Plan, cfg: BenchConfig): Record<string, unknown> {
  const scenarios: Record<string, unknown> = {};
  const probes = probesEnabled(plan, cfg);
  const w = steadyWindow(plan);
  for (const run of plan.runs) {
    scenarios[run.scenario] = loadScenario(run, plan, cfg);
    if (probes) {
      scenarios[probeScenario(run)] = {
        executor: 'per-vu-iterations',
        vus: 1,
        iterations: 1,
        startTime: ms(run.startMs + w.fromMs),
        maxDuration: ms(w.toMs - w.fromMs + PROBE_SLACK_MS),
        gracefulStop: '0s',
        exec: 'probe',
        tags: runTags(run),
      };
    }
    if (probes && cfg.saturationStop) {
      // The whole run, scraping about once a second: saturation is seen as it happens (lib/k6/watch.ts).
      scenarios[watchScenario(run)] = {
        executor: 'per-vu-iterations',
        vus: 1,
        iterations: 1,
        startTime: ms(run.startMs),
        maxDuration: ms(run.durationMs + PROBE_SLACK_MS),
        gracefulStop: '0s',
        exec: 'watch',
        tags: runTags(run),
      };
    }
  }
  for (const run of resetDue(plan, cfg.cacheReset)) {
    if (resetInSetup(run)) continue;
    // In the gap before the run (lib/plan/cache-reset-plan.ts); the probe's exec function makes it.
    const slot = resetSlot(run);
    scenarios[resetScenario(run)] = {
      executor: 'per-vu-iterations',
      vus: 1,
      iterations: 1,
      startTime: ms(slot.startMs),
      maxDuration: ms(slot.budgetMs + PROBE_SLACK_MS),
      gracefulStop: '0s',
      exec: 'probe',
      tags: runTags(run),
    };
  }
  return {
    scenarios,
    thresholds: summaryThresholds(plan, cfg, probes, { shareOneRun: true }),
    // A partial result carries each trend's quantile grid, so instances' percentiles can be merged.
    summaryTrendStats: summaryTrendStats(cfg),
    tags: { testid: cfg.runId },
    setupTimeout: ms(setupTimeoutMs(cfg)),
    teardownTimeout: '30s',
  };
}
