// Empties a server's prefix cache through its engine profile's reset route (CACHE_RESET), or says
// why it could not: no route in the profile, the route absent (404/501: vLLM without dev mode,
// llama.cpp without --slot-save-path), refused while requests still run (retried until the budget
// ends), or another answer. Tested with a fake HttpPort; the k6 layer records the outcome.
import type { HttpPort } from '../http-port';
import { engineById, type EngineId } from '../engines/index';
import type { CacheResetOutcome } from './reset-outcome';

const RETRY_PAUSE_MS = 100;
const TIMEOUT_MS = 10_000;

export interface ResetVariant {
  url: string;
  engine: EngineId | null;
  headers: Record<string, string>;
}

export interface ResetResult {
  outcome: CacheResetOutcome;
  /** What was done or answered, for the log: "POST /flush_cache", "POST /reset_prefix_cache → 404 (…)". */
  detail: string;
}

const brief = (body: string) => body.trim().replace(/\s+/g, ' ').slice(0, 160);

/** Slot ids from a GET /slots answer (a list of objects with `id`); null when it is not one. */
export function slotIds(body: string): number[] | null {
  try {
    const v: unknown = JSON.parse(body);
    if (!Array.isArray(v)) return null;
    const ids = v.map((s) => (s !== null && typeof s === 'object' ? (s as Record<string, unknown>).id : undefined));
    return ids.every((id): id is number => typeof id === 'number' && Number.isInteger(id) && id >= 0) ? ids : null;
  } catch {
    return null;
  }
}

export function resetCache(io: HttpPort, variant: ResetVariant, budgetMs: number): ResetResult {
  const profile = engineById(variant.engine);
  const route = profile?.prefixCache?.reset ?? null;
  if (route === null) return { outcome: 'no_route', detail: `${profile?.label ?? 'the server (engine not recognised)'} has no prefix-cache reset route` };
  const name = `${route.method} ${route.path}`;
  const absent = (what: string, status: number): ResetResult => ({ outcome: 'missing', detail: `${what} → ${status}: ${route.missing}` });
  let paths = [route.path];
  if (route.slots !== undefined) {
    const res = io.get(`${variant.url}${route.slots}`, { headers: variant.headers, timeoutMs: TIMEOUT_MS, name: `GET ${route.slots}` });
    if (res.status === 404 || res.status === 501) return absent(`GET ${route.slots}`, res.status);
    const ids = res.status === 200 ? slotIds(res.body) : null;
    if (ids === null)
      return { outcome: 'failed', detail: `GET ${route.slots} → ${res.status || res.error}${res.status === 200 ? ': not a list of slots' : ''}` };
    paths = ids.map((id) => route.path.replace('{slot}', String(id)));
  }
  const deadline = io.now() + budgetMs;
  const headers = { ...variant.headers, 'Content-Type': 'application/json' };
  for (const path of paths) {
    for (let tries = 1; ; tries++) {
      const res = io.post(`${variant.url}${path}`, '', { headers, timeoutMs: TIMEOUT_MS, name });
      if (res.status === 200) break;
      if (res.status === 404 || res.status === 501) return absent(`${route.method} ${path}`, res.status);
      if (!route.busy.includes(res.status))
        return { outcome: 'failed', detail: `${route.method} ${path} → ${res.status || res.error} ${brief(res.body)}`.trim() };
      if (io.now() + RETRY_PAUSE_MS > deadline)
        return { outcome: 'refused', detail: `${route.method} ${path} → ${res.status} ${tries} time(s), requests still running: ${brief(res.body)}` };
      io.sleep(RETRY_PAUSE_MS);
    }
  }
  return { outcome: 'reset', detail: route.slots !== undefined ? `${name} on ${paths.length} slot(s)` : name };
}
