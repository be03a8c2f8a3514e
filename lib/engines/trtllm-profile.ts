// TensorRT-LLM's trtllm-serve: models owned_by "tensorrt_llm". Its /metrics is JSON iteration
// statistics, not Prometheus text, so no server-side window figures.
import { ownedBy, positive, type EngineProfile } from './profile';

export const trtllm: EngineProfile = {
  id: 'trtllm',
  label: 'TensorRT-LLM (trtllm-serve)',
  recognise: (s) =>
    ownedBy(s, 'tensorrt_llm') ? { version: null, maxModelLen: positive(s.models[0]?.max_model_len), evidence: 'owned_by tensorrt_llm' } : null,
  dialect: 'openai',
  offered: ['openai', 'openai-chat'],
  metrics: null,
  tokenize: null,
  checked: 'corpus replies built from its source only (no published reply found)',
};
