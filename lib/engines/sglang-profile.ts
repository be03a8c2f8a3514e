// SGLang: GET /get_model_info answers (model_path, is_generation); its native /generate reports
// token counts per event and the verify steps of speculative decoding (acceptance length).
import { answered, ownedBy, positive, text, type EngineProfile } from './profile';

export const sglang: EngineProfile = {
  id: 'sglang',
  label: 'SGLang',
  recognise(s) {
    const info = answered(s, '/get_model_info');
    const fromInfo = info !== null && (typeof info.model_path === 'string' || 'is_generation' in info);
    if (!fromInfo && !ownedBy(s, 'sglang')) return null;
    const path = info ? text(info.model_path) : null;
    return {
      version: null,
      maxModelLen: positive(s.models[0]?.max_model_len) ?? (info ? positive(info.max_context_length) : null),
      models: s.models.length === 0 && path ? [path] : undefined,
      evidence: fromInfo ? 'GET /get_model_info → 200' : 'owned_by sglang',
    };
  },
  dialect: 'sglang',
  // /v1/messages (sglang/srt/entrypoints/anthropic) and /v1/responses (serving_responses.py).
  offered: ['sglang', 'openai-chat', 'anthropic', 'responses'],
  openaiLayer: 'the OpenAI layer (tokenizer manager, chat template)',
  servesAnyModelName: true,
  metrics: {
    prefix: 'sglang:',
    ttft: 'sglang:time_to_first_token_seconds',
    itl: ['sglang:inter_token_latency_seconds', 'sglang:time_per_output_token_seconds'],
    e2e: 'sglang:e2e_request_latency_seconds',
    queue: 'sglang:queue_time_seconds',
    waiting: 'sglang:num_queue_reqs',
    generationTokens: 'sglang:generation_tokens_total',
    specDrafts: null,
    specAccepted: null,
    generationSeconds: null,
  },
  // Its tokenizer manager adds each finished request's prompt length to prompt_tokens and its cached
  // part to cached_tokens{cache_source} (device, host, storage); older releases show only the
  // cache_hit_rate gauge. /flush_cache answers 400 while requests run or wait.
  prefixCache: {
    counters: { hits: 'sglang:cached_tokens_total', queries: ['sglang:prompt_tokens_total'] },
    hitRateGauge: 'sglang:cache_hit_rate',
    reset: { method: 'POST', path: '/flush_cache', busy: [400], missing: 'this SGLang has no /flush_cache' },
  },
  metricsHint: 'start SGLang with --enable-metrics',
  // /v1/tokenize (also /tokenize in recent versions): no messages form, so a conversation is counted
  // as its turns' text, without the chat template's few tokens per turn.
  tokenize: { path: '/v1/tokenize', textField: 'prompt', specialField: 'add_special_tokens', sendsModel: true, messages: false, countField: 'count' },
  // GET /get_server_info: the server arguments with the scheduler's figures merged over them.
  serving: {
    routes: ['/get_server_info'],
    settings: {
      engine_version: { route: '/get_server_info', field: 'version' },
      model: { route: '/get_server_info', field: 'model_path', flag: '--model-path' },
      revision: { route: '/get_server_info', field: 'revision', flag: '--revision' },
      quantization: { route: '/get_server_info', field: 'quantization', nullAs: 'none', flag: '--quantization' },
      dtype: { route: '/get_server_info', field: 'dtype', flag: '--dtype' },
      kv_cache_dtype: { route: '/get_server_info', field: 'kv_cache_dtype', flag: '--kv-cache-dtype' },
      tensor_parallel: { route: '/get_server_info', field: 'tp_size', flag: '--tp-size' },
      pipeline_parallel: { route: '/get_server_info', field: 'pp_size', flag: '--pp-size' },
      data_parallel: { route: '/get_server_info', field: 'dp_size', flag: '--dp-size' },
      max_running_requests: { route: '/get_server_info', field: 'max_running_requests', flag: '--max-running-requests' },
      max_batch_tokens: { route: '/get_server_info', field: 'max_prefill_tokens', flag: '--max-prefill-tokens' },
      chunked_prefill: { route: '/get_server_info', field: 'chunked_prefill_size', map: 'off-unless-positive', flag: '--chunked-prefill-size' },
      cuda_graphs: { route: '/get_server_info', field: 'disable_cuda_graph', map: 'invert', flag: '--disable-cuda-graph' },
      prefix_caching: { route: '/get_server_info', field: 'disable_radix_cache', map: 'invert', flag: '--disable-radix-cache' },
      memory_fraction: { route: '/get_server_info', field: 'mem_fraction_static', flag: '--mem-fraction-static' },
      block_size: { route: '/get_server_info', field: 'page_size', flag: '--page-size' },
      attention_backend: { route: '/get_server_info', field: 'attention_backend', flag: '--attention-backend' },
      // context_length is null unless --context-length was given; max_req_input_len is what the scheduler took.
      context_length: [
        { route: '/get_server_info', field: 'context_length', flag: '--context-length' },
        { route: '/get_server_info', field: 'max_req_input_len', flag: '--context-length' },
      ],
      speculative_method: { route: '/get_server_info', field: 'speculative_algorithm', nullAs: 'none', flag: '--speculative-algorithm' },
      speculative_draft_model: { route: '/get_server_info', field: 'speculative_draft_model_path', flag: '--speculative-draft-model-path' },
      speculative_steps: { route: '/get_server_info', field: 'speculative_num_steps', flag: '--speculative-num-steps' },
      speculative_draft_tokens: { route: '/get_server_info', field: 'speculative_num_draft_tokens', flag: '--speculative-num-draft-tokens' },
    },
  },
  checked: 'simulator; corpus replies built from its source and quoted from its issues',
};
