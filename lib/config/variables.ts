// Every variable the benchmarks read, with its default and meaning: the single list that config
// loading uses and that the README's variable table is generated from. Which benchmarks read a
// variable is derived from their definitions (variant slots, load model), never listed by name.

import { BENCHMARKS, type BenchmarkSpec, type VariantSlot } from '../benchmarks';
import { dialectHelp } from '../dialects/index';

export interface VariableDef {
  name: string;
  /** Default as the user would write it; '' means unset. */
  default: string;
  help: string;
  /** Benchmarks that read it; omitted means all. Derived from the benchmarks' definitions. */
  benchmarks?: readonly string[];
  secret?: boolean;
}

const ALL = Object.values(BENCHMARKS);
const where = (pred: (b: BenchmarkSpec) => boolean) => ALL.filter(pred).map((b) => b.name);

/** A variant's four variables, for every variable prefix some benchmark's variant slots use. */
function variantVariables(): VariableDef[] {
  const prefixes = [...new Set(ALL.flatMap((b) => b.slots.map((v) => v.prefix)))];
  return prefixes.flatMap((prefix): VariableDef[] => {
    const slot = ALL.flatMap((b) => b.slots).find((v) => v.prefix === prefix) as VariantSlot;
    const benchmarks = where((b) => b.slots.some((v) => v.prefix === prefix));
    if (prefix === '') {
      return [
        { name: 'TARGET_URL', default: '', help: `Base URL of ${slot.role}, e.g. http://127.0.0.1:30000 (required).`, benchmarks },
        // A getter: a dialect added to the table after this module loaded (registerDialect) shows too.
        {
          name: 'DIALECT',
          default: 'auto',
          get help() {
            return dialectHelp();
          },
          benchmarks,
        },
        { name: 'MODEL', default: '', help: 'Model name sent to OpenAI routes; empty means ask the server (/v1/models or /get_model_info).', benchmarks },
      ];
    }
    return [
      { name: `${prefix}_URL`, default: '', help: `Base URL of ${slot.role}, labelled ${slot.variant} (required).`, benchmarks },
      { name: `${prefix}_DIALECT`, default: 'auto', help: `DIALECT for the ${slot.variant} deployment.`, benchmarks },
      { name: `${prefix}_MODEL`, default: '', help: `MODEL for the ${slot.variant} deployment.`, benchmarks },
      { name: `${prefix}_API_KEY`, default: '', help: `API_KEY for the ${slot.variant} deployment only (falls back to API_KEY).`, benchmarks, secret: true },
      { name: `${prefix}_GPU_HOUR_COST`, default: '', help: `GPU_HOUR_COST for the ${slot.variant} deployment (falls back to GPU_HOUR_COST).`, benchmarks },
      { name: `${prefix}_GPUS`, default: '', help: `GPUS for the ${slot.variant} deployment (falls back to GPUS).`, benchmarks },
      {
        name: `${prefix}_GPU_METRICS_URL`,
        default: '',
        help: `GPU_METRICS_URL for the ${slot.variant} deployment (falls back to GPU_METRICS_URL).`,
        benchmarks,
      },
    ];
  });
}

const OPEN_LOOP = where((b) => b.load === 'rate');
const TRACING = where((b) => b.trace === true);

export const VARIABLES: readonly VariableDef[] = [
  {
    name: 'CONFIG',
    default: '',
    help:
      'Path of a JSON file whose keys are these variable names (absolute, or relative to the bundle in ' +
      'dist/ as k6 reads it); variables set in the environment win over it.',
  },
  { name: 'API_KEY', default: '', help: 'Bearer token sent in Authorization to the variant(s) only; never printed or tagged.', secret: true },
  {
    name: 'VARIANTS',
    default: '',
    help:
      'The deployments to compare, 2 to 8 names, comma-separated (default none,mtp,dflash,ddtree); each ' +
      'reads <NAME>_URL, <NAME>_DIALECT, <NAME>_MODEL, <NAME>_API_KEY, <NAME>_GPU_HOUR_COST, <NAME>_GPUS, ' +
      '<NAME>_GPU_METRICS_URL (NAME upper-cased).',
    benchmarks: where((b) => b.variants === true),
  },
  {
    name: 'BASELINE_VARIANT',
    default: '',
    help: 'The variant every other is compared with (default: the first of VARIANTS).',
    benchmarks: where((b) => b.variants === true),
  },
  {
    name: 'AB_DIFFERS',
    default: '',
    help:
      'Serving settings the variants are meant to differ in besides the speculative method, comma-separated ' +
      "(e.g. max_running_requests,context_length; names as in docs/engines.md, 'Serving configuration'). " +
      "Before any load each variant's configuration is read from its server; a verdict between variants " +
      'that differ in any other setting is marked confounded, naming it. Declared settings are shown as ' +
      'declared, not as confounders.',
    benchmarks: where((b) => b.variants === true || b.slots.length > 1),
  },
  ...variantVariables(),
  {
    name: 'GPU_HOUR_COST',
    default: '',
    help:
      "Dollars per GPU-hour of a deployment: the report then gives each run's dollars per million output " +
      '(and input) tokens at its measured throughput. Unset: no cost (null, never 0).',
  },
  {
    name: 'GPUS',
    default: '',
    help: 'GPUs per deployment, for the cost per token and the throughput per GPU of the frontier; unset counts 1 and the frontier says per deployment.',
  },
  {
    name: 'GPU_METRICS_URL',
    default: '',
    help: "Full URL of the deployment's GPU exporter page (NVIDIA dcgm-exporter, e.g. http://gpu-host:9400/metrics, or nvidia_gpu_exporter), scraped over each run's steady window: the report then gives joules per output token, mean power, utilisation and memory per run. Unset: energy not measured (null, never 0).",
  },
  { name: 'ISL', default: '1024', help: 'Input lengths in tokens, comma-separated; one matrix axis.' },
  { name: 'OSL', default: '256', help: 'Output lengths in tokens (max_tokens with ignore_eos), comma-separated; one matrix axis.' },
  {
    name: 'BATCH',
    default: '1,8,32',
    help:
      'Items per pooling request, comma-separated; one matrix axis in place of OSL (ISL × BATCH × ' +
      'CONCURRENCY): the inputs of one /v1/embeddings request, or the documents of one /v1/rerank request ' +
      '(its query one more prompt of ISL). Each item is a prompt of ISL tokens (token ids where the dialect ' +
      'takes them; rerank sends text). 1–4096.',
    benchmarks: where((b) => b.pooling !== undefined),
  },
  {
    name: 'IMAGES',
    default: '0',
    benchmarks: where((b) => b.pooling === undefined),
    help:
      'Images per request, comma-separated; one matrix axis: 0 (none) or <count>x<width>x<height>, e.g. ' +
      '0,1x336x336 (count 1–8, sides 1–2048 px). Each image is a PNG made from SEED (no download), sent as ' +
      'a data URL in the last user turn after its text; only the chat dialects carry them (openai-chat, ' +
      "responses, anthropic). The report gives the image tokens per request (the server's prompt_tokens " +
      'with images minus those of the cell without, same ISL, OSL and load) and the TTFT they cost (the ' +
      'same difference): list 0 beside the sizes to measure them.',
  },
  { name: 'CONCURRENCY', default: '1,4,16', help: 'Concurrent requests (closed-loop VUs), comma-separated; one matrix axis (context-matrix takes one value).' },
  { name: 'RATE', default: '1,2,4', help: 'Arrival rates in requests per second, comma-separated (open model).', benchmarks: OPEN_LOOP },
  {
    name: 'ARRIVALS',
    default: 'constant',
    help:
      "How requests arrive at RATE: constant (k6's constant-arrival-rate executor, evenly spaced), poisson " +
      '(exponential gaps) or gamma:<shape> (gamma-distributed gaps, squared coefficient of variation ' +
      '1/shape: below 1 bursty, 1 Poisson, above 1 smoother). poisson and gamma draw one schedule from SEED ' +
      'with mean gap 1/RATE over DURATION (one RATE, ISL and OSL) and replay it as a trace: each request ' +
      'records its schedule lag (llm_schedule_lag), and TRACE_MAX_LAG judges the replay faithful; MAX_VUS ' +
      '(or TRACE_VUS) hold the requests.',
    benchmarks: OPEN_LOOP,
  },
  {
    name: 'MAX_VUS',
    default: '256',
    help: 'Most VUs the arrival-rate benchmark may use; when all are busy, iterations are dropped and counted.',
    benchmarks: OPEN_LOOP,
  },
  { name: 'DURATION', default: '30s', help: 'Load time of each cell.' },
  {
    name: 'REQUESTS',
    default: '',
    help: 'If set, each cell sends this many requests (shared-iterations) instead of running for DURATION; DURATION then bounds the cell.',
  },
  {
    name: 'TRANSPORT',
    default: 'http',
    help: 'http (stock k6: whole reply at once, TTFT/ITL not measured) or sse (needs the xk6-sse extension; measures TTFT, ITL, TPOT).',
  },
  { name: 'STREAM', default: 'false', help: 'With TRANSPORT=http, ask for a streamed reply anyway (read as one body: counts events, still no TTFT).' },
  {
    name: 'ADAPTERS',
    default: '',
    help:
      'LoRA adapters to spread requests over, name:weight,… (e.g. sql:3,chat:1,base:1; a weight left out is ' +
      '1; `base` is the base model; at most 16). Each request draws one from SEED, the same sequence for ' +
      'every variant; each dialect names it its own way (docs/dialects.md); the preflight stops the run ' +
      'when the server has not loaded one; metrics are tagged `adapter` and the report has rows and ' +
      'verdicts per adapter. Empty: no adapter.',
  },
  {
    name: 'TOOLS',
    default: '0',
    help:
      'Built-in tools sent with every request, 0–4 (get_weather, search_web, create_event, convert_units, ' +
      'in that order; docs/dialects.md): each request then carries `tools` and TOOL_CHOICE. Streamed ' +
      'tool-call deltas count as output tokens; the report gives the time to the first tool-call token ' +
      "(llm_ttft_tool), the calls' tokens and the share of replies whose calls parse and match the tool's " +
      'parameters (llm_structured_valid). Only openai-chat, responses and anthropic carry tools.',
  },
  {
    name: 'TOOL_CHOICE',
    default: 'required',
    help:
      'With TOOLS: required (a call each reply; a reply without one is invalid), auto (the model may answer ' +
      'instead: such a reply is not judged), none, or one tool by name (that call forced).',
  },
  {
    name: 'RESPONSE_FORMAT',
    default: '',
    help:
      'Ask for JSON replies: json_object (any JSON object) or json_schema (JSON matching RESPONSE_SCHEMA), ' +
      'sent as response_format (openai-chat) or text.format (responses); the Messages API has none. The ' +
      'report gives the share of replies that parse and match (llm_structured_valid). Empty: plain text.',
  },
  {
    name: 'RESPONSE_SCHEMA',
    default: '',
    help:
      'With RESPONSE_FORMAT=json_schema: the JSON schema, as JSON text (a CONFIG file may hold it); the ' +
      'validity check reads type, properties, required, enum, items and additionalProperties ' +
      '(docs/metrics.md). Empty: a built-in schema (title, rating, tags, verdict).',
  },
  { name: 'SEED', default: '1', help: 'Seed of the prompt generator: the same seed gives the same prompts to every deployment.' },
  { name: 'REQUEST_TIMEOUT', default: '30s', help: 'Deadline of every generation request; a request past it is an error of class timeout.' },
  {
    name: 'GRACEFUL_STOP',
    default: '',
    help: "Time a cell's in-flight requests get to finish after DURATION before the next cell starts; default REQUEST_TIMEOUT, so no request is cut.",
  },
  {
    name: 'VARIANT_DOWN_AFTER',
    default: '30s',
    help:
      'A VU that finds nothing listening backs off (50 ms doubling to 1 s); after this long without a ' +
      'single connection it declares the variant down and sends it nothing more; the report says which runs ' +
      'were not measured. Was TARGET_DOWN_AFTER, still read until the next release.',
  },
  { name: 'PREFLIGHT_TIMEOUT', default: '10s', help: 'Deadline of the one-token generation in preflight: no token by then means the engine is stalled.' },
  { name: 'WARMUP_REQUESTS', default: '2', help: 'Requests sent to each variant in setup before measuring (not counted).' },
  {
    name: 'PROMPT_POOL',
    default: '64',
    help:
      'Distinct prompts per input length; requests cycle through them in the same order for every variant. ' +
      'With DATASET: the first this many items (in seeded order) of each ISL bucket.',
  },
  { name: 'VOCAB_SIZE', default: '32000', help: 'Token ids are drawn from [1000, VOCAB_SIZE): set it to the model vocabulary size or less.' },
  { name: 'SHARED_PREFIX', default: '0', help: 'Tokens at the start of every prompt that are the same across the pool (exercises prefix caching).' },
  {
    name: 'ISL_SPREAD',
    default: '0',
    help: 'Relative spread of input lengths: lengths evenly cover [ISL·(1−s), ISL·(1+s)] with mean ISL; 0 gives exact lengths.',
  },
  {
    name: 'DATASET',
    default: '',
    help:
      'Real prompts instead of random token ids: a file of ShareGPT JSON, JSONL of {"messages": …} or ' +
      '{"prompt": …} objects (optional domain, output_tokens, id, images: image files beside the dataset, ' +
      'sent with the first request of the row) or one prompt per line (absolute path, or relative to the ' +
      'bundle in dist/), read once at init; or builtin, builtin:code,math,chat,summarization for the ' +
      'built-in set. Sent in a seeded order, the same for every variant; each item goes to the ISL whose ' +
      'bucket holds its token count (counted by the server where it has a tokenize route, else estimated as ' +
      'characters ÷ 4); output_tokens wins over OSL. Unset: seeded token ids of exact length.',
  },
  { name: 'DATASET_DOMAINS', default: '', help: "With DATASET: only the file's prompts of these domains, comma-separated." },
  { name: 'DATASET_MIN_TOKENS', default: '', help: 'With DATASET: leave out prompts of fewer tokens (the first request of a conversation).' },
  { name: 'DATASET_MAX_TOKENS', default: '', help: 'With DATASET: leave out prompts of more tokens.' },
  {
    name: 'DATASET_DOMAIN_MARKER',
    default: 'false',
    help:
      'Simulator tests only: write a [domain: NAME] line before the first user turn so the simulator ' +
      'applies its per-domain acceptance (--spec-accept-by-domain). Never set it against a real server: the ' +
      'line becomes prompt text.',
  },
  {
    name: 'MULTI_TURN',
    default: 'false',
    help:
      'With DATASET: replay conversations turn by turn, one at a time per VU; each request sends the next ' +
      'user turn after the conversation so far. Reports give TTFT and cached prompt tokens by turn (tag ' +
      'turn: 1 … 7, 8+).',
  },
  {
    name: 'MULTI_TURN_HISTORY',
    default: 'dataset',
    help:
      "With MULTI_TURN: the earlier replies in each request are the dataset's assistant turns (dataset) or " +
      "the server's own replies (server; then the two sides of an A/B send different histories).",
  },
  {
    name: 'THINK_TIME',
    default: '0s',
    help: 'With MULTI_TURN: pause before each later turn of a conversation (a user reading and typing); the VU sends nothing meanwhile.',
  },
  {
    name: 'TRACE',
    default: '',
    help:
      'Replay a request trace instead of the ISL × OSL × CONCURRENCY matrix: Mooncake-style JSONL ' +
      '({"timestamp": ms, "input_length", "output_length", optional "hash_ids" and "session_id"}) or CSV ' +
      '(timestamp,input_tokens,output_tokens); absolute path, or relative to the bundle in dist/. Each ' +
      'request is sent open-loop at its instant with token-id prompts of the lengths the trace gives, ' +
      'sharing a prefix block exactly where hash_ids are shared; the same trace is replayed against every ' +
      'deployment. Each request records its schedule lag (llm_schedule_lag).',
    benchmarks: TRACING,
  },
  { name: 'TRACE_SPEED', default: '1', help: 'With TRACE: how fast the trace clock runs (2: arrival gaps halved).', benchmarks: TRACING },
  {
    name: 'TRACE_WINDOW',
    default: '',
    help:
      'With TRACE: the slice replayed, FROM-TO in trace time from its first arrival, e.g. 60s-180s; the ' +
      "replay starts at the slice's first request. Default all of it.",
    benchmarks: TRACING,
  },
  {
    name: 'TRACE_VUS',
    default: '64',
    help:
      'With TRACE: VUs holding requests (waiting for their instant or in flight): the most in flight at ' +
      'once; a request due when all are busy is sent late and its lag says so.',
    benchmarks: TRACING,
  },
  { name: 'TRACE_BLOCK_SIZE', default: '512', help: "With TRACE: tokens per hash id (Mooncake's traces use 512).", benchmarks: TRACING },
  {
    name: 'TRACE_MAX_LAG',
    default: '50ms',
    help: 'With TRACE: a replay whose p99 schedule lag (sent − due) is above this is marked not faithful (client-limited) in the report.',
    benchmarks: TRACING,
  },
  { name: 'TEMPERATURE', default: '0', help: 'Sampling temperature.' },
  { name: 'IGNORE_EOS', default: 'true', help: 'Ask the server to generate exactly OSL tokens (ignore_eos).' },
  { name: 'SLICES', default: '6', help: 'Time slices per cell for throughput and its confidence interval; the first slice is ramp-up and left out.' },
  {
    name: 'REPEATS',
    default: '1',
    help:
      'Run the whole comparison this many times (1 to 20), one repeat after another in one k6 run: each ' +
      "repeat's variant order rotated, the caches reset as CACHE_RESET says within every repeat, its runs " +
      'named <variant>_<cell>_r<k> and tagged repeat. With 2 or more, a verdict stands only where the ' +
      "across-run interval (t over the repeats' means, R−1 degrees of freedom) excludes 1; REPEATS=2 gives " +
      '1 degree of freedom, so a wide interval. See docs/compare.md.',
  },
  {
    name: 'START_SPREAD',
    default: 'auto',
    help:
      "A closed-loop run's VUs send their first requests spread evenly over this span instead of all at " +
      "once (0: at once), so the client's own burst of starting every stream together does not show in the " +
      "first requests' TTFT and e2e. auto: a quarter of the first slice, at most 1s, when SLICES > 1 (that " +
      'slice is ramp-up, left out of the throughput), else 0. Must be shorter than a slice.',
  },
  {
    name: 'LATENCY_WINDOW',
    default: 'all',
    help:
      "Whose latencies make the TTFT, ITL, TPOT and e2e percentiles and the SLO goodput: all of a cell's " +
      'requests, or steady: only those sent after its first slice, so the ramp-up (every VU starting within ' +
      'START_SPREAD) is left out. The capacity search uses steady.',
  },
  {
    name: 'ITL_SAMPLES',
    default: 'auto',
    help:
      "How the per-token ITL reaches k6: every (each token's gap as a llm_itl sample, exact; k6 keeps each " +
      'one, so its memory grows with the tokens read), histogram (counted per request into 290 log-spaced ' +
      'buckets, llm_itl_buckets, whose quantiles are within 2.5 %; memory stays flat over hours) or auto: ' +
      'histogram for a plan of one or two runs that streams 10 minutes or more in all (a soak), every ' +
      'otherwise (and for TRACE, REQUESTS or TRANSPORT=http, which times no tokens). With histogram, ' +
      "llm_itl and llm_itl_per_chunk get no samples: put ITL thresholds on SLO_ITL_P99; a request's TPOT, " +
      'its output rate, its time to first answer token (unless SLO_TTFT_OF=answer holds it), its time to ' +
      "second token and the VU's gap between requests are counted in buckets too (llm_tpot_buckets, " +
      'llm_request_tokens_per_second_buckets, llm_ttft_answer_buckets, llm_ttst_buckets, ' +
      'llm_client_gap_buckets), so k6 keeps no per-token value and of each request only its e2e and TTFT, ' +
      'exact.',
  },
  {
    name: 'SERVER_METRICS',
    default: 'auto',
    help: "Scrape each variant's /metrics at each cell's steady window: auto (when it answers), on (warn if missing) or off.",
  },
  {
    name: 'CACHE_RESET',
    default: 'cell',
    help:
      "Empty the server's prefix cache through its reset route (its engine profile's: SGLang POST " +
      "/flush_cache, vLLM POST /reset_prefix_cache with VLLM_SERVER_DEV_MODE=1, llama.cpp each slot's erase " +
      "with --slot-save-path) before every run (cell), before each variant's first run (variant), or never. " +
      'cell: every run starts from the same empty cache, whatever ran before it. The report says per run ' +
      'what was reset, or why not.',
  },
  {
    name: 'SATURATION_STOP',
    default: 'true',
    help:
      "Watch the server's queue gauge (/metrics, about once a second) during each level; when it keeps " +
      "growing, or holds at least half the level's VUs for 10 s (an open loop also completing under 90 % of " +
      'its rate), end the test there with the reason instead of escalating (k6 exits 108). false: run every ' +
      'level.',
    benchmarks: where((b) => b.escalates === true),
  },
  {
    name: 'THINK_TAGS',
    default: 'false',
    help:
      'The model writes its reasoning into the content as <think>…</think> (served without a reasoning ' +
      'parser): everything before the first </think> counts as reasoning, the rest as answer, on the OpenAI ' +
      'routes (docs/reasoning.md). A reply without </think> then has no answer.',
  },
  { name: 'SLO_TTFT_P99', default: '', help: 'SLO: p99 TTFT at most this duration (threshold; needs TRANSPORT=sse).' },
  {
    name: 'SLO_TTFT_OF',
    default: 'first',
    help:
      'Which first token SLO_TTFT_P99 (and goodput, and the capacity search) holds: first, the first token ' +
      "of either kind (llm_ttft: a reasoning model's first reasoning token), or answer, the first answer " +
      'token a user reads (llm_ttft_answer: after the reasoning; the first token of a reply that does not ' +
      'reason).',
  },
  { name: 'SLO_ITL_P99', default: '', help: 'SLO: p99 inter-token latency at most this duration (needs TRANSPORT=sse).' },
  { name: 'SLO_E2E_P99', default: '', help: 'SLO: p99 end-to-end latency at most this duration.' },
  { name: 'SLO_ERROR_RATE', default: '0.05', help: 'SLO: share of failed requests at most this (0 to 1); the test exits 99 when breached.' },
  {
    name: 'RESULTS_DIR',
    default: 'results',
    help: 'Existing folder where <run id>.summary.json, .report.md and .report.html are written (k6 cannot create folders).',
  },
  {
    name: 'PARTIAL',
    default: 'false',
    help:
      'Also write <run id>.partial.json for `npm run merge`, which combines the instances of one test split ' +
      'by k6 --execution-segment (or the k6-operator) into one report; adds a fine quantile grid to every ' +
      'latency figure so percentiles merge.',
  },
  {
    name: 'INSTANCE_NAME',
    default: '',
    help:
      "With PARTIAL=true: this instance's name in the merged report's clock offsets (e.g. its host); " +
      "default the host's HOSTNAME where k6 sees it, else the instance's execution segment.",
  },
  {
    name: 'RUN_ID',
    default: '',
    help: 'Name of this test (the whole k6 invocation): prefix of the result files and default testid tag; default <benchmark>-<UTC time>.',
  },
];

/** Variables renamed (old name → new): the old name is still read, with a note, until the next release. */
export const RENAMED_VARIABLES: Readonly<Record<string, string>> = { TARGET_DOWN_AFTER: 'VARIANT_DOWN_AFTER' };
