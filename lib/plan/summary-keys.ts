// k6 puts only whole metrics and threshold-named sub-metrics into the end-of-test summary. Each
// run's figures are therefore declared as sub-metrics with always-true thresholds, by the same
// key function that the report later reads them with.
import { GPU_ENERGY_SOURCES, GPU_EXPORTERS, GPU_NOT_MEASURED } from '../server-metrics/gpu';
import { SATURATION_RULES } from '../server-metrics/saturation';
import type { BenchConfig } from '../config/config-types';
import { ERROR_CLASSES } from '../dialects/types';
import { METRICS, type MetricKey, type MetricType } from '../metrics/catalog';
import { ITL_RULES } from '../metrics/timing';
import {
  BUCKET_TAG,
  BUCKETS_OF,
  countedInBuckets,
  SERVER_POSITIONS,
  SHORT_CAUSES,
  SPEC_ACCEPTED_BINS,
  specAcceptedLabel,
  type BucketCounter,
} from '../metrics/samples';
import { BUCKETS, labelOf } from '../stats/log-buckets';
import { GRID_STATS } from '../stats/quantile-merge';
import { probeScenario, watchScenario, type Plan } from './matrix';
import { CACHE_RESET_OUTCOMES, resetDue, type CacheResetOutcome } from './cache-reset-plan';
import { PREFLIGHT_REASONS } from '../preflight/reasons';

export function subKey(metric: MetricKey | string, scenario: string, extra?: Record<string, string>): string {
  const name = metric in METRICS ? METRICS[metric as MetricKey].name : metric;
  let sel = `scenario:${scenario}`;
  if (extra) for (const [k, v] of Object.entries(extra)) sel += `,${k}:${v}`;
  return `${name}{${sel}}`;
}

/** A log bucket's count of one run (ITL_SAMPLES=histogram). */
export function bucketKey(metric: BucketCounter, scenario: string, bucket: number): string {
  return subKey(metric, scenario, { [BUCKET_TAG[metric]]: labelOf(bucket) });
}

/** The threshold that fails a run in which a VU declared its variant down. */
export const VARIANT_UP = 'count==0';

/** Always true for the non-negative values these metrics hold; only there to make k6 keep them. */
export const KEEP: Record<MetricType, string> = {
  counter: 'count>=0',
  rate: 'rate>=0',
  trend: 'min>=0',
};

const PER_RUN: MetricKey[] = [
  'e2e',
  'ttft',
  'ttst',
  'itl',
  'itlPerChunk',
  'tpot',
  'requestTps',
  'acceptance',
  'outputTokens',
  'inputTokens',
  'cachedTokens',
  'cacheQueriedTokens',
  'requestedTokens',
  'shortReplies',
  'success',
  'errors',
  'specVerifySteps',
  'specTokens',
  'draftTokens',
  'draftAccepted',
  'reasoningRequests',
  'ttftReasoning',
  'ttftAnswer',
  'reasoningTokens',
  'answerTokens',
  'ttftTool',
  'toolCallRequests',
  'toolCallTokens',
  'structuredValid',
  'good',
  'windowLastEnd',
  'variantDown',
  'clientGap',
  'scheduleLag',
  'runVus',
  'newConnection',
  'connect',
  'tlsHandshake',
];
/** A pooling cell's own figures (embeddings, rerank), per run and per slice: declared only where a cell has a batch. */
const POOL_PER_RUN: MetricKey[] = ['poolItems', 'poolDimension', 'poolUsageReplies'];
const POOL_PER_SLICE: MetricKey[] = ['windowItems', 'windowPoolTokens'];
export type BucketRule = Pick<BenchConfig, 'itlSamples'> & { slo: Pick<BenchConfig['slo'], 'ttftOf'> };

/** The metrics of BUCKETS_OF a run counts in buckets (ITL_SAMPLES=histogram): none otherwise. */
export function bucketedMetrics(cfg: BucketRule): Array<keyof typeof BUCKETS_OF> {
  return (Object.keys(BUCKETS_OF) as Array<keyof typeof BUCKETS_OF>).filter((m) => countedInBuckets(m, cfg.itlSamples === 'histogram', cfg.slo));
}

/** The metrics a run's sub-metric is declared for: not those counted in buckets instead. */
function perRunMetrics(cfg: BucketRule): MetricKey[] {
  const bucketed: MetricKey[] = bucketedMetrics(cfg);
  return PER_RUN.filter((m) => !bucketed.includes(m));
}

/** Of those, the ones that keep every value (k6's trend sinks): a sub-metric keeps each a second time. */
export function perRunTrends(cfg: BucketRule): MetricKey[] {
  return perRunMetrics(cfg).filter((m) => METRICS[m].type === 'trend');
}

/**
 * A plan of one run shares its trends with the whole metrics: only the run's VUs add to them
 * (probes, the watch and setup record other metrics), so its run's trend sub-metrics would hold
 * the same values twice, and k6 keeps every value of a trend until the test ends. Left
 * undeclared, they are filled from the whole metrics where a summary is made
 * (lib/report/run-trends.ts). Over a soak that was 6 of the 16 values a request left in k6
 * (docs/durability.md).
 */
export function runTrendsShared(plan: Pick<Plan, 'runs'>): boolean {
  return plan.runs.length === 1;
}

/** The trend statistics a benchmark's summary keeps (k6's summaryTrendStats): the quantile grid too for a partial result. */
export function summaryTrendStats(cfg: Pick<BenchConfig, 'partial'>): string[] {
  return cfg.partial ? [...TREND_STATS, ...GRID_STATS] : TREND_STATS;
}

const PER_SLICE: MetricKey[] = ['windowTokens', 'windowRequests', 'windowE2e', 'windowTtft', 'windowTtftRequests', 'specWindowSteps', 'specWindowTokens'];
const PER_PROBE: MetricKey[] = [
  'serverTtft',
  'serverItl',
  'serverE2e',
  'serverQueue',
  'serverAcceptance',
  'serverSpecSteps',
  'serverThroughput',
  'serverTimePerToken',
  'serverCacheHits',
  'serverCacheQueries',
];
const PER_GPU_PROBE: MetricKey[] = ['gpuPower', 'gpuUtilization', 'gpuMemoryUsed'];

/** A run's GPU figures (GPU_METRICS_URL), kept under its probe scenario. */
function keepGpu(keep: (key: string, m: MetricKey) => void, probe: string, slices: number): void {
  for (const m of PER_GPU_PROBE) keep(subKey(m, probe), m);
  for (let s = 0; s < slices; s++) keep(subKey('gpuEnergy', probe, { slice: String(s) }), 'gpuEnergy');
  for (const gpu_exporter of GPU_EXPORTERS)
    for (const gpu_energy_source of GPU_ENERGY_SOURCES) keep(subKey('gpuCount', probe, { gpu_exporter, gpu_energy_source }), 'gpuCount');
  for (const gpu_reason of Object.keys(GPU_NOT_MEASURED)) keep(subKey('gpuNotMeasured', probe, { gpu_reason }), 'gpuNotMeasured');
}

export function preflightKey(variant: string, reason: string): string {
  return `${METRICS.preflightFailed.name}{variant:${variant},reason:${reason}}`;
}

export function summaryThresholds(
  plan: Plan,
  cfg: Pick<BenchConfig, 'slo' | 'serverMetrics' | 'saturationStop' | 'itlSamples'> & Partial<Pick<BenchConfig, 'variants' | 'cacheReset'>>,
  withProbes: boolean,
  /** shareOneRun: a one-run plan declares no trend sub-metric of its run (runTrendsShared); the benchmarks, not the library. */
  opts: { shareOneRun?: boolean } = {},
): Record<string, string[]> {
  const variants = [...new Set(plan.runs.map((r) => r.variant))];
  const th: Record<string, string[]> = {};
  const keep = (key: string, m: MetricKey) => (th[key] = [KEEP[METRICS[m].type]]);
  const buckets = cfg.itlSamples === 'histogram';
  const bucketed = bucketedMetrics(cfg);
  const shared = opts.shareOneRun === true && runTrendsShared(plan);
  const perRun = perRunMetrics(cfg).filter((m) => !(shared && METRICS[m].type === 'trend'));
  // IMAGES: every run's prompt counts, the report's image tokens being a difference between cells.
  const imaged = plan.runs.some((r) => r.cell?.images !== undefined);
  for (const run of plan.runs) {
    for (const m of perRun) keep(subKey(m, run.scenario), m);
    if (imaged) keep(subKey('promptLength', run.scenario), 'promptLength');
    if (run.cell?.batch !== undefined) {
      for (const m of POOL_PER_RUN) keep(subKey(m, run.scenario), m);
      for (let k = 0; k < plan.slices; k++) for (const m of POOL_PER_SLICE) keep(subKey(m, run.scenario, { slice: String(k) }), m);
    }
    for (const m of bucketed) for (let i = 0; i < BUCKETS; i++) keep(bucketKey(BUCKETS_OF[m], run.scenario, i), BUCKETS_OF[m]);
    for (const cls of ERROR_CLASSES) keep(subKey('errors', run.scenario, { error_class: cls }), 'errors');
    for (const rule of ITL_RULES) keep(subKey('itlRule', run.scenario, { itl_rule: rule }), 'itlRule');
    for (const cause of SHORT_CAUSES) keep(subKey('shortReplies', run.scenario, { finish_reason: cause }), 'shortReplies');
    for (let j = 0; j < SPEC_ACCEPTED_BINS; j++) keep(subKey('specStepsByAccepted', run.scenario, { accepted: specAcceptedLabel(j) }), 'specStepsByAccepted');
    if (cfg.saturationStop) {
      const w = watchScenario(run);
      for (const rule of SATURATION_RULES) keep(subKey('saturated', w, { saturation_rule: rule }), 'saturated');
      keep(subKey('saturationAfter', w), 'saturationAfter');
      keep(subKey('saturationWaiting', w), 'saturationWaiting');
    }
    for (let s = 0; s < plan.slices; s++) for (const m of PER_SLICE) keep(subKey(m, run.scenario, { slice: String(s) }), m);
    th[subKey('dropped_iterations', run.scenario)] = ['count>=0'];
    if (withProbes) for (const m of PER_PROBE) keep(subKey(m, probeScenario(run)), m);
    if (withProbes)
      for (let p = 1; p <= SERVER_POSITIONS; p++)
        keep(subKey('serverAcceptedByPosition', probeScenario(run), { position: String(p) }), 'serverAcceptedByPosition');
    if (withProbes && (cfg.variants ?? []).some((v) => v.variant === run.variant && (v.gpuMetricsUrl ?? null) !== null))
      keepGpu(keep, probeScenario(run), plan.slices);
  }
  for (const run of resetDue(plan, cfg.cacheReset ?? 'never')) for (const o of CACHE_RESET_OUTCOMES) keep(cacheResetKey(run.scenario, o), 'cacheReset');
  for (const cls of ERROR_CLASSES) th[`${METRICS.errors.name}{error_class:${cls}}`] = ['count>=0'];
  for (const variant of variants) for (const reason of Object.keys(PREFLIGHT_REASONS)) th[preflightKey(variant, reason)] = ['count>=0'];
  // The SLOs: real thresholds, whose breach makes k6 exit 99.
  const slo = cfg.slo;
  th[METRICS.success.name] = [`rate>=${round(1 - slo.errorRate)}`];
  // Per variant too: one deployment failing must not hide behind the other's successes.
  if (variants.length > 1) for (const variant of variants) th[`${METRICS.success.name}{variant:${variant}}`] = [`rate>=${round(1 - slo.errorRate)}`];
  th[METRICS.variantDown.name] = [VARIANT_UP];
  if (slo.e2eP99Ms !== null) th[METRICS.e2e.name] = [`p(99)<=${slo.e2eP99Ms}`];
  if (slo.ttftP99Ms !== null) th[METRICS[slo.ttftOf === 'answer' ? 'ttftAnswer' : 'ttft'].name] = [`p(99)<=${slo.ttftP99Ms}`];
  // Under ITL_SAMPLES=histogram llm_itl has no samples (a threshold on it would pass, empty): the
  // SLO is the share of tokens within the limit, at least 99 %.
  if (slo.itlP99Ms !== null) {
    if (buckets) th[METRICS.itlWithinSlo.name] = ['rate>=0.99'];
    else th[METRICS.itl.name] = [`p(99)<=${slo.itlP99Ms}`];
  }
  return th;
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** The trend statistics the summary keeps (k6 summaryTrendStats); summaryTrendStats adds a partial's grid. */
export const TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'];

/** The summary key of a run's reset outcome (tagged by the run, since setup's samples have no scenario). */
export function cacheResetKey(runScenario: string, outcome: CacheResetOutcome): string {
  return `${METRICS.cacheReset.name}{cache_run:${runScenario},outcome:${outcome}}`;
}
