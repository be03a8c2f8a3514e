// The server-metrics probe of a run: its own k6 scenario scrapes the variant's /metrics at the
// start and end of the run's steady window and records the window's figures; where the variant
// has GPU_METRICS_URL, it scrapes the GPU exporter over the same window, at each steady slice's
// bounds and about once a second between, and records the GPUs' energy per slice. The same exec
// function makes a run's prefix-cache reset in the gap before it (CACHE_RESET, its reset_ scenario).
import exec from 'k6/execution';
import { steadyWindow } from '../plan/matrix';
import { resetScenario, resetSlot } from '../plan/cache-reset-plan';
import type { GpuOutcome } from '../server-metrics/gpu';
import type { SetupData } from '../variants';
import type { Bench } from './lifecycle/each-vu-bench';
import { k6Port } from './k6-http-port';
import { abortIfPreflightFailed } from './preflight-gate';
import { clearAdapterTag } from './adapter-tag';
import { SERVER_POSITIONS } from '../metrics/samples';

// The scraping code (and the engines' metric names) is evaluated on the first call, in the VUs
// that probe alone: k6 evaluates a script in every VU (docs/fidelity.md, "What a VU holds").
declare function require(id: string): unknown;
const probeModule = () => require('../server-metrics/probe') as typeof import('../server-metrics/probe');
const gpuModule = () => require('../server-metrics/gpu') as typeof import('../server-metrics/gpu');
// The reset code brings the engine profiles (their reset routes): evaluated in the reset scenarios alone.
const resetModule = () => require('./run-cache-reset') as typeof import('./run-cache-reset');

type ServerKey =
  | 'serverTtft'
  | 'serverItl'
  | 'serverE2e'
  | 'serverQueue'
  | 'serverAcceptance'
  | 'serverSpecSteps'
  | 'serverThroughput'
  | 'serverTimePerToken'
  | 'serverCacheHits'
  | 'serverCacheQueries';

export function makeProbe(b: Bench): (data: SetupData) => void {
  const port = k6Port('probe');
  return function probe(data: SetupData): void {
    abortIfPreflightFailed(data);
    b.source.clearTags();
    clearAdapterTag();
    const entry = b.runs.get(exec.scenario.name);
    if (!entry) return;
    if (exec.scenario.name === resetScenario(entry.run)) return resetModule().resetBeforeRun(b, data, entry.run, port, resetSlot(entry.run).budgetMs);
    const run = entry.run;
    const variant = b.variant(data, run.variant);
    const gpuUrl = b.cfg.variants.find((v) => v.variant === run.variant)?.gpuMetricsUrl ?? null;
    const w = steadyWindow(b.plan);
    const windowMs = w.toMs - w.fromMs;
    const startMs = exec.scenario.startTime;
    const slices = Math.round(windowMs / b.plan.sliceMs);
    // The GPU scrapes keep to the slices' own bounds (the window's start, not after the /metrics scrape): the tokens they are divided by are counted on those.
    const gpu = gpuUrl === null ? null : () => recordGpu(b, run.scenario, gpuModule().probeGpu(port, gpuUrl, startMs, slices, b.plan.sliceMs));
    if (variant.metrics === null) {
      gpu?.();
      return;
    }
    const out = probeModule().probeWindow(
      port,
      { url: variant.url, engine: variant.metrics, headers: variant.probeHeaders },
      startMs + windowMs,
      windowMs,
      gpu ?? undefined,
    );
    if ('notMeasured' in out) {
      console.warn(`${run.scenario}: server-side figures not measured: ${out.notMeasured}`);
      return;
    }
    const f = out.figures;
    const add = (key: ServerKey, v: number | null) => {
      if (v !== null && Number.isFinite(v)) b.metrics[key].add(v);
    };
    add('serverTtft', f.ttftMeanMs);
    add('serverItl', f.itlMeanMs);
    add('serverE2e', f.e2eMeanMs);
    add('serverQueue', f.queueMeanMs);
    add('serverAcceptance', f.acceptanceLength);
    if (f.acceptedByPosition !== null) {
      add('serverSpecSteps', f.acceptedByPosition.steps);
      const kept = f.acceptedByPosition.accepted.slice(0, SERVER_POSITIONS);
      kept.forEach((n, i) => b.metrics.serverAcceptedByPosition.add(n, { position: String(i + 1) }));
    }
    add('serverThroughput', f.outputTokensPerSecond);
    add('serverTimePerToken', f.timePerTokenMs);
    if (f.prefixCache !== null) {
      add('serverCacheHits', f.prefixCache.hitTokens);
      add('serverCacheQueries', f.prefixCache.queryTokens);
    }
  };
}

/** The GPU figures as k6 metrics (tagged by the probe scenario), or why there are none. */
function recordGpu(b: Bench, scenario: string, out: GpuOutcome): void {
  if ('notMeasured' in out) {
    // The URL is not printed: it may carry a token in its query.
    console.warn(`${scenario}: GPU figures not measured: ${out.detail}`);
    b.metrics.gpuNotMeasured.add(1, { gpu_reason: out.notMeasured });
    return;
  }
  const g = out.window;
  const first = b.plan.slices > 1 ? 1 : 0;
  g.sliceJoules.forEach((j, i) => b.metrics.gpuEnergy.add(j, { slice: String(first + i) }));
  b.metrics.gpuPower.add(g.meanPowerW);
  if (g.meanUtilizationPct !== null) b.metrics.gpuUtilization.add(g.meanUtilizationPct);
  if (g.meanMemoryUsedMiB !== null) b.metrics.gpuMemoryUsed.add(g.meanMemoryUsedMiB);
  b.metrics.gpuCount.add(g.gpus, { gpu_exporter: g.exporter, gpu_energy_source: g.source });
}
