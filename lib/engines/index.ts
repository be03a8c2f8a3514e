// The engine profiles and the one place that decides which server a variant is. Adding a server is
// one profile (a file like vllm.ts) in ENGINES, plus its captured replies under test/fixtures/corpus.
import { jsonObject, type EngineProfile, type MetricNames, type Recognised, type Seen, type Sightings } from './profile';
import { llamacpp } from './llamacpp-profile';
import { lmstudio } from './lmstudio-profile';
import { ollama } from './ollama-profile';
import { sglang } from './sglang-profile';
import { tgi } from './tgi-profile';
import { trtllm } from './trtllm-profile';
import { vllm } from './vllm-profile';

export type { EngineId, EngineProfile, MetricNames, Recognised, Seen, Sightings, TokenizeRoute } from './profile';

/** In the order they are tried: the most specific evidence first, vLLM's loose /version rule last. */
export const ENGINES: EngineProfile[] = [sglang, llamacpp, tgi, ollama, lmstudio, trtllm, vllm];

/** Any other server with OpenAI routes: the OpenAI dialect, nothing engine-specific. */
export const OPENAI_COMPATIBLE: EngineProfile = {
  id: 'openai-compatible',
  label: 'an OpenAI-compatible server',
  recognise: () => null,
  dialect: 'openai',
  offered: ['openai', 'openai-chat'],
  metrics: null,
  tokenize: null,
  checked: 'the OpenAI dialect',
};

/** Adds a profile ahead of the built-in ones (a user's own server, or a test's). */
export function registerEngine(p: EngineProfile): void {
  const at = ENGINES.findIndex((e) => e.id === p.id);
  if (at >= 0) ENGINES.splice(at, 1);
  ENGINES.unshift(p);
}

export function engineById(id: string | null | undefined): EngineProfile | null {
  if (!id) return null;
  if (id === OPENAI_COMPATIBLE.id) return OPENAI_COMPATIBLE;
  return ENGINES.find((e) => e.id === id) ?? null;
}

/** Which server wrote a /metrics page, from the metric prefix only its profile names. */
export function engineOfMetrics(text: string): EngineProfile | null {
  return ENGINES.find((e) => e.metrics !== null && text.includes(e.metrics.prefix)) ?? null;
}

/** The metric names of a profile id; null when it has none. */
export function metricNames(id: string): MetricNames | null {
  return engineById(id)?.metrics ?? null;
}

/** Reads a GET /v1/models answer into sightings. */
export function sightings(models: Seen | null, probes: Seen[] = []): Sightings {
  const list = models && models.status === 200 ? jsonObject(models.body) : null;
  const entries =
    list && Array.isArray(list.data) ? (list.data as unknown[]).filter((m): m is Record<string, unknown> => m !== null && typeof m === 'object') : [];
  const s: Sightings = { models: entries, ownedBy: entries.map((m) => (typeof m.owned_by === 'string' ? m.owned_by : '')), probes: {} };
  for (const p of probes) s.probes[p.route] = p;
  return s;
}

/** The routes still worth asking, given what was seen: each profile's probes whose condition holds. */
export function probesToAsk(s: Sightings): string[] {
  const out: string[] = [];
  for (const e of ENGINES) for (const p of e.probes ?? []) if (!(p.route in s.probes) && !out.includes(p.route) && p.when(s)) out.push(p.route);
  return out;
}

/** The first profile that recognises the sightings, with its finding; null for none. */
export function recognise(s: Sightings): { profile: EngineProfile; found: Recognised } | null {
  for (const profile of ENGINES) {
    const found = profile.recognise(s);
    if (found) return { profile, found };
  }
  return null;
}

/** "vLLM 0.20.1", "llama.cpp b11669", "SGLang". */
export function engineName(profile: EngineProfile, version: string | null): string {
  return version ? `${profile.label} ${version}` : profile.label;
}
