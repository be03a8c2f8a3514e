// What the suite knows about one kind of server, said once: how preflight recognises it, which
// dialect `auto` picks and which generation routes it offers, its /metrics names, its tokenize route
// and a label for reports. Every place that asks "which server is this" reads a profile (index.ts).
import type { AdapterNaming, DialectName } from '../dialects/index';
import type { ServingProfile } from './serving-config';

/** A GET the preflight made and what came back (status 0: no answer). */
export interface Seen {
  route: string;
  status: number;
  body: string;
}

/** What preflight saw of a server, for profiles to recognise it from. */
export interface Sightings {
  /** GET /v1/models, parsed: the entries of `data` (an empty list when there is none). */
  models: Array<Record<string, unknown>>;
  /** `owned_by` of each listed model. */
  ownedBy: string[];
  /** Every GET answered so far, by route ("/get_model_info", "/version", "/props", "/info" …). */
  probes: Record<string, Seen>;
}

/** A profile's finding. */
export interface Recognised {
  /** e.g. "0.20.1", "b11669"; null when the server does not say. */
  version: string | null;
  /** Context length of a request when the server states it. */
  maxModelLen: number | null;
  /** Model names the server serves, when its own route says (else /v1/models' ids are used). */
  models?: string[];
  /** What told it apart, e.g. "owned_by vllm, GET /version → 0.20.1". */
  evidence: string;
}

/** A server's /metrics names (Prometheus text), read over a measurement window. */
export interface MetricNames {
  /** A prefix only this server's metrics carry: tells which server wrote a /metrics page. */
  prefix: string;
  ttft: string | null;
  /** Inter-token latency histograms, first found wins (servers renamed them). */
  itl: string[];
  e2e: string | null;
  queue: string | null;
  /** Gauge of requests waiting to be scheduled (the saturation watch, lib/server-metrics/saturation.ts); absent or null: none. */
  waiting?: string | null;
  /** Counter of generated tokens. */
  generationTokens: string;
  specDrafts: string | null;
  specAccepted: string | null;
  /** Counter of accepted draft tokens by draft position (label `position`, from 0); optional: null or absent when the server has none. */
  specAcceptedPerPos?: string | null;
  /** Counter of seconds spent generating the tokens of generationTokens. */
  generationSeconds: string | null;
}

/** A route that counts a prompt's tokens with the server's own tokenizer. */
export interface TokenizeRoute {
  path: string;
  /** The request field holding the text. */
  textField: 'prompt' | 'content';
  /** The field asking for special tokens (BOS…), sent as true. */
  specialField: 'add_special_tokens' | 'add_special';
  /** Sends `model` when one is known. */
  sendsModel: boolean;
  /** Takes chat messages and renders the chat template (vLLM): counts what the chat route will. */
  messages: boolean;
  /** The reply field with the count; null: count the `tokens` array. */
  countField: 'count' | null;
}

/** A server's prefix cache: its /metrics counters of prompt tokens, and the route that empties it. */
export interface PrefixCacheProfile {
  /**
   * Counters of prompt tokens (summed over their label sets): `hits` served from the cache, and
   * `queries` the counters whose sum is the prompt tokens looked up (vLLM: its queries counter;
   * llama.cpp: tokens computed plus tokens cached). Null: the server counts none.
   */
  counters: { hits: string; queries: readonly string[] } | null;
  /** A hit-rate gauge the server shows besides (SGLang's cache_hit_rate, over its recent batches): named for people, not read as a window figure. */
  hitRateGauge?: string;
  /** The route that empties the cache (CACHE_RESET); null: none. */
  reset: CacheResetRoute | null;
}

export interface CacheResetRoute {
  method: 'POST';
  /** The path; `{slot}` stands for each slot's id when `slots` is set. */
  path: string;
  /** llama.cpp: GET this lists the slots (each with its `id`), and the path is called once per slot. */
  slots?: string;
  /** Statuses that mean "not now: requests are running" (retried until the run's gap ends). */
  busy: readonly number[];
  /** What a 404 or 501 from the route means, said in the report. */
  missing: string;
  /** What a reset leaves cached, said beside it in the report; absent: nothing. */
  leaves?: string;
}

/** An engine: the server software's id (sglang, vllm, llamacpp, …), its profile's `id`; a tag value, a VariantInfo field. */
export type EngineId = string;

export interface EngineProfile {
  /** The engine: a low-cardinality id, a tag value, a VariantInfo field. */
  id: EngineId;
  /** Human name, e.g. "vLLM". */
  label: string;
  /** Extra GET routes worth asking, and when (given what was seen so far). */
  probes?: ReadonlyArray<{ route: string; when(s: Sightings): boolean }>;
  /** Null when the sightings are not this server's. */
  recognise(s: Sightings): Recognised | null;
  /** What DIALECT=auto picks: the route that reports most (token counts per event, acceptance). */
  dialect: DialectName;
  /** Generation dialects it serves: the wrong-dialect diagnosis names them; stall localisation tries them (see stallProbeDialects). */
  offered: readonly DialectName[];
  /** The OpenAI layer in front of a native engine route, named when only that layer hangs. */
  openaiLayer?: string;
  /** Serves its one model whatever name a request gives (SGLang). */
  servesAnyModelName?: boolean;
  /** Its LoRA adapters (ADAPTERS): where it lists those loaded and how it names one; absent: listed in /v1/models, named as the dialect names them. */
  adapters?: AdapterProfile;
  metrics: MetricNames | null;
  /** Its prefix cache's counters and reset route; absent: not known. */
  prefixCache?: PrefixCacheProfile;
  /** How to turn its /metrics on, said when they are missing. */
  metricsHint?: string;
  tokenize: TokenizeRoute | null;
  /** Where it shows its serving configuration (serving.ts); absent: it shows none, so nothing of it is compared. */
  serving?: ServingProfile;
  /**
   * What it does with a tool_choice naming one function, when it does not honour it (said by the
   * preflight, so a run of replies without calls is not taken for the model's choice); absent: honoured.
   */
  namedToolChoice?: string;
  /** Where its behaviour here was checked, for the docs' table. */
  checked: string;
}

/** Where a server lists its loaded LoRA adapters, and how its requests name one. */
export interface AdapterProfile {
  /**
   * `models`: GET /v1/models lists each adapter as a model (vLLM's --lora-modules, SGLang's --lora-paths);
   * `lora-adapters`: GET /lora-adapters lists [{id, path, scale}] (llama.cpp's --lora).
   */
  list: 'models' | 'lora-adapters';
  /** How every route of this server names an adapter, whatever the dialect's own way (llama.cpp: the lora list, on its OpenAI routes too). */
  naming?: AdapterNaming;
}

/** Helpers for profiles. */
export function jsonObject(body: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(body);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A probe's JSON object when it answered 200. */
export function answered(s: Sightings, route: string): Record<string, unknown> | null {
  const p = s.probes[route];
  return p && p.status === 200 ? jsonObject(p.body) : null;
}

export function positive(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null;
}

export function text(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** Whether every listed model is owned by one of `owners`, and at least one is listed. */
export function ownedBy(s: Sightings, ...owners: string[]): boolean {
  return s.ownedBy.length > 0 && s.ownedBy.every((o) => owners.includes(o));
}
