// Pure decisions of the preflight: what a server is, from the answers of its routes, and the one
// message that explains a failure. The k6 layer (lib/k6/preflight.ts) only performs the requests.
import type { DialectName } from '../dialects/types';

/** Why a target failed preflight: a low-cardinality tag, and the headline the report shows. */
export const PREFLIGHT_REASONS = {
  unreachable: 'nothing answers at the URL',
  not_ready: 'the server is not ready (503 on /health)',
  auth: 'the server rejected the credentials',
  unknown_api: 'the server speaks no known API at this URL',
  unknown_model: 'the model is not served there',
  context_length: 'the matrix exceeds the model context length',
  stalled: 'healthy but hung: no token within PREFLIGHT_TIMEOUT',
  wrong_dialect: 'wrong dialect: the server speaks another API',
  generation_failed: 'the one-token test generation failed',
  warmup_failed: 'a warm-up request failed',
} as const;

export type PreflightReason = keyof typeof PREFLIGHT_REASONS;

export interface Probe {
  /** e.g. "GET /v1/models" */
  route: string;
  /** 0 when no HTTP answer came. */
  status: number;
  body: string;
  /** Transport error text when status is 0. */
  error: string;
}

export interface ServerIdentity {
  /** The dialect auto picks: sglang for SGLang (its native API reports acceptance), openai otherwise. */
  dialect: DialectName | null;
  /** A human description such as "SGLang" or "vLLM 0.20.1" or "an OpenAI-compatible server". */
  kind: string;
  /** Model names the server lists (OpenAI /v1/models ids, or SGLang's model_path). */
  models: string[];
  /** Context length if the server states it (vLLM max_model_len, SGLang max_context_length). */
  maxModelLen: number | null;
  /** One sentence of evidence, e.g. "GET /get_model_info → 200 (SGLang)". */
  evidence: string;
}

function json(body: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(body);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Identifies the server from GET /get_model_info, GET /v1/models and GET /version. */
export function identify(modelInfo: Probe, models: Probe, version: Probe | null): ServerIdentity {
  const info = modelInfo.status === 200 ? json(modelInfo.body) : null;
  const list = models.status === 200 ? json(models.body) : null;
  const ids: string[] = [];
  let maxLen: number | null = null;
  if (list && Array.isArray(list.data)) {
    for (const m of list.data as Array<Record<string, unknown>>) {
      if (m && typeof m.id === 'string') ids.push(m.id);
      if (m && typeof m.max_model_len === 'number' && maxLen === null) maxLen = m.max_model_len;
    }
  }
  if (info && (typeof info.model_path === 'string' || 'is_generation' in info)) {
    const path = typeof info.model_path === 'string' ? info.model_path : '';
    const ctx = typeof info.max_context_length === 'number' ? info.max_context_length : null;
    return {
      dialect: 'sglang',
      kind: 'SGLang',
      models: ids.length > 0 ? ids : path ? [path] : [],
      maxModelLen: maxLen ?? ctx,
      evidence: `${modelInfo.route} → 200`,
    };
  }
  if (list && Array.isArray(list.data)) {
    const v = version && version.status === 200 ? json(version.body) : null;
    const kind = v && typeof v.version === 'string' ? `vLLM ${v.version}` : 'an OpenAI-compatible server (like vLLM)';
    return { dialect: 'openai', kind, models: ids, maxModelLen: maxLen, evidence: `${models.route} → 200, ${modelInfo.route} → ${modelInfo.status || 'no answer'}` };
  }
  return {
    dialect: null,
    kind: 'an unknown server',
    models: [],
    maxModelLen: null,
    evidence: `${modelInfo.route} → ${modelInfo.status || modelInfo.error}, ${models.route} → ${models.status || models.error}`,
  };
}

/** The message for a generation route that answered 404/405: what the server speaks and what to set. */
export function wrongDialectMessage(route: string, status: number, id: ServerIdentity, dialectVar: string): string {
  if (id.dialect === null) {
    return `${route} → ${status}: this server answers neither SGLang's /get_model_info nor OpenAI's /v1/models (${id.evidence}). Check the URL (a path prefix?) and the server.`;
  }
  return `${route} → ${status}: this server is ${id.kind} (${id.evidence}); set ${dialectVar}=${id.dialect} (or ${dialectVar}=auto).`;
}

export function stalledMessage(healthRoutes: string[], preflightMs: number): string {
  const healthy = healthRoutes.length > 0 ? `${healthRoutes.join(' and ')} → 200 but` : 'The server accepts connections but';
  return `${healthy} no token within ${preflightMs / 1000} s: the engine is stalled (it accepts requests and generates nothing). Restart the server and check its logs; PREFLIGHT_TIMEOUT sets this deadline.`;
}

/** Picks the model to send: the configured one if served, else the only or first served. */
export function chooseModel(configured: string, id: ServerIdentity, modelVar: string): { model: string; note: string | null; error: string | null } {
  if (configured !== '') {
    if (id.models.length > 0 && id.dialect !== 'sglang' && !id.models.includes(configured)) {
      return { model: configured, note: null, error: `${modelVar}='${configured}' is not served here; the server serves: ${id.models.join(', ')}.` };
    }
    return { model: configured, note: null, error: null };
  }
  if (id.models.length === 0) return { model: '', note: null, error: null };
  const note = id.models.length > 1 ? `several models served (${id.models.join(', ')}); using ${id.models[0]}: set ${modelVar} to choose` : null;
  return { model: id.models[0], note, error: null };
}

/** Checks the matrix against the context length the server states, before any load. */
export function contextError(maxIsl: number, maxOsl: number, maxModelLen: number | null): string | null {
  if (maxModelLen === null || maxIsl + maxOsl <= maxModelLen) return null;
  return `ISL ${maxIsl} + OSL ${maxOsl} = ${maxIsl + maxOsl} tokens exceeds the model's context length of ${maxModelLen}: lower ISL or OSL.`;
}

/**
 * A warning when REQUEST_TIMEOUT looks too short for the longest output, estimated from two
 * warm-up requests (1 and n output tokens, same prompt, one at a time). The estimate only decides
 * whether to warn; it is never reported as a measurement.
 */
export function timeoutWarning(oneTokenMs: number, nTokensMs: number, n: number, maxOsl: number, timeoutMs: number): string | null {
  if (n < 2 || nTokensMs <= oneTokenMs) return null;
  const perToken = (nTokensMs - oneTokenMs) / (n - 1);
  const estimate = oneTokenMs + perToken * (maxOsl - 1);
  if (estimate <= timeoutMs * 0.8) return null;
  return `at ≈${perToken.toFixed(1)} ms per token (warm-up, one request at a time) OSL=${maxOsl} needs ≈${Math.round(estimate / 1000)} s, close to or over REQUEST_TIMEOUT=${timeoutMs / 1000} s; under load it is slower: raise REQUEST_TIMEOUT.`;
}
