// Why a variant failed preflight, a leaf: the plan's summary keys name these without loading the
// preflight's diagnosis (which only VU 0 runs).

/** Why a variant failed preflight: a low-cardinality tag, and the headline the report shows. */
export const PREFLIGHT_REASONS = {
  unreachable: 'nothing answers at the URL',
  not_ready: 'the server is not ready (503 on /health)',
  auth: 'the server rejected the credentials',
  unknown_api: 'the server speaks no known API at this URL',
  unknown_model: 'the model is not served there',
  unknown_adapter: 'an adapter in ADAPTERS is not loaded on the server',
  context_length: 'the matrix exceeds the model context length',
  stalled: 'healthy but hung: no token within PREFLIGHT_TIMEOUT',
  stalled_layer: 'the generation route in use hangs, another route answers: an API layer is stuck, not the engine',
  wrong_dialect: 'wrong dialect: the server speaks another API',
  generation_failed: 'the one-token test generation failed',
  warmup_failed: 'a warm-up request failed',
  no_pooling_route: 'the server does not serve the pooling route as started (embeddings, rerank: 404 or 501)',
} as const;

export type PreflightReason = keyof typeof PREFLIGHT_REASONS;
