// Preflight, in order: can each variant be benchmarked? Reachability, dialect, model, a one-token
// generation under a short deadline, warm-up. Every failure becomes one diagnosis and the run
// stops before any load, in seconds rather than after k6's default timeouts. Transient failures
// (429, 5xx, a dropped connection) are retried and only a persistent one fails the variant. The
// one-token check goes out together with a generation on each other API layer of the server, so a
// hung server is localised after one deadline. The messages live in diagnose.ts; the requests go
// through a BatchPort, so this runs in Node tests with a fake server as it runs in k6.
import type { BatchPort, BatchRequest, HttpPort, HttpReply } from '../http-port';
import type { BenchConfig, VariantConfig } from '../config/config-types';
import { structuredRefusal } from '../dialects/structured';
import {
  DIALECT_NAMES,
  DIALECT_TRAITS,
  createDialect,
  imagesRefusal,
  type Dialect,
  type DialectName,
  type GenerationResult,
  type Prompt,
} from '../dialects/index';
import { classifyTransport } from '../dialects/errors';
import { checkAdapters } from './adapters-loaded';
import { checkPooling } from './pooling-preflight';
import { failed } from '../reading';
import {
  PREFLIGHT_ATTEMPTS,
  attemptsFailedMessage,
  backoffMs,
  chooseModel,
  connectFailure,
  contextError,
  hungLayerWarning,
  identify,
  profileOf,
  isTransient,
  longestPrompt,
  stallDiagnosis,
  stallProbeDialects,
  timeoutWarning,
  transientLabel,
  transientWarning,
  unreachableMessage,
  wrongDialectMessage,
  type PreflightReason,
  type Probe,
  type RouteTry,
  type ServerIdentity,
} from './diagnose';
import { engineOfMetrics, probesToAsk, sightings } from '../engines/index';
import { TOKEN_ID_FLOOR } from '../config/load';
import { textPromptPool, tokenPromptPool, type PromptSpec } from '../workload/seeded-prompts';
import { requestHeaders, type VariantInfo } from '../variants';

const PROBE_TIMEOUT_MS = 5000;
/** Tokens of the one-token check's prompt. */
const PROBE_PROMPT_TOKENS = 8;

export class PreflightError extends Error {
  constructor(
    readonly reason: PreflightReason,
    message: string,
  ) {
    super(message);
  }
}

function get(io: HttpPort, v: VariantConfig, path: string, timeoutMs = PROBE_TIMEOUT_MS): Probe {
  const route = `GET ${path}`;
  const res = io.get(v.url + path, { headers: requestHeaders(v), timeoutMs, name: route });
  return { route, status: res.status, body: res.body, error: res.error, errorCode: res.errorCode };
}

/**
 * Waits for /health to answer 200, up to the preflight deadline. A refused connection counts as
 * "not ready yet" (vLLM only listens once its model is loaded), as does 503; both share the
 * deadline. Returns the routes found healthy.
 */
function awaitHealthy(io: HttpPort, v: VariantConfig, deadlineMs: number): string[] {
  const started = io.now();
  for (;;) {
    const left = deadlineMs - (io.now() - started);
    const h = get(io, v, '/health', Math.max(500, Math.min(PROBE_TIMEOUT_MS, left)));
    if (h.status === 0) {
      if (connectFailure(h) === 'dns' || io.now() - started >= deadlineMs) {
        throw new PreflightError('unreachable', `${v.variant}: ${unreachableMessage(v.url, deadlineMs, h, v.vars.url)}`);
      }
    } else {
      if (h.status === 200) return ['GET /health'];
      if (h.status === 404) return []; // no health route: the generation check decides
      if (h.status === 401 || h.status === 403) return [];
      if (io.now() - started >= deadlineMs) {
        throw new PreflightError(
          'not_ready',
          `${v.variant}: GET /health → ${h.status} for ${deadlineMs / 1000} s: the server is not ready (still loading, ` +
            `or its engine is down). Wait, or raise PREFLIGHT_TIMEOUT.`,
        );
      }
    }
    io.sleep(Math.min(1000, Math.max(50, deadlineMs - (io.now() - started))));
  }
}

/** A prompt of exactly `length` tokens (about, for text) from the shared generators; unrelated to the run's pools. */
function preflightPrompt(cfg: BenchConfig, d: Dialect, length: number): Prompt {
  const spec: PromptSpec = {
    isl: length,
    poolSize: 1,
    seed: (cfg.seed ^ 0x5eed) >>> 0,
    vocabSize: cfg.vocabSize,
    idFloor: TOKEN_ID_FLOOR,
    sharedPrefix: 0,
    spread: 0,
  };
  return d.acceptsTokenIds ? { kind: 'tokens', json: tokenPromptPool(spec)[0], length } : { kind: 'text', text: textPromptPool(spec)[0] };
}

/** Where a preflight generation goes: the variant, the dialect spoken to it and the model named. */
interface Addressee {
  v: VariantConfig;
  d: Dialect;
  model: string;
}

/** What one preflight generation asks for, and how long it may take. */
interface Ask {
  prompt: Prompt;
  maxTokens: number;
  timeoutMs: number;
}

/** A generation request as the port sends it, and how to read its reply. */
interface Generation {
  request: BatchRequest;
  read(res: HttpReply): GenerationResult;
}

function generation({ v, d, model }: Addressee, { prompt, maxTokens, timeoutMs }: Ask): Generation {
  const wire = d.build({ prompt, maxTokens, ignoreEos: true, temperature: 0, stream: false, model: model || undefined });
  const route = `${wire.method} ${wire.path}`;
  return {
    request: { method: 'POST', url: v.url + wire.path, body: wire.body, req: { headers: requestHeaders(v, undefined, d.name), timeoutMs, name: route } },
    read: (res) =>
      res.status === 0 ? failed(0, classifyTransport(res.errorCode, res.error, route, v.url, timeoutMs)) : d.parseBody(res.status, res.body, res.contentType),
  };
}

/** One generation, answered or failed, and how long it took. */
interface Generated {
  result: GenerationResult;
  ms: number;
}

function generate(io: HttpPort, to: Addressee, ask: Ask): Generated {
  const g = generation(to, ask);
  const start = io.now();
  const res = io.post(g.request.url, g.request.body ?? '', g.request.req);
  return { result: g.read(res), ms: io.now() - start };
}

/** Preflight generations sent and those that failed transiently (for the warning). */
interface Tally {
  sent: number;
  failed: number;
  labels: string[];
}

interface Attempted {
  result: GenerationResult;
  ms: number;
  attempts: number;
}

/** How a preflight generation is retried: by a deadline (or none), counted in a tally (or not), its first attempt already made (or not). */
interface Retrying {
  deadline: number | null;
  tally: Tally | null;
  first?: Generated;
}

/**
 * One preflight generation, retried on transient failures with back-off (0.5 s, 1 s, 2 s) up to
 * PREFLIGHT_ATTEMPTS; with a deadline, no attempt or pause goes past it. `first`: the first
 * attempt, already made (the one-token check's, in the batch that probes the other layers).
 */
function generateRetrying(io: HttpPort, to: Addressee, ask: Ask, { deadline, tally, first }: Retrying): Attempted {
  let attempts = 0;
  for (;;) {
    const timeout = deadline === null ? ask.timeoutMs : Math.min(ask.timeoutMs, deadline - io.now());
    const g = attempts === 0 && first !== undefined ? first : generate(io, to, { ...ask, timeoutMs: Math.max(100, timeout) });
    attempts++;
    if (tally) tally.sent++;
    if (g.result.ok || !isTransient(g.result)) return { ...g, attempts };
    if (tally) {
      tally.failed++;
      tally.labels.push(transientLabel(g.result));
    }
    const pause = backoffMs(attempts);
    if (attempts >= PREFLIGHT_ATTEMPTS || (deadline !== null && io.now() + pause + 100 >= deadline)) return { ...g, attempts };
    io.sleep(pause);
  }
}

/** The one-token check's first attempt (its `ms` the batch's), and the other layers' routes probed beside it. */
interface LayerProbes {
  first: Generated;
  others: RouteTry[];
}

/**
 * The one-token check's first attempt and one generation on each of the server's other layers
 * (stallProbeDialects), sent together, each under PREFLIGHT_TIMEOUT: should the check get no token,
 * what the other routes did is known when its deadline ends, so a stuck engine is told from a stuck
 * API layer after one deadline rather than one per route.
 */
function probeLayers(io: BatchPort, cfg: BenchConfig, to: Addressee, id: ServerIdentity): LayerProbes {
  const { v, model } = to;
  const timeoutMs = cfg.preflightTimeoutMs;
  const dialects = [
    to.d,
    ...stallProbeDialects(profileOf(id), to.d.name).map((name) => createDialect(name, { dialectVar: v.vars.dialect, modelVar: v.vars.model, model })),
  ];
  const gens = dialects.map((d) => generation({ v, d, model }, { prompt: preflightPrompt(cfg, d, PROBE_PROMPT_TOKENS), maxTokens: 1, timeoutMs }));
  const start = io.now();
  const replies = io.batch(gens.map((g) => g.request));
  const ms = io.now() - start;
  const results = gens.map((g, i) => g.read(replies[i]));
  const others = dialects.slice(1).map((d, i) => {
    const r = results[i + 1];
    return routeTry(d, r.ok ? 'token' : r.error?.class === 'timeout' ? 'timeout' : 'error', timeoutMs, r.error?.message ?? '');
  });
  return { first: { result: results[0], ms }, others };
}

function routeTry(d: Dialect, outcome: RouteTry['outcome'], timeoutMs: number, detail = ''): RouteTry {
  return { dialect: d.name, route: `POST ${d.path}`, outcome, detail, timeoutMs };
}

/** The one-token check timed out: which layer hangs, from what the other routes did meanwhile. */
function stalled(cfg: BenchConfig, { v, d: primary }: Addressee, id: ServerIdentity, healthy: string[], others: RouteTry[]): PreflightError {
  const d = stallDiagnosis(routeTry(primary, 'timeout', cfg.preflightTimeoutMs), others, healthy, profileOf(id), v.vars.dialect);
  return new PreflightError(d.reason, `${v.variant}: ${d.message}`);
}

export interface PreflightResult {
  info: VariantInfo;
  warnings: string[];
}

/** What the identification GETs found: the server, the dialect to speak and the model to name. */
export interface Identified {
  id: ServerIdentity;
  /** GET /v1/models answered 200. */
  modelsOk: boolean;
  dialect: DialectName;
  model: string;
  notes: string[];
  warnings: string[];
}

/**
 * Which API a variant speaks and which model to name, from GETs only (no generation): the part of
 * preflight that resolves DIALECT=auto and an empty MODEL. The public library (lib/api) runs it
 * alone in each VU whose client was created with dialect 'auto' or without a needed model.
 */
export function identifyVariant(io: HttpPort, v: VariantConfig): Identified {
  const notes: string[] = [];
  const warnings: string[] = [];
  const modelsProbe = get(io, v, '/v1/models');
  if (modelsProbe.status === 401 || modelsProbe.status === 403) {
    throw new PreflightError(
      'auth',
      `${v.variant}: GET /v1/models → ${modelsProbe.status}: the server rejected the credentials; set ${v.vars.apiKey || 'API_KEY'} to the key it expects.`,
    );
  }
  const id: ServerIdentity = identifyServer(io, v, modelsProbe);
  let dialect: DialectName;
  if (v.dialect === 'auto') {
    if (id.dialect === null) {
      throw new PreflightError(
        'unknown_api',
        `${v.variant}: cannot tell which API ${v.url} speaks (${id.evidence}); set ${v.vars.dialect} to one of ${DIALECT_NAMES.join(', ')}.`,
      );
    }
    dialect = id.dialect;
    notes.push(`${v.vars.dialect}=auto chose ${dialect}: ${id.evidence}`);
  } else {
    dialect = v.dialect;
  }
  const chosen = chooseModel(v.model, id, v.vars.model);
  if (chosen.error) throw new PreflightError('unknown_model', `${v.variant}: ${chosen.error}`);
  if (chosen.note) warnings.push(`${v.variant}: ${chosen.note}`);
  if (DIALECT_TRAITS[dialect].needsModel && chosen.model === '') {
    throw new PreflightError('unknown_model', `${v.variant}: the server lists no model at GET /v1/models; set ${v.vars.model}.`);
  }
  return { id, modelsOk: modelsProbe.status === 200, dialect, model: chosen.model, notes, warnings };
}

export function preflightVariant(io: BatchPort, cfg: BenchConfig, v: VariantConfig): PreflightResult {
  const healthy = awaitHealthy(io, v, cfg.preflightTimeoutMs);
  const found = identifyVariant(io, v);
  const { id, dialect, notes, warnings } = found;
  // IMAGES with DIALECT=auto: only now is the dialect known (a named one was checked with the configuration).
  const noImages = v.dialect === 'auto' && (cfg.images ?? []).some((s) => s.count > 0) ? imagesRefusal(dialect, `${v.vars.dialect}=${v.dialect} chose `) : null;
  if (noImages !== null) throw new PreflightError('wrong_dialect', `${v.variant}: IMAGES: ${noImages.slice(0, -1)}, or IMAGES=0.`);
  // TOOLS or RESPONSE_FORMAT with DIALECT=auto, as IMAGES.
  const noStructured =
    v.dialect === 'auto' ? structuredRefusal(cfg.structured, DIALECT_TRAITS, dialect, v.vars.dialect, `${v.vars.dialect}=auto chose ${dialect}, which`) : null;
  if (noStructured !== null) throw new PreflightError('wrong_dialect', `${v.variant}: ${noStructured}`);
  const chosen = { model: found.model };
  if (cfg.pooling) return poolingPreflight(io, cfg, v, found);
  const adapters = cfg.adapters ? checkAdapters(v.variant, cfg.adapters, profileOf(id), (path) => get(io, v, path)) : null;
  if (adapters !== null && 'error' in adapters) throw new PreflightError('unknown_adapter', adapters.error);
  if (found.modelsOk) healthy.push('GET /v1/models');
  const longest = longestPrompt(cfg.isl, cfg.promptPool, cfg.islSpread);
  const maxOsl = Math.max(...cfg.osl);
  const ctxErr = contextError(longest, maxOsl, id.maxModelLen);
  if (ctxErr) throw new PreflightError('context_length', `${v.variant}: ${ctxErr}`);

  // The check that a health probe cannot make: does a real generation produce a token?
  const d = createDialect(dialect, { dialectVar: v.vars.dialect, modelVar: v.vars.model, model: chosen.model });
  const tally: Tally = { sent: 0, failed: 0, labels: [] };
  const to: Addressee = { v, d, model: chosen.model };
  const layers = probeLayers(io, cfg, to, id);
  // Retries of a transient failure get their own PREFLIGHT_TIMEOUT from the batch's end: a hung
  // route beside the check must not use up the time of its retries.
  const probe = generateRetrying(
    io,
    to,
    { prompt: preflightPrompt(cfg, d, PROBE_PROMPT_TOKENS), maxTokens: 1, timeoutMs: cfg.preflightTimeoutMs },
    { deadline: io.now() + cfg.preflightTimeoutMs, tally, first: layers.first },
  );
  if (!probe.result.ok) {
    const err = probe.result.error;
    if (err?.class === 'timeout') throw stalled(cfg, to, id, healthy, layers.others);
    if (err?.class === 'wrong_dialect') {
      throw new PreflightError('wrong_dialect', `${v.variant}: ${wrongDialectMessage(`POST ${d.path}`, probe.result.status, id, v.vars.dialect, d.name)}`);
    }
    throw new PreflightError(
      'generation_failed',
      `${v.variant}: ${attemptsFailedMessage('the one-token test generation', probe.attempts, err?.message ?? 'unknown error')}`,
    );
  }
  const hungBeside = hungLayerWarning(routeTry(d, 'token', cfg.preflightTimeoutMs), layers.others, profileOf(id));
  if (hungBeside) warnings.push(`${v.variant}: ${hungBeside}`);
  const choice = cfg.structured?.toolChoice;
  const profile = profileOf(id);
  if (typeof choice === 'object' && profile?.namedToolChoice) {
    warnings.push(`${v.variant}: TOOL_CHOICE=${choice.name}: ${profile.label} ${profile.namedToolChoice}; TOOL_CHOICE=required asks for a call.`);
  }
  if (probe.result.completionTokens === null) {
    warnings.push(`${v.variant}: the server reports no token counts; throughput and tokens are not measured for it.`);
  }

  // Warm-up with the longest prompt any cell sends (ISL_SPREAD included), which also proves it fits.
  const warmPrompt = preflightPrompt(cfg, d, longest.length);
  const warm: number[] = [];
  for (let i = 0; i < cfg.warmupRequests; i++) {
    const n = i === 0 ? 1 : 16;
    const w = generateRetrying(io, to, { prompt: warmPrompt, maxTokens: n, timeoutMs: cfg.requestTimeoutMs }, { deadline: null, tally });
    if (!w.result.ok) {
      const what = `warm-up request ${i + 1} (ISL ${longest.isl}${longest.length !== longest.isl ? `, longest prompt ${longest.length} tokens` : ''})`;
      throw new PreflightError('warmup_failed', `${v.variant}: ${attemptsFailedMessage(what, w.attempts, w.result.error?.message ?? 'unknown error')}`);
    }
    warm.push(w.ms);
  }
  const flaky = transientWarning(tally.failed, tally.sent, tally.labels);
  if (flaky) warnings.push(`${v.variant}: ${flaky}`);
  if (warm.length >= 2) {
    const w = timeoutWarning(warm[0], warm[1], 16, maxOsl, cfg.requestTimeoutMs);
    if (w) warnings.push(`${v.variant}: ${w}`);
  }

  let metrics = null;
  if (cfg.serverMetrics !== 'off') {
    const m = get(io, v, '/metrics');
    metrics = m.status === 200 ? (engineOfMetrics(m.body)?.id ?? null) : null;
    if (metrics === null && cfg.serverMetrics === 'on') {
      const hint = profileOf(id)?.metricsHint;
      warnings.push(`${v.variant}: GET /metrics → ${m.status || m.error}: server-side figures are not measured${hint ? ` (${hint})` : ''}.`);
    }
  }
  const info: VariantInfo = { variant: v.variant, url: v.url, dialect, model: chosen.model, engineLabel: id.engineLabel, engine: id.engine, metrics, notes };
  if (adapters !== null) info.adapters = adapters.binding;
  return { info, warnings };
}

/** embeddings, rerank: the pooling route's one-item check in place of the generations (lib/preflight/pooling-preflight.ts). */
function poolingPreflight(io: BatchPort, cfg: BenchConfig, v: VariantConfig, found: Identified): PreflightResult {
  const { id, dialect, model, notes, warnings } = found;
  const checked = checkPooling(io, cfg, v, dialect, model);
  if ('reason' in checked) throw new PreflightError(checked.reason, checked.message);
  if (checked.promptTokens === null)
    warnings.push(`${v.variant}: the ${cfg.pooling?.task} reply carries no usage.prompt_tokens: its tokens per second are not measured.`);
  return { info: { variant: v.variant, url: v.url, dialect, model, engineLabel: id.engineLabel, engine: id.engine, metrics: null, notes }, warnings };
}

/** GET /get_model_info and /v1/models, then what the engine profiles ask for, a round at a time. */
function identifyServer(io: HttpPort, v: VariantConfig, modelsProbe: Probe): ServerIdentity {
  const modelInfo = get(io, v, '/get_model_info');
  const extra: Probe[] = [];
  for (let round = 0; round < 3; round++) {
    const seen = [modelInfo, ...extra].map((p) => ({ route: p.route.replace(/^GET /, ''), status: p.status, body: p.body }));
    const ask = probesToAsk(sightings({ route: '/v1/models', status: modelsProbe.status, body: modelsProbe.body }, seen));
    if (ask.length === 0) break;
    for (const route of ask) extra.push(get(io, v, route));
  }
  return identify(modelInfo, modelsProbe, extra);
}
