// Builds the typed configuration of a benchmark from the environment (and an optional JSON file).
import { poolingConfig } from './pooling-config';
import { imagesConfig } from './images-config';
import { structuredConfig } from './structured-config';
import { DIALECT_NAMES, isDialectName, type DialectSetting } from '../dialects/index';
import { ConfigError, quote, baseUrl, bool, duration, intList, invalid, label, number, oneOf, pageUrl, positiveInt } from './parse';
import { RENAMED_VARIABLES, VARIABLES } from './variables';
import { BENCHMARKS, slotsOf, type BenchmarkSpec, type VariantSlot } from '../benchmarks';
import { datasetConfig } from './dataset-config';
import { arrivalsConfig, traceConfig } from './trace-config';
import { parseAbDiffers } from './ab-differs';
import { parseAdapters } from './adapters-config';

export type { Env, VariantConfig, Slo, BenchConfig } from './config-types';
export type { TransportName as Transport } from '../transports';
import { TRANSPORTS, TRANSPORT_NAMES } from '../transports';
import { CACHE_RESET_MODES, type BenchConfig, type Env, type GpuCost, type VariantConfig } from './config-types';

export { TOKEN_ID_FLOOR } from './config-types';
import { TOKEN_ID_FLOOR } from './config-types';

const KNOWN = new Set([...VARIABLES.map((v) => v.name), ...Object.keys(RENAMED_VARIABLES)]);
/** A renamed variable's old name (new → old), still read until the next release (a settings record of the last one holds it). */
const OLD_NAME: Record<string, string> = Object.fromEntries(Object.entries(RENAMED_VARIABLES).map(([old, now]) => [now, old]));

/** Merges a CONFIG file under the environment: a variable set in the environment wins. */
export function mergeFile(env: Env, file: unknown, path: string): Env {
  if (file === null || typeof file !== 'object' || Array.isArray(file)) {
    throw new ConfigError(`CONFIG=${quote(path)}: the file must hold one JSON object whose keys are variable names.`);
  }
  const out: Env = {};
  for (const [k, v] of Object.entries(file as Record<string, unknown>)) {
    if (!KNOWN.has(k)) {
      throw new ConfigError(`CONFIG=${quote(path)}: unknown key '${k}'. Known keys: ${[...KNOWN].filter((n) => n !== 'CONFIG').join(', ')}.`);
    }
    if (Array.isArray(v)) out[k] = v.join(',');
    else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
    else throw new ConfigError(`CONFIG=${quote(path)}: key '${k}' must be a string, number, boolean or list.`);
  }
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') out[k] = v;
  return out;
}

function get(env: Env, name: string): string {
  const v = env[name] || env[OLD_NAME[name] ?? ''];
  if (v !== undefined && v.trim() !== '') return v;
  return VARIABLES.find((x) => x.name === name)?.default ?? '';
}

function required(env: Env, name: string, example: string): string {
  const v = get(env, name);
  if (v === '') throw new ConfigError(`${name} is not set: ${example}.`);
  return v;
}

function dialectOf(name: string, raw: string): DialectSetting {
  const s = raw.trim();
  if (s === 'auto' || isDialectName(s)) return s;
  throw invalid(name, raw, `one of auto, ${DIALECT_NAMES.join(', ')}`);
}

function variantConfig(env: Env, slot: VariantSlot): VariantConfig {
  const { variant: label, prefix } = slot;
  const vars = prefix
    ? { url: `${prefix}_URL`, dialect: `${prefix}_DIALECT`, model: `${prefix}_MODEL`, apiKey: `${prefix}_API_KEY` }
    : { url: 'TARGET_URL', dialect: 'DIALECT', model: 'MODEL', apiKey: 'API_KEY' };
  return {
    variant: label,
    url: baseUrl(
      vars.url,
      required(env, vars.url, `set it to the base URL of the ${prefix ? label + ' ' : ''}server, e.g. ${vars.url}=http://127.0.0.1:30000`),
    ),
    dialect: dialectOf(vars.dialect, get(env, vars.dialect) || 'auto'),
    model: get(env, vars.model).trim(),
    apiKey: (prefix ? get(env, vars.apiKey) || get(env, 'API_KEY') : get(env, 'API_KEY')).trim(),
    cost: gpuCost(env, prefix),
    gpuMetricsUrl: gpuMetricsUrl(env, prefix),
    vars,
  };
}

/** GPU_HOUR_COST and GPUS, a variant's own <PREFIX>_ variable first; each checked where it was set. */
export function gpuCost(env: Env, prefix: string): GpuCost {
  const pick = (name: string): [string, string] => {
    const own = prefix ? get(env, `${prefix}_${name}`) : '';
    return own.trim() !== '' ? [`${prefix}_${name}`, own] : [name, get(env, name)];
  };
  const [costName, costRaw] = pick('GPU_HOUR_COST');
  const [gpusName, gpusRaw] = pick('GPUS');
  let gpuHourCost: number | null = null;
  if (costRaw.trim() !== '') {
    gpuHourCost = Number(costRaw.trim());
    if (!Number.isFinite(gpuHourCost) || gpuHourCost <= 0 || gpuHourCost > 1_000_000)
      throw invalid(costName, costRaw, 'dollars per GPU-hour, a number above 0 (e.g. 2.49), at most 1000000');
  }
  return { gpuHourCost, gpus: gpusRaw.trim() === '' ? null : positiveInt(gpusName, gpusRaw, { min: 1, max: 100_000 }) };
}

/** GPU_METRICS_URL, a variant's own <PREFIX>_GPU_METRICS_URL first: a full URL, the exporter's page. */
function gpuMetricsUrl(env: Env, prefix: string): string | null {
  const own = prefix ? get(env, `${prefix}_GPU_METRICS_URL`) : '';
  const [name, raw] = own.trim() !== '' ? [`${prefix}_GPU_METRICS_URL`, own] : ['GPU_METRICS_URL', get(env, 'GPU_METRICS_URL')];
  return raw.trim() === '' ? null : pageUrl(name, raw);
}

function optionalDuration(env: Env, name: string): number | null {
  const raw = get(env, name);
  return raw === '' ? null : duration(name, raw, { minMs: 1 });
}

/** START_SPREAD=auto: a quarter of a slice, at most this. */
export const AUTO_SPREAD_MAX_MS = 1000;

/**
 * START_SPREAD in ms: the span over which a closed-loop run's VUs send their first requests.
 * auto: a quarter of the first slice (at most AUTO_SPREAD_MAX_MS) when that slice is left out of
 * the throughput (SLICES > 1, not REQUESTS), else 0. Given: shorter than a slice, so every VU is
 * sending before the steady window opens.
 */
function startSpread(env: Env, durationMs: number, slices: number, requests: boolean): number {
  const raw = get(env, 'START_SPREAD').trim();
  const sliceMs = durationMs / slices;
  if (raw === 'auto') return slices > 1 && !requests ? Math.min(AUTO_SPREAD_MAX_MS, Math.floor(sliceMs / 4)) : 0;
  const ms = duration('START_SPREAD', raw, { minMs: 0 });
  if (ms > 0 && requests)
    throw new ConfigError(`START_SPREAD=${raw} with REQUESTS: a run of a fixed number of requests starts its VUs at once (set START_SPREAD=0 or auto).`);
  if (ms >= sliceMs) {
    throw new ConfigError(
      `START_SPREAD=${raw} is not shorter than a slice (DURATION ÷ SLICES = ${sliceMs} ms): every VU must be sending before the steady window opens.`,
    );
  }
  return ms;
}

/** ITL_SAMPLES=auto counts ITL in buckets for a plan of at most this many runs… */
export const AUTO_HISTOGRAM_MAX_RUNS = 2;
/** …that streams this long or longer, all runs together. */
export const AUTO_HISTOGRAM_MIN_MS = 10 * 60_000;

/**
 * ITL_SAMPLES: auto is histogram for a long plan of one or two runs (a soak, an A/B soak), where k6
 * would keep every token's ITL until the end (docs/durability.md), and every otherwise: a matrix
 * keeps exact ITL, and its runs would need 580 bucket thresholds each. A trace replay or a run of
 * REQUESTS ends when its requests do, and a transport that times no events has no ITL: auto keeps
 * every there.
 */
function itlSamples(env: Env, cfg: BenchConfig, load: BenchmarkSpec['load']): 'every' | 'histogram' {
  const raw = oneOf('ITL_SAMPLES', get(env, 'ITL_SAMPLES'), ['auto', 'every', 'histogram'] as const);
  if (raw !== 'auto') return raw;
  if (cfg.trace !== null || cfg.requests !== null || !TRANSPORTS[cfg.transport].timesEvents) return 'every';
  // The plan's runs (lib/plan/matrix.ts, a layer above this one): each variant in each cell, each DURATION long.
  const runs =
    cfg.variants.length * cfg.isl.length * cfg.osl.length * (cfg.images?.length ?? 1) * (load === 'rate' ? cfg.rates.length : cfg.concurrency.length);
  return runs <= AUTO_HISTOGRAM_MAX_RUNS && runs * cfg.durationMs >= AUTO_HISTOGRAM_MIN_MS ? 'histogram' : 'every';
}

/** A UTC stamp like 20261129-201500 for default run ids. */
export function stamp(d: Date): string {
  const iso = d.toISOString();
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}`;
}

export function loadConfig(
  spec: Pick<BenchmarkSpec, 'name' | 'slots' | 'variants' | 'trace' | 'escalates'> & Partial<Pick<BenchmarkSpec, 'load' | 'pooling'>>,
  env: Env,
  now: Date,
): BenchConfig {
  const benchmark = spec.name;
  const variants = slotsOf(spec, env).map((slot) => variantConfig(env, slot));
  const baselineRaw = spec.variants ? get(env, 'BASELINE_VARIANT').trim() : '';
  const baseline = baselineRaw === '' ? variants[0].variant : baselineRaw;
  if (!variants.some((v) => v.variant === baseline)) {
    throw new ConfigError(`BASELINE_VARIANT=${baselineRaw} is not one of the variants (${variants.map((v) => v.variant).join(', ')}).`);
  }
  for (let i = 1; i < variants.length; i++) {
    const same = variants.slice(0, i).find((v) => v.url === variants[i].url);
    if (same) throw new ConfigError(`${same.vars.url} and ${variants[i].vars.url} are the same (${same.url}): a comparison needs distinct deployments.`);
  }
  const requestTimeoutMs = duration('REQUEST_TIMEOUT', get(env, 'REQUEST_TIMEOUT'), { minMs: 100, maxMs: 3_600_000 });
  const graceRaw = get(env, 'GRACEFUL_STOP');
  const vocabSize = positiveInt('VOCAB_SIZE', get(env, 'VOCAB_SIZE'), { min: TOKEN_ID_FLOOR + 1 });
  const isl = intList('ISL', get(env, 'ISL'), { min: 1, max: 10_000_000 });
  const sharedPrefix = positiveInt('SHARED_PREFIX', get(env, 'SHARED_PREFIX'), { min: 0 });
  if (sharedPrefix > Math.min(...isl)) {
    throw new ConfigError(`SHARED_PREFIX=${sharedPrefix} is longer than the shortest ISL (${Math.min(...isl)}): it must be at most that.`);
  }
  const requestsRaw = get(env, 'REQUESTS');
  const runIdRaw = get(env, 'RUN_ID');
  const cfg: BenchConfig = {
    benchmark,
    runId: runIdRaw === '' ? `${benchmark}-${stamp(now)}` : label('RUN_ID', runIdRaw),
    resultsDir: get(env, 'RESULTS_DIR').replace(/\/+$/, '') || '.',
    variants,
    baseline,
    abDiffers: spec.slots.length > 1 || spec.variants ? parseAbDiffers(get(env, 'AB_DIFFERS')) : [],
    isl,
    osl: intList('OSL', get(env, 'OSL'), { min: 1, max: 1_000_000 }),
    concurrency: intList('CONCURRENCY', get(env, 'CONCURRENCY'), { min: 1, max: 100_000 }),
    rates: numberList('RATE', get(env, 'RATE')),
    maxVus: positiveInt('MAX_VUS', get(env, 'MAX_VUS'), { min: 1, max: 100_000 }),
    durationMs: duration('DURATION', get(env, 'DURATION'), { minMs: 1000 }),
    requests: requestsRaw === '' ? null : positiveInt('REQUESTS', requestsRaw),
    transport: oneOf('TRANSPORT', get(env, 'TRANSPORT'), TRANSPORT_NAMES),
    stream: bool('STREAM', get(env, 'STREAM')),
    seed: positiveInt('SEED', get(env, 'SEED'), { min: 0, max: 2 ** 32 - 1 }),
    requestTimeoutMs,
    gracefulStopMs: graceRaw === '' ? requestTimeoutMs : duration('GRACEFUL_STOP', graceRaw, { minMs: 0 }),
    variantDownAfterMs: duration('VARIANT_DOWN_AFTER', get(env, 'VARIANT_DOWN_AFTER'), { minMs: 1000, maxMs: 86_400_000 }),
    preflightTimeoutMs: duration('PREFLIGHT_TIMEOUT', get(env, 'PREFLIGHT_TIMEOUT'), { minMs: 100, maxMs: 600_000 }),
    warmupRequests: positiveInt('WARMUP_REQUESTS', get(env, 'WARMUP_REQUESTS'), { min: 0, max: 1000 }),
    promptPool: positiveInt('PROMPT_POOL', get(env, 'PROMPT_POOL'), { min: 1, max: 100_000 }),
    vocabSize,
    sharedPrefix,
    islSpread: number('ISL_SPREAD', get(env, 'ISL_SPREAD'), 0, 0.99),
    temperature: number('TEMPERATURE', get(env, 'TEMPERATURE'), 0, 10),
    ignoreEos: bool('IGNORE_EOS', get(env, 'IGNORE_EOS')),
    slices: positiveInt('SLICES', get(env, 'SLICES'), { min: 1, max: 60 }),
    repeats: positiveInt('REPEATS', get(env, 'REPEATS'), { min: 1, max: 20 }),
    startSpreadMs: 0,
    latencyWindow: oneOf('LATENCY_WINDOW', get(env, 'LATENCY_WINDOW'), ['all', 'steady'] as const),
    itlSamples: 'every',
    serverMetrics: oneOf('SERVER_METRICS', get(env, 'SERVER_METRICS'), ['auto', 'on', 'off'] as const),
    cacheReset: oneOf('CACHE_RESET', get(env, 'CACHE_RESET'), CACHE_RESET_MODES),
    partial: bool('PARTIAL', get(env, 'PARTIAL')),
    slo: {
      ttftP99Ms: optionalDuration(env, 'SLO_TTFT_P99'),
      ttftOf: oneOf('SLO_TTFT_OF', get(env, 'SLO_TTFT_OF'), ['first', 'answer'] as const),
      itlP99Ms: optionalDuration(env, 'SLO_ITL_P99'),
      e2eP99Ms: optionalDuration(env, 'SLO_E2E_P99'),
      errorRate: number('SLO_ERROR_RATE', get(env, 'SLO_ERROR_RATE'), 0, 1),
    },
    dataset: datasetConfig(
      (name) => get(env, name),
      (name) => env[name] !== undefined && env[name]?.trim() !== '',
    ),
    trace: null,
    thinkTags: bool('THINK_TAGS', get(env, 'THINK_TAGS')),
    adapters: parseAdapters(get(env, 'ADAPTERS')),
    saturationStop: spec.escalates === true && bool('SATURATION_STOP', get(env, 'SATURATION_STOP')),
  };
  if (spec.trace) cfg.trace = replayOf(env, cfg, spec.load === 'rate');
  else if (get(env, 'TRACE').trim() !== '') throw traceNotHere(benchmark);
  if (spec.pooling) cfg.pooling = poolingConfig(spec.pooling, get(env, 'BATCH'), cfg);
  const structured = structuredConfig((name) => get(env, name), cfg);
  if (structured !== null) cfg.structured = structured;
  const images = imagesConfig(get(env, 'IMAGES'), cfg);
  if (images !== null) cfg.images = images;
  if (cfg.slo.ttftOf !== 'first' && cfg.slo.ttftP99Ms === null)
    throw new ConfigError(`SLO_TTFT_OF=${cfg.slo.ttftOf} says which first token SLO_TTFT_P99 holds: set SLO_TTFT_P99 too.`);
  if (!TRANSPORTS[cfg.transport].timesEvents && (cfg.slo.ttftP99Ms !== null || cfg.slo.itlP99Ms !== null)) {
    const timing = TRANSPORT_NAMES.filter((n) => TRANSPORTS[n].timesEvents).join(' or ');
    throw new ConfigError(`SLO_TTFT_P99 and SLO_ITL_P99 need TRANSPORT=${timing}: the ${cfg.transport} transport cannot measure TTFT or ITL.`);
  }
  cfg.startSpreadMs = startSpread(env, cfg.durationMs, cfg.slices, cfg.requests !== null);
  cfg.itlSamples = itlSamples(env, cfg, spec.load ?? 'vus');
  return cfg;
}

/** TRACE set for a benchmark that replays none. */
function traceNotHere(benchmark: string): ConfigError {
  const replaying = Object.values(BENCHMARKS)
    .filter((b) => b.trace)
    .map((b) => b.name);
  return new ConfigError(
    `TRACE applies to ${replaying.slice(0, -1).join(', ')} and ${replaying[replaying.length - 1]} (a trace ` +
      `replayed against each deployment, or against TARGET_URL in arrival-rate), not to ${benchmark}.`,
  );
}

/** TRACE's replay, or (open loop) ARRIVALS's drawn schedule replayed as a trace; null: neither. */
function replayOf(env: Env, cfg: BenchConfig, openLoop: boolean): BenchConfig['trace'] {
  const getVar = (name: string) => get(env, name);
  const isSet = (name: string) => env[name] !== undefined && env[name]?.trim() !== '';
  const trace = traceConfig(getVar, isSet);
  return (openLoop ? arrivalsConfig(getVar, isSet, cfg) : null) ?? trace;
}

function numberList(name: string, raw: string): number[] {
  const parts = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (parts.length === 0) throw invalid(name, raw, 'a comma-separated list of positive numbers, e.g. 0.5,1,2');
  return parts.map((s) => {
    const n = Number(s);
    if (!Number.isFinite(n) || n <= 0 || n > 100_000) throw invalid(name, raw, `a comma-separated list of positive numbers, e.g. 0.5,1,2; '${s}' is not one`);
    return n;
  });
}

/** The configuration as it may be printed: secrets replaced. */
export function redacted(cfg: BenchConfig): BenchConfig {
  return { ...cfg, variants: cfg.variants.map((t) => ({ ...t, apiKey: t.apiKey ? '<set>' : '' })) };
}
