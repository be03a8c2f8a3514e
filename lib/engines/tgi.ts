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
  checked: 'corpus replies from its integration-test recordings and its source',
};
