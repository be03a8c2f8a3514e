// How the simulator imitates each engine (an Imitation; the engines' own profiles, for the
// benchmarks, are lib/engines/). Everything that differs between SGLang and vLLM is data here
// (error shapes, auth, readiness, ids, routes, versions, ports, metric names and messages), so the
// route and scheduler code reads an imitation instead of comparing engine names.
import type { ErrorStyle } from './api/common';

export type EngineName = 'sglang' | 'vllm';
export const ENGINE_NAMES: readonly EngineName[] = ['sglang', 'vllm'];

/** Metric names, labels and buckets of a server's /metrics, and how it observes them. */
export interface MetricsProfile {
  prefix: string;
  ttft: string;
  itl: string;
  e2e: string;
  queue: string;
  running: string;
  waiting: string;
  kvUsage: string;
  extraLabels: string;
  ttftBuckets: number[];
  itlBuckets: number[];
  e2eBuckets: number[];
  /** 'per-token': SGLang spreads a step's gap over its tokens; 'per-step': vLLM observes it once. */
  itlObservation: 'per-token' | 'per-step';
  /** SGLang: one `num_requests` counter; vLLM: `request_success{finished_reason}`. */
  finishedCounter: 'num_requests' | 'request_success';
  /** SGLang's rolling `gen_throughput` and `spec_accept_length` gauges. */
  windowGauges: boolean;
  /** vLLM's `spec_decode_*` counters (with speculation on). */
  specDecodeCounters: boolean;
  /** vLLM's `cache_config_info` gauge: the cache configuration in its labels. */
  cacheConfigInfo?: boolean;
  /**
   * Prefix-cache counters: `hits` (cached prompt tokens, with `hitLabels`), `queries` (tokens looked
   * up; null: the prompt_tokens counter is the lookups, as SGLang's), and SGLang's hit-rate gauge
   * over its recent batches (null: none).
   */
  prefixCache: { hits: string; hitLabels: string; queries: string | null; hitRateGauge: string | null };
}

/** The route that empties the prefix cache, and how the server refuses while requests run. */
export interface CacheResetRouteProfile {
  path: string;
  methods: ReadonlyArray<'GET' | 'POST'>;
  /** vLLM registers it only with VLLM_SERVER_DEV_MODE=1 (the simulator's --dev-mode). */
  devModeOnly: boolean;
  done: { status: number; text: string };
  /** The refusal while requests run or wait, given their counts. */
  busy(waiting: number, running: number): { status: number; body: string; json: boolean };
}

export interface Imitation {
  name: EngineName;
  /** As the server names itself. */
  displayName: string;
  version: string;
  /** The CLI's default port (startSim defaults to 0 = ephemeral). */
  defaultPort: number;
  /**
   * Before the model is loaded: 'listen-when-ready' refuses connections (vLLM binds its port only
   * once the engine is up); 'answer-503' listens at once and answers 503 (SGLang).
   */
  readiness: 'listen-when-ready' | 'answer-503';
  /** Paths that need the API key (never /metrics): under `only`, or everything not under `except`. */
  auth: { only: string } | { except: string };
  /** Which paths exist beyond the OpenAI routes, /health and /metrics. */
  routes: {
    /** SGLang's native /generate, /health_generate, /get_model_info, /get_server_info. */
    native: boolean;
    /** vLLM's GET /version. */
    version: boolean;
  };
  /** Error body style per route family (paths outside them answer FastAPI's {"detail"}). */
  errors: { openai: ErrorStyle; native: ErrorStyle };
  /** Server-side request ids: prefix before the 32 hex digits, per OpenAI route. */
  idPrefix: { completion: string; chat: string };
  openai: {
    /** vLLM rejects a `model` it does not serve with 404; SGLang serves whatever is loaded. */
    checksModel: boolean;
    /** The key that carries the matched stop string in a choice. */
    stopKey: 'stop_reason' | 'matched_stop';
    /**
     * Chat stream chunks: 'set' (vLLM) omits unset delta fields and usage, with the reasoning under
     * --reasoning-field; 'all' (SGLang) dumps every field with nulls, reasoning as reasoning_content.
     */
    chatChunkFields: 'set' | 'all';
    /** vLLM's non-stream completion choice carries "prompt_logprobs". */
    promptLogprobs: boolean;
    /** /v1/models card: owner, and vLLM's extra "parent" and "permission". */
    modelOwner: string;
    modelPermission: boolean;
  };
  /** The context-length refusal for a prompt and an output limit (undefined = none asked), or null. */
  contextLengthError(contextLen: number, promptLen: number, maxNew: number | undefined): string | null;
  metrics: MetricsProfile;
  cacheReset: CacheResetRouteProfile;
}

const VLLM_E2E = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680];
const SGLANG_E2E = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400, 800];

export const IMITATIONS: Record<EngineName, Imitation> = {
  sglang: {
    name: 'sglang',
    displayName: 'SGLang',
    version: '0.5.5',
    defaultPort: 30000,
    readiness: 'answer-503',
    auth: { except: '/health' },
    routes: { native: true, version: false },
    errors: { openai: 'openai-flat', native: 'sglang' },
    idPrefix: { completion: '', chat: '' },
    openai: { checksModel: false, stopKey: 'matched_stop', chatChunkFields: 'all', promptLogprobs: false, modelOwner: 'sglang', modelPermission: false },
    // SGLang checks prompt + max_new_tokens (1 when unset).
    contextLengthError(c, promptLen, maxNew = 1) {
      if (promptLen >= c) return `The input (${promptLen} tokens) is longer than the model's context length (${c} tokens).`;
      if (promptLen + maxNew > c) {
        return (
          `Requested token count exceeds the model's maximum context length of ${c} tokens. You requested a total ` +
          `of ${promptLen + maxNew} tokens: ${promptLen} tokens from the input messages and ${maxNew} tokens for ` +
          `the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.`
        );
      }
      return null;
    },
    metrics: {
      prefix: 'sglang:',
      ttft: 'time_to_first_token_seconds',
      itl: 'inter_token_latency_seconds',
      e2e: 'e2e_request_latency_seconds',
      queue: 'queue_time_seconds',
      running: 'num_running_reqs',
      waiting: 'num_queue_reqs',
      kvUsage: 'token_usage',
      extraLabels: '',
      ttftBuckets: [0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400],
      itlBuckets: [0.002, 0.004, 0.006, 0.008, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.06, 0.08, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8],
      e2eBuckets: SGLANG_E2E,
      itlObservation: 'per-token',
      finishedCounter: 'num_requests',
      windowGauges: true,
      specDecodeCounters: false,
      prefixCache: { hits: 'cached_tokens', hitLabels: ',cache_source="device"', queries: null, hitRateGauge: 'cache_hit_rate' },
    },
    // http_server.py flush_cache: 200 with this text, 400 with the scheduler's message while busy.
    cacheReset: {
      path: '/flush_cache',
      methods: ['GET', 'POST'],
      devModeOnly: false,
      done: {
        status: 200,
        text:
          'Cache flushed.\nPlease check backend logs for more details. (When there are running or waiting ' +
          'requests, the operation will not be performed.)\n',
      },
      busy: (waiting, running) => ({
        status: 400,
        body: `Cache not flushed because there are pending requests. #queue-req: ${waiting}, #running-req: ${running}`,
        json: false,
      }),
    },
  },
  vllm: {
    name: 'vllm',
    displayName: 'vLLM',
    version: '0.11.0',
    defaultPort: 8000,
    readiness: 'listen-when-ready',
    auth: { only: '/v1' },
    routes: { native: false, version: true },
    // vLLM has no native route; a /generate never reaches a handler there (404 from the router).
    errors: { openai: 'openai', native: 'sglang' },
    idPrefix: { completion: 'cmpl-', chat: 'chatcmpl-' },
    openai: { checksModel: true, stopKey: 'stop_reason', chatChunkFields: 'set', promptLogprobs: true, modelOwner: 'vllm', modelPermission: true },
    // vLLM checks the prompt alone when no limit is asked, prompt + limit otherwise.
    contextLengthError(c, promptLen, maxNew) {
      if (maxNew === undefined && promptLen >= c) {
        return (
          `This model's maximum context length is ${c} tokens. However, you requested ${promptLen} tokens in the ` +
          `messages, Please reduce the length of the messages.`
        );
      }
      if (maxNew !== undefined && promptLen + maxNew > c) {
        return (
          `This model's maximum context length is ${c} tokens. However, you requested ${promptLen + maxNew} tokens ` +
          `(${promptLen} in the messages, ${maxNew} in the completion). Please reduce the length of the messages or completion.`
        );
      }
      return null;
    },
    metrics: {
      prefix: 'vllm:',
      ttft: 'time_to_first_token_seconds',
      itl: 'inter_token_latency_seconds',
      e2e: 'e2e_request_latency_seconds',
      queue: 'request_queue_time_seconds',
      running: 'num_requests_running',
      waiting: 'num_requests_waiting',
      kvUsage: 'kv_cache_usage_perc',
      extraLabels: ',engine="0"',
      ttftBuckets: [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560],
      itlBuckets: [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80],
      e2eBuckets: VLLM_E2E,
      itlObservation: 'per-step',
      finishedCounter: 'request_success',
      windowGauges: false,
      specDecodeCounters: true,
      prefixCache: { hits: 'prefix_cache_hits', hitLabels: '', queries: 'prefix_cache_queries', hitRateGauge: null },
      cacheConfigInfo: true,
    },
    // entrypoints/serve/cache/api_router.py, mounted with VLLM_SERVER_DEV_MODE=1: an empty 200, or
    // 409 while running requests hold cached blocks.
    cacheReset: {
      path: '/reset_prefix_cache',
      methods: ['POST'],
      devModeOnly: true,
      done: { status: 200, text: '' },
      busy: () => ({ status: 409, body: JSON.stringify({ detail: 'Prefix cache reset failed.' }), json: true }),
    },
  },
};

/** True when `path` needs the API key on this engine. */
export function authGuards(p: Imitation, path: string): boolean {
  return 'only' in p.auth ? path.startsWith(p.auth.only) : !path.startsWith(p.auth.except);
}
