// Every custom metric the benchmarks emit: one table that the k6 layer instantiates, the report
// reads and the README documents. Single-value figures (server-side window means) are trends with
// one sample rather than gauges, because a trend's count tells "not measured" apart from zero.
// Prometheus names follow k6's remote-write output: prefix k6_, counters get _total, rates _rate,
// trends one series per stat (_p99, _avg …) with time trends converted to seconds.
// A data table, one entry per metric: exempt from the 500-line limit on a file (split by job, it
// would be one table in pieces).
import { DIALECT_NAMES } from '../dialects/index';

export type MetricType = 'counter' | 'rate' | 'trend';

export interface MetricDef {
  name: string;
  type: MetricType;
  /** Values are milliseconds (k6 "time" metrics). */
  time: boolean;
  unit: string;
  /** Exact definition, as the README states it. */
  help: string;
  /** Measured only with the sse transport. */
  sseOnly?: boolean;
}

export const METRICS = {
  e2e: {
    name: 'llm_e2e',
    type: 'trend',
    time: true,
    unit: 'ms',
    help: 'End-to-end latency of a successful request: from just before the request is sent to the last byte of the reply.',
  },
  ttft: {
    name: 'llm_ttft',
    type: 'trend',
    time: true,
    unit: 'ms',
    help: 'Time to first token: from sending to the first SSE event that carries generated text (a role-only chat chunk does not count).',
    sseOnly: true,
  },
  ttst: {
    name: 'llm_ttst',
    type: 'trend',
    time: true,
    unit: 'ms',
    help:
      "Time to second token: from sending to the arrival of the SSE event that brought the reply's second " +
      'generated token (a role-only chunk carries none). When the first event carried two or more tokens ' +
      '(speculative decoding) the second came with it, and TTST equals TTFT. Not recorded for a reply of ' +
      "one token, nor where the first event's token count is unknown (the per-chunk ITL rule).",
    sseOnly: true,
  },
  ttftReasoning: {
    name: 'llm_ttft_reasoning',
    type: 'trend',
    time: true,
    unit: 'ms',
    help: 'Replies that reasoned (reasoning_content / reasoning deltas): from sending to the first event carrying reasoning text.',
    sseOnly: true,
  },
  ttftAnswer: {
    name: 'llm_ttft_answer',
    type: 'trend',
    time: true,
    unit: 'ms',
    help:
      'From sending to the first event carrying answer text, the first token a user reads: after the ' +
      'reasoning of a reply that reasoned, the first token (as llm_ttft) of one that did not. Not recorded ' +
      'for a reply that never answered (cut during its reasoning). SLO_TTFT_OF=answer holds SLO_TTFT_P99 to ' +
      'it.',
    sseOnly: true,
  },
  reasoningRequests: {
    name: 'llm_reasoning_requests',
    type: 'counter',
    time: false,
    unit: 'requests',
    help: 'Successful replies that carried reasoning.',
  },
  reasoningTokens: {
    name: 'llm_reasoning_tokens',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help:
      "Reasoning tokens of replies that reasoned: the server's " +
      "usage.completion_tokens_details.reasoning_tokens, else the stream's per-event counts; not recorded " +
      'when neither says.',
  },
  answerTokens: {
    name: 'llm_answer_tokens',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help: 'Completion tokens minus reasoning tokens, for replies that reasoned and where both are known.',
  },
  ttftTool: {
    name: 'llm_ttft_tool',
    type: 'trend',
    time: true,
    unit: 'ms',
    help:
      'Replies that called tools: from sending to the first event carrying a piece of a tool call (its ' +
      "function's name or arguments: chat delta.tool_calls, Responses' function call item and arguments " +
      "deltas, Messages' tool_use block and input_json_delta). Beside llm_ttft (the first token of any " +
      "kind); llm_ttft_answer of such a reply is its first content token, never a call's.",
    sseOnly: true,
  },
  toolCallRequests: {
    name: 'llm_tool_call_requests',
    type: 'counter',
    time: false,
    unit: 'requests',
    help: 'Successful replies that called at least one tool.',
  },
  toolCallTokens: {
    name: 'llm_tool_call_tokens',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help:
      "Tokens of the tool calls of replies that called tools: the server's per-event counts over the call " +
      'events (continuous usage), else its completion count for a reply that generated nothing but calls; ' +
      'not recorded when neither says.',
  },
  structuredValid: {
    name: 'llm_structured_valid',
    type: 'rate',
    time: false,
    unit: 'replies',
    help:
      "TOOLS or RESPONSE_FORMAT (or a dataset row's tools): the share of successful replies that kept to " +
      'what was asked, among those judged: every tool call names a tool sent and its arguments parse as ' +
      "JSON and match the tool's parameters; under response_format the content parses (json_object: as an " +
      "object) and matches the schema (the checker's subset: docs/metrics.md). A reply that called no tool " +
      'is judged (invalid) only under a tool_choice that requires a call.',
  },
  itl: {
    name: 'llm_itl',
    type: 'trend',
    time: true,
    unit: 'ms',
    help:
      'Inter-token latency, one sample per token after the first event: the gap between consecutive ' +
      'token-carrying events divided by the tokens the later event carries, when that is known: from the ' +
      "server's per-event counts (itl_rule server-counts), or one token per event when the final completion " +
      'count equals the number of token-carrying events (one-token-per-event).',
    sseOnly: true,
  },
  itlPerChunk: {
    name: 'llm_itl_per_chunk',
    type: 'trend',
    time: true,
    unit: 'ms',
    help:
      'Gap between consecutive token-carrying events, one sample per event after the first, for requests ' +
      'whose tokens per event are unknown (no per-event counts and a final count that differs from the ' +
      'number of events: itl_rule per-chunk). Not per token: an event may carry several tokens. Never mixed ' +
      'into llm_itl.',
    sseOnly: true,
  },
  itlBuckets: {
    name: 'llm_itl_buckets',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help:
      'ITL_SAMPLES=histogram: the tokens whose ITL (as llm_itl defines it) fell in each log-spaced bucket, ' +
      'tagged le_ms (the bucket\'s upper bound in ms; "0" for a gap of zero, "+Inf" above a minute). ' +
      'Buckets grow by 5 %, so a quantile read from them is within 2.5 %; not cumulative (unlike a ' +
      "Prometheus histogram's le).",
    sseOnly: true,
  },
  itlPerChunkBuckets: {
    name: 'llm_itl_per_chunk_buckets',
    type: 'counter',
    time: false,
    unit: 'events',
    help: 'ITL_SAMPLES=histogram: llm_itl_per_chunk counted per bucket, as llm_itl_buckets.',
    sseOnly: true,
  },
  itlWithinSlo: {
    name: 'llm_itl_within_slo',
    type: 'rate',
    time: false,
    unit: 'tokens',
    help:
      'ITL_SAMPLES=histogram with SLO_ITL_P99: the share of tokens whose ITL is within SLO_ITL_P99 ' +
      '(compared before bucketing, so exact). Its threshold, rate>=0.99, is the SLO: p99 ITL within the ' +
      'limit.',
    sseOnly: true,
  },
  itlRule: {
    name: 'llm_itl_rule',
    type: 'counter',
    time: false,
    unit: 'requests',
    help:
      'Successful requests with at least two token-carrying events, tagged itl_rule: how their inter-token ' +
      'latency was measured (server-counts, one-token-per-event: llm_itl; per-chunk: llm_itl_per_chunk).',
    sseOnly: true,
  },
  tpot: {
    name: 'llm_tpot',
    type: 'trend',
    time: true,
    unit: 'ms',
    help: 'Time per output token after the first: (e2e − TTFT) / (output tokens − 1), requests with at least 2 output tokens.',
    sseOnly: true,
  },
  tpotBuckets: {
    name: 'llm_tpot_buckets',
    type: 'counter',
    time: false,
    unit: 'requests',
    help:
      'ITL_SAMPLES=histogram: the requests whose llm_tpot fell in each log-spaced bucket, tagged le_ms as ' +
      'llm_itl_buckets (a quantile read from them is within 2.5 %; not cumulative).',
    sseOnly: true,
  },
  requestTpsBuckets: {
    name: 'llm_request_tokens_per_second_buckets',
    type: 'counter',
    time: false,
    unit: 'requests',
    help:
      'ITL_SAMPLES=histogram: the requests whose llm_request_tokens_per_second fell in each log-spaced ' +
      "bucket, tagged le_tps (the bucket's upper bound in tokens/s; a quantile read from them is within 2.5 " +
      '%; not cumulative).',
  },
  ttftAnswerBuckets: {
    name: 'llm_ttft_answer_buckets',
    type: 'counter',
    time: false,
    unit: 'requests',
    help:
      'ITL_SAMPLES=histogram, unless SLO_TTFT_OF=answer: the requests whose llm_ttft_answer fell in each ' +
      'log-spaced bucket, tagged le_ms as llm_itl_buckets (a quantile read from them is within 2.5 %; not ' +
      'cumulative).',
    sseOnly: true,
  },
  ttstBuckets: {
    name: 'llm_ttst_buckets',
    type: 'counter',
    time: false,
    unit: 'requests',
    help:
      'ITL_SAMPLES=histogram: the requests whose llm_ttst fell in each log-spaced bucket, tagged le_ms as ' +
      'llm_itl_buckets (a quantile read from them is within 2.5 %; not cumulative). No SLO holds TTST, so ' +
      'it is bucketed like TPOT.',
    sseOnly: true,
  },
  outputTokens: {
    name: 'llm_output_tokens',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help: 'Output (completion) tokens of successful requests, as reported by the server.',
  },
  inputTokens: {
    name: 'llm_input_tokens',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help: 'Input (prompt) tokens of successful requests, as reported by the server.',
  },
  cachedTokens: {
    name: 'llm_cached_tokens',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help: 'Input tokens the server served from its prefix cache, where it reports them.',
  },
  cacheQueriedTokens: {
    name: 'llm_cache_queried_tokens',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help:
      'Input tokens of the successful requests whose reply said how many of them were cached (0 included): ' +
      'llm_cached_tokens / this is the prefix-cache hit rate seen by the requests.',
  },
  requestedTokens: {
    name: 'llm_requested_tokens',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help:
      'Output tokens asked for (max tokens) by the successful requests whose completion the server counted: ' +
      'with llm_output_tokens, how much of the work asked for was done.',
  },
  shortReplies: {
    name: 'llm_short_replies',
    type: 'rate',
    time: false,
    unit: 'requests',
    help:
      'Successful requests whose completion the server counted: true when it was shorter than asked, tagged ' +
      'finish_reason (stop, length, other, unknown). A server that stops at EOS although asked not to ' +
      'serves more requests per second for less work.',
  },
  requestTps: {
    name: 'llm_request_tokens_per_second',
    type: 'trend',
    time: false,
    unit: 'tokens/s',
    help: 'Per-request output rate: output tokens / e2e seconds. Not the aggregate throughput (see llm_window_output_tokens).',
  },
  success: {
    name: 'llm_success',
    type: 'rate',
    time: false,
    unit: 'ratio',
    help: 'Share of requests that completed without error.',
  },
  errors: {
    name: 'llm_errors',
    type: 'counter',
    time: false,
    unit: 'requests',
    help: 'Failed requests, tagged error_class.',
  },
  acceptance: {
    name: 'llm_acceptance_length',
    type: 'trend',
    time: false,
    unit: 'tokens/step',
    help:
      "Speculative acceptance length per request, as the server counts it: SGLang's output tokens / " +
      "meta_info spec_verify_ct (bonus token included), vLLM's 1 + accepted drafts / verify steps " +
      '(metrics.speculative_decoding).',
  },
  specVerifySteps: {
    name: 'llm_spec_verify_steps',
    type: 'counter',
    time: false,
    unit: 'steps',
    help: 'Verify steps reported by the server per request (SGLang spec_verify_ct, vLLM metrics.speculative_decoding num_spec_steps), summed.',
  },
  specStepsByAccepted: {
    name: 'llm_spec_steps_by_accepted',
    type: 'counter',
    time: false,
    unit: 'steps',
    help:
      'Verify steps that accepted exactly `accepted` draft tokens (0, 1, … 15, and 16+ for 16 or more), ' +
      "from vLLM's per-request acceptance_histogram. A draft position i is accepted in the steps with " +
      'accepted >= i: its acceptance rate is those steps / all steps.',
  },
  specWindowSteps: {
    name: 'llm_spec_window_steps',
    type: 'counter',
    time: false,
    unit: 'steps',
    help:
      'Verify steps of the successful requests completing in time slice `slice` (as llm_spec_verify_steps): ' +
      'with llm_spec_window_tokens, the batches of the acceptance length interval.',
  },
  specWindowTokens: {
    name: 'llm_spec_window_tokens',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help: 'Tokens committed by those verify steps (as llm_spec_output_tokens), by time slice `slice`.',
  },
  specTokens: {
    name: 'llm_spec_output_tokens',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help:
      "Tokens committed by the verify steps of requests that reported them: SGLang's output tokens (its " +
      "acceptance length counts the prefill's token too), vLLM's steps + accepted drafts. A cell's " +
      'acceptance length is llm_spec_output_tokens / llm_spec_verify_steps.',
  },
  draftTokens: {
    name: 'llm_spec_draft_tokens',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help: 'Draft tokens proposed for successful requests, as the server reports them per request (llama.cpp timings.draft_n, vLLM num_draft_tokens).',
  },
  draftAccepted: {
    name: 'llm_spec_accepted_tokens',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help:
      'Draft tokens the target model accepted (llama.cpp timings.draft_n_accepted, vLLM ' +
      "num_accepted_draft_tokens); a cell's draft acceptance rate is llm_spec_accepted_tokens / " +
      'llm_spec_draft_tokens (an acceptance length needs verify steps, which llama.cpp does not report per ' +
      'request).',
  },
  windowTokens: {
    name: 'llm_window_output_tokens',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help:
      "Output tokens attributed to time slice `slice` of the cell's load window: by SSE event time, or " +
      "spread evenly over the request's duration with the http transport.",
  },
  windowRequests: {
    name: 'llm_window_requests',
    type: 'counter',
    time: false,
    unit: 'requests',
    help: 'Successful requests completing in time slice `slice`.',
  },
  windowE2e: {
    name: 'llm_window_e2e',
    type: 'counter',
    time: false,
    unit: 'ms',
    help: 'Sum of the e2e latency (ms) of the successful requests completing in time slice `slice`.',
  },
  windowTtft: {
    name: 'llm_window_ttft',
    type: 'counter',
    time: false,
    unit: 'ms',
    help:
      'Sum of the TTFT (ms) of the successful requests whose first token arrived in time slice `slice` (sse ' +
      "transport): the client side of the self-check against the server's TTFT over the same window.",
  },
  windowTtftRequests: {
    name: 'llm_window_ttft_requests',
    type: 'counter',
    time: false,
    unit: 'requests',
    help: 'Successful requests whose first token arrived in time slice `slice` (sse transport).',
  },
  windowLastEnd: {
    name: 'llm_window_last_end',
    type: 'trend',
    time: true,
    unit: 'ms',
    help: "REQUESTS mode only: time from the cell's start to the end of its latest successful request (its max is the cell's window).",
  },
  good: {
    name: 'llm_slo_good',
    type: 'counter',
    time: false,
    unit: 'requests',
    help:
      'Successful requests whose own e2e, TTFT and TPOT are within SLO_E2E_P99, SLO_TTFT_P99 and ' +
      "SLO_ITL_P99 (those set); goodput is this per second of the cell's window.",
  },
  runVus: {
    name: 'llm_run_vus',
    type: 'counter',
    time: false,
    unit: 'VUs',
    help: 'VUs that sent requests in the run (one sample per VU and run): with k6 --execution-segment, the share of the run this instance carried.',
  },
  saturated: {
    name: 'llm_saturated',
    type: 'counter',
    time: false,
    unit: 'runs',
    help:
      '1 for the run whose level saturated the server (SATURATION_STOP), tagged saturation_rule: growing ' +
      '(the queue kept growing) or full (half the VUs waiting throughout); the test ended there.',
  },
  saturationAfter: {
    name: 'llm_saturation_after',
    type: 'trend',
    time: true,
    unit: 'ms',
    help: 'SATURATION_STOP: time from the start of the saturated run to the scrape that showed it.',
  },
  saturationWaiting: {
    name: 'llm_saturation_waiting',
    type: 'trend',
    time: false,
    unit: 'requests',
    help: "SATURATION_STOP: requests waiting in the server's queue at that scrape.",
  },
  scheduleLag: {
    name: 'llm_schedule_lag',
    type: 'trend',
    time: true,
    unit: 'ms',
    help:
      'TRACE replays: how late each request was sent against its instant in the trace (sent − due); a p99 ' +
      'above TRACE_MAX_LAG marks the replay not faithful (client-limited).',
  },
  newConnection: {
    name: 'llm_new_connection',
    type: 'rate',
    time: false,
    unit: 'requests',
    help:
      "Generation requests that opened a new TCP connection (k6's http_req_connecting above 0) rather than " +
      'reusing one: each such request waits one round trip more (the handshake) before it is sent, two with ' +
      'TLS 1.2. The http transport only: xk6-sse gives no connection phases (it opens a connection per ' +
      'request).',
  },
  connect: {
    name: 'llm_connect',
    type: 'trend',
    time: true,
    unit: 'ms',
    help:
      "TCP connect time of the generation requests that opened a connection (k6's http_req_connecting): one " +
      "network round trip, the network's share of those requests' TTFT and e2e. The http transport only.",
  },
  tlsHandshake: {
    name: 'llm_tls_handshake',
    type: 'trend',
    time: true,
    unit: 'ms',
    help:
      "TLS handshake time of the generation requests that made one (k6's http_req_tls_handshaking): one " +
      'round trip (TLS 1.3) or two (1.2) on top of the connect. The http transport only.',
  },
  clientGap: {
    name: 'llm_client_gap',
    type: 'trend',
    time: true,
    unit: 'ms',
    help:
      'Time a closed-loop VU spent between the end of one request and sending the next (its own parsing, ' +
      "metrics and k6's scheduling); when it is large against the request latency, the load generator, not " +
      'the server, limits the load.',
  },
  clientGapBuckets: {
    name: 'llm_client_gap_buckets',
    type: 'counter',
    time: false,
    unit: 'requests',
    help:
      'ITL_SAMPLES=histogram: the requests whose llm_client_gap fell in each log-spaced bucket, tagged ' +
      'le_ms as llm_itl_buckets (a quantile read from them is within 2.5 %; not cumulative).',
  },
  promptLength: {
    name: 'llm_request_prompt_tokens',
    type: 'trend',
    time: false,
    unit: 'tokens',
    help:
      'DATASET and IMAGES runs: prompt tokens of each successful request as the server counted them ' +
      '(prompt_tokens, images included): the distribution of prompt lengths actually sent; with IMAGES, a ' +
      "cell's image tokens per request are its mean minus that of the cell without images.",
  },
  outputLength: {
    name: 'llm_request_output_tokens',
    type: 'trend',
    time: false,
    unit: 'tokens',
    help: 'DATASET runs: output tokens of each successful request as the server counted them.',
  },
  lengthRatio: {
    name: 'llm_prompt_length_ratio',
    type: 'trend',
    time: false,
    unit: 'ratio',
    help:
      "DATASET runs: the server's prompt_tokens ÷ the length the benchmark intended (setup's count: the " +
      "server's tokenize route, or characters ÷ 4), per first-turn request; far from 1 means the prompts " +
      'are not the lengths the ISL axis says.',
  },
  variantDown: {
    name: 'llm_variant_down',
    type: 'counter',
    time: false,
    unit: 'VUs',
    help:
      'VUs that declared their variant down in this run: nothing listened for VARIANT_DOWN_AFTER, so they ' +
      'stopped sending to it; the report marks the run as not fully measured.',
  },
  /** @deprecated The old name of llm_variant_down, emitted beside it until the next release. */
  variantDownOldName: {
    name: 'llm_target_down',
    type: 'counter',
    time: false,
    unit: 'VUs',
    help: 'Renamed llm_variant_down (the same samples); this old name is emitted until the next release.',
  },
  preflightFailed: {
    name: 'llm_preflight_failed',
    type: 'counter',
    time: false,
    unit: 'variants',
    help: 'A variant that failed preflight (no load was sent), tagged variant and reason.',
  },
  serverTtft: {
    name: 'llm_server_ttft',
    type: 'trend',
    time: true,
    unit: 'ms',
    help:
      "Server-side mean TTFT over the cell's steady window, from the difference of the server's /metrics " +
      "histogram (sum/count) at the window's start and end.",
  },
  serverItl: {
    name: 'llm_server_itl',
    type: 'trend',
    time: true,
    unit: 'ms',
    help:
      'Server-side mean inter-token latency per token over the steady window: the difference of the ' +
      "server's summed inter-token gaps divided by the tokens generated after each request's first (vLLM " +
      'counts one gap per output step, SGLang one per token; this figure is per token for both).',
  },
  serverE2e: {
    name: 'llm_server_e2e',
    type: 'trend',
    time: true,
    unit: 'ms',
    help: 'Server-side mean request latency over the steady window, from /metrics histogram differences.',
  },
  serverQueue: {
    name: 'llm_server_queue_time',
    type: 'trend',
    time: true,
    unit: 'ms',
    help: 'Server-side mean queueing time over the steady window (vLLM request_queue_time_seconds), from /metrics histogram differences.',
  },
  serverAcceptance: {
    name: 'llm_server_acceptance_length',
    type: 'trend',
    time: false,
    unit: 'tokens/step',
    help:
      "Acceptance length over the steady window from the server's counters: 1 + Δaccepted / Δdrafts (vLLM " +
      'and llama.cpp spec_decode_num_accepted_tokens and spec_decode_num_drafts, a draft being one verify ' +
      'step).',
  },
  serverSpecSteps: {
    name: 'llm_server_spec_steps',
    type: 'counter',
    time: false,
    unit: 'steps',
    help:
      "Verify steps over the steady window from the server's counters (Δ spec_decode_num_drafts, vLLM and " +
      'llama.cpp): the denominator of llm_server_spec_accepted_by_position.',
  },
  serverAcceptedByPosition: {
    name: 'llm_server_spec_accepted_by_position',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help:
      'Draft tokens accepted at draft position `position` (1 … 16) over the steady window, from the ' +
      "server's per-position counter (Δ spec_decode_num_accepted_tokens_per_pos); ÷ llm_server_spec_steps, " +
      'the share of verify steps that accepted that position.',
  },
  serverThroughput: {
    name: 'llm_server_output_throughput',
    type: 'trend',
    time: false,
    unit: 'tokens/s',
    help:
      "Generated tokens per second over the steady window from the server's counter of generated tokens " +
      '(vLLM and SGLang generation_tokens, updated as tokens are generated; llama.cpp tokens_predicted, ' +
      'updated when each request finishes).',
  },
  serverTimePerToken: {
    name: 'llm_server_time_per_token',
    type: 'trend',
    time: true,
    unit: 'ms',
    help:
      'llama.cpp: generation time per generated token over the steady window, Δtokens_predicted_seconds / ' +
      "Δtokens_predicted (requests that finished in the window). Each request's generation time runs from " +
      'its first token to its last while its first token is counted, so this is (n−1)/n of the mean gap ' +
      'after the first token for n-token outputs.',
  },
  gpuHourCost: {
    name: 'llm_gpu_hour_cost',
    type: 'trend',
    time: false,
    unit: 'USD/GPU-hour',
    help:
      "GPU_HOUR_COST of the run's variant (<PREFIX>_GPU_HOUR_COST first), one sample per run when set: with " +
      'llm_steady_gpu_hours and llm_window_output_tokens, dollars per million output tokens. Unset: no ' +
      'sample, never 0.',
  },
  steadyGpuHours: {
    name: 'llm_steady_gpu_hours',
    type: 'trend',
    time: false,
    unit: 'GPU-hours',
    help:
      "GPUS of the run's variant (1 when unset) × the run's steady window (its slices after the first) in " +
      'hours, one sample per run with DURATION and SLICES above 1: llm_window_output_tokens of those slices ' +
      '÷ (this × 3600) is output tokens/s per GPU.',
  },
  gpuEnergy: {
    name: 'llm_gpu_energy',
    type: 'counter',
    time: false,
    unit: 'J',
    help:
      "GPU_METRICS_URL: the GPUs' energy in time slice `slice` of the steady window, summed over the " +
      "exporter's GPUs: the slice's mean power (the energy counter's difference between the scrapes at its " +
      "bounds over their distance, or power × time where the exporter has no counter) × the slice's length. " +
      "Divided by llm_window_output_tokens of the same slice it is the run's joules per output token.",
  },
  gpuPower: {
    name: 'llm_gpu_power',
    type: 'trend',
    time: false,
    unit: 'W',
    help: "GPU_METRICS_URL: mean power over the steady window, summed over the exporter's GPUs.",
  },
  gpuUtilization: {
    name: 'llm_gpu_utilization',
    type: 'trend',
    time: false,
    unit: '%',
    help: "GPU_METRICS_URL: the exporter's GPU utilisation over the steady window: the mean of its scrapes (about one a second) of the mean over GPUs.",
  },
  gpuMemoryUsed: {
    name: 'llm_gpu_memory_used',
    type: 'trend',
    time: false,
    unit: 'MiB',
    help: "GPU_METRICS_URL: GPU memory used over the steady window, summed over the exporter's GPUs: the mean of its scrapes.",
  },
  gpuCount: {
    name: 'llm_gpu_count',
    type: 'counter',
    time: false,
    unit: 'GPUs',
    help:
      'GPU_METRICS_URL: the GPUs on the exporter’s page for a run whose GPU figures were measured, tagged ' +
      'gpu_exporter and gpu_energy_source (energy-counter or power-integral).',
  },
  gpuNotMeasured: {
    name: 'llm_gpu_not_measured',
    type: 'counter',
    time: false,
    unit: 'runs',
    help: 'GPU_METRICS_URL: 1 for a run whose GPU figures are not measured, tagged gpu_reason (unreachable, unknown_exporter, unreadable, short_window).',
  },
  serverCacheHits: {
    name: 'llm_server_prefix_cache_hit_tokens',
    type: 'trend',
    time: false,
    unit: 'tokens',
    help:
      "Prompt tokens the server served from its prefix cache over the steady window, from its counters' " +
      'difference (vLLM prefix_cache_hits, SGLang cached_tokens, llama.cpp prompt_tokens_cached).',
  },
  serverCacheQueries: {
    name: 'llm_server_prefix_cache_query_tokens',
    type: 'trend',
    time: false,
    unit: 'tokens',
    help:
      'Prompt tokens the server looked up in its prefix cache over the steady window (vLLM ' +
      'prefix_cache_queries, SGLang prompt_tokens, llama.cpp prompt_tokens + prompt_tokens_cached): the hit ' +
      'rate is llm_server_prefix_cache_hit_tokens / this.',
  },
  cacheReset: {
    name: 'llm_cache_reset',
    type: 'counter',
    time: false,
    unit: 'resets',
    help:
      "A reset of the server's prefix cache before a run (CACHE_RESET), tagged cache_run (the run) and " +
      'outcome: reset, refused (requests still running), missing (the route answered 404 or 501), no_route ' +
      '(the engine has none), failed.',
  },
  poolItems: {
    name: 'llm_pool_items',
    type: 'counter',
    time: false,
    unit: 'items',
    help:
      'Pooling benchmarks (embeddings, rerank): items of successful requests, each checked in the reply: a ' +
      'vector per input (all of one dimension), a score per document. Items per second is this over the ' +
      'window.',
  },
  poolDimension: {
    name: 'llm_pool_dimension',
    type: 'trend',
    time: false,
    unit: 'floats',
    help: "Embeddings: the length of a successful reply's vectors, one sample per reply (min = max when every reply had one dimension).",
  },
  poolUsageReplies: {
    name: 'llm_pool_usage_replies',
    type: 'counter',
    time: false,
    unit: 'requests',
    help: 'Pooling benchmarks: successful replies that carried usage.prompt_tokens; tokens per second is reported only when every successful reply did.',
  },
  windowItems: {
    name: 'llm_window_pool_items',
    type: 'counter',
    time: false,
    unit: 'items',
    help: 'Pooling benchmarks: items of successful requests completing in time slice `slice`.',
  },
  windowPoolTokens: {
    name: 'llm_window_pool_tokens',
    type: 'counter',
    time: false,
    unit: 'tokens',
    help: "Pooling benchmarks: input tokens, by the server's usage, of successful requests completing in time slice `slice`.",
  },
} as const satisfies Record<string, MetricDef>;

export type MetricKey = keyof typeof METRICS;

/** Tags the benchmarks put on samples. All are low-cardinality: never a per-request value. */
export const TAGS = {
  variant: 'Deployment label (e.g. dflash, mtp; `target` in single-variant benchmarks).',
  cell: 'Matrix cell id, e.g. i1024_o256_c8 (i1024_o256_img1x336x336_c8 for a cell with IMAGES).',
  images: 'IMAGES: the images each request of the cell carries, <count>x<width>x<height>; absent on cells without images.',
  isl: 'Input length of the cell, tokens.',
  osl: 'Output length of the cell, tokens.',
  batch: 'Items per request of a pooling cell (embeddings, rerank only).',
  concurrency: 'Concurrent requests of the cell (closed-loop VUs).',
  rate: 'Arrival rate of the cell, requests per second (arrival-rate benchmark).',
  // From the dialect table, when read (a dialect registered later shows too).
  get dialect(): string {
    return `API dialect used: ${DIALECT_NAMES.slice(0, -1).join(', ')} or ${DIALECT_NAMES[DIALECT_NAMES.length - 1]}.`;
  },
  error_class: 'Error class of a failed request (llm_errors only).',
  slice: "Time slice of the cell's load window (llm_window_* only).",
  le_ms: "A log bucket's upper bound, ms (the llm_*_buckets of a time only).",
  le_tps: "A log bucket's upper bound, tokens/s (llm_request_tokens_per_second_buckets only).",
  finish_reason:
    "Why a reply shorter than asked ended, by the server's word: stop (EOS or a stop sequence), length (a " +
    'limit before max tokens), other, unknown (llm_short_replies only).',
  itl_rule: "How a request's ITL was measured: server-counts, one-token-per-event or per-chunk (llm_itl_rule only).",
  reason: 'Why a variant failed preflight (llm_preflight_failed only).',
  gpu_exporter: 'Which GPU exporter GPU_METRICS_URL served: dcgm or nvidia_smi (llm_gpu_count only).',
  gpu_energy_source: "How a run's GPU energy was had: energy-counter or power-integral (llm_gpu_count only).",
  gpu_reason: 'Why a run’s GPU figures are not measured (llm_gpu_not_measured only).',
  domain:
    "DATASET runs: the prompt's domain (the dataset's `domain` field, `none` for items without one; at " +
    'most 32 values); absent when the dataset has no domains.',
  turn: 'MULTI_TURN runs: the user turn of the conversation the request sends: 1 … 7, or 8+.',
  adapter: 'ADAPTERS runs: the LoRA adapter the request ran with, as ADAPTERS names it (`base`: the base model; at most 16 values); absent without ADAPTERS.',
  segment:
    'Runs split over several k6 instances only: the k6 execution segment of the instance that sent the sample, so that the instances write distinct series.',
} as const;

/** The Prometheus series name k6's remote-write output gives a metric (stat for trends). */
export function promName(def: MetricDef, stat = 'p99'): string {
  switch (def.type) {
    case 'counter':
      return `k6_${def.name}_total`;
    case 'rate':
      return `k6_${def.name}_rate`;
    case 'trend':
      return `k6_${def.name}_${stat.replace(/[()]/g, '').replace('.', '')}`;
  }
}
