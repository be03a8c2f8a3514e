// Each client of the parity run: how it is started for one load (the same workload for all: the
// OpenAI Completions route, streamed, fixed input and output lengths with the output forced by
// ignore_eos, a closed loop of N concurrent requests for the same duration) and how its own report
// is read back. Reading is pure (text in, figures out) so the test covers it; docs/parity.md says
// which of each tool's figures is read and how the tool defines it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dist, Reported } from './figures';

export interface Workload {
  url: string;
  model: string;
  isl: number;
  osl: number;
  concurrency: number;
  durationSec: number;
  /** Folder of the local tokenizer (bench/parity/make-tokenizer.py). */
  tokenizer: string;
  /** Requests inference-perf sends (its concurrent stage has a count, no duration). */
  requests: number;
}

export interface Launch {
  argv: string[];
  env: Record<string, string>;
}

export interface Peer {
  name: string;
  /** The command for one load; `dir` is an empty folder for its files. */
  launch(w: Workload, dir: string, tools: ToolPaths): Launch;
  /** Its figures from the files it wrote in `dir` (read by the caller), or an Error saying what is missing. */
  read(files: (name: RegExp) => string | null): Reported | Error;
}

export interface ToolPaths {
  /** bin folders of each peer's venv (bench/parity/install.sh). */
  aiperf: string;
  guidellm: string;
  inferencePerf: string;
  k6: string;
  /** The suite's bundle. */
  bundle: string;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);
const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const at = (v: unknown, ...path: string[]): unknown => path.reduce<unknown>((o, k) => obj(o)?.[k], v);

function parseJson(text: string | null, what: string): Json | Error {
  if (text === null) return new Error(`no ${what}`);
  try {
    const v = obj(JSON.parse(text));
    return v ?? new Error(`${what} is not a JSON object`);
  } catch (e) {
    return new Error(`${what} is not JSON: ${(e as Error).message}`);
  }
}

const scaled = (d: Dist | null, k: number): Dist | null =>
  d === null ? null : { p50: d.p50 === null ? null : d.p50 * k, p99: d.p99 === null ? null : d.p99 * k };

/** The suite: k6 with xk6-sse running the context-matrix bundle for one cell. */
export const suite: Peer = {
  name: 'suite',
  launch(w, dir, t) {
    return {
      argv: [t.k6, 'run', '-q', '--address', '', t.bundle],
      env: {
        K6_NO_USAGE_REPORT: 'true',
        K6_AUTO_EXTENSION_RESOLUTION: 'false',
        TARGET_URL: w.url,
        TRANSPORT: 'sse',
        DIALECT: 'openai',
        MODEL: w.model,
        ISL: String(w.isl),
        OSL: String(w.osl),
        CONCURRENCY: String(w.concurrency),
        DURATION: `${w.durationSec}s`,
        WARMUP_REQUESTS: '0',
        SERVER_METRICS: 'off',
        REQUEST_TIMEOUT: '120s',
        RESULTS_DIR: dir,
        RUN_ID: 'parity',
      },
    };
  },
  read(files) {
    const doc = parseJson(files(/^parity\.summary\.json$/), 'parity.summary.json');
    if (doc instanceof Error) return doc;
    const rec = obj((doc.records as unknown[] | undefined)?.[0]);
    if (!rec) return new Error('parity.summary.json has no record');
    const d = (k: string): Dist | null => {
      const v = obj(rec[k]);
      return v ? { p50: numOrNull(v.p50), p99: numOrNull(v.p99) } : null;
    };
    return {
      ttft: d('ttft_ms'),
      itl: d('itl_ms'),
      tpot: d('tpot_ms'),
      e2e: d('e2e_ms'),
      requestsOk: numOrNull(rec.requests_ok),
      outputTokens: numOrNull(rec.output_tokens),
      failed: numOrNull(rec.requests_failed),
      notes: [],
    };
  },
};

/** AIPerf's error_summary: [{error_details, count}]; null when it is not a list. */
function errorSummaryCount(v: unknown): number | null {
  if (!Array.isArray(v)) return null;
  return v.reduce<number>((n, e) => n + (numOrNull(obj(e)?.count) ?? 0), 0);
}

/** AIPerf: `aiperf profile`, its figures from profile_export_aiperf.json. */
export const aiperf: Peer = {
  name: 'aiperf',
  launch(w, dir, t) {
    return {
      argv: [
        join(t.aiperf, 'aiperf'),
        'profile',
        '--model',
        w.model,
        '--url',
        w.url,
        '--endpoint-type',
        'completions',
        '--streaming',
        '--concurrency',
        String(w.concurrency),
        '--benchmark-duration',
        String(w.durationSec),
        '--synthetic-input-tokens-mean',
        String(w.isl),
        '--synthetic-input-tokens-stddev',
        '0',
        '--output-tokens-mean',
        String(w.osl),
        '--output-tokens-stddev',
        '0',
        '--extra-inputs',
        'ignore_eos:true',
        '--extra-inputs',
        `min_tokens:${w.osl}`,
        '--use-server-token-count',
        '--tokenizer',
        w.tokenizer,
        '--random-seed',
        '1',
        '--ui-type',
        'none',
        '--artifact-dir',
        dir,
      ],
      // Not offline mode: AIPerf 0.13.0 offline looks a local tokenizer folder up as a hub repo id
      // (common/tokenizer.py, _from_pretrained_local → snapshot_download) and fails; a folder
      // loads without the network anyway.
      env: { HF_HUB_OFFLINE: '', TRANSFORMERS_OFFLINE: '' },
    };
  },
  read(files) {
    const doc = parseJson(files(/^profile_export_aiperf\.json$/), 'profile_export_aiperf.json');
    if (doc instanceof Error) return doc;
    // Each metric: {unit, avg, p50, p99, ...}; times in ms (the export's display unit).
    const metric = (k: string): Json | null => obj(doc[k]) ?? obj(at(doc, 'records', k)) ?? obj(at(doc, 'metrics', k));
    const d = (k: string): Dist | null => {
      const m = metric(k);
      if (!m) return null;
      const unit = typeof m.unit === 'string' ? m.unit : 'ms';
      const k2 = unit === 'ns' ? 1e-6 : unit === 'us' ? 1e-3 : unit === 's' || unit === 'sec' ? 1000 : 1;
      return scaled({ p50: numOrNull(m.p50), p99: numOrNull(m.p99) }, k2);
    };
    const count = (k: string): number | null => numOrNull(metric(k)?.avg) ?? numOrNull(metric(k)?.value);
    return {
      ttft: d('time_to_first_token'),
      // Its per-gap figure; its "inter_token_latency" is a per-request mean (the TPOT column).
      itl: d('inter_chunk_latency'),
      tpot: d('inter_token_latency'),
      e2e: d('request_latency'),
      requestsOk: count('request_count'),
      outputTokens: count('total_output_tokens'),
      // error_request_count is left out of the export when nothing failed; error_summary is always there.
      failed: count('error_request_count') ?? errorSummaryCount(doc.error_summary),
      notes: ['ITL column: inter_chunk_latency (per chunk); TPOT column: its inter_token_latency (per-request mean)'],
    };
  },
};

/** GuideLLM: `guidellm run`, its figures from benchmarks.json (the request-level distributions, ms). */
export const guidellm: Peer = {
  name: 'guidellm',
  launch(w, dir, t) {
    return {
      argv: [
        join(t.guidellm, 'guidellm'),
        'run',
        '--backend',
        `kind=openai_http,target=${w.url},model=${w.model},request_format=/v1/completions`,
        '--profile',
        `kind=concurrent,streams=${w.concurrency}`,
        '--constraint',
        `kind=max_duration,seconds=${w.durationSec}`,
        '--tokenizer',
        `kind=huggingface_auto,model=${w.tokenizer}`,
        // With output_tokens it sends max_tokens, stop: null and ignore_eos: true (backends/openai/request_handlers.py).
        '--data',
        `kind=synthetic_text,prompt_tokens=${w.isl},output_tokens=${w.osl}`,
        '--output',
        `kind=json,path=${join(dir, 'benchmarks.json')}`,
        '--disable-console',
      ],
      env: { HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1' },
    };
  },
  read(files) {
    return readGuidellm(parseJson(files(/^benchmarks\.json$/), 'benchmarks.json'));
  },
};

/** inference-perf: a YAML config, its figures from summary_lifecycle_metrics.json (seconds). */
export const inferencePerf: Peer = {
  name: 'inference-perf',
  launch(w, dir, t) {
    const workers = 2;
    const config = {
      api: { type: 'completion', streaming: true },
      server: { type: 'vllm', model_name: w.model, base_url: w.url, ignore_eos: true },
      tokenizer: { pretrained_model_name_or_path: w.tokenizer },
      data: {
        type: 'random',
        input_distribution: { min: w.isl, max: w.isl, mean: w.isl, std_dev: 0, type: 'fixed' },
        output_distribution: { min: w.osl, max: w.osl, mean: w.osl, std_dev: 0, type: 'fixed' },
      },
      load: {
        type: 'concurrent',
        stages: [{ num_requests: w.requests, concurrency_level: w.concurrency }],
        num_workers: workers,
        worker_max_concurrency: Math.ceil(w.concurrency / workers),
      },
      report: { request_lifecycle: { summary: true, per_stage: false, per_request: false, use_server_output_tokens: true } },
      storage: { local_storage: { path: dir } },
    };
    const file = join(dir, 'config.json');
    mkdirSync(dir, { recursive: true });
    // YAML is a superset of JSON: the tool reads this file as its YAML config.
    writeFileSync(file, JSON.stringify(config, null, 1));
    return { argv: [join(t.inferencePerf, 'inference-perf'), '--config_file', file], env: { HF_HUB_OFFLINE: '1', TRANSFORMERS_OFFLINE: '1' } };
  },
  read(files) {
    const doc = parseJson(files(/summary_lifecycle_metrics\.json$/), 'summary_lifecycle_metrics.json');
    if (doc instanceof Error) return doc;
    const d = (k: string): Dist | null => {
      const m = obj(at(doc, 'successes', 'latency', k));
      return m ? scaled({ p50: numOrNull(m.median) ?? numOrNull(m.p50), p99: numOrNull(m.p99) }, 1000) : null;
    };
    return {
      ttft: d('time_to_first_token'),
      itl: d('inter_token_latency'),
      tpot: d('time_per_output_token'),
      e2e: d('request_latency'),
      requestsOk: numOrNull(at(doc, 'successes', 'count')),
      // output_tokens: the server's counts (use_server_output_tokens); output_len is its tokenizer's re-count.
      outputTokens: numOrNull(at(doc, 'successes', 'output_tokens', 'total')),
      failed: numOrNull(at(doc, 'failures', 'count')),
      notes: [],
    };
  },
};

/** GuideLLM's report: benchmarks[0].metrics.<name>.successful.{median, percentiles.p99}. */
function readGuidellm(doc: Json | Error): Reported | Error {
  if (doc instanceof Error) return doc;
  const bench = obj((doc.benchmarks as unknown[] | undefined)?.[0]);
  const metrics = obj(bench?.metrics);
  if (!metrics) return new Error('benchmarks.json has no benchmark metrics');
  const d = (k: string, scale = 1): Dist | null => {
    const m = obj(at(metrics, k, 'successful'));
    return m ? scaled({ p50: numOrNull(m.median) ?? numOrNull(at(m, 'percentiles', 'p50')), p99: numOrNull(at(m, 'percentiles', 'p99')) }, scale) : null;
  };
  // With no successful request its distributions are all zeros, not measurements.
  const ok = numOrNull(at(bench, 'request_totals', 'successful')) ?? numOrNull(at(metrics, 'request_totals', 'successful'));
  if (ok === 0) return new Error('no request completed within its max_duration (it cancels those in flight)');
  const total = (k: string, status: string): number | null => numOrNull(at(metrics, k, status, 'total_sum')) ?? numOrNull(at(metrics, k, status, 'sum'));
  return {
    ttft: d('time_to_first_token_ms'),
    // No per-token or per-chunk ITL: its inter_token_latency_ms is a per-request mean (the TPOT column).
    itl: null,
    tpot: d('inter_token_latency_ms'),
    e2e: d('request_latency', 1000),
    requestsOk: ok,
    outputTokens: total('output_token_count', 'successful'),
    failed: numOrNull(at(bench, 'request_totals', 'errored')) ?? numOrNull(at(metrics, 'request_totals', 'errored')),
    notes: ['ITL: none per token; TPOT column: its inter_token_latency_ms (per-request mean)'],
  };
}

export const PEERS: Record<string, Peer> = { suite, aiperf, guidellm, 'inference-perf': inferencePerf };
