// The configuration's shape: a leaf module, so that the plan, the variants and the reports can name
// it without importing the loader (and, through it, the benchmarks and the variables).
import type { PoolingTask } from '../dialects/pooling';
import type { DialectSetting } from '../dialects/index';
import type { Structured } from '../dialects/structured';
import type { TransportName } from '../transports';
import type { DatasetConfig } from './dataset-config';
import type { ImageSpec } from '../plan/plan-types';
import type { TraceConfig } from './trace-config';

export type Env = Record<string, string | undefined>;

/** Token ids below this are avoided: vocabularies keep special and control tokens low. */
export const TOKEN_ID_FLOOR = 1000;
/** CACHE_RESET: before every run, before each variant's first run, or never. */
export const CACHE_RESET_MODES = ['cell', 'variant', 'never'] as const;
export type CacheResetMode = (typeof CACHE_RESET_MODES)[number];

export interface VariantConfig {
  /** Tag value and report label, e.g. dflash. */
  variant: string;
  url: string;
  dialect: DialectSetting;
  model: string;
  /** Sent as a bearer token to this variant only. */
  apiKey: string;
  /** GPU_HOUR_COST and GPUS (or <PREFIX>_…): what the report prices tokens at; absent: not set. */
  cost?: GpuCost;
  /** GPU_METRICS_URL (or <PREFIX>_…): the full URL of the GPU exporter's Prometheus page; absent or null: not set. */
  gpuMetricsUrl?: string | null;
  /** The variables that set this variant, for messages that say what to change. */
  vars: { url: string; dialect: string; model: string; apiKey: string };
}

export interface GpuCost {
  /** Dollars per GPU-hour; null: not set, so no cost is given. */
  gpuHourCost: number | null;
  /** GPUs per deployment; null: not set (counted as 1, "per deployment"). */
  gpus: number | null;
}

export interface Slo {
  ttftP99Ms: number | null;
  /** SLO_TTFT_OF: the first token of either kind (llm_ttft) or of the answer (llm_ttft_answer). */
  ttftOf: 'first' | 'answer';
  itlP99Ms: number | null;
  e2eP99Ms: number | null;
  errorRate: number;
}

export interface BenchConfig {
  /** The benchmark's name (scenarios/<name>.ts). */
  benchmark: string;
  runId: string;
  resultsDir: string;
  variants: VariantConfig[];
  /** The variant every other is compared with: BASELINE_VARIANT (compare), else the first variant. */
  baseline: string;
  /** AB_DIFFERS: serving settings the variants are meant to differ in (lib/engines/serving-config.ts names); absent: none. */
  abDiffers?: readonly string[];
  isl: number[];
  osl: number[];
  concurrency: number[];
  rates: number[];
  maxVus: number;
  durationMs: number;
  requests: number | null;
  transport: TransportName;
  stream: boolean;
  seed: number;
  requestTimeoutMs: number;
  gracefulStopMs: number;
  variantDownAfterMs: number;
  preflightTimeoutMs: number;
  warmupRequests: number;
  promptPool: number;
  vocabSize: number;
  sharedPrefix: number;
  islSpread: number;
  temperature: number;
  ignoreEos: boolean;
  slices: number;
  /** REPEATS: how many times the whole comparison runs, one repeat after another (1: once). */
  repeats: number;
  /** START_SPREAD: a closed-loop run's VUs send their first requests spread over this span, ms (0: at once). */
  startSpreadMs: number;
  /** Whose latencies make the percentiles: every request of a cell, or only those sent after its first slice (ramp-up). */
  latencyWindow: 'all' | 'steady';
  /** ITL_SAMPLES, auto resolved: each token's ITL as a Trend sample, or counted into log buckets (lib/stats/log-buckets.ts). */
  itlSamples: 'every' | 'histogram';
  serverMetrics: 'auto' | 'on' | 'off';
  /** CACHE_RESET: when the server's prefix cache is emptied (lib/plan/cache-reset-plan.ts). */
  cacheReset: CacheResetMode;
  /** Write a partial result for merging with other instances (PARTIAL). */
  partial: boolean;
  slo: Slo;
  /** DATASET and its variables; null: seeded random token-id prompts (the default). */
  dataset: DatasetConfig | null;
  /** TRACE and its variables; null: the load comes from CONCURRENCY or RATE. */
  trace: TraceConfig | null;
  /** THINK_TAGS: <think>…</think> in a reply's content is reasoning. */
  thinkTags: boolean;
  /** IMAGES: one matrix axis, the images each request of a cell carries (count 0: none); absent: no images. */
  images?: ImageSpec[];
  /** TOOLS, TOOL_CHOICE, RESPONSE_FORMAT: what every generated request asks of its reply's form; absent or null: nothing. */
  structured?: Structured | null;
  /** The pooling benchmarks (embeddings, rerank): their task and BATCH; absent for a generation benchmark. */
  pooling?: PoolingConfig;
  /** ADAPTERS: the LoRA adapters requests are spread over, with their weights; absent or null: none (the base model). */
  adapters?: AdapterWeight[] | null;
  /** SATURATION_STOP: a benchmark whose levels escalate ends when the server's queue shows it saturated. */
  saturationStop: boolean;
}

/** One entry of ADAPTERS: an adapter's served name (`base`: the base model) and its share of requests. */
export interface AdapterWeight {
  name: string;
  weight: number;
}

/** A pooling benchmark's own settings (lib/config/pooling-config.ts). */
export interface PoolingConfig {
  task: PoolingTask;
  /** BATCH: items per request, one matrix axis (ISL × BATCH × CONCURRENCY). */
  batch: number[];
}
