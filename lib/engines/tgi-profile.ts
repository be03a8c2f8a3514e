// Hugging Face Text Generation Inference: GET /info names the model, the router and the version.
// Its /v1/completions streams carry finish_reason "" until the last chunk.
import { answered, positive, text, type EngineProfile } from './profile';

export const tgi: EngineProfile = {
  id: 'tgi',
  label: 'Text Generation Inference',
  probes: [{ route: '/info', when: (s) => !(s.probes['/get_model_info']?.status === 200) }],
  recognise(s) {
    const info = answered(s, '/info');
    if (!info || typeof info.model_id !== 'string' || !/text-generation/.test(String(info.router ?? ''))) return null;
    return {
      version: text(info.version),
      maxModelLen: positive(info.max_total_tokens),
      models: s.models.length === 0 ? [info.model_id] : undefined,
      evidence: `GET /info → ${info.router} ${info.version ?? ''}`.trim(),
    };
  },
  dialect: 'openai',
  offered: ['openai', 'openai-chat'],
  // Histograms in seconds; no counter of generated tokens, no speculative counters.
  metrics: null,
  tokenize: null,
  // GET /info: the model, its revision and the router's limits (older releases: dtype and batch tokens too).
  serving: {
    routes: ['/info'],
    settings: {
      engine_version: { route: '/info', field: 'version' },
      model: { route: '/info', field: 'model_id', flag: '--model-id' },
      revision: { route: '/info', field: 'model_sha', flag: '--revision' },
      dtype: { route: '/info', field: 'model_dtype', flag: '--dtype' },
      max_running_requests: { route: '/info', field: 'max_concurrent_requests', flag: '--max-concurrent-requests' },
      max_batch_tokens: { route: '/info', field: 'max_batch_total_tokens', flag: '--max-batch-total-tokens' },
      context_length: { route: '/info', field: 'max_total_tokens', flag: '--max-total-tokens' },
      speculative_draft_tokens: { route: '/info', field: 'speculate', flag: '--speculate' },
    },
  },
  checked: 'corpus replies from its integration-test recordings and its source',
};
