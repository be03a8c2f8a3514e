// Engines recognised beyond SGLang and vLLM, from answers the preflight already has. llama.cpp's
// server lists its models with owned_by "llamacpp" (and the slot context and vocabulary size in
// `meta`), and GET /props names its build (build_info "b11669-Debian").
import type { Probe } from './diagnose';

export interface EngineFacts {
  /** e.g. "llama.cpp b11669" */
  kind: string;
  /** Context length of one slot (meta.n_ctx): the longest prompt + output a request may have. */
  maxModelLen: number | null;
  /** Vocabulary size (meta.n_vocab). */
  vocabSize: number | null;
  /** What told it apart, e.g. "owned_by llamacpp, GET /props → build b11669-Debian". */
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

function llamaEntries(list: Record<string, unknown> | null): Array<Record<string, unknown>> {
  if (!list || !Array.isArray(list.data)) return [];
  return (list.data as unknown[]).filter((m): m is Record<string, unknown> => m !== null && typeof m === 'object' && (m as Record<string, unknown>).owned_by === 'llamacpp');
}

/** Whether a GET /v1/models answer came from llama.cpp's server: then GET /props is worth asking. */
export function isLlamaCppModels(models: Probe): boolean {
  return models.status === 200 && models.body.includes('llamacpp') && llamaEntries(json(models.body)).length > 0;
}

/** The build in llama.cpp's build_info: "b11669-Debian" → "b11669"; anything else as it is. */
function buildName(info: string): string {
  const m = /^(b\d+)(?:-|$)/.exec(info);
  return m ? m[1] : info;
}

/**
 * llama.cpp's server, from its GET /v1/models list (already parsed) and its GET /props answer;
 * null when neither says llama.cpp.
 */
export function llamaCppFacts(list: Record<string, unknown> | null, props: Probe | null): EngineFacts | null {
  const entries = llamaEntries(list);
  const p = props && props.status === 200 ? json(props.body) : null;
  const build = p && typeof p.build_info === 'string' && p.build_info !== '' ? p.build_info : null;
  const propsSay = p !== null && build !== null && obj(p.default_generation_settings) !== null;
  if (entries.length === 0 && !propsSay) return null;
  const meta = obj(entries[0]?.meta);
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null);
  const evidence = [entries.length > 0 ? 'owned_by llamacpp' : null, propsSay && props ? `${props.route} → build ${build}` : null].filter((x) => x !== null).join(', ');
  return {
    kind: build !== null ? `llama.cpp ${buildName(build)}` : 'llama.cpp',
    maxModelLen: n(meta?.n_ctx),
    vocabSize: n(meta?.n_vocab),
    evidence,
  };
}

function obj(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}
