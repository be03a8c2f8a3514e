// setup(): can each target be benchmarked? Reachability, dialect, model, a one-token generation
// under a short deadline, warm-up. Every failure becomes one diagnosis and the run stops before
// any load, in seconds rather than after k6's default timeouts.
import http from 'k6/http';
import { sleep } from 'k6';
import type { BenchConfig, TargetConfig } from '../config/load';
import { createDialect, type DialectName, type GenerationResult } from '../dialects/index';
import { classifyTransport } from '../dialects/errors';
import { failed } from '../dialects/reply';
import { chooseModel, contextError, identify, stalledMessage, timeoutWarning, wrongDialectMessage, type PreflightReason, type Probe, type ServerIdentity } from '../preflight/diagnose';
import { detectFlavor } from '../server-metrics/window';
import { TOKEN_ID_FLOOR } from '../config/load';
import { requestHeaders, type TargetInfo } from './targets';

const PROBE_TIMEOUT_MS = 5000;

export class PreflightError extends Error {
  constructor(
    readonly reason: PreflightReason,
    message: string,
  ) {
    super(message);
  }
}

function get(t: TargetConfig, path: string, timeoutMs = PROBE_TIMEOUT_MS): Probe {
  const res = http.get(t.url + path, { headers: requestHeaders(t), timeout: timeoutMs, tags: { name: `GET ${path}`, phase: 'preflight' }, responseType: 'text' });
  return { route: `GET ${path}`, status: res.status, body: typeof res.body === 'string' ? res.body : '', error: res.error };
}

/** Waits for /health to answer 200, up to the preflight deadline. Returns the routes found healthy. */
function awaitHealthy(t: TargetConfig, deadlineMs: number): string[] {
  const started = Date.now();
  for (;;) {
    const h = get(t, '/health');
    if (h.status === 0) {
      throw new PreflightError('unreachable', `${t.label}: cannot connect to ${t.url} (${h.error}). Is the server running and ${t.vars.url} right?`);
    }
    if (h.status === 200) return ['GET /health'];
    if (h.status === 404) return []; // no health route: the generation check decides
    if (h.status === 401 || h.status === 403) return [];
    if (Date.now() - started >= deadlineMs) {
      throw new PreflightError('not_ready', `${t.label}: GET /health → ${h.status} for ${deadlineMs / 1000} s: the server is not ready (still loading, or its engine is down). Wait, or raise PREFLIGHT_TIMEOUT.`);
    }
    sleep(1);
  }
}

function generate(t: TargetConfig, dialect: DialectName, model: string, prompt: { tokens: number; text: string }, maxTokens: number, timeoutMs: number): { result: GenerationResult; ms: number } {
  const d = createDialect(dialect, { dialectVar: t.vars.dialect, modelVar: t.vars.model, model });
  const ids: number[] = [];
  for (let i = 0; i < prompt.tokens; i++) ids.push(TOKEN_ID_FLOOR + ((i * 7919) % 20000));
  const wire = d.build({
    prompt: d.acceptsTokenIds ? { kind: 'tokens', json: `[${ids.join(',')}]`, length: ids.length } : { kind: 'text', text: prompt.text },
    maxTokens,
    ignoreEos: true,
    temperature: 0,
    stream: false,
    model: model || undefined,
  });
  const route = `${wire.method} ${wire.path}`;
  const start = Date.now();
  const res = http.post(t.url + wire.path, wire.body, { headers: requestHeaders(t), timeout: timeoutMs, tags: { name: route, phase: 'preflight' }, responseType: 'text' });
  const ms = Date.now() - start;
  if (res.status === 0) return { result: failed(0, classifyTransport(res.error_code, res.error, route, t.url, timeoutMs)), ms };
  const ct = (res.headers['Content-Type'] as string | undefined) ?? '';
  return { result: d.parseBody(res.status, typeof res.body === 'string' ? res.body : '', ct), ms };
}

export interface PreflightResult {
  info: TargetInfo;
  warnings: string[];
}

export function preflightTarget(cfg: BenchConfig, t: TargetConfig): PreflightResult {
  const notes: string[] = [];
  const warnings: string[] = [];
  const healthy = awaitHealthy(t, cfg.preflightTimeoutMs);
  const modelsProbe = get(t, '/v1/models');
  if (modelsProbe.status === 401 || modelsProbe.status === 403) {
    throw new PreflightError('auth', `${t.label}: GET /v1/models → ${modelsProbe.status}: the server rejected the credentials; set ${t.vars.apiKey || 'API_KEY'} to the key it expects.`);
  }
  const id: ServerIdentity = identify(get(t, '/get_model_info'), modelsProbe, modelsProbe.status === 200 ? get(t, '/version') : null);
  if (modelsProbe.status === 200) healthy.push('GET /v1/models');
  let dialect: DialectName;
  if (t.dialect === 'auto') {
    if (id.dialect === null) {
      throw new PreflightError('unknown_api', `${t.label}: cannot tell which API ${t.url} speaks (${id.evidence}); set ${t.vars.dialect} to sglang, openai or openai-chat.`);
    }
    dialect = id.dialect;
    notes.push(`${t.vars.dialect}=auto chose ${dialect}: ${id.evidence}`);
  } else {
    dialect = t.dialect;
  }
  const chosen = chooseModel(t.model, id, t.vars.model);
  if (chosen.error) throw new PreflightError('unknown_model', `${t.label}: ${chosen.error}`);
  if (chosen.note) warnings.push(`${t.label}: ${chosen.note}`);
  if (dialect !== 'sglang' && chosen.model === '') {
    throw new PreflightError('unknown_model', `${t.label}: the server lists no model at GET /v1/models; set ${t.vars.model}.`);
  }
  const ctxErr = contextError(Math.max(...cfg.isl), Math.max(...cfg.osl), id.maxModelLen);
  if (ctxErr) throw new PreflightError('context_length', `${t.label}: ${ctxErr}`);

  // The check that a health probe cannot make: does a real generation produce a token?
  const probe = generate(t, dialect, chosen.model, { tokens: 8, text: 'Say hi.' }, 1, cfg.preflightTimeoutMs);
  if (!probe.result.ok) {
    const err = probe.result.error;
    if (err?.class === 'timeout') throw new PreflightError('stalled', `${t.label}: ${stalledMessage(healthy, cfg.preflightTimeoutMs)}`);
    if (err?.class === 'wrong_dialect') {
      const route = dialect === 'sglang' ? 'POST /generate' : dialect === 'openai' ? 'POST /v1/completions' : 'POST /v1/chat/completions';
      throw new PreflightError('wrong_dialect', `${t.label}: ${wrongDialectMessage(route, probe.result.status, id, t.vars.dialect)}`);
    }
    throw new PreflightError('generation_failed', `${t.label}: the one-token test generation failed: ${err?.message ?? 'unknown error'}`);
  }
  if (probe.result.completionTokens === null) {
    warnings.push(`${t.label}: the server reports no token counts; throughput and tokens are not measured for it.`);
  }

  // Warm-up at the largest input, which also proves the longest prompt fits.
  const maxIsl = Math.max(...cfg.isl);
  const warm: number[] = [];
  for (let i = 0; i < cfg.warmupRequests; i++) {
    const n = i === 0 ? 1 : 16;
    const w = generate(t, dialect, chosen.model, { tokens: maxIsl, text: 'Hello '.repeat(maxIsl).trim() }, n, cfg.requestTimeoutMs);
    if (!w.result.ok) throw new PreflightError('warmup_failed', `${t.label}: warm-up request ${i + 1} (ISL ${maxIsl}) failed: ${w.result.error?.message ?? 'unknown error'}`);
    warm.push(w.ms);
  }
  if (warm.length >= 2) {
    const w = timeoutWarning(warm[0], warm[1], 16, Math.max(...cfg.osl), cfg.requestTimeoutMs);
    if (w) warnings.push(`${t.label}: ${w}`);
  }

  let metrics = null;
  if (cfg.serverMetrics !== 'off') {
    const m = get(t, '/metrics');
    metrics = m.status === 200 ? detectFlavor(m.body) : null;
    if (metrics === null && cfg.serverMetrics === 'on') {
      warnings.push(`${t.label}: GET /metrics → ${m.status || m.error}: server-side figures are not measured (SGLang needs --enable-metrics).`);
    }
  }
  return { info: { label: t.label, url: t.url, dialect, model: chosen.model, kind: id.kind, metrics, notes }, warnings };
}
