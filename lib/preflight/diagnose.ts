// Pure decisions of the preflight: what a server is, from the answers of its routes, and the one
// message that explains a failure. lib/preflight/run.ts performs the requests (through an HttpPort: k6 in lib/k6/setup.ts, a fake server in tests).
import type { ClassifiedError } from '../dialects/types';
import { DIALECT_TRAITS, type DialectName } from '../dialects/index';
import { formatSeconds } from '../dialects/errors';
import { poolLengths } from '../workload/seeded-prompts';
import { OPENAI_COMPATIBLE, engineById, engineName, recognise, sightings, type EngineProfile } from '../engines/index';

export { PREFLIGHT_REASONS, type PreflightReason } from './reasons';

export interface Probe {
  /** e.g. "GET /v1/models" */
  route: string;
  /** 0 when no HTTP answer came. */
  status: number;
  body: string;
  /** Transport error text when status is 0. */
  error: string;
  /** k6 error_code when status is 0 (11xx DNS, 121x dial), if known. */
  errorCode?: number;
}

export interface ServerIdentity {
  /** The engine profile's id (lib/engines); null when nothing answered as a known API. */
  engine: string | null;
  /** The dialect auto picks (the profile's), null when the server speaks no known API. */
  dialect: DialectName | null;
  /** A human description such as "SGLang" or "vLLM 0.20.1" or "an OpenAI-compatible server". */
  engineLabel: string;
  /** Model names the server lists (OpenAI /v1/models ids, or SGLang's model_path). */
  models: string[];
  /** Context length if the server states it (vLLM max_model_len, SGLang max_context_length). */
  maxModelLen: number | null;
  /** One sentence of evidence, e.g. "GET /get_model_info → 200". */
  evidence: string;
}

/**
 * Identifies the server from GET /get_model_info, GET /v1/models and the further GETs the engine
 * profiles asked for (lib/engines: probesToAsk), by the first profile that recognises them.
 */
export function identify(modelInfo: Probe, models: Probe, extra: Probe[] = []): ServerIdentity {
  const seen = [modelInfo, ...extra].map((p) => ({ route: p.route.replace(/^GET /, ''), status: p.status, body: p.body }));
  const s = sightings({ route: '/v1/models', status: models.status, body: models.body }, seen);
  const ids = s.models.map((m) => m.id).filter((id): id is string => typeof id === 'string');
  const hit = recognise(s);
  if (hit) {
    const { profile, found } = hit;
    return {
      engine: profile.id,
      dialect: profile.dialect,
      engineLabel: engineName(profile, found.version),
      models: ids.length > 0 ? ids : (found.models ?? []),
      maxModelLen: found.maxModelLen,
      evidence: `${found.evidence.startsWith('GET') ? '' : `${models.route} → 200, `}${found.evidence}`,
    };
  }
  if (models.status === 200 && s.models.length > 0) {
    const maxLen = s.models.map((m) => m.max_model_len).find((v): v is number => typeof v === 'number' && v > 0) ?? null;
    return {
      engine: OPENAI_COMPATIBLE.id,
      dialect: OPENAI_COMPATIBLE.dialect,
      engineLabel: OPENAI_COMPATIBLE.label,
      models: ids,
      maxModelLen: maxLen,
      evidence:
        `${models.route} → 200, ${modelInfo.route} → ${modelInfo.status || 'no answer'}, no engine recognised ` +
        `(owned_by ${[...new Set(s.ownedBy)].join(', ') || 'not given'})`,
    };
  }
  return {
    engine: null,
    dialect: null,
    engineLabel: 'an unknown server',
    models: [],
    maxModelLen: null,
    evidence: `${modelInfo.route} → ${modelInfo.status || modelInfo.error}, ${models.route} → ${models.status || models.error}`,
  };
}

/** The engine profile of an identity; none for a server that speaks no known API. */
export function profileOf(id: Pick<ServerIdentity, 'engine'>): EngineProfile | null {
  return engineById(id.engine);
}

/** The message for a generation route that answered 404/405: what the server speaks and what to set. */
export function wrongDialectMessage(route: string, status: number, id: ServerIdentity, dialectVar: string, dialect?: DialectName): string {
  if (id.dialect === null) {
    return (
      `${route} → ${status}: this server answers neither SGLang's /get_model_info nor OpenAI's /v1/models (${id.evidence}). ` +
      `Check the URL (a path prefix?) and the server.`
    );
  }
  const offered = profileOf(id)?.offered;
  // Its kind of server offers the route in recent releases (vLLM and SGLang added Messages and Responses in 2025): this one predates it.
  const older = dialect !== undefined && offered?.includes(dialect) ? `; ${route} came in a later release than this one: upgrade it, or` : ';';
  const offers = offered && offered.length > 1 ? `, which offers ${offered.join(', ')}` : '';
  return `${route} → ${status}: this server is ${id.engineLabel} (${id.evidence})${offers}${older} set ${dialectVar}=${id.dialect} (or ${dialectVar}=auto).`;
}

/** Healthy but no token in time; `finding` is what trying the other routes showed, if anything. */
export function stalledMessage(healthRoutes: string[], preflightMs: number, finding = ''): string {
  const healthy = healthRoutes.length > 0 ? `${healthRoutes.join(' and ')} → 200 but` : 'The server accepts connections but';
  return (
    `${healthy} no token within ${formatSeconds(preflightMs)}: the engine is stalled (it accepts requests and generates nothing).` +
    `${finding ? ` ${finding}` : ''} Restart the server and check its logs; PREFLIGHT_TIMEOUT sets this deadline.`
  );
}

/**
 * Picks the model to send: the configured one if served, else the only or first served. SGLang
 * serves the one model it loaded whatever a request names, so a configured name it does not serve
 * is replaced by the served one (with a note): the report must name the model that answered.
 */
export function chooseModel(configured: string, id: ServerIdentity, modelVar: string): { model: string; note: string | null; error: string | null } {
  if (configured !== '') {
    if (id.models.length > 0 && !id.models.includes(configured)) {
      const profile = profileOf(id);
      if (profile?.servesAnyModelName) {
        const served = id.models[0];
        return {
          model: served,
          note:
            `${modelVar}='${configured}' is not what this ${profile.label} serves ('${served}'); ${profile.label} ` +
            `ignores the model name: the report names '${served}'.`,
          error: null,
        };
      }
      return { model: configured, note: null, error: `${modelVar}='${configured}' is not served here; the server serves: ${id.models.join(', ')}.` };
    }
    return { model: configured, note: null, error: null };
  }
  if (id.models.length === 0) return { model: '', note: null, error: null };
  const note = id.models.length > 1 ? `several models served (${id.models.join(', ')}); using ${id.models[0]}: set ${modelVar} to choose` : null;
  return { model: id.models[0], note, error: null };
}

/** The longest prompt any cell sends: which ISL it belongs to, its length, and the spread. */
export interface LongestPrompt {
  isl: number;
  /** Tokens: ISL·(1+ISL_SPREAD) rounded, by the pool's own length rule (lib/workload/prompts). */
  length: number;
  spread: number;
}

/**
 * The longest prompt of the pools, by the same rule that builds them (poolLengths). SHARED_PREFIX
 * does not change lengths (the prefix replaces the start of each prompt), so it is not an input.
 */
export function longestPrompt(isl: readonly number[], poolSize: number, spread: number): LongestPrompt {
  let best: LongestPrompt = { isl: isl[0], length: 0, spread };
  for (const i of isl) {
    const len = Math.max(...poolLengths({ isl: i, poolSize, spread, seed: 0, vocabSize: 0, idFloor: 0, sharedPrefix: 0 }));
    if (len > best.length) best = { isl: i, length: len, spread };
  }
  return best;
}

/** Checks the matrix (longest prompt + longest output) against the context length the server states. */
export function contextError(longest: LongestPrompt, maxOsl: number, maxModelLen: number | null): string | null {
  const total = longest.length + maxOsl;
  if (maxModelLen === null || total <= maxModelLen) return null;
  if (longest.length === longest.isl) {
    return `ISL ${longest.isl} + OSL ${maxOsl} = ${total} tokens exceeds the model's context length of ${maxModelLen}: lower ISL or OSL.`;
  }
  return (
    `the longest prompt (ISL ${longest.isl} with ISL_SPREAD=${longest.spread}: ${longest.length} tokens) + OSL ${maxOsl} = ${total} tokens ` +
    `exceeds the model's context length of ${maxModelLen}: lower ISL, ISL_SPREAD or OSL.`
  );
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
  return (
    `at ≈${perToken.toFixed(1)} ms per token (warm-up, one request at a time) OSL=${maxOsl} needs ≈${Math.round(estimate / 1000)} ` +
    `s, close to or over REQUEST_TIMEOUT=${timeoutMs / 1000} s; under load it is slower: raise REQUEST_TIMEOUT.`
  );
}

// ---- Connection: a server that refuses connections may still be loading --------------------

/** How a failed connection reads: a name that does not resolve will not start resolving by waiting. */
export function connectFailure(p: Pick<Probe, 'error' | 'errorCode'>): 'dns' | 'refused' | 'no_answer' | 'other' {
  const code = p.errorCode ?? 0;
  if ((code >= 1100 && code < 1200) || /no such host|lookup|name resolution/i.test(p.error)) return 'dns';
  if (code === 1212 || /refused/i.test(p.error)) return 'refused';
  if (code === 1050 || /request timeout/i.test(p.error)) return 'no_answer';
  return 'other';
}

/** The unreachable message once the preflight deadline has passed without a connection. */
export function unreachableMessage(url: string, waitedMs: number, p: Pick<Probe, 'error' | 'errorCode'>, urlVar: string): string {
  const kind = connectFailure(p);
  if (kind === 'dns') return `cannot connect to ${url} (${p.error}): the host name does not resolve; is ${urlVar} right?`;
  if (kind === 'refused') {
    return (
      `cannot connect to ${url} for ${formatSeconds(waitedMs)} (connection refused): nothing listens there — is the server running ` +
      `(a vLLM still loading its model does not listen yet: raise PREFLIGHT_TIMEOUT) and is ${urlVar} right?`
    );
  }
  if (kind === 'no_answer') {
    return (
      `GET /health at ${url} got no answer for ${formatSeconds(waitedMs)} (${p.error}): something accepts connections ` +
      `there but does not answer; is it the server, is it hung, and is ${urlVar} right?`
    );
  }
  return (
    `cannot connect to ${url} for ${formatSeconds(waitedMs)} (${p.error || 'no answer'}): is the server running ` +
    `and reachable from here, and is ${urlVar} right?`
  );
}

// ---- Transient failures: retried, counted, and reported only when they persist ---------------

/** Attempts per preflight generation (the one-token check, each warm-up request). */
export const PREFLIGHT_ATTEMPTS = 4;

/** Pause before retry number `attempt` (1-based: after the first failure 0.5 s, then 1 s, then 2 s). */
export function backoffMs(attempt: number): number {
  return 500 * 2 ** Math.max(0, attempt - 1);
}

const TRANSIENT_STATUSES = new Set([429, 500, 502, 503, 504]);

/** A failure that may pass by itself: 429, 5xx overload or error, a dropped connection. */
export function isTransient(r: { status: number; error: ClassifiedError | null }): boolean {
  if (r.error === null) return false;
  if (r.status === 0) return r.error.class === 'connection_lost';
  return TRANSIENT_STATUSES.has(r.status);
}

/** A short label of a transient failure for counts: "500", "429", "connection lost". */
export function transientLabel(r: { status: number }): string {
  return r.status === 0 ? 'connection lost' : String(r.status);
}

/** A preflight request that failed every attempt: how many, and with what (the last error). */
export function attemptsFailedMessage(what: string, attempts: number, lastError: string): string {
  return attempts <= 1 ? `${what} failed: ${lastError}` : `${what} failed on ${attempts} of ${attempts} attempts: ${lastError}`;
}

/** A warning when some preflight requests failed and a retry succeeded; null when none failed. */
export function transientWarning(failed: number, total: number, labels: readonly string[]): string | null {
  if (failed === 0) return null;
  return (
    `${failed} of ${total} preflight requests failed transiently (${[...new Set(labels)].join(', ')}) and ` +
    `succeeded when retried: expect such errors under load.`
  );
}

// ---- Stall localisation: which layer hangs ---------------------------------------------------

/**
 * The other generation dialects probed beside the one-token check, to tell which layer hangs should
 * it get no token: the routes the server's profile offers (lib/engines), each prompt route, and one
 * chat route unless the check's own route takes chat turns. An unidentified server: none (no guess
 * at routes it may not have).
 */
export function stallProbeDialects(server: EngineProfile | null, primary: DialectName): DialectName[] {
  // Every route that takes chat turns passes through the same layer (the chat template) on every
  // server that offers several: a second one would cost a request to learn nothing new.
  let chatProbed = DIALECT_TRAITS[primary].chat;
  return (server?.offered ?? []).filter((d) => {
    if (d === primary) return false;
    if (!DIALECT_TRAITS[d].chat) return true;
    if (chatProbed) return false;
    chatProbed = true;
    return true;
  });
}

/** The native route of a profile with an OpenAI layer in front of its engine, and that layer's name. */
function nativeRoute(server: EngineProfile | null): { dialect: DialectName; openaiLayer: string } | null {
  return server?.openaiLayer ? { dialect: server.dialect, openaiLayer: server.openaiLayer } : null;
}

/** One generation route tried under a short deadline. */
export interface RouteTry {
  dialect: DialectName;
  /** e.g. "POST /generate" */
  route: string;
  outcome: 'token' | 'timeout' | 'error';
  /** The error message when outcome is 'error'. */
  detail: string;
  timeoutMs: number;
}

function listRoutes(routes: string[], last = 'and'): string {
  return routes.length <= 1 ? (routes[0] ?? '') : `${routes.slice(0, -1).join(', ')} ${last} ${routes[routes.length - 1]}`;
}

function deadlines(tries: RouteTry[]): string {
  const all = [...new Set(tries.map((x) => x.timeoutMs))];
  return all.length === 1 ? `in ${formatSeconds(all[0])}` : `in ${tries.map((x) => formatSeconds(x.timeoutMs)).join(', ')} respectively`;
}

/** Which layer is stuck when the `hung` routes got no token and the `working` ones answered. */
function stuckLayer(hung: RouteTry[], working: RouteTry[], server: EngineProfile | null): string {
  const native = nativeRoute(server);
  if (native && hung.every((h) => h.dialect !== native.dialect) && working.some((w) => w.dialect === native.dialect)) {
    return `${native.openaiLayer} is stuck, not the engine`;
  }
  if (hung.every((h) => DIALECT_TRAITS[h.dialect].chat)) return 'the chat layer (chat template) is stuck, not the engine';
  return `the layer behind ${listRoutes(hung.map((h) => h.route))} is stuck, not the engine`;
}

/**
 * A warning when the one-token check answered but a route probed beside it got no token: a layer
 * this run does not use hangs (and preflight waited PREFLIGHT_TIMEOUT for it). Null when none hung.
 */
export function hungLayerWarning(check: RouteTry, others: RouteTry[], server: EngineProfile | null): string | null {
  const hung = others.filter((o) => o.outcome === 'timeout');
  if (hung.length === 0) return null;
  return (
    `${listRoutes(hung.map((h) => h.route))} produced no token ${deadlines(hung)} while ${check.route} answers: ${stuckLayer(hung, [check], server)}. ` +
    `This run speaks ${check.route} and is not affected; preflight waited for the other route.`
  );
}

/**
 * The diagnosis of a one-token check that timed out on `primary`, from what the other routes did:
 * all hang too → the engine is stuck; another answers → only the layer in front of it is, and the
 * dialect that answers works around it; otherwise the plain stalled message.
 */
export function stallDiagnosis(
  primary: RouteTry,
  others: RouteTry[],
  healthRoutes: string[],
  server: EngineProfile | null,
  dialectVar: string,
): { reason: 'stalled' | 'stalled_layer'; message: string } {
  const working = others.filter((o) => o.outcome === 'token');
  if (working.length > 0) {
    const hung = [primary, ...others.filter((o) => o.outcome === 'timeout')];
    const health = healthRoutes.length > 0 ? `${healthRoutes.join(' and ')} → 200, but ` : '';
    const layer = stuckLayer(hung, working, server);
    return {
      reason: 'stalled_layer',
      message:
        `${health}only ${listRoutes(hung.map((h) => h.route))} ${hung.length > 1 ? 'hang' : 'hangs'} (no token ${deadlines(hung)}); ` +
        `${listRoutes(working.map((w) => w.route))} ${working.length > 1 ? 'answer' : 'answers'}: ${layer}; ` +
        `${dialectVar}=${working[0].dialect} works around it. Restart the server and check its logs.`,
    };
  }
  const hung = [primary, ...others.filter((o) => o.outcome === 'timeout')];
  const failed = others.filter((o) => o.outcome === 'error');
  if (failed.length === 0 && hung.length > 1) {
    const routes = hung.map((h) => h.route);
    const which = hung.length === 2 ? `Both ${routes[0]} and ${routes[1]} produced no token` : `None of ${listRoutes(routes, 'or')} produced a token`;
    const not = nativeRoute(server) ? 'not the OpenAI layer' : 'not one route';
    return { reason: 'stalled', message: stalledMessage(healthRoutes, primary.timeoutMs, `${which} ${deadlines(hung)}: the engine itself is stuck, ${not}.`) };
  }
  const finding = failed.map((f) => `${f.route} could not tell (${f.detail}).`).join(' ');
  return { reason: 'stalled', message: stalledMessage(healthRoutes, primary.timeoutMs, finding) };
}
