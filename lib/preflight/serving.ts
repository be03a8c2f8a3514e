// Reads a variant's serving configuration before any load: the GETs its engine profile names
// (lib/engines/serving-config.ts) and, where the profile reads info gauges, one GET /metrics. What the
// server does not answer stays unread: the report lists it as not compared.
import type { HttpPort } from '../http-port';
import type { BenchConfig, VariantConfig } from '../config/config-types';
import { jsonObject, type EngineProfile } from '../engines/profile';
import { gaugesOf, readServing, type ServingConfig, type ServingInputs } from '../engines/serving-config';
import { parsePromText } from '../server-metrics/promtext';
import { requestHeaders } from '../variants';

const SERVING_TIMEOUT_MS = 5000;

/**
 * The serving configuration of a variant. The engine row is its profile's label ("vLLM"), its
 * version read like any setting; for a server whose profile shows no configuration, the label
 * preflight gave ("Ollama 0.1.36", "an OpenAI-compatible server").
 */
export function readServingConfig(
  io: HttpPort,
  cfg: Pick<BenchConfig, 'serverMetrics'>,
  v: VariantConfig,
  profile: EngineProfile | null,
  engineLabel: string,
): ServingConfig {
  const p = profile?.serving;
  const out: ServingConfig = { settings: { engine: { value: p && profile ? profile.label : engineLabel, source: 'preflight' } }, read: [] };
  if (!p) {
    out.read.push(`${profile?.label ?? 'this server'} shows no serving configuration this suite reads`);
    return out;
  }
  const inputs: ServingInputs = { json: {}, gauges: {} };
  const get = (route: string) => io.get(v.url + route, { headers: requestHeaders(v), timeoutMs: SERVING_TIMEOUT_MS, name: `GET ${route}` });
  for (const route of p.routes) {
    const res = get(route);
    inputs.json[route] = res.status === 200 ? jsonObject(res.body) : null;
    out.read.push(`GET ${route} → ${res.status || res.error}${res.status === 200 && inputs.json[route] === null ? ' (not a JSON object)' : ''}`);
  }
  const gauges = gaugesOf(p);
  if (gauges.length > 0) {
    if (cfg.serverMetrics === 'off') out.read.push('GET /metrics: not read (SERVER_METRICS=off)');
    else {
      const res = get('/metrics');
      out.read.push(`GET /metrics → ${res.status || res.error}`);
      if (res.status === 200)
        for (const s of parsePromText(res.body)) if (gauges.includes(s.name) && !(s.name in inputs.gauges)) inputs.gauges[s.name] = s.labels;
    }
  }
  Object.assign(out.settings, readServing(p, inputs));
  return out;
}
