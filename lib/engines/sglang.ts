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
  checked: 'simulator; corpus replies built from its source and quoted from its issues',
};
