// vLLM: /v1/models entries owned_by "vllm" with max_model_len; GET /version names the release.
import { answered, ownedBy, positive, text, type EngineProfile } from './profile';

export const vllm: EngineProfile = {
  id: 'vllm',
  label: 'vLLM',
  probes: [{ route: '/version', when: (s) => s.models.length > 0 }],
  recognise(s) {
    const v = answered(s, '/version');
    const version = v ? text(v.version) : null;
    // Before owned_by was looked at, a /version answer beside an OpenAI model list meant vLLM.
    if (!ownedBy(s, 'vllm') && !(version !== null && s.models.length > 0 && s.ownedBy.every((o) => o === 'vllm' || o === ''))) return null;
    return {
      version,
      maxModelLen: positive(s.models[0]?.max_model_len),
      evidence: [ownedBy(s, 'vllm') ? 'owned_by vllm' : null, version ? `GET /version → ${version}` : null].filter(Boolean).join(', '),
    };
  },
  dialect: 'openai',
  // /v1/messages (vllm/entrypoints/anthropic) and /v1/responses (serving_responses.py) since 2025.
  offered: ['openai', 'openai-chat', 'anthropic', 'responses'],
  metrics: {
    prefix: 'vllm:',
    ttft: 'vllm:time_to_first_token_seconds',
    // vLLM renamed time_per_output_token_seconds to inter_token_latency_seconds; accept either.
    itl: ['vllm:inter_token_latency_seconds', 'vllm:time_per_output_token_seconds'],
    e2e: 'vllm:e2e_request_latency_seconds',
    queue: 'vllm:request_queue_time_seconds',
    waiting: 'vllm:num_requests_waiting',
    generationTokens: 'vllm:generation_tokens_total',
    specDrafts: 'vllm:spec_decode_num_drafts_total',
    specAccepted: 'vllm:spec_decode_num_accepted_tokens_total',
    specAcceptedPerPos: 'vllm:spec_decode_num_accepted_tokens_per_pos_total',
    generationSeconds: null,
  },
  // Tokens looked up in, and found in, the prefix cache, counted as each request is scheduled.
  // /reset_prefix_cache exists only with VLLM_SERVER_DEV_MODE=1; newer releases answer 409 while
  // running requests hold cached blocks.
  prefixCache: {
    counters: { hits: 'vllm:prefix_cache_hits_total', queries: ['vllm:prefix_cache_queries_total'] },
    reset: {
      method: 'POST',
      path: '/reset_prefix_cache',
      busy: [409],
      missing: 'vLLM registers POST /reset_prefix_cache only when started with VLLM_SERVER_DEV_MODE=1',
    },
  },
  // The messages form renders the chat template, so its count is what /v1/chat/completions reports.
  tokenize: { path: '/tokenize', textField: 'prompt', specialField: 'add_special_tokens', sendsModel: true, messages: true, countField: 'count' },
  // vLLM shows little of its configuration: the model list, and the cache configuration as the
  // labels of the info gauge vllm:cache_config_info. Its scheduler settings (max_num_seqs,
  // max_num_batched_tokens, enforce_eager, parallel sizes, dtype) appear on no route: not compared.
  serving: {
    routes: ['/version', '/v1/models'],
    settings: {
      engine_version: { route: '/version', field: 'version' },
      model: { route: '/v1/models', field: 'data.0.root', flag: '--model' },
      context_length: { route: '/v1/models', field: 'data.0.max_model_len', flag: '--max-model-len' },
      kv_cache_dtype: { gauge: 'vllm:cache_config_info', label: 'cache_dtype', unset: 'None', flag: '--kv-cache-dtype' },
      prefix_caching: { gauge: 'vllm:cache_config_info', label: 'enable_prefix_caching', unset: 'None', flag: '--enable-prefix-caching' },
      memory_fraction: { gauge: 'vllm:cache_config_info', label: 'gpu_memory_utilization', unset: 'None', flag: '--gpu-memory-utilization' },
      block_size: { gauge: 'vllm:cache_config_info', label: 'block_size', unset: 'None', flag: '--block-size' },
    },
  },
  checked: 'simulator; corpus replies quoted from its issues and built from its source',
};
