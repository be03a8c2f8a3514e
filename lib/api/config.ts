// The configuration the shared code (preflight, the report) expects, built from what a user's
// script says and nothing more: a user script has no matrix, so the matrix fields hold only what
// the preflight or the report reads, and the report's settings are the library's own (summary.ts).
import type { BenchConfig, VariantConfig } from '../config/config-types';
import type { DialectSetting } from '../dialects/index';
import type { TransportName } from '../transports';

/** A client's settings, as the library keeps them (never serialised with its key). */
export interface ClientSpec {
  /** The `variant` tag of its samples and its label in the report. */
  name: string;
  url: string;
  dialect: DialectSetting;
  model: string;
  apiKey: string;
  transport: TransportName;
  timeoutMs: number;
  tags: Record<string, string>;
}

/** How messages name a client's settings ("set dialect to …"): its options, not environment variables. */
export const CLIENT_VARS = { url: 'url', dialect: 'dialect', model: 'model', apiKey: 'apiKey' };

export function variantConfig(c: ClientSpec): VariantConfig {
  return { variant: c.name, url: c.url, dialect: c.dialect, model: c.model, apiKey: c.apiKey, vars: CLIENT_VARS };
}

/** What preflight reads besides the variant: its deadlines, the lengths to check, the warm-ups. */
export interface PreflightSettings {
  timeoutMs: number;
  warmupRequests: number;
  /** The longest prompt (tokens) the script will send: checked against the server's context length and used for warm-up. */
  maxPromptTokens: number;
  /** The largest output budget the script will ask for. */
  maxTokens: number;
  requestTimeoutMs: number;
}

/** The defaults of the benchmarks' variables where the library has no setting of its own (lib/config/variables.ts). */
const SEED = 1;
const VOCAB_SIZE = 32000;

export function libraryConfig(title: string, runId: string, clients: readonly ClientSpec[], transport: TransportName, pf?: PreflightSettings): BenchConfig {
  const requestTimeoutMs = pf?.requestTimeoutMs ?? Math.max(100, ...clients.map((c) => c.timeoutMs));
  return {
    benchmark: title,
    runId,
    resultsDir: '.',
    variants: clients.map(variantConfig),
    baseline: clients[0]?.name ?? 'target',
    isl: [pf?.maxPromptTokens ?? 1],
    osl: [pf?.maxTokens ?? 1],
    concurrency: [],
    rates: [],
    maxVus: 0,
    durationMs: 0,
    requests: null,
    transport,
    stream: transport === 'sse',
    seed: SEED,
    requestTimeoutMs,
    gracefulStopMs: 0,
    variantDownAfterMs: 0,
    preflightTimeoutMs: pf?.timeoutMs ?? 10_000,
    warmupRequests: pf?.warmupRequests ?? 0,
    promptPool: 1,
    vocabSize: VOCAB_SIZE,
    sharedPrefix: 0,
    islSpread: 0,
    temperature: 0,
    ignoreEos: true,
    slices: 1,
    repeats: 1,
    // The user's script owns its executors and their start.
    startSpreadMs: 0,
    latencyWindow: 'all',
    itlSamples: 'every',
    // The library does not scrape /metrics: preflight does not look for it.
    serverMetrics: 'off',
    // Nor does it reset a server's cache: its user runs the load.
    cacheReset: 'never',
    partial: false,
    slo: { ttftP99Ms: null, ttftOf: 'first', itlP99Ms: null, e2eP99Ms: null, errorRate: 1 },
    dataset: null,
    trace: null,
    saturationStop: false,
    thinkTags: false,
  };
}
